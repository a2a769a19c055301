// Payout batch exports: a generic CSV, and the columns PayPal Payouts and Wise batch uploads
// expect (docs/payouts.md). Amounts in the currency's major unit, exact.
import { csvField } from './csv.js';
import { minorUnitDigits } from './currency.js';
import { decimalText, majorUnits } from './money.js';
import type { Currency } from './types.js';

export type ExportFormat = 'generic' | 'paypal' | 'wise';

export interface ExportRow {
  id: number;
  batchId: number;
  partnerId: number;
  partnerName: string;
  partnerEmail: string | null;
  currency: Currency;
  amountCents: number;
  status: string;
  reference: string | null;
  payoutMethod: string | null;
  payoutReference: string | null;
}

const csv = (rows: Array<Array<string | number | null>>): string => rows.map((row) => row.map(csvField).join(',')).join('\r\n') + '\r\n';

/** The partner's payout address: their payout reference, else their contact email. */
const payTo = (row: ExportRow): string => row.payoutReference ?? row.partnerEmail ?? '';

const HEADERS: Record<ExportFormat, string[]> = {
  paypal: ['Email/Phone', 'Amount', 'Currency code', 'Reference ID', 'Note to recipient', 'Recipient wallet'],
  wise: ['name', 'recipientEmail', 'paymentReference', 'receiverType', 'amountCurrency', 'amount', 'sourceCurrency', 'targetCurrency'],
  generic: ['payout_id', 'batch_id', 'partner_id', 'partner_name', 'payout_method', 'pay_to', 'currency', 'amount', 'amount_cents', 'status', 'reference'],
};

/**
 * Currencies PayPal takes without decimals ("decimal amounts cause an error"; PayPal's currency
 * codes reference, https://developer.paypal.com/api/rest/reference/currency-codes/). Every
 * other currency PayPal takes with at most two.
 */
const PAYPAL_ZERO_DECIMAL = new Set(['HUF', 'JPY', 'TWD']);

/**
 * A payout's amount as PayPal reads it, or why PayPal cannot take it: HUF 150000 (ISO counts
 * fillér) is "1500"; HUF 150050 is 1500.50 forint, which PayPal refuses, and nothing is rounded.
 */
export function paypalAmount(minor: number, currency: Currency): { amount: string } | { problem: string } {
  const iso = minorUnitDigits(currency);
  const digits = PAYPAL_ZERO_DECIMAL.has(currency) ? 0 : Math.min(iso, 2);
  const unit = 10 ** (iso - digits);
  if (minor % unit !== 0) {
    return { problem: `${majorUnits(minor, currency)} ${currency} has more decimals than PayPal takes for ${currency} (${digits}): pay it another way` };
  }
  return { amount: decimalText(BigInt(minor) / BigInt(unit), digits) };
}

/** The note of a line PayPal cannot pay: its amount is left empty, so the line cannot be paid by mistake. */
const PAYPAL_REFUSED = 'NOT PAYABLE THROUGH PAYPAL';

function cells(format: ExportFormat, row: ExportRow, context: { programName: string }): Array<string | number | null> {
  if (format === 'paypal') {
    const paypal = paypalAmount(row.amountCents, row.currency);
    if ('problem' in paypal) return [payTo(row), '', row.currency, `payout-${row.id}`, `${PAYPAL_REFUSED}: ${paypal.problem}`, 'PayPal'];
    return [payTo(row), paypal.amount, row.currency, `payout-${row.id}`, `${context.programName} commissions, payout ${row.id}`, 'PayPal'];
  }
  if (format === 'wise') return [row.partnerName, payTo(row), `payout-${row.id}`, 'PERSON', 'target', majorUnits(row.amountCents, row.currency), row.currency, row.currency];
  return [
    row.id, row.batchId, row.partnerId, row.partnerName, row.payoutMethod, payTo(row), row.currency, majorUnits(row.amountCents, row.currency),
    row.amountCents, row.status, row.reference,
  ];
}

/** The format's header line. */
export const payoutCsvHeader = (format: ExportFormat): string => csv([HEADERS[format]]);

/** The lines of these rows (none: an empty string), to follow the header: an export streams them a page at a time. */
export const payoutCsvLines = (format: ExportFormat, rows: ExportRow[], context: { programName: string }): string =>
  rows.length === 0 ? '' : csv(rows.map((row) => cells(format, row, context)));

export function payoutCsv(format: ExportFormat, rows: ExportRow[], context: { programName: string }): string {
  return payoutCsvHeader(format) + payoutCsvLines(format, rows, context);
}

/** A payout as its partner reads it. */
export interface PayoutFacts {
  id: number;
  currency: string;
  amountCents: number;
  status: string;
  reference: string | null;
  paidAt: Date | null;
  createdAt: Date;
}

export interface StatementInput extends PayoutFacts {
  programName: string;
  partnerName: string;
  /** A bounty's commission has no transaction and no sale amount (empty cells). */
  commissions: Array<{ id: number; transactionId: string | null; occurredAt: Date; saleCents: number | null; earnedCents: number }>;
}

/**
 * A payout's statement for the partner's records: what was paid, when, under which reference, and
 * each commission it paid; a difference from their sum is the clawbacks this payout settled.
 */
export function payoutStatementCsv(s: StatementInput): string {
  const currency = s.currency as Currency;
  const money = (cents: number) => majorUnits(cents, currency);
  const row = (...cells: unknown[]) => cells.map(csvField).join(',');
  const earned = s.commissions.reduce((sum, c) => sum + c.earnedCents, 0);
  const lines = [
    row('statement', 'payout', s.id),
    row('program', s.programName),
    row('partner', s.partnerName),
    row('currency', s.currency),
    row('amount', money(s.amountCents)),
    row('status', s.status),
    row('reference', s.reference ?? ''),
    row('created_at', s.createdAt.toISOString()),
    row('paid_at', s.paidAt ? s.paidAt.toISOString() : ''),
    '',
    row('commission', 'transaction_id', 'sale_date', 'sale_amount', 'commission_amount'),
    ...s.commissions.map((c) => row(c.id, c.transactionId ?? '', c.occurredAt.toISOString().slice(0, 10), c.saleCents === null ? '' : money(c.saleCents), money(c.earnedCents))),
    ...(earned !== s.amountCents ? [row('clawbacks_settled', '', '', '', money(s.amountCents - earned))] : []),
    row('total', '', '', '', money(s.amountCents)),
  ];
  return `${lines.join('\r\n')}\r\n`;
}
