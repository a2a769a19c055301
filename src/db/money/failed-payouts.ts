// A payout that failed or was returned: the SQL of its round trip (src/app/money/failed-payouts.ts).
// Called inside the transaction that holds the program's payout lock and the payout row.
import type { PoolClient } from '../infra/pool.js';

/**
 * Reverses what marking the payout paid wrote: per commission, the sum of its 'paid' and
 * 'clawback_settled' entries under this payout leaves the paid bucket and returns to approved
 * (one 'payout_failed' entry each), so balances are back to the cent. Returns how many entries.
 */
export async function reversePaidEntries(client: PoolClient, payoutId: number, reason: string): Promise<number> {
  const { rowCount } = await client.query(
    `INSERT INTO commission_ledger (program_id, partner_id, commission_id, currency, kind, pending_cents, approved_cents, paid_cents, reason, payout_id)
     SELECT program_id, partner_id, commission_id, currency, 'payout_failed', 0, sum(paid_cents), -sum(paid_cents), $2, $1
       FROM commission_ledger WHERE payout_id = $1 AND kind IN ('paid', 'clawback_settled')
      GROUP BY program_id, partner_id, commission_id, currency
     HAVING sum(paid_cents) <> 0
      ORDER BY commission_id`,
    [payoutId, reason],
  );
  return rowCount ?? 0;
}

/** The payout's paid commissions are approved again (still claimed: the claim's release follows). */
export async function unpayCommissions(client: PoolClient, payoutId: number, at: Date): Promise<void> {
  await client.query(`UPDATE commissions SET stage = 'approved', paid_at = NULL, updated_at = $2 WHERE payout_id = $1 AND stage = 'paid'`, [payoutId, at]);
}

export async function markPayoutFailed(client: PoolClient, payoutId: number, failure: { reason: string; providerReference: string | null; at: Date }): Promise<void> {
  await client.query(`UPDATE payouts SET status = 'failed', failed_at = $2, failure_reason = $3, failure_reference = $4 WHERE id = $1`, [
    payoutId, failure.at, failure.reason, failure.providerReference,
  ]);
}

/** Why and when a failed payout failed. */
export async function payoutFailure(client: { query: PoolClient['query'] }, payoutId: number): Promise<{ failedAt: Date | null; reason: string | null; providerReference: string | null } | null> {
  const { rows } = await client.query('SELECT failed_at, failure_reason, failure_reference FROM payouts WHERE id = $1', [payoutId]);
  return rows[0] ? { failedAt: rows[0].failed_at, reason: rows[0].failure_reason, providerReference: rows[0].failure_reference } : null;
}
