// The partner's referrals page (/portal/programs/:partnerId/referrals): clicks per day, the
// numbers per sub-ID, the customers they referred and each commission with the day it can be
// paid; long lists a page at a time, the same as CSV.
import type { portalReferrals } from '../../app/partners/referrals.js';
import { COMMISSION_STATE_WORDS } from '../../core/commission-ledger.js';
import { formatMoney } from '../../core/money.js';
import { type CustomerLabel, availableOn, commissionFor, customerShown, referralStatus } from '../../core/referrals.js';
import type { Currency } from '../../core/types.js';
import { barChart } from '../kit/charts.js';
import { type Html, html } from '../kit/html.js';
import { dataTable } from '../kit/table.js';
import { isoDay as day } from '../kit/components.js';

type Referrals = Awaited<ReturnType<typeof portalReferrals>>;

const money = (cents: number, currency: string) => formatMoney(cents, currency as Currency);
const STATUS_WORDS = { lead: 'lead', customer: 'customer', refunded: 'refunded' } as const;

/** The link to a program page's referrals, for the program page. */
export const referralsLink = (partnerId: number): Html =>
  html`<p><a href="/portal/programs/${partnerId}/referrals">Your referrals: customers, commissions and when they are paid, sub-IDs</a></p>`;

/** What the list's note says of its customers, as the brand chose to show them. */
const LABEL_NOTE: Record<CustomerLabel, string> = {
  masked_email: 'Emails are shown masked.',
  masked_key: 'Customers are shown by their masked id.',
  name: 'Customers are shown by the name the brand gave them (masked when it gave none).',
};

export function referralsPage(data: Referrals, query: Record<string, unknown>): Html {
  const base = `/portal/programs/${data.partner.partnerId}/referrals`;
  // A page link keeps the other list where it was.
  const pageLink = (name: 'customers_before' | 'commissions_before', id: number, anchor: string) => {
    const params = new URLSearchParams();
    for (const other of ['customers_before', 'commissions_before'] as const) if (other !== name && query[other]) params.set(other, String(query[other]));
    params.set(name, String(id));
    return `${base}?${params}#${anchor}`;
  };
  const days = data.daily.map((d, i) => {
    const iso = day(d.day);
    // Every fifth day named under its bar: 30 names would not fit a phone.
    return { label: iso, short: i % 5 === 0 ? iso.slice(5) : '', value: d.clicks, valueText: `${d.clicks} ${d.clicks === 1 ? 'click' : 'clicks'}` };
  });
  const totalClicks = data.daily.reduce((n, d) => n + d.clicks, 0);
  const csv = (name: string, what: string) => html`<p><a href="/portal/programs/${data.partner.partnerId}/${name}" download>Download ${what} (CSV)</a></p>`;
  return html`<p><a href="/portal/programs/${data.partner.partnerId}">Back to ${data.partner.programName}</a></p>
<section id="customers" class="compact"><h2>Customers you referred</h2>
<p class="muted">Leads signed up; customers have paid; refunded: every payment was refunded. ${LABEL_NOTE[data.label]}</p>
${data.customers.rows.length === 0 ? html`<p>${data.firstPage ? 'Nobody yet: share your link.' : 'No older customers.'}</p>` : dataTable(['Customer', 'First seen', 'Status', 'Sales', 'Bought', 'Your commission'], data.customers.rows.map((c) => [
  customerShown(c, data.label), day(c.firstSeen), STATUS_WORDS[referralStatus(c)], c.sales,
  c.money.map((m) => money(m.saleCents, m.currency)).join(', ') || '—', c.money.map((m) => money(m.earnedCents, m.currency)).join(', ') || '—',
]), { id: 'customer-table', caption: 'Customers you referred, newest first' })}
${data.customers.next ? html`<p><a href="${pageLink('customers_before', data.customers.next, 'customers')}">Older customers</a></p>` : ''}${csv('referrals.csv', 'all customers')}</section>
<section id="commissions" class="compact"><h2>Sales and commissions</h2>
<p class="muted">A commission can be paid from its “available on” day, once the brand approves it; a refund takes it back.</p>
${data.commissions.rows.length === 0 ? html`<p>${data.firstPage ? 'No sales yet.' : 'No older commissions.'}</p>` : dataTable(['Sale date', 'Customer', 'Sale', 'Commission', 'State', 'Available on', 'Paid on'], data.commissions.rows.map((c) => [
  day(c.saleAt), commissionFor(c, data.label), c.saleCents === null ? '—' : money(c.saleCents, c.currency), html`${money(c.earnedCents, c.currency)}${c.rewardWords ? html` <small class="muted why">${c.rewardWords}</small>` : ''}`, COMMISSION_STATE_WORDS[c.state],
  day(availableOn(c)) || '—', day(c.paidAt) || '—',
]), { id: 'commission-table', caption: 'Your commissions, newest first' })}
${data.commissions.next ? html`<p><a href="${pageLink('commissions_before', data.commissions.next, 'commissions')}">Older commissions</a></p>` : ''}${csv('commissions.csv', 'all commissions')}</section>
<section id="sub-ids" class="compact"><h2>By sub-ID</h2><p class="muted">The sub-ID you put in a link from the link builder, for clicks since ${day(data.subIds.since)}: the people those clicks brought and their sales.</p>
${data.subIds.rows.length === 0 ? html`<p>No clicks with a sub-ID yet. Make a link with one under “Link to any page”.</p>` : html`${dataTable(['Sub-ID', 'Clicks', 'Leads', 'Sales'], data.subIds.rows.map((s) => [html`<code>${s.subId}</code>`, s.clicks, s.leads, s.sales]), { id: 'sub-id-table', caption: 'Clicks, leads and sales per sub-ID' })}${csv('sub-ids.csv', 'every sub-ID')}`}</section>
<section id="daily-clicks"><h2>Clicks per day</h2><p>${totalClicks} ${totalClicks === 1 ? 'click' : 'clicks'} in the last 30 days (UTC days).</p>
${barChart('clicks-per-day', 'Clicks per day, last 30 days', days, (value) => String(Math.round(value)))}</section>`;
}
