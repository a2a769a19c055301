// npm run bench:bulk-approve [commissions]
// Bulk approval of a big program's commissions (issue: approvals went one at a time, a typed
// reason each). Seeds `commissions` pending commissions (default 10,000) of one partner straight
// into the database (customers, sales, commissions and their ledger entries, as the tracking
// path writes them), then approves every one through POST /commissions/bulk with a filter and
// one reason. Prints the time, the statements PostgreSQL ran (per commission and in all), and
// the same for 200 single approvals for comparison. A figure to read, never an assertion.
import { ADMIN_TOKEN, benchMain, fmt, runConcurrent, startBench, statementsDuring } from './lib/bench-kit.js';

const count = Number(process.argv[2] ?? 10_000);
const SINGLES = 200;

await benchMain(async (cleanup) => {
  const { client, sql, program } = await startBench(cleanup, { sockets: 8, webhookSecret: 'whsec_bench_bulk_approve' });
  const admin = { Authorization: `Bearer ${ADMIN_TOKEN}` };
  const api = (path: string) => `/api/v1/admin/programs/${program.programId}${path}`;
  const seeded = performance.now();
  await sql.query(
    `WITH c AS (
       INSERT INTO customers (program_id, customer_key, status, partner_id, converted_at)
       SELECT $1, 'bulk_c' || g, 'customer', $2, now() FROM generate_series(1, $3) g RETURNING id, customer_key
     ), s AS (
       INSERT INTO sales (program_id, customer_id, partner_id, processor_event_id, amount_cents, currency, occurred_at, attribution_step, account_id)
       SELECT $1, c.id, $2, 'bulk_' || c.customer_key, 4900, 'USD', now(), 'click_id', (SELECT account_id FROM programs WHERE id = $1) FROM c RETURNING id
     ), k AS (
       INSERT INTO commissions (sale_id, program_id, partner_id, amount_cents, currency) SELECT s.id, $1, $2, 980, 'USD' FROM s RETURNING id
     )
     INSERT INTO commission_ledger (program_id, partner_id, commission_id, currency, kind, pending_cents) SELECT $1, $2, k.id, 'USD', 'created', 980 FROM k`,
    [program.programId, program.partnerId, count + SINGLES],
  );
  console.log(`seeded ${count + SINGLES} pending commissions in ${fmt((performance.now() - seeded) / 1000, 1)} s`);

  // One at a time, as before: the first SINGLES commissions, one request and one reason each.
  const { rows } = await sql.query('SELECT id FROM commissions WHERE program_id = $1 ORDER BY id LIMIT $2', [program.programId, SINGLES]);
  let singleMs = 0;
  const single = await statementsDuring(sql, SINGLES, async () => {
    const started = performance.now();
    await runConcurrent(rows.length, 1, async (i) => {
      const reply = await client.request('POST', api(`/commissions/${rows[i].id}/approve`), { reason: 'checked' }, admin);
      if (reply.status !== 200) throw new Error(`approve: ${reply.status} ${JSON.stringify(reply.body)}`);
    });
    singleMs = performance.now() - started;
  });

  let bulkMs = 0;
  let report: any;
  const bulk = await statementsDuring(sql, count, async () => {
    const started = performance.now();
    const reply = await client.request('POST', api('/commissions/bulk'), { action: 'approve', filter: { state: 'pending' }, reason: 'checked in bulk' }, admin);
    bulkMs = performance.now() - started;
    if (reply.status !== 200) throw new Error(`bulk: ${reply.status} ${JSON.stringify(reply.body).slice(0, 300)}`);
    report = reply.body.data;
  });
  const approved = Number((await sql.query("SELECT count(*) FROM commissions WHERE program_id = $1 AND stage = 'approved'", [program.programId])).rows[0].count);
  console.log(`bulk approve: ${report.changed} of ${report.requested} changed in ${fmt(bulkMs)} ms (${fmt(bulkMs / count, 3)} ms per commission); approved now: ${approved}`);
  console.log(`  statements: ${fmt(bulk.perUnit * count)} in all, ${fmt(bulk.perUnit, 3)} per commission`);
  for (const line of bulk.top) console.log(`    ${line}`);
  console.log(`one at a time: ${SINGLES} in ${fmt(singleMs)} ms (${fmt(singleMs / SINGLES, 2)} ms each), ${fmt(single.perUnit, 2)} statements each`);
  console.log(`RATIO time per commission, one at a time / bulk = ${fmt(singleMs / SINGLES / (bulkMs / count), 1)}`);
  console.log(`RATIO statements per commission, one at a time / bulk = ${fmt(single.perUnit / bulk.perUnit, 1)}`);
});
