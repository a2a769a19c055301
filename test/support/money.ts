// Sales and refunds through the tracking API, for tests of what partners are owed.
import pg from 'pg';
import type { TestApi } from './harness.js';
import { bearer, trackClick } from './harness.js';

let n = 0;
export const uid = (prefix: string) => `${prefix}_${++n}_${Date.now()}`;

/** A click on the partner's link, then a sale by its click; returns the sale's transaction id and its commission. */
export async function apiSale(
  api: TestApi,
  program: { apiKey: string; affiliateUrl: string },
  amountCents: number,
  options: { currency?: string; occurredAt?: Date; isRecurring?: boolean; customerKey?: string; clickId?: string } = {},
) {
  const clickId = options.clickId ?? (await trackClick(api, program.affiliateUrl));
  const transactionId = uid('txn');
  const reply = await api.request('POST', '/api/v1/track/sale', {
    body: {
      transaction_id: transactionId, amount_cents: amountCents, currency: options.currency ?? 'USD', click_id: clickId, customer_key: options.customerKey ?? uid('c'),
      ...(options.occurredAt ? { occurred_at: options.occurredAt.toISOString() } : {}), ...(options.isRecurring ? { is_recurring: true } : {}),
    },
    headers: bearer(program.apiKey),
  });
  if (reply.status !== 200) throw new Error(JSON.stringify(reply.body));
  const { rows } = await api.pool.query('SELECT c.id FROM commissions c JOIN sales s ON s.id = c.sale_id WHERE s.processor_event_id = $1', [transactionId]);
  return { transactionId, clickId, saleId: reply.body.sale_id as number, commissionId: rows[0] ? Number(rows[0].id) : null, reply };
}

export async function apiRefund(api: TestApi, program: { apiKey: string }, transactionId: string, amountCents?: number, reason = 'refund') {
  const reply = await api.request('POST', '/api/v1/track/refund', {
    body: { transaction_id: transactionId, reason, refund_id: uid('re'), ...(amountCents ? { refund_amount_cents: amountCents } : {}) },
    headers: bearer(program.apiKey),
  });
  if (reply.status !== 200) throw new Error(`refund: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply;
}

/**
 * Runs jobs at the same instant: a connection of its own (outside the pool the jobs use) holds the
 * commission's row lock until every job waits (behind it, or behind a job that does), so each
 * has read whatever it reads before its first wait; then it lets go. Waits on that condition, never on the clock.
 */
export async function atTheSameInstant<T>(databaseUrl: string, commissionId: number, jobs: Array<() => Promise<T>>): Promise<PromiseSettledResult<T>[]> {
  const holder = new pg.Client({ connectionString: databaseUrl });
  const watcher = new pg.Client({ connectionString: databaseUrl });
  await holder.connect();
  await watcher.connect();
  try {
    await holder.query('BEGIN');
    await holder.query('SELECT 1 FROM commissions WHERE id = $1 FOR UPDATE', [commissionId]);
    const pid = (await holder.query('SELECT pg_backend_pid() AS pid')).rows[0].pid as number;
    let finished = 0;
    const running = Promise.allSettled(jobs.map((job) => job().finally(() => finished++)));
    for (;;) {
      // Waiting behind the holder, or behind a job that waits behind it.
      const { rows } = await watcher.query(
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid NOT IN ($1, pg_backend_pid())",
        [pid],
      );
      // A job that ended without waiting (it failed, or takes no such lock) is not waited for.
      if (rows[0].n + finished >= jobs.length) break;
    }
    await holder.query('COMMIT');
    return await running;
  } finally {
    await holder.end();
    await watcher.end();
  }
}
