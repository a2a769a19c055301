// One brand's slow receiver never delays another brand's webhooks: brand A's endpoint answers
// 200 and then trickles its body a byte at a time; brand B's answers at once. Deliveries to one
// endpoint hold at most a quarter of the delivery workers; a slow attempt holds only its own
// worker; each attempt has one deadline for connect, headers and body. Driven by A's attempts,
// not by the clock: the deadline is set past the test's run, so every attempt A's receiver
// begins stays open until the test closes it, and B's deliveries must all arrive meanwhile.
// How fast B's deliveries arrive is a figure of `npm run bench:outbound`, not a test.
import { type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendWebhook } from '../src/platform/webhook-sender.js';
import { type SeededProgram, type TestApi, type TestDatabase, adminHeaders, closeTestApi, openTestApi, seedProgram } from './support/harness.js';
import { apiSale } from './support/money.js';

let db: TestDatabase;
let api: TestApi;
const servers: Server[] = [];

// Past the test's run: none of A's attempts ends by its deadline while B is watched.
const TIMEOUT_MS = 50_000;
const CONCURRENCY = 8;
const SHARE = CONCURRENCY / 4;

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

/** Polls `done` (the state of the receivers) until it holds or `limitMs` passes; the assertions after it say what was seen. */
async function until(done: () => boolean, limitMs = 30_000): Promise<void> {
  for (const started = Date.now(); !done() && Date.now() - started < limitMs; ) await new Promise((resolve) => setTimeout(resolve, 50));
}

describe('delivery isolation', () => {
  it('brand B\'s deliveries arrive while brand A\'s receiver trickles; A never holds more than its share', async () => {
    // Brand A: 200 at once, then one byte every 200 ms, never the end.
    let aOpen = 0;
    let aMaxOpen = 0;
    let aOpened = 0;
    const aResponses = new Set<ServerResponse>();
    const aUrl = await listen((req, res) => {
      aOpen += 1;
      aOpened += 1;
      aMaxOpen = Math.max(aMaxOpen, aOpen);
      aResponses.add(res);
      req.resume();
      res.writeHead(200, { 'content-type': 'text/plain' });
      const trickle = setInterval(() => res.write('.'), 200);
      res.on('close', () => {
        clearInterval(trickle);
        aResponses.delete(res);
        aOpen -= 1;
      });
    });
    // Brand B: answers at once; at each delivery, how many of A's attempts were open and how many had begun.
    const bArrivals: { aOpen: number; aOpenedBefore: number }[] = [];
    const bUrl = await listen((req, res) => {
      req.resume();
      req.on('end', () => {
        bArrivals.push({ aOpen, aOpenedBefore: aOpened });
        res.end('ok');
      });
    });
    const brandA = await seedProgram(api);
    const brandB = await seedProgram(api);
    await endpoint(brandA, aUrl);
    await endpoint(brandB, bUrl);

    for (let i = 0; i < 20; i++) await apiSale(api, brandA, 1000 + i);
    // A's receiver holds attempts open before B's first sale exists.
    await until(() => aOpen >= 1);
    expect(aOpen).toBeGreaterThanOrEqual(1);
    for (let i = 0; i < 18; i++) await apiSale(api, brandB, 2000 + i);
    // Until B has everything, or A holds more than its share.
    await until(() => bArrivals.length === 18 || aOpen > SHARE);
    console.log(`[isolation] brand B: ${bArrivals.length} of 18 delivered while brand A's receiver held ${aOpen} attempts open (${aOpened} begun, at most ${aMaxOpen} at once)`);

    // A trickling receiver never had more than its share of the 8 workers at once.
    expect(aMaxOpen).toBeLessThanOrEqual(SHARE);
    // B did not wait for A's attempts to end: every one of B's deliveries arrived while A's attempts
    // were open, and no attempt of A had ended to let another begin.
    expect(bArrivals).toHaveLength(18);
    expect(bArrivals.filter((arrival) => arrival.aOpen < 1 || arrival.aOpenedBefore > SHARE)).toEqual([]);

    // An attempt cut off mid-answer is a failed attempt (retried on the schedule), with none of the trickled answer kept.
    for (const res of aResponses) res.destroy();
    await expect
      .poll(async () => (await db.pool.query(`SELECT a.response_excerpt, a.status_code FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id
                                              JOIN webhook_endpoints e ON e.id = d.endpoint_id WHERE e.program_id = $1 LIMIT 1`, [brandA.programId])).rows[0], { timeout: 10_000, interval: 100 })
      .toEqual({ response_excerpt: expect.stringMatching(/^no complete answer/), status_code: null });
  }, 60_000);

  it('an attempt has one deadline for connect, headers and body: a receiver that trickles its answer is cut at it', async () => {
    const url = await listen((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'text/plain' });
      const trickle = setInterval(() => res.write('.'), 20);
      res.on('close', () => clearInterval(trickle));
    });
    const message = { id: 'msg_trickle', timestamp: new Date(), body: '{}', secrets: ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'] };
    expect(await sendWebhook(url, message, { allowPrivate: true, timeoutMs: 300, clock: () => 0 })).toEqual({ status: null, excerpt: 'no complete answer within 300 ms', durationMs: 0 });
  });
});
