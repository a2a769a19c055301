// The portal's "Get paid with Stripe" page: where the partner's Stripe Express account stands,
// what Stripe still needs (in words), and the button that sends them to Stripe's onboarding.
import type { expressAccountView } from '../../app/money/partner-stripe-accounts.js';
import { expressPaths } from '../../app/money/partner-stripe-accounts.js';
import { COUNTRY_CODES, countryName } from '../../core/payout-statements.js';
import { disabledInWords, expressStage, requirementsInWords } from '../../core/stripe-express.js';
import { type Html, errorSummary, html, raw } from '../kit/html.js';

type View = Awaited<ReturnType<typeof expressAccountView>>;

const COUNTRIES = COUNTRY_CODES.map((code) => [code, countryName(code)] as const).sort((a, b) => a[1].localeCompare(b[1]));

const STAGE_WORDS = {
  not_connected: 'Not connected',
  needs_info: 'Stripe needs more information',
  in_review: 'Stripe is checking your details',
  connected: 'Connected: payouts go to your Stripe account',
  rejected: 'Stripe declined the account',
} as const;

/** One line for the program page's payout details: the state and where to act. */
export function stripeExpressSummary(view: { offered: boolean; account: View['account'] }, partnerId: number): Html {
  if (!view.offered) return html``;
  const stage = expressStage(view.account);
  const page = expressPaths(partnerId).page;
  return html`<p id="stripe-express-summary">Stripe: <strong>${STAGE_WORDS[stage]}</strong>. <a href="${page}">${stage === 'not_connected' ? 'Connect with Stripe' : 'See your Stripe account'}</a></p>`;
}

export function stripeExpressPage(view: View, fieldErrors: Record<string, string>, typedCountry?: string): Html {
  const { partner, account } = view;
  const paths = expressPaths(partner.partnerId);
  const back = html`<p><a href="/portal/programs/${partner.partnerId}#payout-details">Back to ${partner.programName}</a></p>`;
  if (!view.offered) return html`<section id="stripe-express"><h2>Your Stripe account for ${partner.programName}</h2><p>${partner.programName} does not pay through Stripe on this server. Choose another way to be paid.</p>${back}</section>`;
  const stage = expressStage(account);
  const status = html`<p id="stripe-status" class="${stage === 'connected' ? 'ok' : stage === 'not_connected' ? '' : 'unknown'}"><strong>${STAGE_WORDS[stage]}</strong></p>`;
  if (!account) {
    const chosen = (typedCountry ?? view.suggestedCountry ?? '').toUpperCase();
    const countryError = fieldErrors.country;
    return html`${errorSummary(fieldErrors)}<section id="stripe-express"><h2>Your Stripe account for ${partner.programName}</h2>${status}
<p>${partner.programName} can pay your commissions straight into a Stripe account of your own. Stripe asks who you are and where to send the money; it takes a few minutes, and Stripe keeps those details, not ${partner.programName}.</p>
<form method="post" action="${paths.connect}" novalidate>
<label for="country">Country you live in (or where your business is registered)</label>
<select id="country" name="country" autocomplete="country" ${countryError ? raw('aria-invalid="true" aria-describedby="country-error"') : ''}>
<option value="">Choose a country</option>
${COUNTRIES.map(([code, name]) => html`<option value="${code}" ${code === chosen ? raw('selected') : ''}>${name}</option>`)}</select>
${countryError ? html`<p class="error" id="country-error">${countryError}</p>` : ''}
<p class="muted">Stripe opens the account in this country; it cannot be changed later.</p>
<div><button type="submit">Connect with Stripe</button></div></form>${back}</section>`;
  }
  const needs = requirementsInWords([...account.pastDue, ...account.currentlyDue.filter((r) => !account.pastDue.includes(r))]);
  const why = disabledInWords(account.disabledReason);
  return html`${errorSummary(fieldErrors)}<section id="stripe-express"><h2>Your Stripe account for ${partner.programName}</h2>${status}
<dl class="numbers"><div><dt>Details sent to Stripe</dt><dd>${account.detailsSubmitted ? 'Yes' : 'Not yet'}</dd></div><div><dt>Payouts</dt><dd>${account.payoutsEnabled ? 'Enabled' : 'Not yet enabled'}</dd></div></dl>
<p class="muted">Stripe account <code>${account.stripeAccountId}</code>, opened in ${countryName(account.country)}.</p>
${why && stage !== 'connected' ? html`<p>${why}</p>` : ''}
${needs.length ? html`<h3 id="stripe-needs-title">What Stripe still needs</h3><ul id="stripe-needs" aria-labelledby="stripe-needs-title">${needs.map((need) => html`<li>${need}</li>`)}</ul>` : ''}
${stage === 'connected'
  ? html`<p>Your next payouts from ${partner.programName} are sent to this account by Stripe transfer.</p>`
  : stage === 'rejected'
  ? ''
  : html`<p>${stage === 'in_review' ? 'Nothing more to do for now: this page changes when Stripe has checked your details.' : 'Until Stripe has what it needs, payouts wait: your balance stays yours.'}</p>
<form method="post" action="${paths.connect}"><div><button type="submit">${account.detailsSubmitted ? 'Update your details on Stripe' : 'Continue on Stripe'}</button></div></form>`}
${back}</section>`;
}
