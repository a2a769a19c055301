// The partner's payouts in detail: one payout with its lines, its printable statement (print CSS:
// "Save as PDF" in any browser gives the PDF), and the form for the partner's invoice details.
import type { StatementView, partnerPayout } from '../../app/money/payout-statements.js';
import { COUNTRY_CODES, type StatementLine, countryName } from '../../core/payout-statements.js';
import { formatMoney } from '../../core/money.js';
import type { InvoiceDetails } from '../../db/money/payout-statements.js';
import type { ShareChoice } from '../../db/money/partner-detail-shares.js';
import { shareFieldset } from './share-choices.js';
import { type Html, errorSummary, field, html, raw } from '../kit/html.js';
import { idCell } from '../kit/table.js';
import { isoDay as day } from '../kit/components.js';

type PayoutView = Awaited<ReturnType<typeof partnerPayout>>;

export const PAYOUT_METHOD_WORDS: Record<string, string> = { paypal: 'PayPal', wise: 'Wise', bank_transfer: 'Bank transfer', stripe: 'Stripe' };
export const payoutStateWords = (status: string) => (status === 'pending' || status === 'processing' ? 'On its way' : status === 'paid' ? 'Paid' : status === 'failed' ? 'Failed: owed to you again' : status);

const money = (cents: number, currency: string) => formatMoney(cents, currency as 'USD');

/** "PayPal to a•••@example.com", "Bank transfer to •••• 7890"; "Not recorded" before runs recorded it. */
function sentWith(view: StatementView): string {
  const method = view.payout.payoutMethod ? PAYOUT_METHOD_WORDS[view.payout.payoutMethod] ?? view.payout.payoutMethod : null;
  if (!method) return 'Not recorded';
  return view.payTo ? `${method} to ${view.payTo}` : method;
}

const lineWords = (line: StatementLine) =>
  // A commission without a sale (a bounty, a lead, a click day) says what it paid for.
  line.kind === 'commission' ? (line.transactionId === null && line.words ? `Commission: ${line.words}` : 'Commission') : line.amountCents < 0 ? `Clawback: refunded or charged back on ${day(line.madeAt)}, after it was paid` : `Given back on ${day(line.madeAt)}: a refund that failed`;

/** One payout as the partner reads it: what it is, where it went, and what each line paid. */
export function payoutPage(view: PayoutView, base: string): Html {
  const { payout, lines } = view;
  const c = payout.currency;
  return html`<p><a href="${base}#payouts">Back to ${payout.programName}</a></p>
${payout.status === 'failed' ? html`<div class="error-summary" id="payout-failed" role="alert"><p><strong>This payout failed or came back${payout.failedAt ? html` on ${day(payout.failedAt)}` : ''}:</strong> ${(payout.failureReason ?? 'no reason given').replace(/[.!?]$/, '')}.</p>
<p>The money is owed to you again and the next payout pays it. <a href="${base}#payout-details">Check your payout details</a> (method and where to pay) and correct them if needed.</p></div>` : ''}
<section id="payout-summary"><h2>Summary</h2>
<dl class="numbers payout-facts"><div><dt>Amount</dt><dd>${money(payout.amountCents, c)}</dd></div><div><dt>State</dt><dd>${payoutStateWords(payout.status)}</dd></div>
<div><dt>Made on</dt><dd>${day(payout.createdAt)}</dd></div><div><dt>Paid on</dt><dd>${payout.paidAt ? day(payout.paidAt) : '—'}</dd></div>
<div><dt>Sent with</dt><dd>${sentWith(view)}</dd></div><div><dt>Payment reference</dt><dd>${payout.reference ? html`<code>${payout.reference}</code>` : '—'}</dd></div></dl>
<p><a href="${base}/payouts/${payout.id}/statement">Statement of payout ${payout.id} (print or save as PDF)</a> · <a href="${base}/payouts/${payout.id}/statement.csv" download>CSV</a></p></section>
<section id="payout-lines"><h2>What it paid</h2>
<p class="muted">${lines.length} ${lines.length === 1 ? 'line' : 'lines'}: each commission at what this payout paid for it${lines.some((l) => l.kind === 'clawback') ? ', and the clawbacks it netted' : ''}.</p>
<div class="compact"><table class="cards" id="lines"><caption class="visually-hidden">Lines of payout ${payout.id}</caption>
<thead><tr><th scope="col">Sale date</th><th scope="col">Transaction</th><th scope="col">Line</th><th scope="col" class="num">Sale</th><th scope="col" class="num">Paid</th></tr></thead><tbody>
${lines.map((line) => html`<tr class="${line.kind}"><td data-label="Sale date">${day(line.saleDate)}</td><td data-label="Transaction">${idCell(line.transactionId)}</td><td data-label="Line">${lineWords(line)}</td>
<td data-label="Sale" class="num">${line.kind === 'commission' && line.saleCents !== null ? money(line.saleCents, c) : '—'}</td><td data-label="Paid" class="num"><strong>${money(line.amountCents, c)}</strong></td></tr>`)}
</tbody></table></div>
<p id="lines-total">Total paid: <strong>${money(view.total, c)}</strong>${payout.status === 'failed' ? ' (it failed: what it was to pay is owed to you again)' : ''}</p></section>`;
}

/** An address block's lines (blank ones dropped). */
const addressHtml = (lines: Array<string | null | undefined>) => html`${lines.filter((l): l is string => Boolean(l)).map((l, i) => html`${i ? html`<br>` : ''}${l}`)}`;

const STATEMENT_STYLE = `
.statement-parties{display:grid;grid-template-columns:repeat(auto-fit,minmax(14rem,1fr));gap:.5rem 2rem;margin:.5rem 0}
.statement-parties h3{font-size:.85rem;text-transform:uppercase;letter-spacing:.04em;color:var(--muted);margin:.2rem 0}
.statement-parties address{font-style:normal;line-height:1.45}
table.statement{width:100%;border-collapse:collapse;font-variant-numeric:tabular-nums}
table.statement th,table.statement td{padding:.3rem .4rem;border-bottom:1px solid var(--line-soft);text-align:left;vertical-align:top}
table.statement .num,table.statement .date{text-align:right;white-space:nowrap}table.statement .date{text-align:left}
table.statement tfoot td,table.statement tfoot th{border-top:2px solid var(--ink);border-bottom:0;font-weight:700}
@media (max-width:40rem){table.statement{font-size:.8rem}table.statement th,table.statement td{padding:.25rem .15rem}table.statement code{white-space:normal;word-break:break-all}}
@media print{
  header,.skip,.no-print,.flash,main > h1{display:none !important}
  body{background:#fff;color:#000}main{padding:0;max-width:none}section{border:0;padding:0;margin:0 0 .8rem;background:none;box-shadow:none}
  a{color:#000;text-decoration:none}table.statement{font-size:10pt}table.statement tr{break-inside:avoid}
  @page{margin:16mm}
}`;

/** The printable statement: the brand's and the partner's details, the lines, the total; print CSS gives a clean page (and a PDF). */
export function statementPage(view: PayoutView, base: string): Html {
  const { payout, invoice } = view;
  return html`<style>${raw(STATEMENT_STYLE)}</style>
<p class="no-print"><a href="${base}/payouts/${payout.id}">Back to payout ${payout.id}</a> · <button type="button" data-print>Print or save as PDF</button> · <a href="${base}/payouts/${payout.id}/statement.csv" download>CSV</a></p>
${view.frozen
  ? html`<p class="no-print muted" id="statement-issued">This statement is issued: it keeps the details it was issued with and does not change. ${invoice ? 'Changes to your invoice details appear on later statements.' : html`For later statements of ${payout.programName}, <a href="/portal/invoice-details?back=${encodeURIComponent(`${base}/payouts/${payout.id}/statement`)}">add or share your invoice details</a>.`}</p>`
  : invoice ? '' : view.invoiceGiven
  ? html`<p class="no-print unknown" id="invoice-missing">Your invoice details are not shared with ${payout.programName}, so this statement names you as the program knows you: <a href="/portal/invoice-details?back=${encodeURIComponent(`${base}/payouts/${payout.id}/statement`)}">share your invoice details</a> with it.</p>`
  : html`<p class="no-print unknown" id="invoice-missing">Your name, address and tax id are not on this statement yet: <a href="/portal/invoice-details?back=${encodeURIComponent(`${base}/payouts/${payout.id}/statement`)}">add your invoice details</a> once and share them with the programs that should have them.</p>`}
${statementDocument(view)}`;
}

/** The brand's copy of the same statement, from its Payouts page. */
export function brandStatementPage(view: StatementView, payoutsUrl: string): Html {
  const { payout } = view;
  return html`<style>${raw(STATEMENT_STYLE)}</style>
<p class="no-print"><a href="${payoutsUrl}#sent-payouts">Back to Payouts</a> · <button type="button" data-print>Print or save as PDF</button> · <a href="${payoutsUrl}/${payout.id}/statement.csv" download>CSV</a></p>
${view.invoice || view.frozen ? '' : html`<p class="no-print unknown" id="invoice-missing">The partner has not shared invoice details with this program: the statement names them as the program knows them.</p>`}
${statementDocument(view)}`;
}

/** "Self-billing invoice ACME-2026-17" (or "Statement …", or "… for payout 42" before a number is issued). */
export const statementHeading = (view: StatementView) => `${view.document.title} ${view.document.number ?? `for payout ${view.payout.id}`}`;

function statementDocument(view: StatementView): Html {
  const { payout, lines, document: doc } = view;
  const c = payout.currency;
  const to = doc.to;
  return html`<section id="statement" aria-labelledby="statement-title">
<h2 id="statement-title">${statementHeading(view)}</h2>
${doc.reversed ? html`<p class="fail" id="statement-reversed"><strong>${doc.reversed}.</strong> The payment came back: the amount is owed again, and a later payout, with its own number, pays it.</p>` : ''}
<dl class="numbers"><div><dt>Number</dt><dd id="statement-number">${doc.number ?? 'Given when paid'}</dd></div><div><dt>Issue date</dt><dd>${doc.issueDate ? day(doc.issueDate) : 'Not yet issued'}</dd></div>
<div><dt>Payout</dt><dd>${payout.id}, made ${day(payout.createdAt)}</dd></div><div><dt>Paid on</dt><dd>${payout.paidAt ? day(payout.paidAt) : 'Not yet paid'}</dd></div></dl>
<div class="statement-parties">
<div id="statement-from"><h3>From</h3><address><strong>${doc.from.name}</strong>${doc.from.name !== payout.programName ? html`<br>for ${payout.programName}` : ''}${doc.from.address ? html`<br>${addressHtml(doc.from.address.split('\n'))}` : ''}${doc.from.taxId ? html`<br>VAT / tax id: ${doc.from.taxId}` : ''}</address></div>
<div id="statement-to"><h3>To</h3><address><strong>${to.name}</strong>${to.address ? html`<br>${addressHtml(to.address.split('\n'))}` : ''}${to.country ? html`<br>${countryName(to.country)}` : ''}${to.taxId ? html`<br>VAT / tax id: ${to.taxId}` : ''}${to.email ? html`<br>${to.email}` : ''}</address></div>
</div>
<table class="statement" id="statement-lines"><caption class="visually-hidden">Lines of ${statementHeading(view)}</caption>
<thead><tr><th scope="col">Sale date</th><th scope="col">Transaction</th><th scope="col" class="num">Sale</th><th scope="col" class="num">Commission</th></tr></thead>
<tbody>${lines.map((line) => html`<tr><td class="date">${day(line.saleDate)}</td><td>${line.kind === 'commission' && line.transactionId === null && line.words ? line.words : idCell(line.transactionId)}${line.kind === 'clawback' ? html` <span class="muted">(${line.amountCents < 0 ? 'clawback' : 'given back'})</span>` : ''}</td>
<td class="num">${line.kind === 'commission' && line.saleCents !== null ? money(line.saleCents, c) : ''}</td><td class="num">${money(line.amountCents, c)}</td></tr>`)}</tbody>
<tfoot><tr><th scope="row" colspan="3">Total (${c})</th><td class="num" id="statement-total">${money(view.total, c)}</td></tr></tfoot></table>
<p>Paid with: ${sentWith(view)}${payout.reference ? html`; payment reference <code>${payout.reference}</code>` : ''}.</p>
<p class="muted">Commissions earned through the ${payout.programName} partner program${payout.paidAt ? '' : '; this payout is on its way'}.${doc.title === 'Self-billing invoice' ? ' Issued by the brand on the partner\'s behalf (self-billing).' : ''}</p></section>`;
}

/** The partner's invoice details form: once, for the statements of the programs they share them with. */
export function invoiceDetailsPage(values: InvoiceDetails | null, fieldErrors: Record<string, string>, back: string | null, choices: ShareChoice[], typedShares: number[] | null, typed?: Record<string, string>): Html {
  const v = (name: 'name' | 'address' | 'country' | 'taxId', typedName: string) => typed?.[typedName] ?? values?.[name] ?? '';
  const country = v('country', 'country').toUpperCase();
  const addressError = fieldErrors.address;
  return html`${errorSummary(fieldErrors)}<section id="invoice-details"><h2>Your invoice details</h2>
<p>They appear on the statement of every payout not yet paid, and of every payout paid from now on, in each program you share them with below (a program you do not share them with names you as it knows you). A statement already issued keeps the details it was issued with.</p>
<form method="post" action="/portal/invoice-details" novalidate>${back ? html`<input type="hidden" name="back" value="${back}">` : ''}
${field('name', 'Name (yours or your company’s)', v('name', 'name'), fieldErrors, 'autocomplete="name" required')}
<label for="address">Address (street, postal code and city; one per line)</label>
<textarea id="address" name="address" rows="4" autocomplete="street-address" ${addressError ? raw('aria-invalid="true" aria-describedby="address-error"') : ''}>${v('address', 'address')}</textarea>
${addressError ? html`<p class="error" id="address-error">${addressError}</p>` : ''}
<label for="country">Country</label>
<select id="country" name="country" autocomplete="country" ${fieldErrors.country ? raw('aria-invalid="true" aria-describedby="country-error"') : ''}>
<option value="">Choose a country</option>
${COUNTRIES.map(([code, name]) => html`<option value="${code}" ${code === country ? raw('selected') : ''}>${name}</option>`)}</select>
${fieldErrors.country ? html`<p class="error" id="country-error">${fieldErrors.country}</p>` : ''}
${field('tax_id', 'VAT or tax id (if you have one)', v('taxId', 'tax_id'), fieldErrors)}
${shareFieldset(choices, typedShares)}
<div><button type="submit">Save invoice details</button></div></form>
${back ? html`<p><a href="${back}">Back to the statement</a></p>` : html`<p><a href="/portal">Back to your programs</a></p>`}</section>`;
}

const COUNTRIES = COUNTRY_CODES.map((code) => [code, countryName(code)] as const).sort((a, b) => a[1].localeCompare(b[1]));
