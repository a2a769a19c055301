// Paying a batch's Stripe payouts with one action (issue 47: "a brand pays a run through Stripe,
// PayPal's or Wise's API with one action and sees each item's outcome"), with nock against
// Stripe's documented transfer request and answer (POST /v1/transfers, form-encoded, with an
// Idempotency-Key; the answer is the transfer object, a refusal is a 4xx with error.message).
// The fake Stripe below keeps Stripe's idempotency promise: a key it has seen returns the transfer
// it made, so "transferred once" is counted as transfers made, and every POST is counted too.
import { Writable } from 'node:stream';
import { randomBytes } from 'node:crypto';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { nockForThisFile } from './support/nock.js';
import { type ProviderDeps, followProviderPayouts, sendProviderPayouts } from '../src/app/money/payout-providers.js';
import { OPERATOR } from '../src/app/accounts/scope.js';
import * as payoutRuns from '../src/app/money/payout-runs.js';
import * as payoutConfig from '../src/app/money/payout-settings.js';
import * as commissionLifecycle from '../src/app/money/commission-lifecycle.js';
import { createSecretBox } from '../src/platform/secret-box.js';
import { createLogger } from '../src/platform/logger.js';
import { runProviderSendJob } from '../src/jobs/provider-payout-jobs.js';
import { type TestApi, type TestDatabase, adminHeaders, seedProgram } from './support/harness.js';
import { useSeededApi } from './support/seeded-api.js';
import { apiSale } from './support/money.js';
import { dashboardVisitor } from './support/dashboard-visitor.js';
import { sha256 } from '../src/core/secrets.js';

const nock = nockForThisFile({ strict: true });

const STRIPE = 'https://api.stripe.com';
const STRIPE_KEY = 'sk_test_affixbatch';
const SECRET_KEY = 'stripe-batch-payouts-test-secret-01';

let db: TestDatabase;
let api: TestApi;
let clock = new Date();
const logs: string[] = [];
const logger = createLogger('info', new Writable({ write: (chunk, _enc, done) => (logs.push(String(chunk)), done()) }) as never);
const deps = (): ProviderDeps => ({ pool: db.pool, secretBox: createSecretBox(SECRET_KEY), now: () => clock, stripeSecretKey: STRIPE_KEY });

useSeededApi({ env: { AFFIX_SECRET_KEY: SECRET_KEY, STRIPE_SECRET_KEY: STRIPE_KEY }, options: { queueUrl: 'own' } }, (t) => ({ db, api } = t));

const admin = async (method: string, path: string, body?: unknown) => api.request(method, `/api/v1/admin${path}`, { body, headers: adminHeaders });

/** A program (hold 0) whose partners are owed: each `[name, currency, sale cents]`, paid through Stripe to acct_<name>. */
async function owedBatch(partners: [string, string, number][]) {
  const shop = await seedProgram(api, { commission_rate: 10 });
  await payoutConfig.updatePayoutSettings(deps(), OPERATOR, shop.programId, { hold_days: 0, payout_minimums_cents: {} });
  await admin('PATCH', `/programs/${shop.programId}`, { accept_all_currencies: true });
  for (const [name, currency, cents] of partners) {
    const made = (await admin('POST', `/programs/${shop.programId}/partners`, { name, email: `${name.toLowerCase()}-${shop.programId}@partner.example` })).body.data;
    const code = `${name.toLowerCase()}-${shop.programId}`;
    await admin('POST', `/programs/${shop.programId}/links`, { partner_id: made.id, short_link: code });
    await admin('PATCH', `/programs/${shop.programId}/partners/${made.id}/payout-details`, { payout_method: 'stripe', payout_reference: `acct_1${name}` });
    await apiSale(api, { ...shop, affiliateUrl: `https://shop.example.com/?aff=${code}` }, cents, { currency });
  }
  clock = new Date(Date.now() + 60_000);
  await commissionLifecycle.approveDueCommissions(deps());
  const run = await payoutRuns.runPayouts(deps(), OPERATOR, shop.programId);
  const payoutOf = (name: string) => run.payouts.find((p) => p.partnerName === name)!;
  return { programId: shop.programId, accountId: shop.accountId, batchId: run.batchId, payoutOf };
}

/**
 * Stripe's transfers, as its docs say they behave: the first request with an Idempotency-Key
 * makes the transfer, a later one with that key gets the same transfer back. `posts` is every
 * POST /v1/transfers (its key), `made` the transfers made.
 */
function fakeStripe() {
  const made = new Map<string, string>();
  const posts: string[] = [];
  const bodies = new Map<string, URLSearchParams>();
  const transfer = (key: string, body: unknown) => {
    posts.push(key);
    bodies.set(key, new URLSearchParams(String(body)));
    if (!made.has(key)) made.set(key, `tr_${made.size + 1}${key.replace(/\D/g, '')}`);
    return made.get(key)!;
  };
  const keyOf = (req: { headers: Record<string, unknown> }) => String(req.headers['idempotency-key']);
  return {
    made, posts, bodies,
    /** Pays the next `times` requests. */
    pays(times = 1) {
      nock(STRIPE).post('/v1/transfers').times(times).reply(function (_uri, body) {
        const id = transfer(keyOf(this.req), body);
        const sent = bodies.get(keyOf(this.req))!;
        return [200, { id, object: 'transfer', amount: Number(sent.get('amount')), currency: sent.get('currency'), destination: sent.get('destination'), transfer_group: sent.get('transfer_group') }];
      });
    },
    /** Refuses the next request (nothing made). */
    refuses(message: string) {
      nock(STRIPE).post('/v1/transfers').reply(function () {
        posts.push(keyOf(this.req));
        return [400, { error: { type: 'invalid_request_error', code: 'balance_insufficient', message } }];
      });
    },
    /** Makes the transfer, then the answer is lost (the connection drops), `times` times (the client's own retries). */
    losesAnswer(times: number) {
      nock(STRIPE).post('/v1/transfers').times(times).reply(function (_uri, body, callback) {
        transfer(keyOf(this.req), body);
        callback(new Error('socket hang up'), [500, '']);
      });
    },
  };
}

const status = async (payoutId: number) => (await db.pool.query('SELECT status, reference FROM payouts WHERE id = $1', [payoutId])).rows[0];
const item = async (payoutId: number) => (await db.pool.query('SELECT provider, outcome, provider_item_id, reason FROM provider_payout_items WHERE payout_id = $1', [payoutId])).rows[0];
const sendsOf = async (batchId: number) => (await db.pool.query('SELECT id, state, provider FROM provider_payout_sends WHERE batch_id = $1 ORDER BY id', [batchId])).rows.map((r) => ({ ...r, id: Number(r.id) }));
const paidEntries = async (payoutId: number) => Number((await db.pool.query("SELECT count(*) FROM commission_ledger WHERE payout_id = $1 AND kind = 'paid'", [payoutId])).rows[0].count);

async function dashboardOf(accountId: number) {
  const token = randomBytes(24).toString('base64url');
  await db.pool.query("INSERT INTO dashboard_sessions (token_hash, account_id, expires_at) VALUES ($1, $2, now() + interval '1 hour')", [sha256(token), accountId]);
  return dashboardVisitor(api.url, { sessionToken: token });
}

describe('paying a batch through Stripe', () => {
  it('answers 202 with the payouts queued and those left out and why; the job pays each by its transfer, a refusal goes back to pending with Stripe’s words', async () => {
    const b = await owedBatch([['Ana', 'USD', 25_000], ['Ben', 'EUR', 8_000], ['Cai', 'KWD', 12_345], ['Dee', 'USD', 5_000]]);
    const [ana, ben, cai, dee] = ['Ana', 'Ben', 'Cai', 'Dee'].map(b.payoutOf);
    // A payout made before connected accounts were checked: its details are no acct_.
    await db.pool.query("UPDATE payouts SET pay_to = 'GB29NWBK60161331926819' WHERE id = $1", [dee!.id]);

    const answer = await admin('POST', `/programs/${b.programId}/payout-batches/${b.batchId}/pay`, { provider: 'stripe' });
    expect(answer.status).toBe(202);
    expect(answer.body.data).toMatchObject({ provider: 'stripe', batch_id: b.batchId, sending: [ana!.id, ben!.id] });
    expect(answer.body.data.not_sent).toEqual([
      { payout_id: cai!.id, reason: `Not payable through Stripe: Stripe takes KWD amounts only in multiples of 10 thousandths; ${cai!.amountCents} would have to be rounded. Pay it another way and mark it paid` },
      { payout_id: dee!.id, reason: "Not sent: no connected Stripe account (acct_…) in this payout's details" },
    ]);
    // Nothing went to Stripe inside the request: the two are claimed, the job is queued.
    expect((await status(ana!.id)).status).toBe('processing');
    expect((await status(cai!.id)).status).toBe('pending');
    const [send] = await sendsOf(b.batchId);
    expect(send).toMatchObject({ provider: 'stripe', state: 'sending' });
    const queued = (await db.pool.query("SELECT data FROM pgboss.job WHERE name = 'provider-payouts'")).rows.map((r) => r.data.sendId);
    expect(queued).toContain(send!.id);

    const stripe = fakeStripe();
    stripe.pays();
    stripe.refuses('Insufficient funds in your Stripe balance to make this transfer');
    expect(await runProviderSendJob({ ...deps(), logger }, { sendId: send!.id })).toBe('sent');

    const tr = stripe.made.get(`affix-payout-${ana!.id}`)!;
    expect(await status(ana!.id)).toEqual({ status: 'paid', reference: tr });
    expect(await item(ana!.id)).toMatchObject({ provider: 'stripe', outcome: 'paid', provider_item_id: tr });
    expect(await paidEntries(ana!.id)).toBeGreaterThan(0);
    expect(stripe.bodies.get(`affix-payout-${ana!.id}`)!.get('destination')).toBe('acct_1Ana');
    expect(stripe.bodies.get(`affix-payout-${ana!.id}`)!.get('amount')).toBe(String(ana!.amountCents));
    expect(await status(ben!.id)).toEqual({ status: 'pending', reference: null });
    expect(await item(ben!.id)).toMatchObject({ outcome: 'not_sent', reason: 'Stripe refused the transfer: Insufficient funds in your Stripe balance to make this transfer' });
    expect(stripe.posts).toEqual([`affix-payout-${ana!.id}`, `affix-payout-${ben!.id}`]);
    expect((await sendsOf(b.batchId))[0]!.state).toBe('sent');

    // The job again (the queue's retry): nothing more goes to Stripe.
    expect(await runProviderSendJob({ ...deps(), logger }, { sendId: send!.id })).toBe('done');
    expect(stripe.posts).toHaveLength(2);
  });

  it('two pay actions at once claim once; two attempts of the job and the per-payout button at once make one transfer per payout', async () => {
    const b = await owedBatch([['Eva', 'USD', 30_000], ['Fay', 'EUR', 9_000]]);
    const [eva, fay] = ['Eva', 'Fay'].map(b.payoutOf);
    const path = `/programs/${b.programId}/payout-batches/${b.batchId}/pay`;
    const answers = await Promise.all([admin('POST', path, { provider: 'stripe' }), admin('POST', path, { provider: 'stripe' })]);
    expect(answers.map((a) => a.status).sort()).toEqual([202, 409]);
    expect(answers.find((a) => a.status === 409)!.body.error).toMatchObject({ message: 'Nothing to send through Stripe: no payout of this batch paid by Stripe is waiting to be paid' });
    const sends = await sendsOf(b.batchId);
    expect(sends).toHaveLength(1);

    const stripe = fakeStripe();
    stripe.pays(3);
    const withKey = { ...deps(), stripeSecretKey: STRIPE_KEY };
    const outcomes = await Promise.allSettled([
      sendProviderPayouts(deps(), sends[0]!.id),
      sendProviderPayouts(deps(), sends[0]!.id),
      payoutRuns.payWithStripe(withKey, OPERATOR, b.programId, eva!.id),
    ]);
    expect(outcomes.filter((o) => o.status === 'fulfilled' && o.value === 'sent')).toHaveLength(1);
    expect(stripe.made.size).toBe(2);
    expect(stripe.posts.filter((k) => k === `affix-payout-${fay!.id}`)).toHaveLength(1);
    for (const p of [eva!, fay!]) {
      const tr = stripe.made.get(`affix-payout-${p.id}`)!;
      expect(await status(p.id)).toEqual({ status: 'paid', reference: tr });
      expect(await item(p.id)).toMatchObject({ outcome: 'paid', provider_item_id: tr });
      expect(await paidEntries(p.id)).toBe(1);
    }
    nock.cleanAll();
  });

  it('a lost answer mid-batch: the job fails, the follower sends again, and each payout is transferred once (the same idempotency key)', async () => {
    const b = await owedBatch([['Gil', 'USD', 20_000], ['Hal', 'USD', 40_000]]);
    const [gil, hal] = ['Gil', 'Hal'].map(b.payoutOf);
    expect((await admin('POST', `/programs/${b.programId}/payout-batches/${b.batchId}/pay`, { provider: 'stripe' })).status).toBe(202);
    const [send] = await sendsOf(b.batchId);

    const stripe = fakeStripe();
    stripe.pays();
    // Hal's transfer is made but its answer never arrives (the client's two retries too).
    stripe.losesAnswer(3);
    await expect(runProviderSendJob({ ...deps(), logger }, { sendId: send!.id })).rejects.toMatchObject({ status: 502 });
    expect((await status(gil!.id)).status).toBe('paid');
    expect(await status(hal!.id)).toEqual({ status: 'processing', reference: null });
    expect(await item(hal!.id)).toMatchObject({ outcome: 'sending' });
    expect((await sendsOf(b.batchId))[0]!.state).toBe('sending');

    // The follower finds the send stranded and sends it again: Gil is not asked about again.
    stripe.pays();
    clock = new Date(clock.getTime() + 3 * 60_000);
    const followed = await followProviderPayouts(deps());
    expect(followed).toMatchObject({ resent: 1, errors: [] });
    const tr = stripe.made.get(`affix-payout-${hal!.id}`)!;
    expect(await status(hal!.id)).toEqual({ status: 'paid', reference: tr });
    expect(await item(hal!.id)).toMatchObject({ outcome: 'paid', provider_item_id: tr });
    expect(stripe.made.size).toBe(2);
    expect(stripe.posts.filter((k) => k === `affix-payout-${gil!.id}`)).toHaveLength(1);
    expect(new Set(stripe.posts.filter((k) => k !== `affix-payout-${gil!.id}`))).toEqual(new Set([`affix-payout-${hal!.id}`]));
    expect(await paidEntries(hal!.id)).toBe(1);
  });

  it('is refused without STRIPE_SECRET_KEY, and for a batch of another program', async () => {
    const b = await owedBatch([['Ivy', 'USD', 10_000]]);
    const { payBatchThroughProvider } = await import('../src/app/money/payout-providers.js');
    await expect(payBatchThroughProvider({ ...deps(), stripeSecretKey: undefined }, OPERATOR, b.programId, b.batchId, { provider: 'stripe' }))
      .rejects.toMatchObject({ status: 409, init: { code: 'stripe_not_configured' } });
    const other = await seedProgram(api);
    expect((await admin('POST', `/programs/${other.programId}/payout-batches/${b.batchId}/pay`, { provider: 'stripe' })).status).toBe(404);
    expect((await status(b.payoutOf('Ivy')!.id)).status).toBe('pending');
  });

  it('the Payouts page: "Pay batch N through Stripe" beside the batch, then each payout’s outcome', async () => {
    const b = await owedBatch([['Jo', 'USD', 15_000], ['Kit', 'EUR', 6_000]]);
    const [jo, kit] = ['Jo', 'Kit'].map(b.payoutOf);
    const page = await dashboardOf(b.accountId);
    const url = `/dashboard/programs/${b.programId}/payouts`;
    let shown = await page.get(url);
    expect(shown.text).toContain(`Pay batch ${b.batchId} through Stripe`);
    const pressed = await page.post(`${url}/batches/${b.batchId}/pay`, { provider: 'stripe' });
    expect(pressed.status).toBe(303);
    shown = await page.get(url);
    expect(shown.text).toContain('Sending through Stripe…');
    expect(shown.text).not.toContain(`Pay batch ${b.batchId} through Stripe`);

    const stripe = fakeStripe();
    stripe.pays();
    stripe.refuses('Your destination account needs to have at least one of the following capabilities enabled: transfers');
    await sendProviderPayouts(deps(), (await sendsOf(b.batchId))[0]!.id);
    shown = await page.get(url);
    expect(shown.text).toContain(`Paid through Stripe (${stripe.made.get(`affix-payout-${jo!.id}`)})`);
    expect(shown.text).toContain('Not sent through Stripe: Stripe refused the transfer: Your destination account needs to have at least one of the following capabilities enabled: transfers');
    // Kit is pending again: the batch may be paid through Stripe again.
    expect(shown.text).toContain(`Pay batch ${b.batchId} through Stripe`);
    expect(shown.text).toContain(`Pay payout ${kit!.id} through Stripe`);
    // Paid by its own button afterwards: the refusal no longer shows beside it, the transfer does.
    stripe.pays();
    expect((await page.post(`${url}/${kit!.id}/stripe-transfer`)).status).toBe(303);
    shown = await page.get(url);
    expect(shown.text).toContain(`paid (${stripe.made.get(`affix-payout-${kit!.id}`)})`);
    expect(shown.text).not.toContain('Not sent through Stripe: Stripe refused the transfer');
  });
});
