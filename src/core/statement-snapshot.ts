// A numbered statement's parties and title as they were when its number was issued (docs/payouts.md,
// "Statements"): a self-billing invoice issued must not change afterwards, so a numbered statement
// renders from this snapshot; an unnumbered one from live data. The one rule for both.
import { statementTitle } from './statement-numbers.js';
import type { StatementDocument } from './statement-csv.js';

export interface StatementSnapshot {
  title: string;
  from: StatementDocument['from'];
  to: StatementDocument['to'];
}

export interface StatementPartiesInput {
  programName: string;
  /** The program's statement details (each '' when not given). */
  brand: { legalName: string; address: string; taxId: string };
  /** The partner as the program knows them. */
  partnerName: string;
  email: string;
  /** The person's invoice details as shared with this enrollment, or null. */
  invoice: { name: string; address: string; country: string; taxId: string } | null;
}

/** The title, the brand (its legal name, else the program's) and the partner (their shared invoice details, else as the program knows them). */
export function statementParties(p: StatementPartiesInput): StatementSnapshot {
  return {
    title: statementTitle(p.brand.taxId),
    from: { name: p.brand.legalName || p.programName, address: p.brand.address, taxId: p.brand.taxId },
    to: { name: p.invoice?.name || p.partnerName, address: p.invoice?.address ?? '', country: p.invoice?.country ?? '', taxId: p.invoice?.taxId ?? '', email: p.email },
  };
}

/** A stored snapshot read back (jsonb), or null when the statement was numbered before snapshots were kept. */
export function parseSnapshot(value: unknown): StatementSnapshot | null {
  if (!value || typeof value !== 'object') return null;
  const v = value as Record<string, any>;
  if (typeof v.title !== 'string' || !v.from || !v.to) return null;
  const s = (x: unknown) => (typeof x === 'string' ? x : '');
  return {
    title: v.title,
    from: { name: s(v.from.name), address: s(v.from.address), taxId: s(v.from.taxId) },
    to: { name: s(v.to.name), address: s(v.to.address), country: s(v.to.country), taxId: s(v.to.taxId), email: s(v.to.email) },
  };
}
