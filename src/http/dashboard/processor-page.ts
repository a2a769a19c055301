// The Paddle and Lemon Squeezy pages of a program: the endpoint to add, the events to select,
// where the signing secret goes, and how the endpoint is doing (docs/paddle.md, docs/lemonsqueezy.md).
import type { processorStatus } from '../../app/inbox/processor-settings.js';
import { PROCESSOR_NAMES } from '../../core/processor-names.js';
import { type Html, field, html } from '../kit/html.js';
import { humanDate } from '../kit/components.js';

type Endpoint = Awaited<ReturnType<typeof processorStatus>>;

const WHERE: Record<Endpoint['processor'], { where: string; secret: string; docs: string }> = {
  paddle: { where: 'Paddle → Developer tools → Notifications → New destination', secret: "the destination's secret key", docs: 'docs/paddle.md' },
  lemonsqueezy: { where: 'Lemon Squeezy → Settings → Webhooks → add a webhook', secret: 'the signing secret you typed there', docs: 'docs/lemonsqueezy.md' },
};

const at = (value: Date) => `${humanDate(new Date(value))} ${new Date(value).toISOString().slice(11, 16)} UTC`;

/** `base`: the program's own URL (its sections hang under it). */
export function processorSection({ programId, base, endpoint, fieldErrors }: { programId: number; base: string; endpoint: Endpoint; fieldErrors: Record<string, string> }): Html {
  const name = PROCESSOR_NAMES[endpoint.processor];
  const where = WHERE[endpoint.processor];
  const steps = [
    { done: endpoint.secret_set, words: 'Signing secret saved' },
    { done: endpoint.last_event_at !== null, words: `First event received from ${name}` },
  ];
  return html`<section id="${endpoint.processor}" aria-labelledby="${endpoint.processor}-title"><h2 id="${endpoint.processor}-title">${name}</h2>
<ol class="steps">${steps.map((s) => html`<li class="${s.done ? 'ok' : 'muted'}">${s.done ? '✓ ' : ''}${s.words}${s.done ? '' : ': not yet'}</li>`)}</ol>
<h3>1. Add the endpoint in ${name}</h3>
<p>In ${where.where}, add this URL:</p>
<p><code id="${endpoint.processor}-url">${endpoint.webhook_url}</code> <button type="button" data-copy="${endpoint.webhook_url}" aria-label="Copy the ${name} endpoint URL">Copy</button></p>
<p>Select these events:</p>
<ul>${endpoint.events.map((event) => html`<li><code>${event}</code></li>`)}</ul>
<h3>2. Save its signing secret here</h3>
<p>Paste ${where.secret}. It is stored encrypted.</p>
<form method="post" action="${base}/processors/${endpoint.processor}">
${field('webhook_secret', `Signing secret${endpoint.secret_set ? ' (saved; enter a new one to replace it)' : ''}`, '', fieldErrors, 'autocomplete="off" class="long"')}
${endpoint.processor === 'paddle' ? html`<div><label><input type="checkbox" name="sandbox" value="true" ${endpoint.sandbox ? 'checked' : ''}> This is a Paddle sandbox account (its payments are test sales)</label></div>` : ''}
<div><button type="submit">Save ${name} settings</button></div></form>
<h3>3. Carry the referral in the checkout</h3>
<p>Pass <code>affix_click_id</code>, <code>affix_customer_key</code> and <code>program_id</code> (${programId}) as the checkout's custom data: ${where.docs} in the repository shows how.</p>
<p>Live check: ${endpoint.last_event_at ? html`<span class="ok">last event received ${at(endpoint.last_event_at)}, signature verified</span>` : html`<span class="muted">no event received yet</span>`}
${endpoint.last_signature_error_at ? html`<br><span class="fail">last signature failure ${at(endpoint.last_signature_error_at)}: ${endpoint.last_signature_error ?? ''}</span>` : ''}</p></section>`;
}
