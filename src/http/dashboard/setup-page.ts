// The program's set-up page: the tracker snippet, the server lines, the Stripe endpoint and its
// events, test events that show what Affix recorded; and readiness in words, each step linking to
// where it is done (the overview shows the same list, folded away once every step is seen).
import type { SectionData } from '../../app/programs/dashboard-pages.js';
import type { TestEventOutcome } from '../../app/programs/setup-tests.js';
import { GATE_ORDER, type GateName, ORIGINS_ACTION, type Readiness } from '../../core/readiness.js';
import { STRIPE_EVENTS_TO_SELECT } from '../../core/stripe/event-types.js';
import { type Html, html, raw } from '../kit/html.js';

type SetupData = Extract<SectionData, { section: 'setup' }>;

const STEPS: Record<GateName, { done: string; todo: string; where: string; whereWords: string }> = {
  api_key: { done: 'Your backend has an API key.', todo: 'Create an API key for your backend.', where: 'keys', whereWords: 'API keys' },
  referral_link: { done: 'A partner has a working referral link.', todo: 'Give a partner a referral link.', where: 'links', whereWords: 'Links' },
  allowed_origins: { done: 'Your site may send clicks from the browser.', todo: "Allow your site's address (like https://www.example.com) to send clicks.", where: 'settings', whereWords: 'Settings' },
  click_tracked: { done: 'A click has been recorded.', todo: 'Record a click: put the tracker on your site and open it through a referral link.', where: 'setup#tracker', whereWords: 'the tracker snippet' },
  lead_tracked: { done: 'A signup has been recorded.', todo: 'Record a signup: call affix.signup() in the browser, or trackLead from your server.', where: 'setup#server', whereWords: 'the server lines' },
  sale_tracked: { done: 'A sale has been recorded.', todo: 'Record a sale: connect Stripe, Paddle or Lemon Squeezy, or call trackSale from your server.', where: 'setup#stripe', whereWords: 'Stripe set-up' },
};

/** Readiness as a checklist in words; each step not yet seen links to where it is done. */
export function readinessSteps(programId: number, readiness: Readiness): Html {
  const base = `/dashboard/programs/${programId}`;
  return html`<ol class="steps">${GATE_ORDER.map((name) => {
    const step = STEPS[name];
    const passed = readiness.gates[name].status === 'pass';
    // A refused origin is said as it happened: which site the tracker was refused from.
    const refused = name === 'allowed_origins' && !passed && readiness.gates[name].next_action !== ORIGINS_ACTION ? readiness.gates[name].next_action : null;
    return html`<li class="${passed ? 'pass' : 'todo'}"><span class="visually-hidden">${passed ? 'Done: ' : 'To do: '}</span><span aria-hidden="true">${passed ? '✓' : '○'}</span> ${passed ? step.done : html`${refused ?? step.todo} <a href="${base}/${step.where}">Go to ${step.whereWords}</a>`}</li>`;
  })}</ol>`;
}

/** The overview's part: the checklist while a step is missing, a folded line once all are seen. */
// The overview's figures all count its chosen period; what arrived in the last 24 hours (by the
// time Affix received it) is the set-up page's check that tracking works, not a figure beside them.
export function readinessSummary(programId: number, readiness: Readiness): Html {
  if (readiness.state === 'ready') {
    return html`<section id="readiness"><details><summary>Set-up complete: every step has been seen working.</summary>${readinessSteps(programId, readiness)}</details></section>`;
  }
  const left = GATE_ORDER.filter((name) => readiness.gates[name].status !== 'pass').length;
  return html`<section id="readiness"><h2>Set-up: ${left} ${left === 1 ? 'step' : 'steps'} to go</h2>${readinessSteps(programId, readiness)}
<p><a href="/dashboard/programs/${programId}/setup">Open the set-up page</a></p></section>`;
}

const copyable = (id: string, label: string, text: string): Html =>
  html`<pre id="${id}"><code>${text}</code></pre><button type="button" data-copy="${text}" aria-label="Copy ${label}">Copy</button>`;

export interface SetupView {
  programId: number;
  publicUrl: string;
  data: SetupData;
  outcome: TestEventOutcome | null;
  fieldErrors: Record<string, string>;
  /** The program's currency setting (src/core/currency.ts). */
  acceptAllCurrencies: boolean;
}

export function setupSection({ programId, publicUrl, data, outcome, fieldErrors, acceptAllCurrencies }: SetupView): Html {
  const base = `/dashboard/programs/${programId}`;
  const snippet = `<script src="${publicUrl}/js/affix-tracker.js" data-affix-program-id="${programId}" async></script>`;
  const server = `import { Affix } from '@affix/sdk/server';

const affix = new Affix({ apiKey: process.env.AFFIX_API_KEY, apiUrl: '${publicUrl}' });

// When a visitor signs up (the tracker keeps their click in the affix_click_id cookie):
await affix.trackLead({ customerExternalId: user.id, clickId: req.cookies.affix_click_id, email: user.email });

// When they pay, unless Stripe tells Affix (amount in cents; invoiceId makes it idempotent).
// The HTTP API names the same fields customer_key, click_id, amount_cents and transaction_id.
await affix.trackSale({ customerExternalId: user.id, amount: 4900, invoiceId: invoice.id });`;
  const endpoint = `${publicUrl}/api/v1/webhooks/stripe/${programId}`;
  return html`<section id="steps"><h2>${data.readiness.state === 'ready' ? 'Every step has been seen working' : 'Steps'}</h2>${readinessSteps(programId, data.readiness)}
<p class="muted" id="received-24h">Received in the last 24 hours: ${data.readiness.counts_24h.clicks} clicks, ${data.readiness.counts_24h.leads} leads, ${data.readiness.counts_24h.sales} sales.</p></section>
<section id="tracker"><h2>1. The tracker on every page</h2>
<p>Paste it into your site's <code>&lt;head&gt;</code>. It records the click of a visitor who comes through <code>?aff=CODE</code> and remembers it for the attribution window. Your site's address must be among the allowed origins (<a href="${base}/settings">Settings</a>).</p>
${copyable('tracker-snippet', 'the tracker snippet', snippet)}</section>
<section id="server"><h2>2. Signups and payments from your server</h2>
<p>Keep the key in the environment as <code>AFFIX_API_KEY</code> (create one on <a href="${base}/keys">API keys</a>). Until <code>@affix/sdk</code> is on a registry, install it from this repository: <code>npm pack ./packages/sdk</code>, then <code>npm install ./affix-sdk-0.1.0.tgz</code> in your app.</p>
${copyable('server-lines', 'the server lines', server)}</section>
<section id="stripe"><h2>3. Payments from Stripe, Paddle or Lemon Squeezy</h2>
<p>In Stripe, add a webhook endpoint with this URL:</p>${copyable('stripe-endpoint', 'the Stripe endpoint URL', endpoint)}
<p>Select these events:</p><ul class="events">${STRIPE_EVENTS_TO_SELECT.map((type) => html`<li><code>${type}</code></li>`)}</ul>
<p>Then save its signing secret on the <a href="${base}/stripe">Stripe page</a>: ${data.stripe.secret_set ? html`<span class="pass">saved</span>` : html`<span class="fail">not saved yet</span>`}.</p>
<p>Billing through Paddle or Lemon Squeezy instead? Their pages give the endpoint, the events and where the secret goes: <a href="${base}/paddle">Paddle</a>, <a href="${base}/lemonsqueezy">Lemon Squeezy</a>.</p></section>
<section id="test"><h2>4. Send a test</h2>
<p>Test events go through the same rules as real ones, in test mode, on the test link of a test partner: they never earn a commission, never appear among your partners, exports, payouts or numbers, and show under Activity with “Events: test”. They prove the wiring here; the steps above are ticked by real traffic only.</p>
${outcome ? html`<div class="flash" role="status"><p>Sent a test ${outcome.kind === 'webhook' ? 'Stripe webhook' : outcome.kind}. Affix recorded:</p><ul>${outcome.recorded.map((line) => html`<li>${line}</li>`)}</ul>
<p>This proves the path works; it is test traffic, so the steps above wait for a real ${outcome.kind === 'click' ? 'click' : outcome.kind === 'lead' ? 'signup' : 'sale'}.</p>
<p><a href="${base}/${outcome.section === 'inbox' ? 'inbox' : 'activity?mode=test'}">See it in ${outcome.section === 'inbox' ? 'the webhook inbox' : 'Activity'}</a></p></div>` : ''}
${fieldErrors.test_webhook ? html`<p class="error" id="test_webhook" role="alert">${fieldErrors.test_webhook}</p>` : ''}
<form method="post" action="${base}/setup/test#test" class="test-buttons">
<button type="submit" name="kind" value="click">Send a test click</button>
<button type="submit" name="kind" value="lead">Send a test lead</button>
<button type="submit" name="kind" value="sale">Send a test sale</button>
<button type="submit" name="kind" value="webhook">Send a test Stripe webhook</button></form></section>
<section id="currencies"><h2>5. Currencies</h2>
<p>Sales in US dollars, euros and Vietnamese dong are always taken. Other currencies (pounds, yen, dinars…) are refused unless you take every currency: a sale in GBP is then recorded in GBP, commissions, minimums, payouts and exports stay in each currency, never added together and never converted.</p>
<form method="post" action="${base}/setup/currencies"><fieldset><legend>Take sales in</legend>
<label class="check"><input type="radio" name="currencies" value="contract" ${acceptAllCurrencies ? '' : raw('checked')}> USD, EUR and VND only (others are refused with “currency XXX is not supported”)</label>
<label class="check"><input type="radio" name="currencies" value="all" ${acceptAllCurrencies ? raw('checked') : ''}> Every ISO 4217 currency, each in its own minor unit (yen without decimals, dinars with three)</label>
${fieldErrors.currencies ? html`<p class="error" id="currencies-error" role="alert">${fieldErrors.currencies}</p>` : ''}
</fieldset><div><button type="submit">Save the currency setting</button></div></form></section>`;
}
