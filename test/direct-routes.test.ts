// The ordinary click and webhook delivery are served outside Express (src/http/direct/); their
// other shapes go through Express's routes. The same request answers the same either way:
// status, body, and the headers the contract names (spec §4.1, §7, §8).
import { beforeAll, describe, expect, it } from 'vitest';
import { limitInBytes } from '../src/http/direct/body.js';
import { isOrdinaryClick as servedDirectly } from '../src/http/direct/click.js';
import { webhookRoute } from '../src/http/direct/webhooks.js';
import { type SeededProgram, type TestApi, type TestDatabase, adminHeaders, count } from './support/harness.js';
import { useSeededApi } from './support/seeded-api.js';
import { WEBHOOK_SECRET, fixture, sign } from './support/stripe.js';

let db: TestDatabase;
let api: TestApi;
let shop: SeededProgram;

useSeededApi({ options: { queueUrl: 'own' }, programs: [{ allowed_origins: ['https://shop.example.com'] }] }, (t) => ({ db, api, programs: [shop] } = t));
beforeAll(async () => {
  await api.request('PATCH', `/api/v1/admin/programs/${shop.programId}/stripe`, { body: { webhook_secret: WEBHOOK_SECRET }, headers: adminHeaders });
});

let address = 0;
/** One click, its body sent with a length (served directly) or chunked (through Express). */
const click = (text: string, way: 'direct' | 'express', headers: Record<string, string> = {}) => post('/api/v1/track/click', text, way, headers);

async function post(path: string, text: string, way: 'direct' | 'express', headers: Record<string, string> = {}) {
  address += 1;
  const bytes = new TextEncoder().encode(text);
  const body = way === 'direct' ? text : new ReadableStream({ start: (controller) => { controller.enqueue(bytes); controller.close(); } });
  const response = await fetch(`${api.url}${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-Forwarded-For': `203.0.113.${address}`, ...headers },
    body,
    ...(way === 'express' ? { duplex: 'half' } : {}),
  } as RequestInit);
  const raw = await response.text();
  const named = ['content-type', 'vary', 'access-control-allow-origin', 'access-control-expose-headers', 'x-ratelimit-limit', 'x-ratelimit-remaining'];
  return {
    status: response.status,
    // Ids differ by nature; everything else must not.
    body: raw.replace(/clk_[A-Za-z0-9_-]+/g, 'clk_…').replace(/"id":\d+/, '"id":…'),
    headers: Object.fromEntries(named.map((name) => [name, response.headers.get(name)])),
    requestId: response.headers.get('x-request-id'),
  };
}

describe('the click served directly answers as Express would', () => {
  const cases: [string, () => string, Record<string, string>?][] = [
    ['an ordinary click', () => JSON.stringify({ affiliate_url: shop.affiliateUrl })],
    ['from an allowed browser origin', () => JSON.stringify({ affiliate_url: shop.affiliateUrl }), { Origin: 'https://shop.example.com' }],
    ['from an origin the program does not list', () => JSON.stringify({ affiliate_url: shop.affiliateUrl }), { Origin: 'https://elsewhere.example' }],
    ['with a key that is no key (clicks need none)', () => JSON.stringify({ affiliate_url: shop.affiliateUrl }), { Authorization: 'Bearer nothing' }],
    ['malformed JSON', () => '{"affiliate_url": '],
    ['a body that is not an object', () => '[1, 2]'],
    ['an empty body', () => ''],
    ['text PostgreSQL cannot store', () => JSON.stringify({ affiliate_url: `${shop.affiliateUrl}\u0000` })],
    ['an unknown link', () => JSON.stringify({ affiliate_url: 'https://shop.example.com/?aff=nobody-at-all' })],
    ['no affiliate_url', () => JSON.stringify({ page_url: 'https://shop.example.com/' })],
  ];
  for (const [name, text, headers] of cases) {
    it(name, async () => {
      const direct = await click(text(), 'direct', headers);
      const throughExpress = await click(text(), 'express', headers);
      expect(direct.requestId).toMatch(/^[0-9a-f-]{36}$/);
      expect({ ...direct, requestId: undefined }).toEqual({ ...throughExpress, requestId: undefined });
      // Both counted (one hourly window each address), both with the limit's headers.
      expect(direct.headers['x-ratelimit-limit']).not.toBeNull();
    });
  }

  it('records the click either way, with the client address Express would take', async () => {
    const before = await count(db.pool, 'SELECT 1 FROM clicks WHERE program_id = $1', [shop.programId]);
    const direct = await click(JSON.stringify({ affiliate_url: shop.affiliateUrl }), 'direct');
    expect(direct.status).toBe(200);
    expect(await count(db.pool, 'SELECT 1 FROM clicks WHERE program_id = $1', [shop.programId])).toBe(before + 1);
    expect(await count(db.pool, "SELECT 1 FROM clicks WHERE program_id = $1 AND ip = $2::inet", [shop.programId, `203.0.113.${address}`])).toBe(1);
  });
});

describe('a webhook delivery served directly answers as Express would', () => {
  let n = 0;
  /** A fresh signed Stripe event (a second delivery of the same one would be a duplicate). */
  const event = async () => {
    n += 1;
    const e = await fixture('checkout.session.completed.payment', { run: `direct${n}${Math.random().toString(36).slice(2, 8)}`, click_id: '', customer_key: `c${n}`, program_id: shop.programId, email: `c${n}@example.com` });
    return JSON.stringify(e);
  };
  const stripe = () => `/api/v1/webhooks/stripe/${shop.programId}`;
  const cases: [string, () => Promise<[string, string, Record<string, string>]>][] = [
    ['a signed event: stored and queued', async () => { const text = await event(); return [stripe(), text, { 'Stripe-Signature': sign(text, WEBHOOK_SECRET) }]; }],
    ['a wrong signature', async () => { const text = await event(); return [stripe(), text, { 'Stripe-Signature': sign(text, 'whsec_not_this_one') }]; }],
    ['no signature', async () => [stripe(), await event(), {}]],
    ['signed bytes that are not JSON', async () => ['' + stripe(), '{"id": ', { 'Stripe-Signature': sign('{"id": ', WEBHOOK_SECRET) }]],
    ['an unknown program', async () => { const text = await event(); return ['/api/v1/webhooks/stripe/999999', text, { 'Stripe-Signature': sign(text, WEBHOOK_SECRET) }]; }],
    ['a program id that is no number', async () => { const text = await event(); return ['/api/v1/webhooks/stripe/abc', text, { 'Stripe-Signature': sign(text, WEBHOOK_SECRET) }]; }],
    ['Connect, not configured here', async () => { const text = await event(); return ['/api/v1/webhooks/stripe', text, { 'Stripe-Signature': sign(text, WEBHOOK_SECRET) }]; }],
    ['Paddle, unsigned', async () => [`/api/v1/webhooks/paddle/${shop.programId}`, '{"event_id":"evt_1"}', {}]],
    ['Lemon Squeezy, unsigned', async () => [`/api/v1/webhooks/lemonsqueezy/${shop.programId}`, '{"meta":{}}', {}]],
  ];
  for (const [name, make] of cases) {
    it(name, async () => {
      const [path, text, headers] = await make();
      const direct = await post(path, text, 'direct', headers);
      const [path2, text2, headers2] = await make();
      const throughExpress = await post(path2, text2, 'express', headers2);
      expect(direct.requestId).toMatch(/^[0-9a-f-]{36}$/);
      expect({ ...direct, requestId: undefined }).toEqual({ ...throughExpress, requestId: undefined });
    });
  }

  it('which deliveries are served directly', () => {
    const request = (url: string, headers: Record<string, string> = { 'content-length': '10' }) => ({ method: 'POST', url, headers }) as any;
    expect(webhookRoute(request('/api/v1/webhooks/stripe/12'), 1_048_576)).toEqual({ source: 'stripe', programId: '12', path: '/api/v1/webhooks/stripe/12' });
    expect(webhookRoute(request('/api/v1/webhooks/stripe'), 1_048_576)).toEqual({ source: 'stripe', programId: null, path: '/api/v1/webhooks/stripe' });
    expect(webhookRoute(request('/api/v1/webhooks/paddle/7?x=1'), 1_048_576)).toMatchObject({ source: 'paddle', programId: '7' });
    expect(webhookRoute(request('/api/v1/webhooks/paddle'), 1_048_576)).toBeNull();
    expect(webhookRoute(request('/api/v1/webhooks/stripe/%31'), 1_048_576)).toBeNull();
    expect(webhookRoute(request('/api/v1/webhooks/stripe/1', { 'transfer-encoding': 'chunked' }), 1_048_576)).toBeNull();
    expect(webhookRoute(request('/api/v1/webhooks/stripe/1', { 'content-length': '2000000' }), 1_048_576)).toBeNull();
  });
});

describe('which clicks are served directly', () => {
  const request = (headers: Record<string, string>, method = 'POST', url = '/api/v1/track/click') => ({ method, url, headers }) as any;
  const json = { 'content-type': 'application/json', 'content-length': '40' };
  it('an ordinary JSON click with its length, within the body limit', () => {
    expect(servedDirectly(request(json), 102_400)).toBe(true);
    expect(servedDirectly(request({ ...json, 'content-type': 'application/json; charset=UTF-8' }), 102_400)).toBe(true);
    expect(servedDirectly(request(json, 'POST', '/api/v1/track/click?x=1'), 102_400)).toBe(true);
  });
  it('anything else goes through Express', () => {
    expect(servedDirectly(request(json, 'OPTIONS'), 102_400)).toBe(false);
    expect(servedDirectly(request(json, 'POST', '/api/v1/track/lead'), 102_400)).toBe(false);
    expect(servedDirectly(request({ ...json, 'content-length': '200000' }), 102_400)).toBe(false);
    expect(servedDirectly(request({ 'content-type': 'application/json', 'transfer-encoding': 'chunked' }), 102_400)).toBe(false);
    expect(servedDirectly(request({ ...json, 'content-encoding': 'gzip' }), 102_400)).toBe(false);
    expect(servedDirectly(request({ ...json, 'content-type': 'application/json; charset=latin1' }), 102_400)).toBe(false);
    expect(servedDirectly(request({ ...json, 'content-type': 'text/plain' }), 102_400)).toBe(false);
  });
  it('reads the body limit as body-parser spells it', () => {
    expect(limitInBytes('100kb')).toBe(102_400);
    expect(limitInBytes('1mb')).toBe(1_048_576);
    expect(limitInBytes('512')).toBe(512);
    expect(limitInBytes('1.5mb')).toBeNull();
  });
});
