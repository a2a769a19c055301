// The partner portal's pages, rendered from src/app/partner-portal's overview. Same look and
// rules as the brand dashboard: server-rendered, native controls, errors beside their field.
import type { portalOverview } from '../../app/partner-portal.js';
import { COMMISSION_STATE_WORDS } from '../../core/commission-ledger.js';
import { formatMoney } from '../../core/money.js';
import { referralUrl } from '../../core/programs.js';
import type { Currency } from '../../core/types.js';
import { type Html, errorSummary, field, html } from '../dashboard/html.js';
import { dataTable } from '../dashboard/table.js';

type Overview = Awaited<ReturnType<typeof portalOverview>>;

const money = (cents: number, currency: string) => formatMoney(cents, currency as Currency);
const day = (date: Date | null) => (date ? new Date(date).toISOString().slice(0, 10) : '');

export function signInPage(error: string | null, email = ''): Html {
  return html`<section><form method="post" action="/portal/login" novalidate>
${error ? html`<p class="error" role="alert">${error}</p>` : ''}
<label for="email">Email</label><input id="email" name="email" type="email" value="${email}" autocomplete="email" autofocus>
<div><button type="submit">Email me a sign-in link</button></div></form>
<p class="muted">For partners a brand invited. The link works once, within 15 minutes.</p></section>`;
}

export const linkSentPage = (): Html =>
  html`<section><p role="status">If this address belongs to an invited partner, a sign-in link is on its way. Check your mail.</p><p><a href="/portal/login">Back</a></p></section>`;

export const confirmSignInPage = (token: string): Html =>
  html`<section><form method="post" action="/portal/auth"><input type="hidden" name="token" value="${token}"><p>Sign in to your partner portal?</p><div><button type="submit">Sign in</button></div></form></section>`;

export function overviewPage(data: Overview, fieldErrors: Record<string, string>): Html {
  if (data.partners.length === 0) return html`<section><p>No program has invited this address yet.</p></section>`;
  return html`${errorSummary(fieldErrors)}<section id="balances"><h2>Your balance</h2>
${data.balances.length === 0 ? html`<p>No commissions yet.</p>` : dataTable(['Program', 'Currency', 'Awaiting approval', 'Approved (owed to you)', 'Paid'],
  data.balances.map((b) => [programOf(data, b.partnerId), b.currency, money(b.pendingCents, b.currency), html`<strong>${money(b.approvedCents, b.currency)}</strong>`, money(b.paidCents, b.currency)]))}</section>
${data.partners.map((p) => {
  const funnel = data.funnel.find((f) => f.partnerId === p.partnerId) ?? { clicks: 0, leads: 0, sales: 0 };
  const links = data.links.filter((l) => l.partnerId === p.partnerId);
  const commissions = data.commissions.filter((c) => c.partnerId === p.partnerId);
  const payouts = data.payouts.filter((x) => x.partnerId === p.partnerId);
  return html`<section id="program-${p.partnerId}"><h2>${p.programName}</h2>
<p>Your commission: <strong>${p.commission}</strong>, for each customer you refer.</p>
<p>${funnel.clicks} clicks · ${funnel.leads} signups · ${funnel.sales} sales</p>
<h3>Your links</h3>${links.length === 0 ? html`<p>No links yet.</p>` : html`<ul>${links.map((l) => html`<li><code>${referralUrl(p.domain, l.shortLink)}</code> ${l.enabled ? '' : '(turned off)'}
<button type="button" data-copy="${referralUrl(p.domain, l.shortLink)}" aria-label="Copy link ${l.shortLink}">Copy</button></li>`)}</ul>`}
${p.canCreateLinks ? html`<form method="post" action="/portal/partners/${p.partnerId}/links" novalidate>${field(`short_link_${p.partnerId}`, 'New link code (empty = random)', '', fieldErrors)}<div><button type="submit">Create link for ${p.programName}</button></div></form>` : ''}
<h3>Commissions</h3>${commissions.length === 0 ? html`<p>None yet.</p>` : dataTable(['State', 'Count', 'Amount'], commissions.map((c) => [COMMISSION_STATE_WORDS[c.state], c.count, money(c.cents, c.currency)]))}
<h3>Payouts</h3>${payouts.length === 0 ? html`<p>None yet.</p>` : dataTable(['Payout', 'Amount', 'State', 'Paid on'], payouts.map((x) => [x.id, money(x.amountCents, x.currency), x.status === 'pending' || x.status === 'processing' ? 'on its way' : x.status, day(x.paidAt)]))}
<h3>How you are paid</h3><form method="post" action="/portal/partners/${p.partnerId}/payout-details" novalidate>
<label for="payout_method_${p.partnerId}">Method</label><select id="payout_method_${p.partnerId}" name="payout_method">
${['paypal', 'wise', 'bank_transfer', 'stripe'].map((m) => html`<option value="${m}" ${m === p.payoutMethod ? html`selected` : ''}>${m.replace('_', ' ')}</option>`)}</select>
${field(`payout_reference_${p.partnerId}`, 'PayPal or Wise email, IBAN, or Stripe account id', p.payoutReference ?? '', fieldErrors)}
<div><button type="submit">Save payout details for ${p.programName}</button></div></form></section>`;
})}`;
}

const programOf = (data: Overview, partnerId: number) => data.partners.find((p) => p.partnerId === partnerId)?.programName ?? '';
