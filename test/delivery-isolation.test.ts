// One brand's slow receiver never delays another brand's webhooks: brand A's endpoint answers
// 200 and then trickles its body a byte at a time; brand B's answers at once. Each attempt has one
// deadline for connect, headers and body; deliveries to one endpoint hold at most a quarter of the
// delivery workers; a slow attempt holds only its own worker.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SeededProgram, type TestApi, type TestDatabase, adminHeaders, closeTestApi, openTestApi, seedProgram } from './support/harness.js';
import { apiSale } from './support/money.js';

let db: TestDatabase;
let api: TestApi;
const servers: Server[] = [];

const TIMEOUT_MS = 1500;
const CONCURRENCY = 8; // one endpoint's share: 2

beforeAll(async () => {
  ({ db, api } = await openTestApi(
    {
      AFFIX_SECRET_KEY: 'delivery-isolation-key-0123456789',
      AFFIX_WEBHOOK_ALLOW_PRIVATE: 'true',
      AFFIX_WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
      AFFIX_WEBHOOK_CONCURRENCY: String(CONCURRENCY),
      AFFIX_WORKER_POLL_SECONDS: '0.5',
    },
    { queueUrl: 'own', workers: true },
  ));
});
afterAll(async () => {
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
  await closeTestApi({ db, api });
});

async function listen(handler: Parameters<typeof createServer>[1]): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
}

async function endpoint(shop: SeededProgram, url: string) {
  const reply = await api.request('POST', `/api/v1/admin/programs/${shop.programId}/webhook-endpoints`, { body: { url, event_types: ['sale.created'] }, headers: adminHeaders });
  expect(reply.status).toBe(201);
}

const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.ceil((p / 100) * values.length) - 1)]!;

describe('delivery isolation', () => {
  it('brand B\'s deliveries arrive while brand A\'s receiver trickles; A never holds more than its share', async () => {
    // Brand A: 200 at once, then one byte every 200 ms, never the end.
    let aOpen = 0;
    let aMaxOpen = 0;
    let aOpened = 0;
    const aUrl = await listen((req, res) => {
      aOpen += 1;
      aOpened += 1;
      aMaxOpen = Math.max(aMaxOpen, aOpen);
      req.resume();
      res.writeHead(200, { 'content-type': 'text/plain' });
      const trickle = setInterval(() => res.write('.'), 200);
      res.on('close', () => {
        clearInterval(trickle);
        aOpen -= 1;
      });
    });
    // Brand B: answers at once; when each delivery arrived, and how many of A's attempts had begun by then.
    const bArrivals: { at: number; aOpenedBefore: number; saleId: number }[] = [];
    const bUrl = await listen((req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        bArrivals.push({ at: performance.now(), aOpenedBefore: aOpened, saleId: JSON.parse(body).data.sale_id });
        res.end('ok');
      });
    });
    const brandA = await seedProgram(api);
    const brandB = await seedProgram(api);
    await endpoint(brandA, aUrl);
    await endpoint(brandB, bUrl);

    for (let i = 0; i < 20; i++) await apiSale(api, brandA, 1000 + i);
    const sentAt = new Map<number, number>();
    for (let i = 0; i < 18; i++) {
      const sale = await apiSale(api, brandB, 2000 + i);
      sentAt.set(sale.saleId, performance.now());
    }
    await expect.poll(() => bArrivals.length, { timeout: 20_000, interval: 50 }).toBe(18);

    const latencies = bArrivals.map((arrival) => arrival.at - sentAt.get(arrival.saleId)!);
    console.log(`[isolation] brand B: 18 deliveries, p50 ${percentile(latencies, 50).toFixed(0)} ms, p99 ${percentile(latencies, 99).toFixed(0)} ms`);
    // A trickling receiver never had more than its share of the 8 workers at once.
    expect(aMaxOpen).toBeLessThanOrEqual(CONCURRENCY / 4);
    // B did not wait for A's attempts to end: all of B arrived while at most two rounds of A's attempts had begun.
    expect(Math.max(...bArrivals.map((arrival) => arrival.aOpenedBefore))).toBeLessThanOrEqual(2 * (CONCURRENCY / 4));

    // A's attempts end at the deadline, counted as failed attempts (retried on the schedule), with no answer kept.
    await expect
      .poll(async () => (await db.pool.query(`SELECT a.response_excerpt, a.status_code FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id
                                              JOIN webhook_endpoints e ON e.id = d.endpoint_id WHERE e.program_id = $1 LIMIT 1`, [brandA.programId])).rows[0], { timeout: 10_000, interval: 100 })
      .toEqual({ response_excerpt: `no complete answer within ${TIMEOUT_MS} ms`, status_code: null });
    const durations = (await db.pool.query(`SELECT a.duration_ms FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id
                                             JOIN webhook_endpoints e ON e.id = d.endpoint_id WHERE e.program_id = $1`, [brandA.programId])).rows.map((r) => r.duration_ms);
    console.log(`[isolation] brand A: ${durations.length} attempts cut at the deadline, p50 ${percentile(durations, 50)} ms, p99 ${percentile(durations, 99)} ms`);
  }, 60_000);
});
