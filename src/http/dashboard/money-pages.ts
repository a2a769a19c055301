// The program's Payouts and Webhooks pages, rendered from what src/app/dashboard gathered.
import type { SectionData } from '../../app/dashboard.js';
import { OUTBOUND_EVENT_TYPES, outboundBody } from '../../core/outbound-events.js';
import { COMMISSION_STATES, COMMISSION_STATE_WORDS, type PayoutMinimums } from '../../core/commission-ledger.js';
import { formatMoney, majorUnits } from '../../core/money.js';
import type { Currency } from '../../core/types.js';
import { minimumFields } from './forms.js';
import { type Html, field, html, raw } from './html.js';
import { dataTable } from './table.js';
import { minute as when } from '../views/components.js';

type Of<S extends SectionData['section']> = Extract<SectionData, { section: S }>;

export interface MoneyView {
  programId: number;
  base: string;
  fieldErrors: Record<string, string>;
  /** The signed-in role may see partners' payout details and emails (a viewer may not). */
  people: boolean;
  /** A webhook secret to show once (just created or rotated). */
  newSecret?: { endpointId: number; secret: string } | null;
}

/** "awaiting approval" -> "Awaiting approval". */
const sentence = (words: string) => words.charAt(0).toUpperCase() + words.slice(1);


const SIGNAL_WORDS: Record<string, string> = {
  self_referral: 'the partner bought through their own link',
  fast_signup_same_ip: 'signed up seconds after the click, from its IP',
  many_leads_same_ip: 'many signups from one IP',
  referred_by_another_partner: 'the customer was referred by another partner first',
};

/** "$50.00, ₫500,000, KWD 5.000" or "none set": each currency on its own, in the order of its code. */
const minimumsInWords = (minimums: PayoutMinimums): string =>
  (Object.keys(minimums) as Currency[]).sort().filter((c) => minimums[c] !== undefined).map((c) => formatMoney(minimums[c]!, c)).join(', ') || 'none set';

export function payoutsSection(view: MoneyView, data: Of<'payouts'>): Html {
  const { base } = view;
  const fe = view.fieldErrors;
  const money = (cents: number, currency: string) => formatMoney(cents, currency as 'USD');
  // A Stripe transfer in flight stays in view, with the one action that finishes it.
  const open = data.payouts.filter((p) => p.status === 'pending' || p.status === 'processing');
  const batches = [...new Set(data.payouts.filter((p) => p.status !== 'canceled').map((p) => p.batchId))].slice(0, 10);
  const settings = data.payoutSettings;
  return html`<section id="owed"><h2>Owed to partners</h2>
${data.balances.length === 0 ? html`<p>No commissions yet.</p>` : dataTable(
  ['Partner', 'Currency', 'Awaiting approval (and held)', 'Owed (approved)', 'In open payouts', 'Paid', 'Paid by'],
  data.balances.map((b) => [b.partnerName, b.currency, money(b.pendingCents, b.currency), html`<strong>${money(b.approvedCents, b.currency)}</strong>`, money(b.inPayoutCents, b.currency), money(b.paidCents, b.currency),
    !view.people ? html`<span class="muted">hidden for your role</span>` : b.payoutMethod ? `${b.payoutMethod}: ${b.payoutReference}` : html`<span class="muted">not set</span>`]),
)}
<form method="post" action="${base}/payouts/run">${fe.payout_run ? html`<p class="error" role="alert">${fe.payout_run}</p>` : ''}<div><button type="submit">Run payout</button></div>
<p class="muted">Pays every partner's approved balance per currency at or above that currency's minimum (${minimumsInWords(settings.payoutMinimumsCents)}), net of clawbacks.</p></form></section>
<section id="open-payouts"><h2>Open payouts</h2>
${open.length === 0 ? html`<p>No payout waits to be paid.</p>` : dataTable(
  ['Payout', 'Partner', 'Amount', 'Pay to', 'Mark paid', ''],
  open.map((p) => [`${p.id} (batch ${p.batchId})`, p.partnerName, money(p.amountCents, p.currency), !view.people ? 'hidden for your role' : p.payoutMethod ? `${p.payoutMethod}: ${p.payoutReference}` : (p.partnerEmail ?? ''),
    p.status === 'processing' ? html`<p>A Stripe transfer is under way: pay it through Stripe again to finish (the same transfer, never a second one).</p>` : html`<form method="post" action="${base}/payouts/${p.id}/paid" class="inline">${field(`reference_${p.id}`, `Payment reference for payout ${p.id}`, '', fe)}<button type="submit">Mark payout ${p.id} paid</button></form>`,
    html`${p.payoutMethod === 'stripe' ? html`<form method="post" action="${base}/payouts/${p.id}/stripe-transfer" class="inline"><button type="submit">Pay payout ${p.id} through Stripe</button></form>` : ''}
${p.status === 'processing' ? '' : html`<form method="post" action="${base}/payouts/${p.id}/cancel" class="inline"><button type="submit">Cancel payout ${p.id}</button></form>`}`]),
)}
${batches.length ? html`<h3>Exports</h3><ul>${batches.map((b) => html`<li>Batch ${b}: <a href="${base}/payouts/batches/${b}/export.csv?format=generic">CSV</a> · <a href="${base}/payouts/batches/${b}/export.csv?format=paypal">PayPal Payouts</a> · <a href="${base}/payouts/batches/${b}/export.csv?format=wise">Wise batch</a></li>`)}</ul>` : ''}
</section>
<section id="commissions"><h2>Commissions: ${sentence(COMMISSION_STATE_WORDS[data.stage])}</h2>
<nav class="tabs" aria-label="Commission states">${COMMISSION_STATES.filter((s) => s !== 'moved').map((s) => html`<a href="${base}/payouts?stage=${s}" ${s === data.stage ? raw('aria-current="page"') : ''}>${sentence(COMMISSION_STATE_WORDS[s])}</a>`)}</nav>
${data.commissions.length === 0 ? html`<p>None.</p>` : html`${dataTable(['Commission', 'Partner', 'Amount', 'Sale', 'Created', ''], data.commissions.map((c) => {
  const net = c.earnedCents;
  const review = (verb: string, label: string) =>
    html`<form method="post" action="${base}/commissions/${c.id}/${verb}?stage=${data.stage}" class="inline">${field(`${verb}_reason_${c.id}`, `Reason to ${label.toLowerCase()} ${c.id}`, '', fe)}<button type="submit">${label} ${c.id}</button></form>`;
  const action =
    c.stage === 'held'
      ? html`<p>Held: ${c.holdReasons.map((r) => SIGNAL_WORDS[r] ?? r).join('; ')}.</p>${review('release', 'Release')}${review('reject', 'Reject')}`
      : c.state === 'pending'
      ? html`<form method="post" action="${base}/commissions/${c.id}/approve?stage=${data.stage}" class="inline">${field(`approve_reason_${c.id}`, `Reason to approve ${c.id}`, '', fe)}<button type="submit">Approve ${c.id}</button></form>`
      : c.state === 'approved'
        ? html`<form method="post" action="${base}/commissions/${c.id}/unapprove?stage=${data.stage}" class="inline">${field(`unapprove_reason_${c.id}`, `Reason to take back ${c.id}`, '', fe)}<button type="submit">Take back ${c.id}</button></form>`
        : html`<span class="muted">${c.state === 'in_payout' ? `in payout ${c.payoutId}` : COMMISSION_STATE_WORDS[c.state]}</span>`;
  const pick = c.state === 'pending' || c.stage === 'held' ? html`<input type="checkbox" name="commission_ids" value="${c.id}" form="bulk-commissions" aria-label="Select commission ${c.id}"> ` : '';
  return [html`${pick}${c.id}`, c.partnerName ?? '', html`${money(net, c.currency)}${c.deductedCents ? html` <span class="muted">(of ${money(c.amountCents, c.currency)})</span>` : ''}`, html`<code>${c.transactionId}</code>${c.test ? ' (test)' : ''}`, `${when(c.createdAt)} UTC`, action];
}))}
${data.stage === 'pending' || data.stage === 'held' ? html`<form id="bulk-commissions" method="post" action="${base}/commissions/bulk" novalidate><fieldset class="bulk"><legend>With the selected commissions</legend>
<input type="hidden" name="stage" value="${data.stage}">
<label for="bulk_action">Action</label><select id="bulk_action" name="bulk_action">${(data.stage === 'held' ? ['release', 'reject'] : ['approve']).map((a) => html`<option value="${a}">${sentence(a)}</option>`)}</select>
${field('bulk_reason', 'Reason (one for the batch, kept in the ledger)', '', fe)}
<label class="check"><input type="checkbox" name="all_matching" value="on"> Every ${COMMISSION_STATE_WORDS[data.stage]} commission, not only the selected</label>
<div><button type="submit">Apply to the selected commissions</button></div></fieldset></form>` : ''}`}</section>
<section id="payout-settings"><h2>Payout and fraud settings</h2><form method="post" action="${base}/payouts/settings" novalidate>
${field('hold_days', 'Hold period in days (a commission is approved after it; longer than your refund window)', String(settings.holdDays), fe, 'inputmode="numeric"')}
${minimumFields('payout_minimum_', settings.payoutMinimumsCents, fe)}
${field('fraud_min_signup_seconds', 'Hold when the signup comes this many seconds or less after the click, from its IP', String(settings.fraud.minSignupSeconds), fe, 'inputmode="numeric"')}
${field('fraud_max_leads_per_ip', 'Hold when one IP signs up more than this many times…', String(settings.fraud.maxLeadsPerIp), fe, 'inputmode="numeric"')}
${field('fraud_ip_window_minutes', '…within this many minutes', String(settings.fraud.ipWindowMinutes), fe, 'inputmode="numeric"')}
<label class="check"><input type="checkbox" name="partners_can_create_links" value="on" ${settings.partnersCanCreateLinks ? raw('checked') : ''}> Partners may create their own links in the partner portal</label>
${field('partner_link_limit', 'At most this many links per partner when they make their own', String(settings.partnerLinkLimit), fe, 'inputmode="numeric"')}
<div><button type="submit">Save payout settings</button></div></form></section>`;
}

export function webhooksSection(view: MoneyView, data: Of<'webhooks'>): Html {
  const { base } = view;
  const fe = view.fieldErrors;
  return html`${view.newSecret ? html`<section aria-labelledby="new-secret"><h2 id="new-secret">Signing secret of endpoint ${view.newSecret.endpointId}</h2><p>Copy it now: it is shown only once. Verify each request with it (Standard Webhooks).</p><p class="key" id="new-secret-value">${view.newSecret.secret}</p></section>` : ''}
<section id="endpoints"><h2>Your endpoints</h2>
${data.endpoints.length === 0 ? html`<p>No endpoint yet: Affix tells your systems of leads, sales, commissions, refunds and payouts when you add one.</p>` : ''}
${data.endpoints.map(({ endpoint: e, deliveries }) => html`<article><h3><code>${e.url}</code></h3>
${e.enabled ? '' : html`<p class="error" role="alert">Turned off${e.disabledAt ? ` on ${when(e.disabledAt)} UTC` : ''}: ${e.disabledReason ?? ''}</p>`}
<p>${e.eventTypes.join(', ')} · ${e.delivered} delivered, ${e.pending} pending, ${e.failed} failed</p>
<form method="post" action="${base}/webhooks/${e.id}/toggle" class="inline"><input type="hidden" name="enabled" value="${e.enabled ? 'false' : 'true'}"><button type="submit">Turn ${e.enabled ? 'off' : 'on'} endpoint ${e.id}</button></form>
<form method="post" action="${base}/webhooks/${e.id}/rotate" class="inline"><button type="submit">Rotate secret of endpoint ${e.id}</button></form>
${deliveries.length === 0 ? '' : dataTable(
  ['Event', 'Status', 'Attempts', 'Last answer', ''],
  deliveries.map((d) => [html`${d.type}<br><code>${d.messageId}</code><details><summary>Request body</summary><pre>${outboundBody(d, d.messageCreatedAt)}</pre></details>`,
    `${d.status}${d.nextAttemptAt && d.status === 'pending' ? ` (next ${when(d.nextAttemptAt)})` : ''}`, d.attempts, `${d.lastStatusCode ?? ''} ${d.lastExcerpt ?? ''}${d.lastDurationMs !== null ? ` · ${d.lastDurationMs} ms` : ''}`,
    html`<form method="post" action="${base}/webhooks/deliveries/${d.deliveryId}/replay" class="inline"><button type="submit">Replay ${d.deliveryId}</button></form>`]),
)}</article>`)}
</section>
<section id="new-endpoint"><h2>Add an endpoint</h2><form method="post" action="${base}/webhooks" novalidate>
${field('url', 'URL (https)', '', fe, 'type="url"')}
<fieldset><legend>Events</legend>${OUTBOUND_EVENT_TYPES.map((t) => html`<label class="check"><input type="checkbox" name="event_${t}" value="on" checked> ${t}</label>`)}
${fe.event_types ? html`<p class="error" id="event_types-error">${fe.event_types}</p>` : ''}</fieldset>
<div><button type="submit">Add endpoint</button></div></form></section>`;
}

/** Discount codes that attribute sales to a partner (the fifth step, promo_code). */
export function promoCodesSection(view: MoneyView, data: Of<'links'>): Html {
  const { base } = view;
  const fe = view.fieldErrors;
  const partners = [...new Map(data.partners.map((l) => [l.partner_id, l.name])).entries()];
  return html`<section id="promo-codes"><h2>Promo codes</h2>
<p class="muted">A Stripe checkout or invoice with one of these codes, or a sale reported with <code>promo_code</code>, is the partner's when no click, lead or known customer claims it.</p>
${data.promoCodes.length === 0 ? html`<p>No promo codes yet.</p>` : dataTable(
  ['Partner', 'Code', 'Stripe', 'Sales', ''],
  data.promoCodes.map((p) => [p.partnerName, p.code ?? '', [p.stripePromotionCodeId, p.stripeCouponId].filter(Boolean).join(' · '), p.sales,
    html`<form method="post" action="${base}/promo-codes/${p.id}/toggle" class="inline"><input type="hidden" name="active" value="${p.active ? 'false' : 'true'}"><button type="submit">${p.active ? 'Deactivate' : 'Activate'} promo code ${p.id}</button></form>`]),
)}
${partners.length ? html`<form method="post" action="${base}/promo-codes" novalidate><label for="promo_partner">Partner</label><select id="promo_partner" name="partner_id">${partners.map(([pid, name]) => html`<option value="${pid}">${name}</option>`)}</select>
${field('code', 'Code customers type', '', fe)}${field('stripe_promotion_code_id', 'Stripe promotion code id (promo_…)', '', fe)}${field('stripe_coupon_id', 'Stripe coupon id', '', fe)}
<div><button type="submit">Add promo code</button></div></form>` : ''}</section>`;
}
