// Partners' tax details (docs/payouts.md, "Tax details"): the TIN's format and its masked form,
// which payouts of a run need tax details first, and the year-end export's rows.
import type { PayoutLine } from './commission-ledger.js';
import { csvField } from './csv.js';
import type { Currency } from './types.js';

export type TinKind = 'ssn' | 'ein';

/**
 * A US taxpayer identification number as typed: 9 digits, with or without the dashes of an SSN
 * (123-45-6789) or an EIN (12-3456789). An SSN never starts 000, 666 or 9, nor has 00 in the
 * middle or 0000 at the end; an EIN never starts with a prefix the IRS does not assign (00, 07,
 * 08, 09, 17, 18, 19, 28, 29, 49, 69, 70, 78, 79, 89, 96, 97). Answers the 9 digits, or a problem in words.
 */
export function parseTin(kind: TinKind, typed: string): { digits: string } | { problem: string } {
  const text = typed.trim();
  const digits = text.replace(/[\s-]/g, '');
  const what = kind === 'ssn' ? 'An SSN' : 'An EIN';
  if (!/^\d{9}$/.test(digits)) return { problem: `${what} has 9 digits, like ${kind === 'ssn' ? '123-45-6789' : '12-3456789'}.` };
  if (kind === 'ssn') {
    if (/\d-/.test(text) && !/^\d{3}-\d{2}-\d{4}$/.test(text)) return { problem: 'An SSN is written 123-45-6789.' };
    const area = digits.slice(0, 3);
    if (area === '000' || area === '666' || area.startsWith('9') || digits.slice(3, 5) === '00' || digits.slice(5) === '0000') {
      return { problem: 'This is not a valid SSN: check the digits.' };
    }
  } else {
    if (/\d-/.test(text) && !/^\d{2}-\d{7}$/.test(text)) return { problem: 'An EIN is written 12-3456789.' };
    if (['00', '07', '08', '09', '17', '18', '19', '28', '29', '49', '69', '70', '78', '79', '89', '96', '97'].includes(digits.slice(0, 2))) {
      return { problem: 'This is not a valid EIN: its first two digits are not a prefix the IRS assigns.' };
    }
  }
  return { digits };
}

/** The only way a TIN is ever shown outside the year-end export: its last 4 digits. */
export const maskedTin = (kind: TinKind, last4: string): string => (kind === 'ssn' ? `•••-••-${last4}` : `••-•••${last4}`);

/** The TIN as a 1099 prints it. */
export const formattedTin = (kind: TinKind, digits: string): string =>
  kind === 'ssn' ? `${digits.slice(0, 3)}-${digits.slice(3, 5)}-${digits.slice(5)}` : `${digits.slice(0, 2)}-${digits.slice(2)}`;

export type TaxThresholds = Partial<Record<Currency, number>>;

/** A line a run holds back: paying it would bring the partner's year to the threshold without tax details. */
export interface TaxHeldLine extends PayoutLine {
  /** Already paid (or on its way) to the partner this calendar year in that currency. */
  paidThisYearCents: number;
  thresholdCents: number;
}

/**
 * Splits a run's lines: a partner without tax details is not paid a line that would bring what
 * they are paid in its currency this calendar year to the threshold or above (the 1099-NEC rule:
 * $600 or more). Each currency counts alone against its own threshold; a currency without one
 * never needs tax details. No exchange rates: an amount is never converted.
 */
export function linesByTaxDetails(
  lines: PayoutLine[],
  rule: { required: boolean; thresholds: TaxThresholds },
  paidThisYear: (partnerId: number, currency: Currency) => number,
  hasTaxDetails: (partnerId: number) => boolean,
): { pay: PayoutLine[]; held: TaxHeldLine[] } {
  if (!rule.required) return { pay: lines, held: [] };
  const pay: PayoutLine[] = [];
  const held: TaxHeldLine[] = [];
  for (const line of lines) {
    const threshold = rule.thresholds[line.currency];
    const paid = paidThisYear(line.partnerId, line.currency);
    if (threshold === undefined || hasTaxDetails(line.partnerId) || paid + line.amountCents < threshold) pay.push(line);
    else held.push({ ...line, paidThisYearCents: paid, thresholdCents: threshold });
  }
  return { pay, held };
}

/** The calendar year (UTC) as [start, end). */
export function calendarYear(year: number): { from: Date; to: Date } {
  return { from: new Date(Date.UTC(year, 0, 1)), to: new Date(Date.UTC(year + 1, 0, 1)) };
}

/** One partner's year in one currency, with the tax details a 1099-NEC needs (TIN unmasked: the export only). */
export interface YearEndRow {
  partnerId: number;
  partnerName: string;
  email: string | null;
  currency: Currency;
  paidCents: number;
  payouts: number;
  tax: {
    legalName: string;
    country: string;
    address: string;
    usPerson: boolean;
    tinKind: TinKind | null;
    tin: string | null;
    foreignCertifiedOn: string | null;
    updatedAt: Date;
  } | null;
}

/**
 * A row without tax details: the partner gave none, or did not share them with this program (the
 * brand cannot tell which; telling would say whether someone gave details to another brand).
 */
export const NOT_SHARED = 'not given or not shared';

export const YEAR_END_HEADER = [
  'partner_id', 'partner_name', 'email', 'year', 'currency', 'amount_paid', 'payouts', 'tax_details', 'legal_name', 'address', 'country',
  'us_person', 'tin_type', 'tin', 'foreign_status_certified_on', 'tax_details_updated_at',
];

/** The export's lines (CRLF, RFC 4180), amounts in major units as typed ("1234.50"; JPY "5000"). */
export function yearEndCsv(year: number, rows: YearEndRow[], amountText: (cents: number, currency: Currency) => string): string {
  const lines = [YEAR_END_HEADER.join(',')];
  for (const r of rows) {
    const t = r.tax;
    lines.push(
      [
        r.partnerId, r.partnerName, r.email ?? '', year, r.currency, amountText(r.paidCents, r.currency), r.payouts, t ? 'given' : NOT_SHARED,
        t?.legalName ?? '', t?.address.replaceAll('\n', ', ') ?? '', t?.country ?? '', t ? (t.usPerson ? 'yes' : 'no') : '', t?.tinKind?.toUpperCase() ?? '',
        t?.tin ?? '', t?.foreignCertifiedOn ?? '', t ? t.updatedAt.toISOString() : '',
      ].map(csvField).join(','),
    );
  }
  return `${lines.join('\r\n')}\r\n`;
}
