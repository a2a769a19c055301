// npm run bench:outbound [events per round] [concurrency]
// Does delivering webhooks to the brand slow the intake of Stripe's? With a worker running
// (attributing sales and delivering), rounds of N signed events at concurrency C alternate
// between no endpoint and two registered endpoints (local receivers answering 200, listening
// to every event type). Three rounds each, interleaved; medians; the ratio (target >= 0.9).
// Then isolation: brand A's receiver answers 200 and trickles its body a byte every 200 ms, never
// the end; brand B's answers at once. A's sales first, then B's: how long B's webhooks take from
// their sale to their arrival (p50, p99), and how many of the delivery workers A held at once
// (test/delivery-isolation.test.ts checks the order of it; the time is measured here).
// Prints figures; asserts nothing.
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { OUTBOUND_EVENT_TYPES } from '../src/core/outbound-events.js';
import { ADMIN_TOKEN, type HttpClient, benchMain, fmt, median, percentile, runConcurrent, setUpProgram, startBench, startService, stripeEventSource } from './lib/bench-kit.js';

const perRound = Number(process.argv[2] ?? 1500);
const concurrency = Number(process.argv[3] ?? 32);
const ROUNDS = 3;
/** The isolation phase: sales of each brand; the workers' defaults (AFFIX_WEBHOOK_CONCURRENCY 16: one endpoint's share 4; deadline 10 s). */
const ISOLATION_SALES = 40;
const DELIVERY_WORKERS = 16;
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

  await setEndpoints(false);
  await isolation(client);
});

/** A sale of the program through the API (its click first), answered when recorded: its webhook is queued. */
async function sale(client: HttpClient, program: { shortLink: string; apiKey: string }, n: number): Promise<number> {
  const click = await client.request('POST', '/api/v1/track/click', { affiliate_url: `https://bench.example/?aff=${program.shortLink}` });
  const reply = await client.request(
    'POST',
    '/api/v1/track/sale',
    { transaction_id: `iso_${program.shortLink}_${n}`, amount_cents: 1000 + n, currency: 'USD', click_id: click.body.click_id, customer_key: `iso_${program.shortLink}_${n}` },
    { Authorization: `Bearer ${program.apiKey}` },
  );
  if (reply.status !== 200) throw new Error(`sale: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.sale_id as number;
}

async function isolation(client: HttpClient): Promise<void> {
  let aOpen = 0;
  let aMaxOpen = 0;
  const trickling = createServer((req, res) => {
    aOpen += 1;
    aMaxOpen = Math.max(aMaxOpen, aOpen);
    req.resume();
    res.writeHead(200, { 'content-type': 'text/plain' });
    const trickle = setInterval(() => res.write('.'), 200);
    res.on('close', () => {
      clearInterval(trickle);
      aOpen -= 1;
    });
  });
  const arrivedAt = new Map<number, number>();
  const prompt = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      arrivedAt.set(JSON.parse(body).data.sale_id, performance.now());
      res.end('ok');
    });
  });
  try {
    const admin = { Authorization: `Bearer ${ADMIN_TOKEN}` };
    const brands = [];
    for (const server of [trickling, prompt]) {
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const brand = await setUpProgram(client, WEBHOOK_SECRET);
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/affix`;
      const reply = await client.request('POST', `/api/v1/admin/programs/${brand.programId}/webhook-endpoints`, { url, event_types: ['sale.created'] }, admin);
      if (reply.status !== 201) throw new Error(`endpoint: ${reply.status} ${JSON.stringify(reply.body)}`);
      brands.push(brand);
    }
    const [brandA, brandB] = brands as [Awaited<ReturnType<typeof setUpProgram>>, Awaited<ReturnType<typeof setUpProgram>>];
    for (let i = 0; i < ISOLATION_SALES; i++) await sale(client, brandA, i);
    const soldAt = new Map<number, number>();
    for (let i = 0; i < ISOLATION_SALES; i++) {
      const saleId = await sale(client, brandB, i);
      soldAt.set(saleId, performance.now());
    }
    while (arrivedAt.size < ISOLATION_SALES) await new Promise((resolve) => setTimeout(resolve, 20));
    const latencies = [...soldAt].map(([saleId, at]) => arrivedAt.get(saleId)! - at);
    console.log(`isolation: brand A's receiver trickling, brand B's ${ISOLATION_SALES} webhooks from sale to arrival: p50 ${fmt(percentile(latencies, 50))} ms, p99 ${fmt(percentile(latencies, 99))} ms`);
    console.log(`  brand A held at most ${aMaxOpen} of the ${DELIVERY_WORKERS} delivery workers at once (its share: ${DELIVERY_WORKERS / 4})`);
  } finally {
    for (const server of [trickling, prompt]) {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  }
}
