// npm run bench:outbound [events per round] [concurrency]
// Does delivering webhooks to the brand slow the intake of Stripe's? With a worker running
// (attributing sales and delivering), rounds of N signed events at concurrency C alternate
// between no endpoint and two registered endpoints (local receivers answering 200, listening
// to every event type). Three rounds each, interleaved; medians; the ratio (target >= 0.9).
// Prints figures; asserts nothing.
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { OUTBOUND_EVENT_TYPES } from '../src/core/outbound-events.js';
import { ADMIN_TOKEN, benchMain, fmt, median, runConcurrent, startBench, startService, stripeEventSource } from './lib/bench-kit.js';

const perRound = Number(process.argv[2] ?? 1500);
const concurrency = Number(process.argv[3] ?? 32);
const ROUNDS = 3;
const WEBHOOK_SECRET = 'whsec_bench_0123456789';

await benchMain(async (cleanup) => {
  // The receivers are local: both processes must be allowed to reach loopback addresses.
  const env = { AFFIX_WEBHOOK_ALLOW_PRIVATE: 'true' };
  const { database, client, sql, program } = await startBench(cleanup, { sockets: concurrency * 2, webhookSecret: WEBHOOK_SECRET, env });
  const worker = await startService('worker', database.url, env);
  cleanup(() => worker.stop());
  let received = 0;
  const receivers: Server[] = [];
  for (let i = 0; i < 2; i++) {
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        received++;
        res.end('ok');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    receivers.push(server);
    cleanup(() => new Promise((resolve) => server.close(resolve)));
  }
  const admin = { Authorization: `Bearer ${ADMIN_TOKEN}` };
  const endpointIds: number[] = [];
  for (const server of receivers) {
    const reply = await client.request(
      'POST',
      `/api/v1/admin/programs/${program.programId}/webhook-endpoints`,
      { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/affix`, event_types: [...OUTBOUND_EVENT_TYPES] },
      admin,
    );
    if (reply.status !== 201) throw new Error(`endpoint: ${reply.status} ${JSON.stringify(reply.body)}`);
    endpointIds.push(reply.body.data.id);
  }
  const setEndpoints = (enabled: boolean) => sql.query('UPDATE webhook_endpoints SET enabled = $2 WHERE id = ANY ($1)', [endpointIds, enabled]);
  const { signed, deliver } = stripeEventSource(client, program, { concurrency, secret: WEBHOOK_SECRET });
  const settled = async () => {
    for (;;) {
      const { rows } = await sql.query(
        `SELECT (SELECT count(*) FROM webhook_events WHERE status = 'queued') + (SELECT count(*) FROM webhook_deliveries WHERE status = 'pending') AS left`,
      );
      if (Number(rows[0].left) === 0) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };

  console.log(`bench:outbound — ${ROUNDS} rounds each of ${perRound} events at concurrency ${concurrency}, a worker attributing and delivering`);
  const figures: Record<'without' | 'with', number[]> = { without: [], with: [] };
  for (let round = 1; round <= ROUNDS; round++) {
    for (const mode of ['without', 'with'] as const) {
      await setEndpoints(mode === 'with');
      const events = await signed(perRound);
      const before = received;
      const started = performance.now();
      const replies = await runConcurrent(events.length, concurrency, (i) => deliver(events[i]!));
      const seconds = (performance.now() - started) / 1000;
      if (replies.some((r) => r.status !== 200)) throw new Error('an event was refused');
      await settled(); // the next round starts from an empty queue
      figures[mode].push(events.length / seconds);
      console.log(`  round ${round}, ${mode === 'with' ? 'two endpoints' : 'no endpoint '}: ${fmt(events.length / seconds)} acks/s; ${received - before} webhooks delivered to the brand`);
    }
  }
  const without = median(figures.without);
  const withEndpoints = median(figures.with);
  const { rows } = await sql.query("SELECT count(*) FILTER (WHERE status = 'delivered') AS delivered, count(*) AS total FROM webhook_deliveries");
  console.log(`ingest without endpoints: ${fmt(without)} acks/s; with two endpoints: ${fmt(withEndpoints)} acks/s`);
  console.log(`RATIO with / without = ${fmt(withEndpoints / without, 2)} (target >= 0.9: within 10 %)`);
  console.log(`deliveries: ${rows[0].delivered} of ${rows[0].total} delivered`);
});
