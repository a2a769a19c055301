// The program's Payouts and Webhooks pages, rendered from what src/app/dashboard gathered.
import type { SectionData } from '../../app/programs/dashboard-pages.js';
import { taxHeldSection, taxHeldSummary } from './tax-held.js';
import { OUTBOUND_EVENT_TYPES, outboundBody } from '../../core/outbound-events.js';
import { COMMISSION_STATES, COMMISSION_STATE_WORDS, type PayoutMinimums, noSaleWords, holdEndsAt } from '../../core/commission-ledger.js';
import { formatMoney, majorUnits } from '../../core/money.js';
import type { Currency } from '../../core/types.js';
import { minimumFields } from '../kit/forms.js';
import { type Html, field, html, raw } from '../kit/html.js';
import { dataTable, idCell } from '../kit/table.js';
import { plural, minute as when } from '../kit/components.js';
import { payThroughButtons, providerOutcome, providerSettingsSection } from './provider-payouts-page.js';

type Of<S extends SectionData['section']> = Extract<SectionData, { section: S }>;

export interface MoneyView {
  programId: number;
  now: Date;
  holdQuestion: HoldQuestion | null;
  /** What a refused form held. */
  formValues: Record<string, string>;
  base: string;
  fieldErrors: Record<string, string>;
  /** The signed-in role may see partners' payout details and emails (a viewer may not). */
  people: boolean;
  /** A webhook secret to show once (just created or rotated). */
  newSecret?: { endpointId: number; secret: string } | null;
  /** STRIPE_SECRET_KEY is set: a batch's Stripe payouts may be paid with one action. */
  stripeTransfers?: boolean;
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

/** A bulk approval of commissions some of which are still in their hold: what it would do, asked before. */
export interface HoldQuestion {
  count: number;
  inHold: number;
  pastHold: number;
  /** What all of them earn, and what the ones in their hold earn, in words. */
  allWords: string;
  inHoldWords: string;
  /** The form's fields, sent again with the answer. */
  fields: Record<string, string | string[]>;
}

/** "$430.00 and €80.00". */
const sumsInWords = (sums: { currency: string; cents: number }[]): string => sums.map((x) => formatMoney(x.cents, x.currency as Currency)).join(' and ');
const day = (at: Date) => at.toISOString().slice(0, 10);

/** The hold of one commission as its row says it. */
function holdCell(c: Of<'payouts'>['commissions'][number], holdDays: number, now: Date): Html {
  if (c.stage === 'held') return html`<span class="unknown">Held for review: ${c.holdReasons.map((r) => SIGNAL_WORDS[r] ?? r).join('; ')}</span>`;
  if (c.state !== 'pending') return html`<span class="muted">—</span>`;
  const ends = holdEndsAt(c.createdAt, c.holdDays ?? holdDays);
  if (!c.autoApprove) return html`Taken back: approve by hand`;
  if (ends.getTime() <= now.getTime()) return html`<span class="ok">Over</span> <span class="muted">(${day(ends)})</span>`;
  const days = Math.ceil((ends.getTime() - now.getTime()) / 86_400_000);
  return html`Until ${day(ends)} <span class="muted">(${plural(days, 'day')})</span>`;
}

export function payoutsSection(view: MoneyView, data: Of<'payouts'>): Html {
  const { base } = view;
  const fe = view.fieldErrors;
  const money = (cents: number, currency: string) => formatMoney(cents, currency as 'USD');
  // A Stripe transfer in flight stays in view, with the one action that finishes it.
  const open = data.payouts.filter((p) => p.status === 'pending' || p.status === 'processing');
  const sent = data.payouts.filter((p) => p.status === 'paid' || p.status === 'failed').slice(0, 20);
  // "Mark failed" asks the reason (a bounce code, "account closed"): the partner reads it in their mail.
  const failForm = (id: number) =>
    html`<form method="post" action="${base}/payouts/${id}/fail" class="inline">${field(`failure_reason_${id}`, `Why payout ${id} failed or came back`, '', fe)}<button type="submit">Mark payout ${id} failed</button></form>`;
  const batches = [...new Set(data.payouts.filter((p) => p.status !== 'canceled' && p.status !== 'failed').map((p) => p.batchId))].slice(0, 10);
  const settings = data.payoutSettings;
  const missing = data.missingDetails;
  const missingOwed = (() => {
    const sums = new Map<string, number>();
    for (const m of missing) for (const o of m.owed) sums.set(o.currency, (sums.get(o.currency) ?? 0) + o.cents);
    return [...sums].sort(([a], [b]) => a.localeCompare(b)).map(([currency, cents]) => ({ currency, cents }));
  })();
  const run = data.runBatch;
  return html`<section id="owed"><h2>Owed to partners</h2>
${run ? html`<div class="flash" id="run-summary"><strong>Batch ${run.batchId}:</strong> ${plural(run.totals.reduce((n, t) => n + t.count, 0), 'payout')}, ${sumsInWords(run.totals)}.${missing.length ? html` <strong>${plural(missing.length, 'partner')} not paid: no payout details.</strong> ${sumsInWords(missingOwed)} stays owed to them until they add them (<a href="#missing-details">remind them</a>).` : data.missingTaxDetails.length ? '' : ' Every partner owed was paid.'}${taxHeldSummary(data.missingTaxDetails)}</div>` : ''}
${data.balances.length === 0 ? html`<p>No commissions yet.</p>` : html`<div class="compact">${dataTable(
  ['Partner', 'Currency', 'Awaiting approval (and held)', 'Owed (approved)', 'In open payouts', 'Paid', 'Paid by'],
  data.balances.map((b) => [b.partnerName, b.currency, money(b.pendingCents, b.currency), html`<strong>${money(b.approvedCents, b.currency)}</strong>`, money(b.inPayoutCents, b.currency), money(b.paidCents, b.currency),
    !view.people ? html`<span class="muted">hidden for your role</span>` : b.payoutMethod && b.payoutReference ? `${b.payoutMethod}: ${b.payoutReference}` : html`<span class="fail">missing payout details</span>`]),
)}</div>`}
<form method="post" action="${base}/payouts/run">${fe.payout_run ? html`<p class="error" role="alert">${fe.payout_run}</p>` : ''}<div><button type="submit">Run payout</button></div>
<p class="muted">Pays every partner's approved balance per currency at or above that currency's minimum (${minimumsInWords(settings.payoutMinimumsCents)}), net of clawbacks, to the payout details they gave.${missing.length ? ` ${plural(missing.length, 'partner')} without payout details (${sumsInWords(missingOwed)}) will not be paid: their balance stays owed.` : ''} <a href="${base}/payouts/bounties">Bounties</a> too.</p></form></section>
${missing.length ? html`<section id="missing-details"><h2>Missing payout details</h2>
<p>${plural(missing.length, 'partner is', 'partners are')} owed ${sumsInWords(missingOwed)} but ${missing.length === 1 ? 'has' : 'have'} not said how to be paid. A payout run leaves them owed; a reminder mails them a link to add their details in the partner portal (one a day at most).</p>
<form method="post" action="${base}/payouts/remind" id="remind">${fe.remind ? html`<p class="error" role="alert">${fe.remind}</p>` : ''}
<div class="compact">${dataTable(['Partner', 'Owed', ''], missing.map((m) => [m.partnerName, sumsInWords(m.owed), html`<button type="submit" name="partner_id" value="${m.partnerId}">Remind ${m.partnerName}</button>`]))}</div>
${missing.length > 1 ? html`<div><button type="submit" name="partner_id" value="all">Remind all ${missing.length}</button></div>` : ''}</form></section>` : ''}
${taxHeldSection(base, data.missingTaxDetails, fe)}
<section id="open-payouts"><h2>Open payouts</h2>
${open.length === 0 ? html`<p>No payout waits to be paid.</p>` : dataTable(
  ['Payout', 'Partner', 'Amount', 'Pay to', 'Mark paid', ''],
  open.map((p) => [`${p.id} (batch ${p.batchId})`, p.partnerName, money(p.amountCents, p.currency), !view.people ? 'hidden for your role' : p.payoutMethod && p.payoutReference ? `${p.payoutMethod}: ${p.payoutReference}` : html`<span class="fail">missing payout details</span>`,
    p.status === 'processing' ? (data.providers.items.some((i) => i.payoutId === p.id) ? providerOutcome(p.id, data.providers) : html`<p>A Stripe transfer is under way: pay it through Stripe again to finish (the same transfer, never a second one).</p>`) : html`${providerOutcome(p.id, data.providers)}<form method="post" action="${base}/payouts/${p.id}/paid" class="inline">${field(`reference_${p.id}`, `Payment reference for payout ${p.id}`, '', fe)}<button type="submit">Mark payout ${p.id} paid</button></form>`,
    html`${p.payoutMethod === 'stripe' ? html`<form method="post" action="${base}/payouts/${p.id}/stripe-transfer" class="inline"><button type="submit">Pay payout ${p.id} through Stripe</button></form>` : ''}
${p.status === 'processing' ? failForm(p.id) : html`<form method="post" action="${base}/payouts/${p.id}/cancel" class="inline"><button type="submit">Cancel payout ${p.id}</button></form>`}`]),
)}
${batches.length ? html`<h3>Exports</h3><ul>${batches.map((b) => html`<li>Batch ${b}: <a href="${base}/payouts/batches/${b}/export.csv?format=generic">CSV</a> · <a href="${base}/payouts/batches/${b}/export.csv?format=paypal">PayPal Payouts</a> · <a href="${base}/payouts/batches/${b}/export.csv?format=wise">Wise batch</a>${payThroughButtons(base, b, data.payouts, data.providers, fe, view.stripeTransfers ?? false)}</li>`)}</ul>` : ''}
</section>
${sent.length ? html`<section id="sent-payouts"><h2>Sent payouts</h2>
<p class="muted">A payout that failed or came back (a bounced transfer, a returned PayPal item): mark it failed with the reason. Its balance is owed again, the next run pays it, and the partner is mailed to check their payout details.</p>
<div class="compact">${dataTable(
  ['Payout', 'Partner', 'Amount', 'Status', 'Statement', ''],
  sent.map((p) => [`${p.id} (batch ${p.batchId})`, p.partnerName, money(p.amountCents, p.currency), html`${p.status === 'failed' ? html`<span class="fail">failed</span>` : `paid${p.reference ? ` (${p.reference})` : ''}`}${providerOutcome(p.id, data.providers, p.status)}`,
    html`<a href="${base}/payouts/${p.id}/statement">Statement of payout ${p.id}</a> · <a href="${base}/payouts/${p.id}/statement.csv" download><span class="visually-hidden">Statement of payout ${p.id} as </span>CSV</a>`, p.status === 'paid' ? failForm(p.id) : '']),
)}</div></section>` : ''}
${commissionsSection(view, data)}
<section id="payout-settings"><details ${Object.keys(fe).some((k) => SETTINGS_FIELD.test(k) || /^(paypal|wise)_/.test(k)) ? raw('open') : ''}><summary><h2 class="inline">Payout and fraud settings</h2> <span class="muted">hold ${plural(settings.holdDays, 'day')}; minimums ${minimumsInWords(settings.payoutMinimumsCents)}</span></summary><form method="post" action="${base}/payouts/settings" novalidate>
${field('hold_days', 'Hold period in days (a commission is approved after it; longer than your refund window)', String(settings.holdDays), fe, 'inputmode="numeric"')}
${minimumFields('payout_minimum_', settings.payoutMinimumsCents, fe)}
${field('fraud_min_signup_seconds', 'Hold when the signup comes this many seconds or less after the click, from its IP', String(settings.fraud.minSignupSeconds), fe, 'inputmode="numeric"')}
${field('fraud_max_leads_per_ip', 'Hold when one IP signs up more than this many times…', String(settings.fraud.maxLeadsPerIp), fe, 'inputmode="numeric"')}
${field('fraud_ip_window_minutes', '…within this many minutes', String(settings.fraud.ipWindowMinutes), fe, 'inputmode="numeric"')}
<label class="check"><input type="checkbox" name="partners_can_create_links" value="on" ${settings.partnersCanCreateLinks ? raw('checked') : ''}> Partners may create their own links in the partner portal</label>
${field('partner_link_limit', 'At most this many links per partner when they make their own', String(settings.partnerLinkLimit), fe, 'inputmode="numeric"')}
<div><button type="submit">Save payout settings</button></div></form>
<p><a href="${base}/payouts/statement-details">Statement details</a>: your legal name, address and tax id on your partners' payout statements.</p>
<p><a href="${base}/payouts/tax">Tax details and year-end export</a>: require partners' tax details above a yearly threshold; what each partner was paid in a year, for the 1099-NEC.</p>
${view.people ? providerSettingsSection(base, data.providers, fe) : '' /* the roles that may read payout details may set PayPal's and Wise's credentials */}</details></section>`;
}

/** The settings form's fields: a refusal of one opens the folded form. */
const SETTINGS_FIELD = /^(hold_days|payout_minimum_|fraud_|partner_link_limit|partners_can_create_links)/;

/** Hidden fields that carry a form's values into the next one. */
const hidden = (fields: Record<string, string | string[] | undefined>) =>
  Object.entries(fields).flatMap(([name, value]) => (value === undefined ? [] : ([] as string[]).concat(value).map((v) => html`<input type="hidden" name="${name}" value="${v}">`)));

/**
 * The commissions: filtered by state, partner and days; a compact table (the hold on each row, one
 * button per row that acts at once) and one form for the selected ones. Approving needs no reason
 * (one is kept when given); releasing, rejecting and taking back need one.
 */
function commissionsSection(view: MoneyView, data: Of<'payouts'>): Html {
  const { base } = view;
  const fe = view.fieldErrors;
  const money = (cents: number, currency: string) => formatMoney(cents, currency as 'USD');
  const f = data.commissionFilter;
  const fromDay = f.from ? day(f.from) : '';
  const toDay = f.to ? day(new Date(f.to.getTime() - 86_400_000)) : '';
  const keep = { ...(f.partner_id ? { partner: String(f.partner_id) } : {}), ...(fromDay ? { from: fromDay } : {}), ...(toDay ? { to: toDay } : {}) };
  const query = (stage: string) => new URLSearchParams({ stage, ...keep }).toString();
  const partners = [...new Map(data.balances.map((b) => [b.partnerId, b.partnerName])).entries()].sort((a, b) => a[1].localeCompare(b[1]));
  const pickable = data.stage === 'pending' || data.stage === 'held';
  const past = data.approval.filter((a) => a.pastHoldCount > 0);
  const pastCount = past.reduce((n, a) => n + a.pastHoldCount, 0);
  const pastWords = sumsInWords(past.map((a) => ({ currency: a.currency, cents: a.pastHoldCents })));
  const q = view.holdQuestion;
  const action = (c: Of<'payouts'>['commissions'][number]): Html => {
    const button = (verb: string, label: string) => html`<button type="submit" form="commission-actions" formaction="${base}/commissions/${c.id}/${verb}?${query(data.stage)}">${label} ${c.id}</button>`;
    if (c.stage === 'held') return html`${button('release', 'Release')} ${button('reject', 'Reject')}`;
    if (c.state === 'pending') return button('approve', 'Approve');
    if (c.state === 'approved') return button('unapprove', 'Take back');
    return html`<span class="muted">${c.state === 'in_payout' ? `in payout ${c.payoutId}` : COMMISSION_STATE_WORDS[c.state]}</span>`;
  };
  return html`<section id="commissions"><h2>Commissions: ${sentence(COMMISSION_STATE_WORDS[data.stage])}</h2>
<nav class="tabs" aria-label="Commission states">${COMMISSION_STATES.filter((s) => s !== 'moved').map((s) => html`<a href="${base}/payouts?${query(s)}#commissions" ${s === data.stage ? raw('aria-current="page"') : ''}>${sentence(COMMISSION_STATE_WORDS[s])}</a>`)}</nav>
<form method="get" action="${base}/payouts" class="filter" aria-label="Filter commissions"><input type="hidden" name="stage" value="${data.stage}">
<div><label for="filter_partner">Partner</label><select id="filter_partner" name="partner"><option value="">Every partner</option>${partners.map(([pid, name]) => html`<option value="${pid}" ${pid === f.partner_id ? raw('selected') : ''}>${name}</option>`)}</select></div>
<div><label for="filter_from">Made from</label><input type="date" id="filter_from" name="from" value="${fromDay}"></div>
<div><label for="filter_to">to</label><input type="date" id="filter_to" name="to" value="${toDay}"></div>
<div><button type="submit">Filter</button>${Object.keys(keep).length ? html` <a href="${base}/payouts?stage=${data.stage}#commissions">Clear</a>` : ''}</div></form>
${q ? html`<form method="post" action="${base}/commissions/bulk?${query(data.stage)}" id="hold-question" class="ask" role="alert" aria-labelledby="hold-question-title">
<p id="hold-question-title"><strong>${plural(q.inHold, 'of these commissions is', 'of these commissions are')} still in ${q.inHold === 1 ? 'its' : 'their'} hold period (${q.inHoldWords}).</strong> Approving now overrides the hold: a refund that comes after they are paid becomes a clawback instead of lowering the commission.</p>
${hidden(q.fields)}
<button type="submit" name="hold" value="override">Approve all ${q.count} (${q.allWords}), overriding the hold</button>
${q.pastHold ? html` <button type="submit" name="hold" value="respect">Approve only the ${q.pastHold} past ${q.pastHold === 1 ? 'its' : 'their'} hold</button>` : ''}
<a class="button" href="${base}/payouts?${query(data.stage)}#commissions">Cancel</a></form>` : ''}
${data.stage === 'pending' ? (pastCount ? html`<form method="post" action="${base}/commissions/bulk?${query('pending')}" id="past-hold" class="row"><input type="hidden" name="bulk_action" value="approve"><input type="hidden" name="all_matching" value="on"><input type="hidden" name="past_hold_only" value="on">${hidden({ stage: 'pending', ...keep })}
<p><strong>${plural(pastCount, 'commission is', 'commissions are')} past ${pastCount === 1 ? 'its' : 'their'} hold:</strong> ${pastWords}${f.partner_id || fromDay || toDay ? ' (this filter)' : ''}.</p>
<button type="submit">Approve the ${plural(pastCount, 'commission')} past ${pastCount === 1 ? 'its' : 'their'} hold</button></form>` : html`<p class="muted">No commission ${f.partner_id || fromDay || toDay ? 'of this filter ' : ''}is past its hold: each is approved on its own when its hold ends, or approve one early below.</p>`) : ''}
${data.commissions.length === 0 ? html`<p>None.</p>` : html`<div class="compact">${dataTable(['Commission', 'Partner', 'Amount', 'Sale, made', 'Hold', ''], data.commissions.map((c) => {
  const pick = pickable && (c.state === 'pending' || c.stage === 'held') ? html`<input type="checkbox" name="commission_ids" value="${c.id}" form="commission-actions" aria-label="Select commission ${c.id}"> ` : '';
  return [html`${pick}${c.id}`, c.partnerName ?? '', html`${money(c.earnedCents, c.currency)}${c.deductedCents ? html` <span class="muted">(of ${money(c.amountCents, c.currency)})</span>` : ''}${c.rewardWords ? html` <small class="muted why">${c.rewardWords}</small>` : ''}`, html`${c.transactionId === null ? noSaleWords(c) : idCell(c.transactionId)}${c.test ? ' (test)' : ''} <time class="muted">${day(c.createdAt)}</time>`, holdCell(c, data.payoutSettings.holdDays, view.now), action(c)];
}), { caption: 'Commissions' })}</div>
<form id="commission-actions" method="post" action="${base}/commissions/bulk?${query(data.stage)}" novalidate>${hidden({ stage: data.stage, ...keep })}
<fieldset class="bulk"><legend>${pickable ? 'With the selected commissions' : 'Taking an approval back'}</legend><div class="row">
${pickable ? html`<div><label for="bulk_action">Action</label><select id="bulk_action" name="bulk_action">${(data.stage === 'held' ? ['release', 'reject'] : ['approve']).map((a) => html`<option value="${a}">${sentence(a)}</option>`)}</select></div>` : ''}
<div>${field('bulk_reason', data.stage === 'pending' ? 'Reason (optional; kept in the ledger)' : 'Reason (needed to release, reject or take back; kept in the ledger)', view.formValues.bulk_reason ?? '', fe)}</div>
${pickable ? html`<div><button type="submit">Apply to the selected commissions</button></div>` : ''}</div>
${pickable ? html`<label class="check"><input type="checkbox" name="all_matching" value="on"> Every ${COMMISSION_STATE_WORDS[data.stage]} commission${f.partner_id || fromDay || toDay ? ' of this filter' : ''}, not only the selected</label>` : ''}</fieldset>
</form>`}</section>`;
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
