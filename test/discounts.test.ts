// Discounts for referred buyers (docs/discounts.md, issue 46 item 6): a group's discount makes a
// code per approved partner in the brand's processor, by a job, against each processor's documented
// requests and answers (nock): Stripe (a coupon, then a promotion code, on the connected account),
// Paddle Billing (POST /discounts) and Lemon Squeezy (POST /v1/discounts, JSON:API). A retry after
// a lost answer never makes a second code; 429 and 5xx are retried, other 4xx are not; a code taken
// by another is skipped for the next one. Ban, archive and a group change deactivate the code; the
// codes attribute sales (the promo-code step); getDiscount's lookup shows the code and its words.
import { execFile } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { discountCodeFor } from '../src/core/discounts.js';
import { DISCOUNT_CODES_QUEUE } from '../src/core/queue-names.js';
import { runDiscountJob } from '../src/jobs/discount-jobs.js';
import { loadFixture } from '../src/platform/fixtures.js';
import { createLogger } from '../src/platform/logger.js';
import { createSecretBox } from '../src/platform/secret-box.js';
import { ADMIN_TOKEN, type SeededProgram, type TestApi, type TestDatabase, addPartnerLink, adminHeaders, bearer, seedProgram } from './support/harness.js';
import { useSeededApi } from './support/seeded-api.js';
import { nockForThisFile } from './support/nock.js';
import { processEventsInOrder } from './support/stripe.js';

const nock = nockForThisFile();
const SECRET = 'discounts-test-secret-key-0123456789';
const STRIPE_KEY = 'sk_test_discounts';
const STRIPE = 'https://api.stripe.com';
const PADDLE_SANDBOX = 'https://sandbox-api.paddle.com';
const LEMON = 'https://api.lemonsqueezy.com';

let db: TestDatabase;
let api: TestApi;

useSeededApi({ env: { AFFIX_SECRET_KEY: SECRET, STRIPE_SECRET_KEY: STRIPE_KEY }, options: { queueUrl: 'own' } }, (t) => ({ db, api } = t));
beforeAll(async () => {
  nock.disableNetConnect();
  nock.enableNetConnect('127.0.0.1');
});
beforeEach(() => {
  nock.cleanAll();
});

const jobDeps = () => ({
  pool: db.pool,
  secretBox: createSecretBox(SECRET),
  stripeSecretKey: STRIPE_KEY,
  now: () => new Date('2026-11-28T06:00:00Z'),
  logger: createLogger('silent'),
  retry: { retries: 3, minTimeoutMs: 0 },
});

/** Runs the queued discount jobs as the worker does (no wall clock); how many ran. */
async function runJobs(): Promise<number> {
  let ran = 0;
  for (;;) {
    const jobs = await api.queue!.fetch(DISCOUNT_CODES_QUEUE, { batchSize: 10 });
    if (!jobs || jobs.length === 0) return ran;
    for (const job of jobs) {
      await runDiscountJob(jobDeps(), job.data);
      await api.queue!.complete(DISCOUNT_CODES_QUEUE, job.id);
      ran += 1;
    }
  }
}

const admin = (method: string, path: string, body?: unknown) => api.request(method, `/api/v1/admin${path}`, { body, headers: adminHeaders });
async function must(method: string, path: string, body?: unknown) {
  const reply = await admin(method, path, body);
  if (reply.status >= 300) throw new Error(`${method} ${path}: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body?.data;
}

let groupCounter = 0;
/** A program whose seeded partner is in a new group. */
async function programWithGroup(): Promise<{ shop: SeededProgram; groupId: number }> {
  const shop = await seedProgram(api);
  const slug = `g${++groupCounter}`;
  const group = await must('POST', `/programs/${shop.programId}/groups`, { name: `Creators ${slug}`, slug, commission_type: 'percent', commission_rate: 20, hold_days: 30 });
  await must('POST', `/programs/${shop.programId}/partners/bulk`, { action: 'move_group', partner_ids: [shop.partnerId], group_id: group.id });
  return { shop, groupId: group.id };
}

const codesOf = async (programId: number) =>
  (await db.pool.query('SELECT partner_id, code, stripe_promotion_code_id, processor_discount_id, active FROM promo_codes WHERE program_id = $1 ORDER BY id', [programId])).rows;
const lastError = async (programId: number) => (await db.pool.query('SELECT last_error FROM group_discounts WHERE program_id = $1 AND ended_at IS NULL', [programId])).rows[0]?.last_error ?? null;
const lookup = (programId: number, code: string) => api.request('GET', `/api/v1/discount?program_id=${programId}&code=${encodeURIComponent(code)}`);

describe('Stripe: a coupon per discount, a promotion code per partner', () => {
  it('makes the code once (a lost answer retried with the same Idempotency-Key), attributes sales by it, and deactivates it on a ban', async () => {
    const { shop, groupId } = await programWithGroup();
    await db.pool.query('UPDATE programs SET stripe_account_id = $2 WHERE id = $1', [shop.programId, `acct_disc${shop.programId}`]);
    const set = await admin('PUT', `/programs/${shop.programId}/groups/${groupId}/discount`, { processor: 'stripe', type: 'percent', percent: '20', duration: 'repeating', duration_months: 3 });
    expect(set.status).toBe(200);
    expect(set.body.data).toMatchObject({ processor: 'stripe', description: '20 % off for 3 months', live_codes: 0 });

    const code = discountCodeFor(shop.shortLink, shop.partnerId, 0);
    const couponId = `affix_${shop.programId}_${set.body.data.id}`;
    const keys: string[] = [];
    let couponBody: Record<string, string> = {};
    nock(STRIPE)
      .post('/v1/coupons', (body) => ((couponBody = body), true))
      .matchHeader('authorization', `Bearer ${STRIPE_KEY}`)
      .matchHeader('stripe-account', `acct_disc${shop.programId}`)
      .matchHeader('idempotency-key', `affix-coupon-${shop.programId}-${set.body.data.id}`)
      .reply(200, { id: couponId, object: 'coupon', percent_off: 20, duration: 'repeating', duration_in_months: 3, valid: true });
    nock(STRIPE).get('/v1/promotion_codes').query({ code, active: 'true', limit: '10' }).reply(200, { object: 'list', data: [], has_more: false, url: '/v1/promotion_codes' });
    // The first create's answer is lost (the connection drops after Stripe made it); the retry,
    // with the same Idempotency-Key, gets Stripe's saved answer: the same promotion code.
    const promotion = { id: 'promo_1Disc', object: 'promotion_code', active: true, code, promotion: { type: 'coupon', coupon: couponId }, metadata: { affix_partner_id: String(shop.partnerId) } };
    nock(STRIPE).post('/v1/promotion_codes').matchHeader('idempotency-key', (key) => (keys.push(key), true)).replyWithError({ code: 'ECONNRESET', message: 'socket hang up' });
    nock(STRIPE).post('/v1/promotion_codes').matchHeader('idempotency-key', (key) => (keys.push(key), true)).reply(429, { error: { type: 'rate_limit_error', message: 'Too many requests' } });
    nock(STRIPE).post('/v1/promotion_codes', (body) => body['promotion[coupon]'] === couponId && body.code === code && body['promotion[type]'] === 'coupon')
      .matchHeader('idempotency-key', (key) => (keys.push(key), true)).reply(200, promotion);

    expect(await runJobs()).toBe(1);
    expect(nock.pendingMocks()).toEqual([]);
    expect(couponBody).toMatchObject({ id: couponId, percent_off: '20', duration: 'repeating', duration_in_months: '3' });
    expect(new Set(keys)).toEqual(new Set([`affix-promo-${shop.programId}-${set.body.data.id}-${shop.partnerId}-${code}`]));
    expect(keys).toHaveLength(3);
    expect(await codesOf(shop.programId)).toEqual([{ partner_id: shop.partnerId, code, stripe_promotion_code_id: 'promo_1Disc', processor_discount_id: null, active: true }]);

    // Asked again (the button): the code is there, nothing is called.
    expect((await admin('POST', `/programs/${shop.programId}/groups/${groupId}/discount/codes`)).body.data).toEqual({ partners_queued: 1 });
    expect(await runJobs()).toBe(1);
    expect(await codesOf(shop.programId)).toHaveLength(1);

    // The tracker's lookup: the code and its words, nothing about the partner; cacheable by anyone.
    const found = await lookup(shop.programId, shop.shortLink);
    expect(found.status).toBe(200);
    expect(found.body).toEqual({ data: { code, description: '20 % off for 3 months' } });
    expect(found.headers.get('cache-control')).toBe('public, max-age=300');
    expect(found.headers.get('access-control-allow-origin')).toBe('*');

    // A sale with the code and nothing else is the partner's (the promo-code step).
    const sale = await api.request('POST', '/api/v1/track/sale', {
      headers: bearer(shop.apiKey),
      body: { transaction_id: `txn_disc_${shop.programId}`, amount_cents: 10_000, customer_key: `buyer_${shop.programId}`, promo_code: 'promo_1Disc' },
    });
    expect(sale.status).toBe(200);
    expect(sale.body).toMatchObject({ attribution_step: 'promo_code' });

    // A ban deactivates it: Stripe's promotion code goes inactive, the mapping too, the lookup says null.
    nock(STRIPE).post('/v1/promotion_codes/promo_1Disc', (body) => body.active === 'false').reply(200, { ...promotion, active: false });
    await must('POST', `/programs/${shop.programId}/partners/${shop.partnerId}/ban`, { reason: 'coupon sites' });
    expect(await runJobs()).toBe(1);
    expect(nock.pendingMocks()).toEqual([]);
    expect((await codesOf(shop.programId))[0].active).toBe(false);
    expect((await lookup(shop.programId, shop.shortLink)).body).toEqual({ data: null });
  });

  it('refuses a discount while the program has no connected Stripe account, and answers nothing for an unknown link', async () => {
    const { shop, groupId } = await programWithGroup();
    const refused = await admin('PUT', `/programs/${shop.programId}/groups/${groupId}/discount`, { processor: 'stripe', type: 'percent', percent: '20', duration: 'once' });
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toMatch(/Connect the program's Stripe account first/);
    expect((await lookup(shop.programId, 'nosuchlink')).body).toEqual({ data: null });
    expect((await lookup(shop.programId, 'bad code!')).status).toBe(400);
  });
});

describe('Paddle: a discount per partner', () => {
  it('skips a code another discount has, retries a 429, and attributes a transaction by its discount id', async () => {
    const { shop, groupId } = await programWithGroup();
    expect((await admin('PUT', `/programs/${shop.programId}/processor-api-keys/paddle`, { api_key: 'pdl_sdbx_apikey_01', sandbox: true })).status).toBe(200);
    const repeating = await admin('PUT', `/programs/${shop.programId}/groups/${groupId}/discount`, { processor: 'paddle', type: 'percent', percent: '20', duration: 'repeating', duration_months: 3 });
    expect(repeating.status).toBe(400);
    expect(repeating.body.error.message).toBe('Paddle repeats a discount per billing period, not per month: choose once or forever for a Paddle discount.');
    expect((await admin('PUT', `/programs/${shop.programId}/groups/${groupId}/discount`, { processor: 'paddle', type: 'amount', amount: '10', currency: 'USD', duration: 'once' })).status).toBe(200);

    const first = discountCodeFor(shop.shortLink, shop.partnerId, 0);
    const second = discountCodeFor(shop.shortLink, shop.partnerId, 1);
    let sent: any = null;
    nock(PADDLE_SANDBOX).get('/discounts').query({ code: first }).matchHeader('authorization', 'Bearer pdl_sdbx_apikey_01')
      .reply(200, { data: [{ id: 'dsc_someoneelse', status: 'active', code: first, custom_data: null }], meta: { request_id: 'r1' } });
    nock(PADDLE_SANDBOX).get('/discounts').query({ code: second }).reply(200, { data: [], meta: { request_id: 'r2' } });
    nock(PADDLE_SANDBOX).post('/discounts').reply(429, { error: { type: 'request_error', code: 'too_many_requests', detail: 'IP rate limit exceeded.' }, meta: { request_id: 'r3' } });
    nock(PADDLE_SANDBOX).post('/discounts', (body) => ((sent = body), true)).reply(201, {
      data: { id: 'dsc_01hdisc', status: 'active', description: '$10.00 off the first payment', enabled_for_checkout: true, code: second, type: 'flat', amount: '1000', currency_code: 'USD', recur: false },
      meta: { request_id: 'r4' },
    });
    expect(await runJobs()).toBe(1);
    expect(nock.pendingMocks()).toEqual([]);
    expect(sent).toMatchObject({ code: second, type: 'flat', amount: '1000', currency_code: 'USD', recur: false, enabled_for_checkout: true, custom_data: { affix_partner_id: String(shop.partnerId) } });
    expect(await codesOf(shop.programId)).toEqual([{ partner_id: shop.partnerId, code: second, stripe_promotion_code_id: null, processor_discount_id: 'dsc_01hdisc', active: true }]);

    // Paddle's transaction names the discount by id (txn.discount_id): it attributes the sale.
    const sale = await api.request('POST', '/api/v1/track/sale', {
      headers: bearer(shop.apiKey),
      body: { transaction_id: `txn_pdl_${shop.programId}`, amount_cents: 5_000, customer_key: `pbuyer_${shop.programId}`, promo_code: 'dsc_01hdisc' },
    });
    expect(sale.body).toMatchObject({ attribution_step: 'promo_code' });

    // Moved to a group without a discount: the discount is archived at Paddle.
    const plain = await must('POST', `/programs/${shop.programId}/groups`, { name: 'Plain', slug: `plain${shop.programId}`, commission_type: 'percent', commission_rate: 10, hold_days: 30 });
    nock(PADDLE_SANDBOX).patch('/discounts/dsc_01hdisc', { status: 'archived' }).reply(200, { data: { id: 'dsc_01hdisc', status: 'archived' }, meta: { request_id: 'r5' } });
    await must('POST', `/programs/${shop.programId}/partners/bulk`, { action: 'move_group', partner_ids: [shop.partnerId], group_id: plain.id });
    expect(await runJobs()).toBe(1);
    expect(nock.pendingMocks()).toEqual([]);
    expect((await codesOf(shop.programId))[0].active).toBe(false);
  });

  it("a Paddle transaction with the partner's discount and nothing else is the partner's, through the webhook intake", async () => {
    const { shop, groupId } = await programWithGroup();
    const secret = `pdl_ntfset_discounts_${shop.programId}_0123456789`;
    await must('PATCH', `/programs/${shop.programId}/processors/paddle`, { webhook_secret: secret });
    await must('PUT', `/programs/${shop.programId}/processor-api-keys/paddle`, { api_key: 'pdl_sdbx_apikey_03', sandbox: true });
    await must('PUT', `/programs/${shop.programId}/groups/${groupId}/discount`, { processor: 'paddle', type: 'percent', percent: '10', duration: 'forever' });
    const code = discountCodeFor(shop.shortLink, shop.partnerId, 0);
    nock(PADDLE_SANDBOX).get('/discounts').query({ code }).reply(200, { data: [], meta: { request_id: 'r1' } });
    nock(PADDLE_SANDBOX).post('/discounts').reply(201, { data: { id: `dsc_01web${shop.programId}`, status: 'active', code, type: 'percentage', amount: '10', recur: true }, meta: { request_id: 'r2' } });
    expect(await runJobs()).toBe(1);

    const run = `dw${shop.programId}`;
    const event = (await loadFixture(join(import.meta.dirname, '..', 'fixtures', 'paddle', '01-transaction.completed.json'), { run, click_id: '', customer_key: '', program_id: shop.programId, email: `buyer_${run}@example.com` })) as any;
    event.data.custom_data = null; // no click, no customer key: only the discount names the partner
    event.data.discount_id = `dsc_01web${shop.programId}`;
    const body = JSON.stringify(event);
    const ts = Math.floor(Date.now() / 1000);
    const stored = await api.request('POST', `/api/v1/webhooks/paddle/${shop.programId}`, {
      raw: body, headers: { 'Content-Type': 'application/json', 'Paddle-Signature': `ts=${ts};h1=${createHmac('sha256', secret).update(`${ts}:${body}`).digest('hex')}` },
    });
    expect(stored.status, JSON.stringify(stored.body)).toBe(200);
    await processEventsInOrder(api, [stored.body.id]);
    const { rows } = await db.pool.query('SELECT attribution_step, partner_id FROM sales WHERE program_id = $1', [shop.programId]);
    expect(rows).toEqual([{ attribution_step: 'promo_code', partner_id: shop.partnerId }]);
  });

  it('a 400 is the refusal: not retried, recorded on the discount, no code made', async () => {
    const { shop, groupId } = await programWithGroup();
    await must('PUT', `/programs/${shop.programId}/processor-api-keys/paddle`, { api_key: 'pdl_sdbx_apikey_02', sandbox: true });
    await must('PUT', `/programs/${shop.programId}/groups/${groupId}/discount`, { processor: 'paddle', type: 'percent', percent: '15', duration: 'forever' });
    nock(PADDLE_SANDBOX).get('/discounts').query(true).reply(200, { data: [], meta: { request_id: 'r1' } });
    // One interceptor only: a retry would find none and fail the job instead.
    nock(PADDLE_SANDBOX).post('/discounts', (body) => body.type === 'percentage' && body.amount === '15' && body.recur === true && body.maximum_recurring_intervals === null).reply(400, {
      error: { type: 'request_error', code: 'bad_request', detail: 'Invalid request.', documentation_url: 'https://developer.paddle.com/v1/errors/shared/bad_request', errors: [{ field: 'code', message: 'invalid' }] },
      meta: { request_id: 'r2' },
    });
    expect(await runJobs()).toBe(1);
    expect(nock.pendingMocks()).toEqual([]);
    expect(await codesOf(shop.programId)).toEqual([]);
    expect(await lastError(shop.programId)).toBe('Paddle refused the request (400 bad_request): Invalid request.');
    expect((await must('GET', `/programs/${shop.programId}/discounts`))[0]).toMatchObject({ last_error: 'Paddle refused the request (400 bad_request): Invalid request.', live_codes: 0 });
  });
});

describe('Lemon Squeezy: a discount per partner (JSON:API)', () => {
  it('a create whose answer was lost is found by its code on the retry (one code, not two), and an archive deletes it', async () => {
    const { shop, groupId } = await programWithGroup();
    await must('PUT', `/programs/${shop.programId}/processor-api-keys/lemonsqueezy`, { api_key: 'ls_test_apikey_0123', store_id: '4242' });
    const fractional = await admin('PUT', `/programs/${shop.programId}/groups/${groupId}/discount`, { processor: 'lemonsqueezy', type: 'percent', percent: '12.5', duration: 'once' });
    expect(fractional.status).toBe(400);
    expect(fractional.body.error.message).toMatch(/Lemon Squeezy takes whole percentages only/);
    const set = await must('PUT', `/programs/${shop.programId}/groups/${groupId}/discount`, { processor: 'lemonsqueezy', type: 'percent', percent: '15', duration: 'repeating', duration_months: 6 });
    const code = discountCodeFor(shop.shortLink, shop.partnerId, 0);
    const name = `15 % off for 6 months (Affix ${set.id}/${shop.partnerId})`;
    const listQuery = { 'filter[store_id]': '4242', 'page[size]': '100' };
    const posts: any[] = [];
    nock(LEMON).get('/v1/discounts').query(listQuery).matchHeader('accept', 'application/vnd.api+json').reply(200, { meta: { page: { total: 0 } }, links: {}, data: [] });
    // Made, but the answer never arrives; then a 503; then the retry is refused: the code is taken (by the first).
    nock(LEMON).post('/v1/discounts', (body) => (posts.push(body), true)).replyWithError({ code: 'ETIMEDOUT', message: 'timed out' });
    nock(LEMON).post('/v1/discounts', (body) => (posts.push(body), true)).reply(503, 'Service Unavailable');
    nock(LEMON).post('/v1/discounts', (body) => (posts.push(body), true)).reply(422, {
      jsonapi: { version: '1.0' },
      errors: [{ detail: 'The code has already been taken.', source: { pointer: '/data/attributes/code' }, status: '422', title: 'Unprocessable Entity' }],
    });
    nock(LEMON).get('/v1/discounts').query(listQuery).reply(200, {
      meta: { page: { total: 1 } }, links: {},
      data: [{ type: 'discounts', id: '7001', attributes: { store_id: 4242, name, code, amount: 15, amount_type: 'percent', duration: 'repeating', duration_in_months: 6, status: 'published' } }],
    });
    expect(await runJobs()).toBe(1);
    expect(nock.pendingMocks()).toEqual([]);
    expect(posts).toHaveLength(3);
    expect(posts[0]).toEqual({
      data: {
        type: 'discounts',
        attributes: { name, code, amount: 15, amount_type: 'percent', duration: 'repeating', duration_in_months: 6 },
        relationships: { store: { data: { type: 'stores', id: '4242' } } },
      },
    });
    expect(await codesOf(shop.programId)).toEqual([{ partner_id: shop.partnerId, code, stripe_promotion_code_id: null, processor_discount_id: '7001', active: true }]);
    expect((await lookup(shop.programId, shop.shortLink)).body).toEqual({ data: { code, description: '15 % off for 6 months' } });

    // A second partner's code, then both archived: each discount is deleted (a 404 is already gone).
    const second = await addPartnerLink(api, shop.programId);
    nock(LEMON).get('/v1/discounts').query(listQuery).reply(200, { meta: {}, links: {}, data: [] });
    nock(LEMON).post('/v1/discounts').reply(201, { jsonapi: { version: '1.0' }, data: { type: 'discounts', id: '7002', attributes: { code: discountCodeFor(second.shortLink, second.partnerId, 0), status: 'published' } } });
    await must('POST', `/programs/${shop.programId}/partners/bulk`, { action: 'move_group', partner_ids: [second.partnerId], group_id: groupId });
    expect(await runJobs()).toBe(1);
    nock(LEMON).delete('/v1/discounts/7001').reply(204);
    nock(LEMON).delete('/v1/discounts/7002').reply(404, { errors: [{ detail: 'Not found', status: '404', title: 'Not Found' }] });
    await must('POST', `/programs/${shop.programId}/partners/bulk`, { action: 'archive', partner_ids: [shop.partnerId, second.partnerId] });
    expect(await runJobs()).toBe(1);
    expect(nock.pendingMocks()).toEqual([]);
    expect((await codesOf(shop.programId)).map((c) => c.active)).toEqual([false, false]);
  });
});

describe('affix admin discount', () => {
  it('saves the key from the environment, gives, lists and ends a discount through the admin API', async () => {
    const { shop, groupId } = await programWithGroup();
    const affix = async (args: string[], env: Record<string, string> = {}) =>
      (await promisify(execFile)(process.execPath, ['bin/affix.mjs', 'admin', 'discount', ...args], { env: { ...process.env, AFFIX_ADMIN_TOKEN: ADMIN_TOKEN, AFFIX_API_URL: api.url, ...env } })).stdout;
    const p = String(shop.programId);
    expect(JSON.parse(await affix(['api-key', '--program', p, '--processor', 'lemonsqueezy', '--store', '777'], { PROCESSOR_API_KEY: 'ls_cli_apikey_0123' }))).toEqual({ processor: 'lemonsqueezy', sandbox: false, store_id: '777' });
    const given = JSON.parse(await affix(['set', '--program', p, '--group', String(groupId), '--processor', 'lemonsqueezy', '--percent', '15', '--duration', 'forever']));
    expect(given).toMatchObject({ processor: 'lemonsqueezy', description: '15 % off every payment' });
    expect(JSON.parse(await affix(['list', '--program', p]))).toMatchObject([{ id: given.id, group_id: groupId, live_codes: 0 }]);
    await affix(['end', '--program', p, '--group', String(groupId)]);
    expect(JSON.parse(await affix(['list', '--program', p]))).toEqual([]);
  });
});
