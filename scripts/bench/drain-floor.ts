// The drain's floor, beside `npm run bench:webhooks`: what PostgreSQL spends per event when the
// rows a drained checkout writes are written set-wise, a worker's batch a transaction on 4 connections,
// against the real worker on as many events. The rows (customer, sale, tracking event and its
// hourly count, commission and ledger entry, the inbox outcome, the job's completion, the
// rollups kept and applied) copy rows the real worker wrote; nothing is looked up and no rule
// runs, so it bounds from below what attributing a batch set-wise could cost, and is not a
// worker. Usage: npx tsx scripts/bench/drain-floor.ts [events per side, default 2400]
import type pg from 'pg';
import { benchMain, databaseCpuMs, runConcurrent, startBench, startService, stripeEventSource } from '../lib/bench-kit.js';

const EVENTS = Number(process.argv[2] ?? 2400);
/** As many a transaction as the worker's batch (AFFIX_WORKER_BATCH_SIZE, default 32). */
const BATCH = Number(process.env.AFFIX_WORKER_BATCH_SIZE ?? 32);
const LANES = 4;

async function columns(sql: pg.Pool, table: string, leaving: string[]): Promise<string[]> {
  const { rows } = await sql.query(
    'SELECT array_agg(attname::text ORDER BY attnum) AS names FROM pg_attribute WHERE attrelid = $1::regclass AND attnum > 0 AND NOT attisdropped',
    [table],
  );
  return (rows[0].names as string[]).filter((name) => !leaving.includes(name));
}

await benchMain(async (cleanup) => {
  const { database, client, sql, program } = await startBench(cleanup, { sockets: 64, webhookSecret: 'whsec_floor_0123456789' });
  const { signed, deliver } = stripeEventSource(client, program, { concurrency: 32, secret: 'whsec_floor_0123456789' });
  const ingest = async () => {
    const events = await signed(EVENTS);
    await runConcurrent(events.length, 32, (i) => deliver(events[i]!));
    await sql.query('CHECKPOINT');
  };
  const queued = async () => Number((await sql.query("SELECT count(*) FROM webhook_events WHERE status = 'queued'")).rows[0].count);

  await ingest();
  const worker = await startService('worker', database.url);
  let cpu = await databaseCpuMs();
  let started = performance.now();
  while ((await queued()) > 0) await new Promise((resolve) => setTimeout(resolve, 50));
  const real = { seconds: (performance.now() - started) / 1000, cpu: (await databaseCpuMs()) - cpu };
  await worker.stop();
  console.log(`real worker: ${EVENTS} events, ${(EVENTS / real.seconds).toFixed(0)} events/s (its start-up included), PostgreSQL ${(real.cpu / EVENTS).toFixed(2)} ms per event`);

  await ingest();
  const customer = await columns(sql, 'customers', ['id']);
  const sale = await columns(sql, 'sales', ['id']);
  const commission = await columns(sql, 'commissions', ['id', 'created_at', 'updated_at']);
  const { rows: models } = await sql.query(`SELECT s.id AS sale, s.customer_id AS customer, c.id AS commission
                                               FROM sales s JOIN commissions c ON c.sale_id = s.id ORDER BY s.id LIMIT ${BATCH}`);
  let written = 0;
  const copy = (list: string[], from: string, changed: Record<string, string>) => list.map((name) => changed[name] ?? `${from}.${name}`).join(', ');
  cpu = await databaseCpuMs();
  started = performance.now();
  await Promise.all(
    Array.from({ length: LANES }, async () => {
      const c = await sql.connect();
      try {
        for (;;) {
          await c.query('BEGIN');
          const { rows } = await c.query(`SELECT id FROM webhook_events WHERE status = 'queued' ORDER BY id LIMIT ${BATCH} FOR UPDATE SKIP LOCKED`);
          if (rows.length === 0) {
            await c.query('COMMIT');
            return;
          }
          const ids = rows.map((row) => Number(row.id));
          const tags = ids.map((id) => `_floor${id}`);
          const like = models.slice(0, ids.length);
          await c.query('SELECT begin_batched_rollups()');
          const customers = await c.query({
            name: 'floor-customers',
            text: `INSERT INTO customers (${customer.join(', ')})
                   SELECT ${copy(customer, 'c', { customer_key: 'c.customer_key || t.tag', click_id: 'c.click_id || t.tag', processor_customer_id: 'NULL' })}
                     FROM unnest($1::bigint[], $2::text[]) AS t (id, tag) JOIN customers c ON c.id = t.id RETURNING id`,
            values: [like.map((m) => m.customer), tags],
          });
          const sales = await c.query({
            name: 'floor-sales',
            text: `INSERT INTO sales (${sale.join(', ')})
                   SELECT ${copy(sale, 's', { processor_event_id: 's.processor_event_id || t.tag', customer_id: 't.customer' })}
                     FROM unnest($1::bigint[], $2::text[], $3::bigint[]) AS t (id, tag, customer) JOIN sales s ON s.id = t.id RETURNING id, customer_id, occurred_at`,
            values: [like.map((m) => m.sale), tags, customers.rows.map((row) => row.id)],
          });
          const saleIds = sales.rows.map((row) => row.id);
          await c.query({
            name: 'floor-events',
            text: `WITH counted AS (
                     INSERT INTO tracking_hourly_counts (program_id, hour, kind, shard, events)
                     SELECT $1, date_bin('1 hour', now(), timestamptz '2000-01-01 00:00:00+00'), 'sale', (pg_backend_pid() % 64)::smallint, cardinality($2::bigint[])
                     ON CONFLICT (program_id, hour, kind, shard) DO UPDATE SET events = tracking_hourly_counts.events + EXCLUDED.events)
                   INSERT INTO tracking_events (program_id, kind, customer_id, click_id, sale_id, test, details, created_at, sale_occurred_at)
                   SELECT $1, 'sale', t.customer, NULL, t.sale, false, '{}', now(), t.occurred_at FROM unnest($2::bigint[], $3::bigint[], $4::timestamptz[]) AS t (sale, customer, occurred_at)`,
            values: [program.programId, saleIds, sales.rows.map((row) => row.customer_id), sales.rows.map((row) => row.occurred_at)],
          });
          await c.query({
            name: 'floor-commissions',
            text: `WITH commission AS (
                     INSERT INTO commissions (${commission.join(', ')})
                     SELECT ${copy(commission, 'c', { sale_id: 't.sale' })} FROM unnest($1::bigint[], $2::bigint[]) AS t (id, sale) JOIN commissions c ON c.id = t.id
                     RETURNING id, program_id, partner_id, currency, amount_cents)
                   INSERT INTO commission_ledger (program_id, partner_id, commission_id, currency, kind, pending_cents, approved_cents, paid_cents)
                   SELECT program_id, partner_id, id, currency, 'created', amount_cents, 0, 0 FROM commission`,
            values: [like.map((m) => m.commission), saleIds],
          });
          await c.query({
            name: 'floor-outcomes',
            text: `UPDATE webhook_events w SET status = 'processed', reason = NULL, attribution_step = 'click_id', sale_id = t.sale, result = '{}', updated_at = now()
                     FROM unnest($1::bigint[], $2::bigint[]) AS t (id, sale) WHERE w.id = t.id`,
            values: [ids, saleIds],
          });
          await c.query('SELECT apply_batched_rollups()');
          await c.query('COMMIT');
          await c.query({
            name: 'floor-jobs',
            text: `UPDATE pgboss.job SET state = 'completed', completed_on = now()
                    WHERE name = 'processor-events' AND state = 'created' AND (data ->> 'inboxId')::bigint = ANY ($1::bigint[])`,
            values: [ids],
          });
          written += ids.length;
        }
      } finally {
        c.release();
      }
    }),
  );
  const floor = { seconds: (performance.now() - started) / 1000, cpu: (await databaseCpuMs()) - cpu };
  console.log(`set-wise writes, ${BATCH} a transaction on ${LANES} connections: ${written} events, ${(written / floor.seconds).toFixed(0)} events/s, PostgreSQL ${(floor.cpu / written).toFixed(2)} ms per event`);
  console.log(`RATIO PostgreSQL per event, real / set-wise writes = ${(real.cpu / EVENTS / (floor.cpu / written)).toFixed(1)}`);
});
