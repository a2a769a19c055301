// The ordinary click is served outside Express (src/http/direct-click.ts); its other shapes go
// through Express's route. The same request answers the same either way: status, body, and the
// headers the contract names (spec §4.1, §7, §8).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { limitInBytes, servedDirectly } from '../src/http/direct-click.js';
import { type SeededProgram, type TestApi, type TestDatabase, closeTestApi, count, openTestApi, seedProgram } from './support/harness.js';

let db: TestDatabase;
let api: TestApi;
let shop: SeededProgram;

beforeAll(async () => {
  ({ db, api } = await openTestApi());
  shop = await seedProgram(api, { allowed_origins: ['https://shop.example.com'] });
});
afterAll(() => closeTestApi({ db, api }));

let address = 0;
/** One click, its body sent with a length (served directly) or chunked (through Express). */
async function click(text: string, way: 'direct' | 'express', headers: Record<string, string> = {}) {
  address += 1;
  const bytes = new TextEncoder().encode(text);
  const body = way === 'direct' ? text : new ReadableStream({ start: (controller) => { controller.enqueue(bytes); controller.close(); } });
  const response = await fetch(`${api.url}/api/v1/track/click`, {
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
    body: raw.replace(/clk_[A-Za-z0-9_-]+/g, 'clk_…'),
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
