// The Payouts page's pieces about partners a run holds back for tax details (docs/payouts.md,
// "Tax details"): a sentence of the run summary and the list with its reminders.
import type { TaxWaitingLine } from '../../app/money/tax-details.js';
import { formatMoney } from '../../core/money.js';
import { type Html, html } from '../kit/html.js';
import { plural } from '../kit/components.js';
import { dataTable } from '../kit/table.js';

const heldWords = (h: TaxWaitingLine) => formatMoney(h.amountCents, h.currency);

/** The run summary's sentence about the partners held back for tax details. */
export function taxHeldSummary(held: TaxWaitingLine[]): Html {
  if (held.length === 0) return html``;
  const partners = new Set(held.map((h) => h.partnerId)).size;
  return html` <strong>${plural(partners, 'partner')} not paid: no tax details.</strong> ${held.map(heldWords).join(' and ')} would bring their payouts this year to the threshold; it stays owed until they add them (<a href="#missing-tax-details">remind them</a>).`;
}

/** The Payouts page's list of partners a run holds back for tax details, each with a reminder. */
export function taxHeldSection(base: string, held: TaxWaitingLine[], fe: Record<string, string>): Html {
  if (held.length === 0) return html``;
  const partners = [...new Map(held.map((h) => [h.partnerId, h.partnerName])).entries()];
  return html`<section id="missing-tax-details"><h2>Missing tax details</h2>
<p>${plural(partners.length, 'partner is', 'partners are')} owed money that would bring what they are paid this year to your tax-details threshold, and ${partners.length === 1 ? 'has' : 'have'} not given tax details. A payout run leaves it owed; a reminder mails them a link to the partner portal's tax details (one a day at most).</p>
<form method="post" action="${base}/payouts/tax/remind" id="remind-tax">${fe.remind_tax ? html`<p class="error" role="alert">${fe.remind_tax}</p>` : ''}
<div class="compact">${dataTable(
  ['Partner', 'Currency', 'Owed', 'Paid this year', 'Threshold', ''],
  held.map((h) => [h.partnerName, h.currency, heldWords(h), formatMoney(h.paidThisYearCents, h.currency), formatMoney(h.thresholdCents, h.currency), html`<button type="submit" name="partner_id" value="${h.partnerId}">Ask ${h.partnerName} for tax details</button>`]),
)}</div>
${partners.length > 1 ? html`<div><button type="submit" name="partner_id" value="all">Ask all ${partners.length} for tax details</button></div>` : ''}</form></section>`;
}

