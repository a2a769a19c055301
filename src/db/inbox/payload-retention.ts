// Payloads kept only as long as the retention period (docs/operations.md).
import type { Pool } from '../infra/pool.js';

/**
 * Privacy: payloads of final events older than the retention period are dropped (customers'
 * emails and names live there); the row keeps what support needs. In batches, any instance.
 */
export async function purgeExpiredPayloads(pool: Pool, retentionDays: number, batch = 1_000): Promise<number> {
  const { rowCount } = await pool.query(
    `UPDATE webhook_events SET payload = NULL, raw_body = NULL, purged_at = now()
      WHERE id IN (SELECT id FROM webhook_events
                    WHERE purged_at IS NULL AND received_at < now() - make_interval(days => $1)
                      AND status IN ('processed', 'ignored', 'failed')
                    ORDER BY received_at LIMIT $2)`,
    [retentionDays, batch],
  );
  return rowCount ?? 0;
}
