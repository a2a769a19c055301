// Hostile input: every class that once answered 5xx now answers 4xx (JSON on API routes, an
// HTML page on forms), and property-based runs over the public routes find no 5xx and no
// partial write.
import fc from 'fast-check';
import { hostileText, hostileValue } from './support/hostile.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type SeededProgram,
  type TestApi,
  type TestDatabase,
  adminHeaders,
  bearer,
  closeTestApi,
  openTestApi,
  seedProgram,
  trackClick,
} from './support/harness.js';
import { WEBHOOK_SECRET, deliver, fixture, waitForEvent } from './support/stripe.js';

let db: TestDatabase;
let api: TestApi;
let shop: SeededProgram;

beforeAll(async () => {
  ({ db, api } = await openTestApi(
    { AFFIX_SECRET_KEY: 'hostile-secret-key-0123456', AFFIX_WORKER_RETRY_LIMIT: '3', AFFIX_WORKER_POLL_SECONDS: '0.5' },
    { queueUrl: 'own', workers: true },
  ));
  shop = await seedProgram(api, { commission_type: 'recurring_percent' });
  await api.request('PATCH', `/api/v1/admin/programs/${shop.programId}/stripe`, {
    body: { webhook_secret: WEBHOOK_SECRET, livemode_only_commissions: false },
    headers: adminHeaders,
  });
});
afterAll(() => closeTestApi({ db, api }));

const json = { 'Content-Type': 'application/json' };
const form = { 'Content-Type': 'application/x-www-form-urlencoded' };

/** Row counts of every table a request could write. */
async function snapshot(): Promise<Record<string, number>> {
  const { rows } = await db.pool.query(
    `SELECT (SELECT count(*) FROM clicks)::int AS clicks, (SELECT count(*) FROM customers)::int AS customers,
            (SELECT count(*) FROM sales)::int AS sales, (SELECT count(*) FROM commissions)::int AS commissions,
            (SELECT count(*) FROM refunds)::int AS refunds, (SELECT count(*) FROM accounts)::int AS accounts,
            (SELECT count(*) FROM programs)::int AS programs, (SELECT count(*) FROM webhook_events)::int AS webhook_events`,
  );
  return rows[0];
}

describe('text PostgreSQL cannot store', () => {
  const bad = { nul: 'a\u0000b', surrogate: 'a\ud800b', lowSurrogate: '\udc00' };
  it.each(Object.entries(bad))('%s in any JSON string of a tracking or admin route: 400, nothing written', async (_name, text) => {
    const before = await snapshot();
    const cases: [string, Record<string, string>, unknown][] = [
      ['/api/v1/track/click', {}, { affiliate_url: `https://shop.example.com/?aff=${text}` }],
      ['/api/v1/track/lead', bearer(shop.apiKey), { customer_key: text, click_id: 'x' }],
      ['/api/v1/track/sale', bearer(shop.apiKey), { transaction_id: text, amount_cents: 100, customer_key: 'c' }],
      ['/api/v1/track/refund', bearer(shop.apiKey), { transaction_id: 'x', refund_id: text }],
      ['/api/v1/admin/accounts', adminHeaders, { email: `x${text}@example.com` }],
      ['/api/v1/admin/accounts', adminHeaders, { email: 'y@example.com', nested: { deep: [text] } }],
    ];
    for (const [path, headers, body] of cases) {
      const reply = await api.request('POST', path, { raw: JSON.stringify(body), headers: { ...json, ...headers } });
      expect(reply.status, path).toBe(400);
      expect(reply.body.error.message, path).toMatch(/NUL character|unpaired surrogate/);
    }
    expect(await snapshot()).toEqual(before);
  });

  it('nesting deeper than 32 levels: 400', async () => {
    const deep = JSON.stringify({ affiliate_url: 'x', extra: JSON.parse('['.repeat(3000) + ']'.repeat(3000)) });
    const reply = await api.request('POST', '/api/v1/track/click', { raw: deep, headers: json });
    expect(reply.status).toBe(400);
    expect(reply.body.error.message).toMatch(/nested more than 32 levels/);
  });
});

describe('admin inputs out of range', () => {
  it.each([1e308, 2 ** 63])('account_id %s: 4xx, not 500', async (accountId) => {
    const reply = await api.request('POST', '/api/v1/admin/programs', {
      raw: `{"account_id": ${accountId === 1e308 ? '1e308' : '9223372036854775808'}, "name": "x", "domain": "x.example.com", "commission_type": "percent", "commission_rate": 10}`,
      headers: { ...json, ...adminHeaders },
    });
    expect(reply.status).toBeGreaterThanOrEqual(400);
    expect(reply.status).toBeLessThan(500);
  });

  it('a malformed %-escape in the path: 400', async () => {
    const reply = await api.request('GET', '/api/v1/admin/programs/%ZZ', { headers: adminHeaders });
    expect(reply.status).toBe(400);
    expect(reply.body.error.status).toBe(400);
  });
});

describe('forms', () => {
  it('/dashboard/login with a repeated field, a NUL, or more than 100 fields: 4xx HTML pages', async () => {
    const repeated = await api.request('POST', '/dashboard/login', { raw: 'email=a%40b.c&email=d%40e.f&password=x', headers: form });
    expect(repeated.status).toBe(400);
    expect(repeated.headers.get('content-type')).toContain('text/html');
    expect(repeated.body).toContain('The field email was sent more than once');
    const nul = await api.request('POST', '/dashboard/login', { raw: 'email=a%00b&password=x', headers: form });
    expect(nul.status).toBe(400);
    expect(nul.body).toContain('NUL character');
    const many = Array.from({ length: 1_001 }, (_, i) => `f${i}=1`).join('&');
    const tooMany = await api.request('POST', '/dashboard/login', { raw: many, headers: form });
    expect(tooMany.status).toBe(413);
    expect(tooMany.headers.get('content-type')).toContain('text/html');
  });

  it.each(['null', 'not a url', 'http://[::1'])('/dashboard/login with Origin %j: 403 page', async (origin) => {
    const reply = await api.request('POST', '/dashboard/login', { raw: 'email=a%40b.c&password=x', headers: { ...form, Origin: origin } });
    expect(reply.status).toBe(403);
    expect(reply.body).toContain('Cross-site form post refused');
  });

  it('/cli/login with a repeated state: 400', async () => {
    const reply = await api.request('POST', '/cli/login', { raw: 'state=a&state=b&email=x&password=y', headers: form });
    expect(reply.status).toBe(400);
  });
});

describe('signed Stripe events', () => {
  const path = () => `/api/v1/webhooks/stripe/${shop.programId}`;

  it.each([
    ['a missing id', { type: 'checkout.session.completed', data: { object: {} } }],
    ['a type that is not a string', { id: 'evt_bad_type', type: 42, data: { object: {} } }],
    ['an array body', [1, 2, 3]],
    ['no data object', { id: 'evt_no_data', type: 'checkout.session.completed' }],
  ])('%s: 400 saying it is not a Stripe event, nothing stored', async (_name, event) => {
    const before = await snapshot();
    const reply = await deliver(api, path(), event);
    expect(reply.status).toBe(400);
    expect(reply.body.error.message).toMatch(/^Signed payload is not a Stripe event/);
    expect(await snapshot()).toEqual(before);
  });

  it.each([
    ['a NUL', 'buyer\u0000name'],
    ['a lone surrogate', 'buyer\ud800name'],
  ])('an event with %s in a field is stored losslessly (raw), answered 200, and finished with a reason', async (_name, text) => {
    const clickId = await trackClick(api, shop.affiliateUrl);
    const event = await fixture('checkout.session.completed.payment', { run: `hostile${Math.random().toString(36).slice(2)}`, email: 'h@example.com', click_id: clickId, customer_key: 'hostile-customer', program_id: shop.programId });
    event.data.object.customer_details.name = text;
    const reply = await deliver(api, path(), event);
    expect(reply.status).toBe(200);
    const stored = await db.pool.query('SELECT payload IS NULL AS raw_only, raw_body FROM webhook_events WHERE event_key = $1', [event.id]);
    expect(stored.rows[0].raw_only).toBe(true);
    expect(JSON.parse(stored.rows[0].raw_body.toString('utf8'))).toEqual(event);
    const row = await waitForEvent(db.pool, event.id, ['processed', 'failed']);
    expect(row.attempts).toBe(0);
  });

  it('an event nested 3000 levels deep is stored (200) and processed or failed, never retried for days', async () => {
    const clickId = await trackClick(api, shop.affiliateUrl);
    const event = await fixture('checkout.session.completed.payment', { run: `deep${Date.now()}`, email: 'd@example.com', click_id: clickId, customer_key: 'deep', program_id: shop.programId });
    event.data.object.metadata.deep = JSON.parse('['.repeat(3000) + ']'.repeat(3000));
    const reply = await deliver(api, path(), event);
    expect(reply.status).toBe(200);
    const row = await waitForEvent(db.pool, event.id, ['processed', 'ignored', 'failed']);
    expect(row.attempts).toBe(0);
  });

  it.each([
    ['9007199254740993', '9007199254740993'],
    ['1.5', '1.5'],
    ['1e308', '1e308'],
    ['1e-7', '1e-7'],
  ])('amount_total %s: failed at once with its reason, no sale, never rounded', async (_name, literal) => {
    const clickId = await trackClick(api, shop.affiliateUrl);
    const event = await fixture('checkout.session.completed.payment', { run: `amount${Math.random().toString(36).slice(2)}`, email: 'a@example.com', click_id: clickId, customer_key: `amount-${literal}`, program_id: shop.programId });
    const payload = JSON.stringify(event).replace('"amount_total":4900', `"amount_total":${literal}`);
    expect(payload).toContain(`"amount_total":${literal}`);
    const reply = await deliver(api, path(), event, { signedText: payload });
    expect(reply.status).toBe(200);
    const row = await waitForEvent(db.pool, event.id, ['processed', 'failed', 'dead', 'parked']);
    expect(row.status).toBe('failed');
    expect(row.attempts).toBe(0);
    expect(row.reason).toMatch(/^The amount (is not a whole number of cents|is larger than the maximum of 1000000000000)$/);
    expect((await db.pool.query('SELECT 1 FROM sales WHERE processor_event_id = $1', [event.data.object.id])).rowCount).toBe(0);
  });
});

describe('property: no public route answers 5xx or writes half a request', () => {
  const fields = ['affiliate_url', 'click_id', 'customer_key', 'email', 'transaction_id', 'amount_cents', 'currency', 'occurred_at', 'refund_amount_cents', 'refund_id', 'reason', 'account_id', 'name', 'domain', 'commission_type', 'commission_rate'];
  const body = fc.dictionary(fc.oneof(fc.constantFrom(...fields), hostileText), hostileValue, { maxKeys: 6 });
  const routes: [string, string, Record<string, string>][] = [
    ['POST', '/api/v1/track/click', {}],
    ['POST', '/api/v1/track/lead', {}],
    ['POST', '/api/v1/track/sale', {}],
    ['POST', '/api/v1/track/refund', {}],
    ['POST', '/api/v1/admin/accounts', adminHeaders],
    ['POST', '/api/v1/admin/programs', adminHeaders],
    ['PATCH', '/api/v1/admin/programs/1', adminHeaders],
    ['POST', '/api/v1/cli/test-event', {}],
  ];

  it.each(routes)('%s %s', async (method, path, headers) => {
    const auth = path.startsWith('/api/v1/admin') ? headers : bearer(shop.apiKey);
    await fc.assert(
      fc.asyncProperty(body, async (input) => {
        const before = await snapshot();
        const reply = await api.request(method, path, { raw: JSON.stringify(input), headers: { ...json, ...auth } });
        expect(reply.status, JSON.stringify(reply.body)).toBeLessThan(500);
        if (reply.status >= 400) expect(await snapshot()).toEqual(before);
      }),
      { numRuns: 40 },
    );
  }, 120_000);

  it.each(['/dashboard/login', '/cli/login'])('form %s', async (path) => {
    const formBody = fc.array(fc.tuple(fc.oneof(fc.constantFrom('email', 'password', 'state'), hostileText), hostileText), { maxLength: 6 });
    await fc.assert(
      fc.asyncProperty(formBody, async (pairs) => {
        const raw = pairs.map(([key, value]) => `${encodeURIComponent(key.toWellFormed())}=${encodeURIComponent(value.toWellFormed())}`).join('&');
        const reply = await api.request('POST', path, { raw, headers: form });
        expect(reply.status).toBeLessThan(500);
      }),
      { numRuns: 40 },
    );
  }, 120_000);
});
