// @affix/sdk/server against the running service (real HTTP); nock only for network failures.
import { execFileSync } from 'node:child_process';
import { Affix } from '@affix/sdk/server';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type SeededProgram, type TestApi, type TestDatabase, startTestApi } from './support/harness.js';
import { useSeededApi } from './support/seeded-api.js';
import { nockForThisFile } from './support/nock.js';

const nock = nockForThisFile();

let db: TestDatabase;
let api: TestApi;
let shop: SeededProgram;
let affix: Affix;

useSeededApi({ programs: [{ lead_auth: 'server_required' }] }, (t) => ({ db, api, programs: [shop] } = t));
beforeAll(async () => {
  affix = new Affix({ apiKey: shop.apiKey, apiUrl: api.url });
});
afterEach(() => {
  nock.cleanAll();
  nock.enableNetConnect();
});

let n = 0;
const uid = (prefix: string) => `${prefix}_${++n}_${Date.now()}`;

describe('synchronous input errors', () => {
  it('throws for the invalid inputs of spec §4.9', () => {
    expect(() => new Affix({ apiKey: '' })).toThrow('apiKey is required');
    expect(() => affix.trackLead({ email: 'a@b.co' })).toThrow('customerExternalId or clickId is required');
    expect(() => affix.trackSale({ invoiceId: 'x', amount: 0, customerExternalId: 'c' })).toThrow('amount must be a positive integer');
    expect(() => affix.trackSale({ invoiceId: 'x', amount: 10.5, customerExternalId: 'c' })).toThrow('amount must be a positive integer');
    expect(() => affix.trackSale({ invoiceId: 'x', amount: '100' as unknown as number, customerExternalId: 'c' })).toThrow('amount must be a positive integer');
    expect(() => affix.trackSale({ invoiceId: '', amount: 100, customerExternalId: 'c' })).toThrow('invoiceId (string) is required');
    expect(() => affix.trackSale({ invoiceId: 'x', amount: 100 })).toThrow('customerExternalId or clickId is required');
    expect(() => affix.trackRefund({} as never)).toThrow('invoiceId (string) is required');
  });
});

describe('against the service', () => {
  it('click -> lead -> sale -> refund, every answer an AffixResponse', async () => {
    const click = await affix.trackClick({ affiliateUrl: shop.affiliateUrl, pageUrl: 'https://shop.example.com/', referrerUrl: '' });
    expect(click).toEqual({ ok: true, status: 200, data: { success: true, click_id: expect.stringMatching(/^clk_/), partner_code: shop.shortLink, cookie_window_days: 60 } });
    const customer = uid('sdk_user');
    // Server SDK leads send the key: server mode, so never provisional even under server_required.
    const lead = await affix.trackLead({ customerExternalId: customer, clickId: click.data!.click_id, email: 'sdk@example.com', eventName: 'signup' });
    expect(lead).toEqual({ ok: true, status: 200, data: { success: true, message: 'Lead tracked successfully' } });
    const invoiceId = uid('inv');
    const sale = await affix.trackSale({
      customerExternalId: customer, amount: 2000, invoiceId, taxCents: 300, saleType: 'subscription', isRecurring: false,
      subscriptionId: 'sub_sdk', subscriptionInterval: 'monthly', eventName: 'first_payment', currency: 'EUR',
    });
    expect(sale).toMatchObject({ ok: true, status: 200, data: { success: true, sale_id: expect.any(Number), commission_id: expect.any(Number) } });
    const { rows } = await db.pool.query(
      'SELECT tax_cents, sale_type, is_recurring, subscription_id, subscription_interval, event_name, currency FROM sales WHERE processor_event_id = $1',
      [invoiceId],
    );
    expect(rows).toEqual([{ tax_cents: 300, sale_type: 'subscription', is_recurring: false, subscription_id: 'sub_sdk', subscription_interval: 'monthly', event_name: 'first_payment', currency: 'EUR' }]);
    // 409: already recorded, a no-op; documented as success-like.
    const again = await affix.trackSale({ customerExternalId: customer, amount: 2000, invoiceId });
    expect(again).toEqual({ ok: false, status: 409, data: null, error: 'Duplicate transaction_id. This sale has already been recorded.' });
    const refund = await affix.trackRefund({ invoiceId, refundAmountCents: 500, refundReason: 'partial' });
    expect(refund).toMatchObject({ ok: true, status: 200, data: { success: true, status: 'refunded' } });
  });

  it('HTTP errors resolve, never reject', async () => {
    const stranger = new Affix({ apiKey: 'affix_sk_wrong', apiUrl: api.url });
    expect(await stranger.trackSale({ customerExternalId: 'c', amount: 100, invoiceId: uid('x') })).toEqual({ ok: false, status: 401, data: null, error: 'Invalid API token' });
    expect(await affix.trackSale({ customerExternalId: 'c', amount: 100, invoiceId: uid('x'), currency: 'GBP' })).toEqual({
      ok: false, status: 422, data: null, error: 'currency GBP is not supported',
    });
    expect(await affix.trackRefund({ invoiceId: 'missing' })).toEqual({ ok: false, status: 404, data: null, error: 'Sale not found for transaction_id' });
  });
});

describe('network and retries (nock)', () => {
  const fake = 'http://affix.invalid';
  const client = () => new Affix({ apiKey: 'k', apiUrl: fake });

  it('a network error is status 0', async () => {
    nock.disableNetConnect();
    nock(fake).post('/api/v1/track/sale').replyWithError('connect ECONNREFUSED');
    const reply = await client().trackSale({ customerExternalId: 'c', amount: 100, invoiceId: 'i' });
    expect(reply).toMatchObject({ ok: false, status: 0, data: null, error: expect.stringContaining('') });
  });

  it('429 waits Retry-After and retries; a retry-safe 500 is retried after a backoff (waits injected, not timed)', async () => {
    nock(fake).post('/api/v1/track/sale').reply(429, { error: { code: 'rate_limited', message: 'Too many requests.' } }, { 'Retry-After': '7' });
    nock(fake).post('/api/v1/track/sale').reply(500, { data: null, error: { message: 'Sale tracking failed' } });
    nock(fake).post('/api/v1/track/sale').reply(200, { success: true, sale_id: 1, commission_id: 2 });
    const waits: number[] = [];
    const affix = new Affix({ apiKey: 'k', apiUrl: fake, sleep: async (ms) => void waits.push(ms) });
    const reply = await affix.trackSale({ customerExternalId: 'c', amount: 100, invoiceId: 'i' });
    expect(reply).toEqual({ ok: true, status: 200, data: { success: true, sale_id: 1, commission_id: 2 } });
    expect(waits).toEqual([7000, 500]);
  });

  it('a 400 is never retried; retries stop at maxRetries; a wait over 60 s is not waited for', async () => {
    const waits: number[] = [];
    const affix = new Affix({ apiKey: 'k', apiUrl: fake, maxRetries: 1, sleep: async (ms) => void waits.push(ms) });
    const bad = nock(fake).post('/api/v1/track/sale').once().reply(400, { error: { code: 'no_attribution', message: 'No attribution.' } });
    expect(await affix.trackSale({ customerExternalId: 'c', amount: 100, invoiceId: 'i' })).toEqual({ ok: false, status: 400, data: null, error: 'No attribution.' });
    expect(bad.isDone()).toBe(true);
    nock(fake).post('/api/v1/track/sale').times(2).reply(503, { error: { message: 'Service unavailable' } });
    expect(await affix.trackSale({ customerExternalId: 'c', amount: 100, invoiceId: 'i' })).toMatchObject({ ok: false, status: 503 });
    nock(fake).post('/api/v1/track/sale').once().reply(429, { error: { message: 'Too many requests.' } }, { 'Retry-After': '3600' });
    expect(await affix.trackSale({ customerExternalId: 'c', amount: 100, invoiceId: 'i' })).toMatchObject({ ok: false, status: 429 });
    expect(waits).toEqual([250]);
    expect(nock.pendingMocks()).toEqual([]);
  });

  it('"Failed to create commission" is never retried (the sale is stored)', async () => {
    const scope = nock(fake).post('/api/v1/track/sale').once().reply(500, { data: null, error: { message: 'Failed to create commission' } });
    const reply = await client().trackSale({ customerExternalId: 'c', amount: 100, invoiceId: 'i' });
    expect(reply).toEqual({ ok: false, status: 500, data: null, error: 'Failed to create commission' });
    expect(scope.isDone()).toBe(true);
    expect(nock.pendingMocks()).toEqual([]);
  });
});

describe('package shape', () => {
  it('works from CommonJS and ESM through the exports map', () => {
    const cjs = execFileSync(process.execPath, ['-e', "const { Affix } = require('@affix/sdk/server'); const { loadAffix } = require('@affix/sdk'); console.log(typeof Affix, typeof loadAffix)"]).toString();
    expect(cjs.trim()).toBe('function function');
    const esm = execFileSync(process.execPath, ['--input-type=module', '-e', "import { loadAffix } from '@affix/sdk'; console.log(await loadAffix(1))"]).toString();
    expect(esm.trim()).toBe('null');
  });

  it('React: renders on the server with no tracker (useAffix is null)', async () => {
    const { createElement } = await import('react');
    const { renderToString } = await import('react-dom/server');
    const { AffixProvider, useAffix } = await import('@affix/sdk/react');
    function Probe() {
      return createElement('span', null, useAffix() === null ? 'no tracker' : 'tracker');
    }
    expect(renderToString(createElement(AffixProvider, { programId: 1 }, createElement(Probe)))).toBe('<span>no tracker</span>');
  });
});
