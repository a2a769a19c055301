// The commission ledger: append-only entries, written in the statement or transaction of the
// change they record. Balances are sums over it (src/db/money/commissions-and-payouts.ts).
import type { LedgerEntry } from '../../core/commission-ledger.js';

/**
 * A CTE body that appends one entry per row of `source` (a CTE with id, program_id, partner_id,
 * currency): the entry's kind and deltas are parameters starting at `$first`.
 */
export function appendEntries(source: string, first: number, options: { payoutId?: string } = {}): string {
  return appendEntriesOf(source, [0, 1, 2, 3, 4].map((i) => `$${first + i}`), options);
}

/** As appendEntries, the kind, pending, approved, paid and reason given as expressions over `s` (the source's row). */
export function appendEntriesOf(source: string, [kind, pending, approved, paid, reason]: string[], options: { payoutId?: string } = {}): string {
  return `INSERT INTO commission_ledger (program_id, partner_id, commission_id, currency, kind, pending_cents, approved_cents, paid_cents, reason, payout_id)
          SELECT s.program_id, s.partner_id, s.id, s.currency, ${kind}::text, ${pending}::bigint, ${approved}::bigint, ${paid}::bigint, ${reason}::text, ${options.payoutId ?? 'NULL::bigint'} FROM ${source} s`;
}

export const entryParams = (entry: LedgerEntry): unknown[] => [entry.kind, entry.pendingCents, entry.approvedCents, entry.paidCents, entry.reason];

export interface LedgerLine {
  commissionId: number;
  programId: number;
  partnerId: number | null;
  currency: string;
  entry: LedgerEntry;
  payoutId?: number | null;
}

/** Appends many entries in one statement (a run of approvals, a payout marked paid). */
export async function appendLines(client: { query: (sql: string, params: unknown[]) => Promise<unknown> }, lines: LedgerLine[]): Promise<void> {
  if (lines.length === 0) return;
  const column = <T>(pick: (line: LedgerLine) => T) => lines.map(pick);
  await client.query(
    `INSERT INTO commission_ledger (commission_id, program_id, partner_id, currency, kind, pending_cents, approved_cents, paid_cents, reason, payout_id)
     SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::bigint[], $4::text[], $5::text[], $6::bigint[], $7::bigint[], $8::bigint[], $9::text[], $10::bigint[])`,
    [
      column((l) => l.commissionId), column((l) => l.programId), column((l) => l.partnerId), column((l) => l.currency),
      column((l) => l.entry.kind), column((l) => l.entry.pendingCents), column((l) => l.entry.approvedCents),
      column((l) => l.entry.paidCents), column((l) => l.entry.reason), column((l) => l.payoutId ?? null),
    ],
  );
}
