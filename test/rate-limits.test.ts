import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  type Reply,
  type SeededProgram,
  type TestApi,
  type TestDatabase,
  bearer,
  count,
  createTestDatabase,
  seedProgram,
  startTestApi,
} from './support/harness.js';
import { pruneRateLimitCounters } from '../src/db/rate-limit.js';
import { loadConfig } from '../src/platform/config.js';

let db: TestDatabase;
let first: TestApi;
let second: TestApi;
let shop: SeededProgram;

beforeAll(async () => {
  db = await createTestDatabase();
  // Two API instances on one database: the budget is shared through PostgreSQL.
  first = await startTestApi(db.pool);
  second = await startTestApi(db.pool);
  shop = await seedProgram(first);
});
afterAll(async () => {
  await first.close();
  await second.close();
  await db.drop();
});

/**
 * Counters are per minute: each test runs in a minute of its own on both instances' clocks
 * (injected), 5 seconds into it, so no test waits for the wall clock or straddles two windows.
 */
let testNow = new Date(Date.UTC(2031, 0, 1));
const atFreshMinute = (...apis: TestApi[]) => {
  testNow = new Date(Math.floor(testNow.getTime() / 60_000) * 60_000 + 120_000 + 5_000);
  for (const api of apis) api.clock.now = testNow;
};
beforeEach(() => atFreshMinute(first, second));

const expectLimitHeaders = (reply: Reply, limit: number, remaining: number) => {
  expect(reply.headers.get('x-ratelimit-limit')).toBe(String(limit));
  expect(reply.headers.get('x-ratelimit-remaining')).toBe(String(remaining));
  const reset = Number(reply.headers.get('x-ratelimit-reset'));
  const now = testNow.getTime() / 1000;
  expect(reset).toBeGreaterThan(now);
  expect(reset).toBeLessThanOrEqual(now + 61);
  expect(reset % 60).toBe(0);
};

const expect429 = (reply: Reply, limit: number) => {
  expect(reply.status).toBe(429);
  expect(reply.body).toEqual({
    error: { code: 'rate_limited', message: 'Too many requests.', status: 429, retry_after_seconds: expect.any(Number) },
  });
  const retryAfter = Number(reply.headers.get('retry-after'));
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(60);
  expect(reply.body.error.retry_after_seconds).toBe(retryAfter);
  expectLimitHeaders(reply, limit, 0);
};

describe('track/click: 60 per minute per client IP, shared by every instance', () => {
  it('counts across two instances and refuses the 61st before it records anything', async () => {
    const ip = { 'X-Forwarded-For': '203.0.113.10' };
    for (let i = 0; i < 60; i++) {
      const api = i % 2 === 0 ? first : second;
      const reply = await api.request('POST', '/api/v1/track/click', { body: { affiliate_url: shop.affiliateUrl }, headers: ip });
      expect(reply.status).toBe(200);
      expectLimitHeaders(reply, 60, 59 - i);
    }
    const clicks = await count(db.pool, 'SELECT 1 FROM clicks');
    const refused = await second.request('POST', '/api/v1/track/click', { body: { affiliate_url: shop.affiliateUrl }, headers: ip });
    expect429(refused, 60);
    expect(await count(db.pool, 'SELECT 1 FROM clicks')).toBe(clicks);
    // Another client is unaffected.
    const other = await first.request('POST', '/api/v1/track/click', { body: { affiliate_url: shop.affiliateUrl }, headers: { 'X-Forwarded-For': '203.0.113.11' } });
    expect(other.status).toBe(200);
    // The window follows the clock: 55 s later (the next minute) the budget is whole again.
    first.clock.now = second.clock.now = new Date(testNow.getTime() + 55_000);
    const nextMinute = await second.request('POST', '/api/v1/track/click', { body: { affiliate_url: shop.affiliateUrl }, headers: ip });
    expect(nextMinute.status).toBe(200);
    expect(nextMinute.headers.get('x-ratelimit-remaining')).toBe('59');
  });

  it('error answers carry the headers too', async () => {
    const reply = await first.request('POST', '/api/v1/track/click', { body: {}, headers: { 'X-Forwarded-For': '203.0.113.12' } });
    expect(reply.status).toBe(400);
    expectLimitHeaders(reply, 60, 59);
  });

  // The click counts in its own write; a click that fails before it is counted by the error handler.
  it('failing clicks (malformed JSON, unknown link) count once each, and once spent every click is refused', async () => {
    const ip = { 'X-Forwarded-For': '203.0.113.13', 'Content-Type': 'application/json' };
    const send = (api: TestApi, raw: string) => api.request('POST', '/api/v1/track/click', { raw, headers: ip });
    const bodies = ['{"affiliate_url": ', JSON.stringify({ affiliate_url: 'https://shop.example.com/?aff=nobody-has-this' }), JSON.stringify({ affiliate_url: shop.affiliateUrl })];
    for (let i = 0; i < 60; i++) {
      const kind = i % 3;
      const reply = await send(i % 2 === 0 ? first : second, bodies[kind]!);
      expect(reply.status).toBe(kind === 2 ? 200 : 400);
      expectLimitHeaders(reply, 60, 59 - i);
    }
    const clicks = await count(db.pool, 'SELECT 1 FROM clicks');
    for (const raw of bodies) expect429(await send(first, raw), 60);
    expect(await count(db.pool, 'SELECT 1 FROM clicks')).toBe(clicks);
    const counter = await db.pool.query("SELECT hits FROM rate_limit_counters WHERE bucket = 'track_click:ip:203.0.113.13'");
    expect(counter.rows).toEqual([{ hits: 63 }]);
  });
});

describe('track/lead: 30 per minute per client IP', () => {
  it('refuses the 31st', async () => {
    const ip = { 'X-Forwarded-For': '203.0.113.20' };
    for (let i = 0; i < 30; i++) {
      const reply = await (i % 2 ? first : second).request('POST', '/api/v1/track/lead', { body: { customer_key: 'nobody' }, headers: ip });
      expect(reply.status).toBe(400);
      expectLimitHeaders(reply, 30, 29 - i);
    }
    expect429(await first.request('POST', '/api/v1/track/lead', { body: { customer_key: 'nobody' }, headers: ip }), 30);
  });
});

describe('track/sale + track/refund: 120 per minute combined, per API key', () => {
  it('shares one budget between the two routes, whatever the client IP', async () => {
    const program = await seedProgram(first);
    for (let i = 0; i < 120; i++) {
      const route = i % 2 ? '/api/v1/track/refund' : '/api/v1/track/sale';
      const reply = await (i % 3 ? first : second).request('POST', route, {
        body: {},
        headers: { ...bearer(program.apiKey), 'X-Forwarded-For': `203.0.113.${(i % 200) + 30}` },
      });
      expect(reply.status).toBe(400);
      expectLimitHeaders(reply, 120, 119 - i);
    }
    expect429(await first.request('POST', '/api/v1/track/sale', { body: {}, headers: bearer(program.apiKey) }), 120);
    expect429(await second.request('POST', '/api/v1/track/refund', { body: {}, headers: bearer(program.apiKey) }), 120);
    // The other program's key has its own budget.
    const other = await first.request('POST', '/api/v1/track/sale', { body: {}, headers: bearer(shop.apiKey) });
    expect(other.status).toBe(400);
  });

  it('malformed and oversized bodies count too, carry the headers, and are refused once the budget is spent', async () => {
    const program = await seedProgram(first);
    const headers = { ...bearer(program.apiKey), 'Content-Type': 'application/json' };
    for (let i = 0; i < 120; i++) {
      const oversized = i % 2 === 1;
      const raw = oversized ? JSON.stringify({ transaction_id: 'x'.repeat(200_000) }) : '{"transaction_id": ';
      const reply = await first.request('POST', i % 4 < 2 ? '/api/v1/track/sale' : '/api/v1/track/refund', { raw, headers });
      expect(reply.status).toBe(oversized ? 413 : 400);
      // Spec §7: track/sale and track/refund put error.code on every error.
      expect(reply.body.error.code).toBe(oversized ? 'payload_too_large' : 'invalid_request');
      expectLimitHeaders(reply, 120, 119 - i);
    }
    expect429(await first.request('POST', '/api/v1/track/sale', { raw: '{', headers }), 120);
    expect429(await first.request('POST', '/api/v1/track/refund', { raw: 'x'.repeat(200_000), headers }), 120);
  });

  it('counts per IP when no key is sent (the 401s carry the headers)', async () => {
    const reply = await first.request('POST', '/api/v1/track/sale', { body: {}, headers: { 'X-Forwarded-For': '203.0.113.250' } });
    expect(reply.status).toBe(401);
    expectLimitHeaders(reply, 120, 119);
  });
});

describe('readiness: 30 per minute per API key', () => {
  it('refuses the 31st with the typed envelope', async () => {
    const program = await seedProgram(first);
    for (let i = 0; i < 30; i++) {
      const reply = await (i % 2 ? first : second).request('GET', '/api/v1/programs/me/readiness', { headers: bearer(program.apiKey) });
      expect(reply.status).toBe(200);
      expectLimitHeaders(reply, 30, 29 - i);
    }
    expect429(await first.request('GET', '/api/v1/programs/me/readiness', { headers: bearer(program.apiKey) }), 30);
  });
});

describe('pruning counters', () => {
  it('drops a window only when it has ended: an hourly window 30 minutes old stays', async () => {
    await db.pool.query(
      `INSERT INTO rate_limit_counters (bucket, window_start, hits, expires_at) VALUES
         ('prune_test_hour', now() - interval '30 minutes', 7, now() + interval '30 minutes'),
         ('prune_test_minute', now() - interval '11 minutes', 3, now() - interval '10 minutes')`,
    );
    await pruneRateLimitCounters(db.pool, new Date());
    const { rows } = await db.pool.query("SELECT bucket FROM rate_limit_counters WHERE bucket LIKE 'prune_test_%'");
    expect(rows.map((row) => row.bucket)).toEqual(['prune_test_hour']);
  });
});

describe('trusted proxies', () => {
  it('AFFIX_TRUST_PROXY=true is refused: it would let any client choose its address', () => {
    expect(() => loadConfig({ AFFIX_TRUST_PROXY: 'true' })).toThrow(/AFFIX_TRUST_PROXY=true would let any client choose its address/);
    expect(() => loadConfig({ AFFIX_TRUST_PROXY: 'evil.example.com' })).toThrow(/is not an address/);
    expect(loadConfig({ AFFIX_TRUST_PROXY: '10.0.0.0/8, loopback' }).trustProxy).toBe('10.0.0.0/8,loopback');
  });

  it('with one trusted hop, rotating the left part of X-Forwarded-For does not escape the per-IP click limit', async () => {
    const behindProxy = await startTestApi(db.pool, { AFFIX_TRUST_PROXY: '1' });
    atFreshMinute(behindProxy);
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 61; i++) {
        const reply = await behindProxy.request('POST', '/api/v1/track/click', {
          body: { affiliate_url: `https://shop.example.com/?aff=${shop.shortLink}` },
          headers: { 'X-Forwarded-For': `198.18.${i % 250}.${i + 1}, 203.0.113.77` },
        });
        statuses.push(reply.status);
      }
      expect(statuses.slice(0, 60).every((status) => status === 200)).toBe(true);
      expect(statuses[60]).toBe(429);
    } finally {
      await behindProxy.close();
    }
  });
});
