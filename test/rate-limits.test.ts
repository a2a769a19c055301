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
import { pruneRateLimitCounters } from '../src/db/infra/rate-limit.js';
import { loadConfig } from '../src/platform/config.js';

let db: TestDatabase;
let first: TestApi;
let second: TestApi;
let shop: SeededProgram;

beforeAll(async () => {
  db = await createTestDatabase();
  // Two API instances on one database: the budget is shared through PostgreSQL.
  // One secret key: the CLI sign-in page signs its id tokens with it, and both take each other's forms.
  first = await startTestApi(db.pool, { AFFIX_SECRET_KEY: 'rate-limits-secret-key-0123456789' });
  second = await startTestApi(db.pool, { AFFIX_SECRET_KEY: 'rate-limits-secret-key-0123456789' });
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

describe('sign-in limits: only wrong passwords count (docs/team.md "Sign-in limits")', () => {
  /** Each test in an hour of its own (the address-wide window is an hour), 5 seconds into it. */
  const atFreshHour = () => {
    testNow = new Date(Math.floor(testNow.getTime() / 3_600_000) * 3_600_000 + 2 * 3_600_000 + 5_000);
    first.clock.now = second.clock.now = testNow;
  };
  const later = (ms: number) => {
    first.clock.now = second.clock.now = new Date(testNow.getTime() + ms);
  };
  let n = 0;
  const person = async () => {
    const email = `limited-${++n}-${Date.now()}@example.com`;
    await first.request('POST', '/api/v1/admin/accounts', { body: { email, password: 'the right password 1' }, headers: bearer('test-admin-token-0123456789') });
    return email;
  };
  /** The CLI's sign-in page: 401 wrong, 429 refused; a right password passes the limits and then meets the made-up state (404). */
  const cliPage = async (api: TestApi, ip: string, email: string, password: string) =>
    (await api.request('POST', '/cli/login', { raw: new URLSearchParams({ state: 'made-up-state', email, password }).toString(), headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'X-Forwarded-For': ip } })).status;
  /** The dashboard's sign-in form (its CSRF token from the page): 303 signed in, 401 wrong, 429 refused. */
  const dashboard = async (api: TestApi, ip: string, email: string, password: string) => {
    const page = await fetch(`${api.url}/dashboard/login`, { headers: { 'X-Forwarded-For': ip } });
    const cookie = page.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
    const csrf = /name="_csrf" value="([^"]+)"/.exec(await page.text())![1]!;
    const reply = await fetch(`${api.url}/dashboard/login`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'X-Forwarded-For': ip, Cookie: cookie, 'Content-Type': 'application/x-www-form-urlencoded', Origin: api.url },
      body: new URLSearchParams({ _csrf: csrf, email, password }).toString(),
    });
    const text = await reply.text();
    return { status: reply.status, retryAfter: Number(reply.headers.get('retry-after')), text };
  };
  beforeEach(atFreshHour);

  it('right passwords never count: 30 sign-ins from one IP in one minute on the dashboard and the CLI page all pass; then 10 wrong ones stop that IP', async () => {
    const email = await person();
    const statuses: number[] = [];
    for (let i = 0; i < 15; i++) {
      statuses.push((await dashboard(i % 2 ? first : second, '198.18.1.1', email, 'the right password 1')).status);
      statuses.push(await cliPage(i % 2 ? second : first, '198.18.1.1', email, 'the right password 1'));
    }
    expect(statuses).toEqual(Array(15).fill([303, 404]).flat());
    const wrong: number[] = [];
    for (let i = 0; i < 11; i++) wrong.push(await cliPage(first, '198.18.1.1', `someone-${i}@example.com`, 'guess'));
    expect(wrong).toEqual([...Array(10).fill(401), 429]);
  });

  it('wrong passwords from elsewhere never lock a person out: 20 guesses from 11 IPs and 50 refused ones, then the right password from a new IP signs in', async () => {
    const email = await person();
    const attacker: number[] = [];
    for (let i = 0; i < 11; i++) attacker.push(await cliPage(first, '198.18.2.1', email, `guess ${i}`));
    expect(attacker).toEqual([...Array(10).fill(401), 429]);
    // Refused attempts check no password and never add up to the address-wide limit (50 an hour).
    for (let i = 0; i < 50; i++) expect(await cliPage(second, '198.18.2.1', email, `more ${i}`)).toBe(429);
    for (let i = 0; i < 10; i++) expect(await cliPage(second, `198.18.3.${i + 1}`, email, `guess ${i}`)).toBe(401);
    expect((await dashboard(first, '198.18.4.1', email, 'the right password 1')).status).toBe(303);
  });

  it('per address and IP: after 10 wrong in 15 minutes even the right password waits there (the CLI page and the dashboard share it), not elsewhere', async () => {
    const email = await person();
    // Five a minute, so the per-IP limit (10 a minute) is never what refuses.
    for (let i = 0; i < 5; i++) expect(await cliPage(first, '198.18.5.1', email, `guess ${i}`)).toBe(401);
    later(60_000);
    for (let i = 0; i < 5; i++) expect((await dashboard(second, '198.18.5.1', email, `guess ${i}`)).status).toBe(401);
    later(120_000);
    const refused = await dashboard(first, '198.18.5.1', email, 'the right password 1');
    expect(refused.status).toBe(429);
    expect(refused.text).toContain('Too many sign-in attempts. Try again in');
    expect(refused.retryAfter).toBe(900 - 125); // the 15-minute window ends, not the minute
    expect(await cliPage(second, '198.18.5.1', email, 'the right password 1')).toBe(429);
    expect(await cliPage(first, '198.18.5.1', 'someone-else@example.com', 'guess')).toBe(401); // the IP itself is not stopped
    expect((await dashboard(second, '198.18.5.2', email, 'the right password 1')).status).toBe(303);
    later(15 * 60_000);
    expect((await dashboard(first, '198.18.5.1', email, 'the right password 1')).status).toBe(303);
  });

  it('per address, slower: past 50 wrong an hour from anywhere, the right password passes only from where the person signed in within 30 days', async () => {
    const email = await person();
    expect((await dashboard(first, '198.18.6.1', email, 'the right password 1')).status).toBe(303); // a known place from now on
    for (let i = 0; i < 50; i++) expect(await cliPage(i % 2 ? first : second, `198.18.${10 + Math.floor(i / 200)}.${(i % 200) + 1}`, email, `guess ${i}`)).toBe(401);
    const stranger = await dashboard(second, '198.18.6.2', email, 'the right password 1');
    expect(stranger.status).toBe(429);
    expect(stranger.retryAfter).toBe(3600 - 5);
    expect((await dashboard(first, '198.18.6.1', email, 'the right password 1')).status).toBe(303);
    expect(await cliPage(second, '198.18.6.1', email, 'the right password 1')).toBe(404);
    expect((await dashboard(second, '198.18.6.1', email, 'a wrong one')).status).toBe(401);
    later(3600_000); // the next hour: everyone again
    expect((await dashboard(first, '198.18.6.2', email, 'the right password 1')).status).toBe(303);
    // 31 days later the place is no longer known.
    later(31 * 86_400_000);
    testNow = first.clock.now;
    for (let i = 0; i < 50; i++) expect(await cliPage(first, `198.18.20.${i + 1}`, email, `guess ${i}`)).toBe(401);
    expect((await dashboard(second, '198.18.6.1', email, 'the right password 1')).status).toBe(429);
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
