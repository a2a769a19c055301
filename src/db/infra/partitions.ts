// Clicks are range-partitioned by month. Partitions are made ahead of time (the current month
// and the next ones) so new clicks never land in the default partition; old months can be
// detached and archived without touching the rest (docs/operations.md).
import type { Pool } from './pool.js';
import { withTransaction } from './pool.js';

/** "clicks_y2026m11" for November 2026 (UTC). */
export const clickPartitionName = (month: Date) => `clicks_y${month.getUTCFullYear()}m${String(month.getUTCMonth() + 1).padStart(2, '0')}`;

const monthStart = (date: Date, offset: number) => new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + offset, 1));

/**
 * Creates the monthly partitions from this month to `monthsAhead` months on, when missing.
 * Idempotent and safe on every instance at once (one advisory lock). A month whose clicks
 * already sit in the default partition is left there (creating it would have to move them):
 * the next months are created all the same. Returns the partitions it created.
 */
export async function ensureClickPartitions(pool: Pool, now: Date, monthsAhead = 3): Promise<string[]> {
  return withTransaction(pool, async (client) => {
    await client.query("SELECT pg_advisory_xact_lock(hashtext('affix:click-partitions'))");
    const created: string[] = [];
    for (let offset = 0; offset <= monthsAhead; offset++) {
      const from = monthStart(now, offset);
      const to = monthStart(now, offset + 1);
      const name = clickPartitionName(from);
      const exists = await client.query('SELECT 1 FROM pg_class WHERE relname = $1 AND relkind IN ($2, $3)', [name, 'r', 'p']);
      if (exists.rowCount) continue;
      const stranded = await client.query('SELECT 1 FROM clicks_default WHERE created_at >= $1 AND created_at < $2 LIMIT 1', [from, to]);
      if (stranded.rowCount) continue;
      await client.query(`CREATE TABLE ${name} PARTITION OF clicks FOR VALUES FROM ('${from.toISOString()}') TO ('${to.toISOString()}')`);
      created.push(name);
    }
    return created;
  });
}
