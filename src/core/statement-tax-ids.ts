// One series of statement numbers per brand (account), but statement details per program: the
// programs of a brand issue as one legal entity, so they give the same VAT or tax id (or none).
// docs/payouts.md, "Statements".

/** A tax id as compared: without the spaces, dots, dashes and slashes tax offices print between its characters. */
const bare = (taxId: string) => taxId.replace(/[\s./-]/g, '').toUpperCase();

/** The first other program of the brand whose (non-empty) tax id differs from this one, or null; an empty one conflicts with none. */
export function conflictingTaxId(taxId: string, others: { programName: string; taxId: string }[]): { programName: string; taxId: string } | null {
  if (!bare(taxId)) return null;
  return others.find((o) => bare(o.taxId) && bare(o.taxId) !== bare(taxId)) ?? null;
}

/** The refusal in words. */
export const taxIdConflictMessage = (other: { programName: string; taxId: string }) =>
  `${other.programName}, another program of this brand, gives the tax id ${other.taxId}: the programs of a brand share one series of statement numbers, so they give the same VAT or tax id (or none).`;
