// The partner portal's pages, rendered from src/app/partner-portal's overview. Same look and
// rules as the brand dashboard: server-rendered, native controls, errors beside their field.
import type { portalOverview, portalProgram } from '../../app/partners/portal.js';
import { COMMISSION_STATE_WORDS } from '../../core/commission-ledger.js';
import { formatMoney } from '../../core/money.js';
import { shownLinkUrl } from '../../core/domains.js';
import type { Currency } from '../../core/types.js';
import { barChart } from '../kit/charts.js';
import { type Html, errorSummary, field, html, raw } from '../kit/html.js';
import { dataTable, linkText } from '../kit/table.js';
import { isoDay as day } from '../kit/components.js';
import { referralsLink } from './referrals-page.js';
import { bountiesLink } from './bounty-page.js';
import { PAYOUT_METHOD_WORDS, payoutStateWords } from './payout-pages.js';

type Overview = Awaited<ReturnType<typeof portalOverview>>;

const money = (cents: number, currency: string) => formatMoney(cents, currency as Currency);

export function signInPage(error: string | null, email = ''): Html {
  return html`<section><form method="post" action="/portal/login" novalidate>
${error ? html`<p class="error" role="alert">${error}</p>` : ''}
<label for="email">Email</label><input id="email" name="email" type="email" value="${email}" autocomplete="email" autofocus>
<div><button type="submit">Email me a sign-in link</button></div></form>
<p class="muted">For partners a brand invited. The link works once, within 15 minutes.</p></section>`;
}

/** The signed-in partner's header: their programs, who they are, sign out. */
export const portalHeader = (email: string): Html =>
  html`<a href="/portal">Your programs</a><span class="muted">${email}</span><form method="post" action="/portal/logout" class="inline"><button type="submit">Sign out</button></form>`;

export const linkSentPage = (): Html =>
  html`<section><p role="status">If this address belongs to an invited partner, a sign-in link is on its way. Check your mail.</p><p><a href="/portal/login">Back</a></p></section>`;

export const confirmSignInPage = (token: string): Html =>
  html`<section><form method="post" action="/portal/auth"><input type="hidden" name="token" value="${token}"><p>Sign in to your partner portal?</p><div><button type="submit">Sign in</button></div></form></section>`;

export function overviewPage(data: Overview, fieldErrors: Record<string, string>): Html {
  if (data.partners.length === 0) return html`<section><p>No program has invited this address yet.</p></section>`;
  return html`${errorSummary(fieldErrors)}<section id="balances"><h2>Your balance</h2>
${data.balances.length === 0 ? html`<p>No commissions yet.</p>` : dataTable(['Program', 'Currency', 'Awaiting approval', 'Approved (owed to you)', 'Paid'],
  data.balances.map((b) => [programOf(data, b.partnerId), b.currency, money(b.pendingCents, b.currency), html`<strong>${money(b.approvedCents, b.currency)}</strong>`, money(b.paidCents, b.currency)]))}</section>
<section id="programs"><h2>Your programs</h2><ul class="cards">${data.partners.map((p) => {
  const funnel = data.funnel.find((f) => f.partnerId === p.partnerId) ?? { clicks: 0, leads: 0, sales: 0 };
  return html`<li class="card" id="program-${p.partnerId}"><h3><a href="/portal/programs/${p.partnerId}">${p.programName}</a></h3>
<p>${p.commission}, for each customer you refer.</p>
<dl class="numbers"><div><dt>Clicks</dt><dd>${funnel.clicks}</dd></div><div><dt>Leads</dt><dd>${funnel.leads}</dd></div><div><dt>Sales</dt><dd>${funnel.sales}</dd></div></dl>
${p.payoutMethod ? '' : html`<p class="unknown">Choose how you are paid: <a href="/portal/programs/${p.partnerId}#payout-details">payout details</a></p>`}
<p><a href="/portal/programs/${p.partnerId}">Links, numbers, payouts and terms</a></p></li>`;
})}</ul></section>`;
}

type ProgramView = Awaited<ReturnType<typeof portalProgram>>;

export interface ProgramPageInput {
  data: ProgramView;
  fieldErrors: Record<string, string>;
  /** The link builder's answer: the link made, and its QR code. */
  built: { linkId: number; url: string; qr: string } | null;
  builderValues: Record<string, string>;
  /** Each link's QR code (SVG), by link id. */
  qr: Map<number, string>;
  /** What a refused form held. */
  typed?: Record<string, string>;
  /** Where the partner's Stripe Express account stands, with its page's link (none: not offered). */
  stripeSummary?: Html;
}

const MONTH_NAMES = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
/** "Nov 2026" (the table and tooltips); under a bar only "Nov". */
const monthWords = (month: string) => `${MONTH_NAMES[Number(month.slice(5, 7)) - 1]} ${month.slice(0, 4)}`;

/** The last 12 months as bars per currency, each month present even when nothing was earned. */
function earningsCharts(data: ProgramView): Html {
  const currencies = [...new Set(data.months.rows.map((r) => r.currency))];
  if (currencies.length === 0) return html`<p class="muted">Nothing earned in the last 12 months yet.</p>`;
  const months = Array.from({ length: 12 }, (_, i) => {
    const at = new Date(Date.UTC(data.months.since.getUTCFullYear(), data.months.since.getUTCMonth() + i, 1));
    return at.toISOString().slice(0, 7);
  });
  return html`${currencies.map((currency) => {
    const bars = months.map((month) => {
      const cents = data.months.rows.find((r) => r.month === month && r.currency === currency)?.cents ?? 0;
      return { label: monthWords(month), short: monthWords(month).slice(0, 3), value: cents, valueText: money(cents, currency) };
    });
    return barChart(`earnings-${currency}`, `Earned per month in ${currency}`, bars, (value) => money(Math.round(value), currency));
  })}`;
}

/** Lines of the brand's resources; each web address in them becomes a link. */
const resourceLines = (text: string): Html =>
  html`<ul>${text.split('\n').map((line) => line.trim()).filter(Boolean).map((line) =>
    html`<li>${line.split(/(https?:\/\/[^\s<>"]+)/).map((part, i) => (i % 2 === 1 ? html`<a href="${part}" rel="noopener noreferrer">${part}</a>` : part))}</li>`)}</ul>`;

export function programPage({ data, fieldErrors, built, builderValues, qr, typed, stripeSummary }: ProgramPageInput): Html {
  const p = data.partner;
  // A refused form shows what was typed, not what is stored.
  const method = typed?.payout_method ?? p.payoutMethod ?? '';
  const reference = typed?.[`payout_reference_${p.partnerId}`] ?? p.payoutReference ?? '';
  const base = `/portal/programs/${p.partnerId}`;
  const v = (name: string) => builderValues[name] ?? '';
  const linkOptions = data.links.map((l) => html`<option value="${l.linkId}" ${String(l.linkId) === v('link_id') ? html`selected` : ''}>${l.shortLink}</option>`);
  return html`${errorSummary(fieldErrors)}<section id="terms-summary"><p>Your commission: <strong>${p.commission}</strong>, for each customer you refer to <strong>${p.domain}</strong>.</p>
${data.balances.length === 0 ? html`<p class="muted">No commissions yet.</p>` : dataTable(['Currency', 'Awaiting approval', 'Approved (owed to you)', 'Paid'],
  data.balances.map((b) => [b.currency, money(b.pendingCents, b.currency), html`<strong>${money(b.approvedCents, b.currency)}</strong>`, money(b.paidCents, b.currency)]), { id: 'balance' })}</section>
${referralsLink(p.partnerId)}${bountiesLink(p.partnerId)}
<section id="links"><h2>Your links</h2>
${data.links.length === 0 ? html`<p>No links yet.</p>` : dataTable(['Link', 'Clicks', 'Leads', 'Sales', 'Commission', 'QR code'], data.links.map((l) => {
  const url = shownLinkUrl(p, l.shortLink);
  return [
    html`<code title="${url}">${linkText(url)}</code>${l.enabled ? '' : ' (turned off)'} <button type="button" data-copy="${url}" aria-label="Copy link ${l.shortLink}">Copy</button>`,
    l.clicks, l.leads, l.sales,
    l.earned.length ? l.earned.map((e) => money(e.cents, e.currency)).join(', ') : money(0, 'USD'),
    html`<details><summary>QR code of ${l.shortLink}</summary><div class="qr" role="img" aria-label="QR code for ${url}" data-link="${url}">${raw(qr.get(l.linkId) ?? '')}</div><a href="${base}/links/${l.linkId}/qr.svg" download>Download the QR code</a></details>`,
  ];
}), { id: 'link-numbers' })}
${p.canCreateLinks ? html`<form method="post" action="${base}/links" novalidate>${field(`short_link_${p.partnerId}`, 'New link code (empty = random)', '', fieldErrors)}<div><button type="submit">Create link</button></div></form>` : ''}</section>
${data.links.length ? html`<section id="builder"><h2>Link to any page</h2>
<p>Send people to a page of ${p.domain}; the sub-ID tells your placements apart, the UTM tags reach the brand's analytics. Every click counts for the link.</p>
<form method="get" action="${base}#builder" class="filter">
<div><label for="link_id">Link</label><select id="link_id" name="link_id">${linkOptions}</select></div>
${field('path', 'Page (like /pricing)', v('path'), fieldErrors)}
${field('sub_id', 'Sub-ID', v('sub_id'), fieldErrors)}
${field('utm_source', 'utm_source', v('utm_source'), fieldErrors)}
${field('utm_medium', 'utm_medium', v('utm_medium'), fieldErrors)}
${field('utm_campaign', 'utm_campaign', v('utm_campaign'), fieldErrors)}
<div><button type="submit">Make the link</button></div></form>
${built ? html`<div id="built" role="status"><p>Your link:</p><pre id="built-url"><code>${built.url}</code></pre><button type="button" data-copy="${built.url}" aria-label="Copy the link you made">Copy</button>
<div class="qr" role="img" aria-label="QR code for ${built.url}" data-link="${built.url}">${raw(built.qr)}</div></div>` : ''}</section>` : ''}
<section id="earnings"><h2>Earnings over time</h2>${earningsCharts(data)}
<h3>Commissions by state</h3>${data.commissions.length === 0 ? html`<p>None yet.</p>` : dataTable(['State', 'Count', 'Amount'], data.commissions.map((c) => [COMMISSION_STATE_WORDS[c.state], c.count, money(c.cents, c.currency)]), { id: 'commission-states' })}</section>
<section id="payouts"><h2>Payouts</h2>
${data.payouts.length === 0 ? html`<p>None yet.</p>` : dataTable(['Payout', 'Amount', 'State', 'Method', 'Reference', 'Paid on', 'Statement'], data.payouts.map((x) => [
  html`<a href="${base}/payouts/${x.id}">Payout ${x.id}</a> <span class="muted">(${x.commissions} ${x.commissions === 1 ? 'commission' : 'commissions'})</span>`, money(x.amountCents, x.currency),
  payoutStateWords(x.status), x.payoutMethod ? PAYOUT_METHOD_WORDS[x.payoutMethod] ?? x.payoutMethod : '—', x.reference ?? '', day(x.paidAt),
  html`<a href="${base}/payouts/${x.id}/statement">Statement ${x.id}</a> · <a href="${base}/payouts/${x.id}/statement.csv" download><span class="visually-hidden">Statement of payout ${x.id} as </span>CSV</a>`,
]), { id: 'payout-history' })}
<p><a href="/portal/invoice-details">Your invoice details</a> <span class="muted">(name, address, VAT or tax id on your statements; shared with the programs you choose)</span></p>
<p><a href="/portal/tax-details">Your tax details</a> <span class="muted">(legal name, address, TIN or foreign status, shared with the programs you choose: some brands need them before paying you more in a year)</span></p></section>
<section id="payout-details"><h2>How you are paid</h2>${stripeSummary ?? ''}<form method="post" action="${base}/payout-details" novalidate>
<label for="payout_method_${p.partnerId}">Method</label><select id="payout_method_${p.partnerId}" name="payout_method" ${fieldErrors[`payout_method_${p.partnerId}`] ? raw(`aria-invalid="true" aria-describedby="payout_method_${p.partnerId}-error"`) : ''}>
<option value="" ${method ? '' : html`selected`}>Choose how you are paid</option>
${['paypal', 'wise', 'bank_transfer', 'stripe'].map((m) => html`<option value="${m}" ${m === method ? html`selected` : ''}>${PAYOUT_METHOD_WORDS[m]}</option>`)}</select>
${fieldErrors[`payout_method_${p.partnerId}`] ? html`<p class="error" id="payout_method_${p.partnerId}-error">${fieldErrors[`payout_method_${p.partnerId}`]}</p>` : ''}
${field(`payout_reference_${p.partnerId}`, 'PayPal or Wise email, IBAN, or Stripe account id', reference, fieldErrors)}
<div><button type="submit">Save payout details</button></div></form></section>
<section id="terms"><h2>Program terms</h2>${data.program.termsText ? html`<p class="muted">Version ${data.program.termsVersion}</p><div class="terms"><pre>${data.program.termsText}</pre></div>` : html`<p class="muted">The brand has not published terms.</p>`}
${data.program.resources.trim() ? html`<h3>Resources</h3>${resourceLines(data.program.resources)}` : ''}</section>`;
}

const programOf = (data: Overview, partnerId: number) => data.partners.find((p) => p.partnerId === partnerId)?.programName ?? '';
