// A payout's statement as the partner reads it: its lines (each commission it paid, each clawback
// it netted), where it was sent (masked), and the countries an invoice address may name.

export interface StatementCommission {
  commissionId: number;
  /** Null with saleCents: a commission without a sale, a bounty's, a lead's or a click day's (saleDate is then its own date, words say what it paid for). */
  transactionId: string | null;
  /** Why it is what it is (the commission's reward words); null: made before commissions explained themselves. */
  words?: string | null;
  saleDate: Date;
  saleCents: number | null;
  /** What this payout paid for it (fixed when the payout was made). */
  paidCents: number;
}

export interface StatementClawback {
  clawbackId: number;
  commissionId: number;
  transactionId: string | null;
  saleDate: Date;
  /** Negative: taken back (a refund or chargeback after the commission was paid); positive: given back. */
  amountCents: number;
  madeAt: Date;
}

export type StatementLine =
  | ({ kind: 'commission'; amountCents: number } & StatementCommission)
  | ({ kind: 'clawback' } & StatementClawback);

/** The commissions, then the clawbacks, each in the order they were made; they sum to the payout. */
export function statementLines(commissions: StatementCommission[], clawbacks: StatementClawback[]): StatementLine[] {
  return [
    ...commissions.map((c) => ({ kind: 'commission' as const, amountCents: c.paidCents, ...c })),
    ...clawbacks.map((k) => ({ kind: 'clawback' as const, ...k })),
  ];
}

export const linesTotal = (lines: StatementLine[]) => lines.reduce((sum, line) => sum + line.amountCents, 0);

/**
 * Where a payout went, for a statement that may be printed and passed on: an email keeps its first
 * character and its domain (a•••@example.com); an IBAN, account number or Stripe account keeps its
 * last four characters (•••• 7890).
 */
export function maskedPayTo(payTo: string | null): string {
  if (!payTo) return '';
  const value = payTo.trim();
  const at = value.lastIndexOf('@');
  if (at > 0) return `${value[0]}•••${value.slice(at)}`;
  const plain = value.replace(/\s+/g, '');
  if (plain.length <= 4) return '••••';
  return `•••• ${plain.slice(-4)}`;
}

/** ISO 3166-1 alpha-2 (and XK, Kosovo, which invoices use): the countries an address may name. */
export const COUNTRY_CODES = (
  'AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW BY BZ CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ ' +
  'DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO FR GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO JP ' +
  'KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR MS MT MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ ' +
  'OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO RS RU RW SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR TT TV TW TZ ' +
  'UA UG UM US UY UZ VA VC VE VG VI VN VU WF WS XK YE YT ZA ZM ZW'
).split(' ');

const REGION_NAMES = new Intl.DisplayNames(['en'], { type: 'region' });
/** "DE" → "Germany". */
export const countryName = (code: string) => (code ? REGION_NAMES.of(code) ?? code : '');
