// What a statement is called and numbered: the brand's gap-free series (per account), its prefix,
// the title (a self-billing invoice needs the issuer's VAT or tax id), and the mark a statement
// carries once its payout failed after it was paid. docs/payouts.md, "Statements".

/** A prefix as invoice series print them: up to 20 letters, digits, dots, dashes, slashes or underscores ("ACME-2026-"). */
export const STATEMENT_PREFIX = /^[A-Za-z0-9./_-]{0,20}$/;
export const STATEMENT_PREFIX_RULE = 'A number prefix is at most 20 letters, digits, dots, dashes, slashes or underscores, like ACME-2026-.';

export interface IssuedNumber {
  number: number;
  prefix: string;
  issuedAt: Date;
}

/** "ACME-2026-17"; null before the payout is paid (a number is issued only then). */
export const statementNumberText = (issued: IssuedNumber | null): string | null => (issued ? `${issued.prefix}${issued.number}` : null);

/**
 * A self-billing invoice when the brand gave its VAT or tax id (the issuer of a self-billing
 * invoice must name it); otherwise a statement, which claims to be no tax document.
 */
export const statementTitle = (brandTaxId: string): 'Self-billing invoice' | 'Statement' => (brandTaxId.trim() ? 'Self-billing invoice' : 'Statement');

/** "Reversed on 2026-12-03: account closed": a paid payout that failed keeps its number and says so. */
export function reversedMark(issued: IssuedNumber | null, status: string, failedAt: Date | null | undefined, reason: string | null | undefined): string | null {
  if (!issued || status !== 'failed') return null;
  const when = failedAt ? ` on ${failedAt.toISOString().slice(0, 10)}` : '';
  return `Reversed${when}: ${(reason ?? 'no reason given').replace(/[.!?]$/, '')}`;
}
