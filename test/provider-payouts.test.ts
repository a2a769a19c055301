// Paying a batch through PayPal's Payouts API and Wise's API, end to end (issue 47, item 2), with
// nock against their documented requests and answers: credentials sealed and never shown back;
// "pay batch" claims the payouts and queues a send; the send pays; the follower settles each item
// (paid through the mark-paid path, failed through failPayout); a lost answer, a 5xx, two calls
// at the same moment and a job retried while the first attempt is in flight each pay once.
import { Writable } from 'node:stream';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { nockForThisFile } from './support/nock.js';
import { type ProviderDeps, followProviderPayouts, payBatchThroughProvider, saveProviderAccount, senderBatchId, sendProviderPayouts } from '../src/app/money/payout-providers.js';
import { OPERATOR } from '../src/app/accounts/scope.js';
import * as payoutRuns from '../src/app/money/payout-runs.js';
import * as payoutConfig from '../src/app/money/payout-settings.js';
import * as commissionLifecycle from '../src/app/money/commission-lifecycle.js';
import { failPayout } from '../src/app/money/failed-payouts.js';
import { createSecretBox } from '../src/platform/secret-box.js';
import { createLogger } from '../src/platform/logger.js';
import { wiseTransactionId } from '../src/platform/wise-transfers.js';
import { runProviderFollowJob, runProviderSendJob } from '../src/jobs/provider-payout-jobs.js';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { ADMIN_TOKEN, type TestApi, type TestDatabase, adminHeaders, seedProgram } from './support/harness.js';
import { useSeededApi } from './support/seeded-api.js';
import { apiSale } from './support/money.js';
import { dashboardVisitor } from './support/dashboard-visitor.js';
import { randomBytes } from 'node:crypto';
import { sha256 } from '../src/core/secrets.js';

const nock = nockForThisFile({ strict: true });

const PAYPAL = 'https://api-m.sandbox.paypal.com';
const WISE = 'https://api.wise-sandbox.com';
const SECRET_KEY = 'provider-payouts-test-secret-key-01';
const PAYPAL_SECRET = 'EPpaypal-client-secret-9XyZ';
const WISE_TOKEN = 'wise-api-token-1f2e3d4c5b6a';

let db: TestDatabase;
let api: TestApi;
let clock = new Date();
const deps = (): ProviderDeps => ({ pool: db.pool, secretBox: createSecretBox(SECRET_KEY), now: () => clock, retry: { minTimeoutMs: 0, retries: 2 } });

useSeededApi({ env: { AFFIX_SECRET_KEY: SECRET_KEY }, options: { queueUrl: 'own' } }, (t) => ({ db, api } = t));

const admin = async (method: string, path: string, body?: unknown) => api.request(method, `/api/v1/admin${path}`, { body, headers: adminHeaders });

/** A program (hold 0) whose partners are owed: each `[name, method, currency, sale cents]`; returns the batch and each partner's payout. */
async function owedBatch(partners: [string, 'paypal' | 'wise', string, number][]) {
  const shop = await seedProgram(api, { commission_rate: 10 });
  await payoutConfig.updatePayoutSettings(deps(), OPERATOR, shop.programId, { hold_days: 0, payout_minimums_cents: {} });
  await admin('PATCH', `/programs/${shop.programId}`, { accept_all_currencies: true });
  // payout.paid goes to the brand's endpoint: a message is written for it.
  await db.pool.query("INSERT INTO webhook_endpoints (program_id, url, event_types, secret_sealed) VALUES ($1, 'https://hooks.example.com/affix', '{payout.paid}', $2)", [shop.programId, createSecretBox(SECRET_KEY).seal('whsec_x')]);
  for (const [name, method, currency, cents] of partners) {
    const made = (await admin('POST', `/programs/${shop.programId}/partners`, { name, email: `${name.toLowerCase()}-${shop.programId}@partner.example` })).body.data;
    const code = `${name.toLowerCase()}-${shop.programId}`;
    await admin('POST', `/programs/${shop.programId}/links`, { partner_id: made.id, short_link: code });
    await admin('PATCH', `/programs/${shop.programId}/partners/${made.id}/payout-details`, { payout_method: method, payout_reference: `${name.toLowerCase()}@pay.example` });
    await apiSale(api, { ...shop, affiliateUrl: `https://shop.example.com/?aff=${code}` }, cents, { currency });
  }
  clock = new Date(Date.now() + 60_000);
  await commissionLifecycle.approveDueCommissions(deps());
  const run = await payoutRuns.runPayouts(deps(), OPERATOR, shop.programId);
  const payoutOf = (name: string) => run.payouts.find((p) => p.partnerName === name)!;
  return { programId: shop.programId, accountId: shop.accountId, batchId: run.batchId, payoutOf };
}

/** The dashboard, signed in to the brand's account. */
async function dashboardOf(accountId: number) {
  const token = randomBytes(24).toString('base64url');
  await db.pool.query("INSERT INTO dashboard_sessions (token_hash, account_id, expires_at) VALUES ($1, $2, now() + interval '1 hour')", [sha256(token), accountId]);
  return dashboardVisitor(api.url, { sessionToken: token });
}

const savePayPal = (programId: number) => saveProviderAccount(deps(), OPERATOR, programId, 'paypal', { client_id: 'AbCdPayPalClientId', client_secret: PAYPAL_SECRET, sandbox: true });
const saveWise = (programId: number) => saveProviderAccount(deps(), OPERATOR, programId, 'wise', { api_token: WISE_TOKEN, profile_id: 7001, sandbox: true });

const status = async (payoutId: number) => (await db.pool.query('SELECT status, reference, failure_reason, failure_reference FROM payouts WHERE id = $1', [payoutId])).rows[0];
const item = async (payoutId: number) => (await db.pool.query('SELECT outcome, provider_item_id, provider_status, reason FROM provider_payout_items WHERE payout_id = $1', [payoutId])).rows[0];
const sendOf = async (batchId: number) => (await db.pool.query('SELECT * FROM provider_payout_sends WHERE batch_id = $1 ORDER BY id', [batchId])).rows;
const paidMessages = async (programId: number) => Number((await db.pool.query("SELECT count(*) FROM webhook_messages WHERE program_id = $1 AND type = 'payout.paid'", [programId])).rows[0].count);
const paidEntries = async (payoutId: number) => Number((await db.pool.query("SELECT count(*) FROM commission_ledger WHERE payout_id = $1 AND kind = 'paid'", [payoutId])).rows[0].count);
const queuedSends = async () => (await db.pool.query("SELECT data FROM pgboss.job WHERE name = 'provider-payouts' ORDER BY created_on")).rows.map((r) => r.data.sendId as number);

const token = () => nock(PAYPAL).post('/v1/oauth2/token', 'grant_type=client_credentials').basicAuth({ user: 'AbCdPayPalClientId', pass: PAYPAL_SECRET })
  .reply(200, { scope: 'https://uri.paypal.com/services/payments/payouts', access_token: 'A21AA-token', token_type: 'Bearer', expires_in: 32400 });

const batchAnswer = (senderId: string, status: string, items: { id: number; status: string; errors?: object }[]) => ({
  batch_header: { payout_batch_id: 'FYXMPQTX4JC9N', batch_status: status, sender_batch_header: { sender_batch_id: senderId } },
  items: items.map((i) => ({
    payout_item_id: `ITEM${i.id}`, transaction_id: i.status === 'SUCCESS' ? `TX${i.id}` : undefined, transaction_status: i.status, payout_batch_id: 'FYXMPQTX4JC9N',
    payout_item: { sender_item_id: String(i.id), receiver: 'x@pay.example', recipient_type: 'EMAIL', amount: { value: '1.00', currency: 'USD' } },
    ...(i.errors ? { errors: i.errors } : {}),
  })),
});
const created = (senderId: string) => ({ batch_header: { payout_batch_id: 'FYXMPQTX4JC9N', batch_status: 'PENDING', sender_batch_header: { sender_batch_id: senderId } }, links: [] });

/** Counts the payout POSTs PayPal received, and their sender_batch_ids. */
function payoutPosts() {
  const ids: string[] = [];
  return { ids, match: (body: any) => (ids.push(body.sender_batch_header.sender_batch_id), true) };
}

describe('credentials', () => {
  it('are sealed, audited and never shown back (only "set, ends with …"); a secret left out keeps the saved one', async () => {
    const shop = await seedProgram(api);
    const put = await admin('PUT', `/programs/${shop.programId}/payout-providers/paypal`, { client_id: 'AbCdPayPalClientId', client_secret: PAYPAL_SECRET, sandbox: true });
    expect(put.status).toBe(200);
    expect(put.body.data).toMatchObject({ provider: 'paypal', client_id: 'AbCdPayPalClientId', sandbox: true, secret: 'set, ends with …9XyZ' });
    const kept = await admin('PUT', `/programs/${shop.programId}/payout-providers/paypal`, { client_id: 'AbCdPayPalClientId', sandbox: false });
    expect(kept.body.data).toMatchObject({ sandbox: false, secret: 'set, ends with …9XyZ' });
    const wise = await admin('PUT', `/programs/${shop.programId}/payout-providers/wise`, { profile_id: 7001 });
    expect(wise.status).toBe(400);
    expect(wise.body.error.message).toBe('Give the Wise API token.');
    await admin('PUT', `/programs/${shop.programId}/payout-providers/wise`, { api_token: WISE_TOKEN, profile_id: '7001' });
    const listed = await admin('GET', `/programs/${shop.programId}/payout-providers`);
    expect(listed.body.data.map((a: any) => [a.provider, a.secret])).toEqual([['paypal', 'set, ends with …9XyZ'], ['wise', 'set, ends with …5b6a']]);
    const everything = JSON.stringify([put.body, kept.body, listed.body]);
    expect(everything).not.toContain(PAYPAL_SECRET);
    expect(everything).not.toContain(WISE_TOKEN);
    const stored = JSON.stringify((await db.pool.query('SELECT * FROM payout_provider_accounts WHERE program_id = $1', [shop.programId])).rows);
    expect(stored).not.toContain(PAYPAL_SECRET);
    expect(stored).not.toContain(WISE_TOKEN);
    const audited = (await db.pool.query("SELECT changes FROM audit_log WHERE program_id = $1 AND action = 'program.payout_provider_saved' ORDER BY id", [shop.programId])).rows;
    expect(audited.map((r) => r.changes.secret?.to ?? null)).toEqual(['set', null, 'set']);
    expect(JSON.stringify(audited)).not.toContain(PAYPAL_SECRET);
  });
});

describe('PayPal', () => {
  it('pays a batch: the pending PayPal payouts are claimed and sent as one batch named by the send; SUCCESS marks each paid with its item id (commissions paid, payout.paid); a HUF line PayPal cannot take stays pending with the reason', async () => {
    const b = await owedBatch([['Ana', 'paypal', 'USD', 123_450], ['Ben', 'paypal', 'EUR', 50_000], ['Cho', 'paypal', 'HUF', 1_500_500], ['Dia', 'wise', 'EUR', 20_000]]);
    await savePayPal(b.programId);
    const [ana, ben, cho, dia] = ['Ana', 'Ben', 'Cho', 'Dia'].map(b.payoutOf);
    const reply = await admin('POST', `/programs/${b.programId}/payout-batches/${b.batchId}/pay`, { provider: 'paypal' });
    expect(reply.status).toBe(202);
    expect(reply.body.data).toMatchObject({ provider: 'paypal', batch_id: b.batchId, sending: [ana!.id, ben!.id], not_sent: [{ payout_id: cho!.id, reason: 'Not payable through PayPal: 1500.50 HUF has more decimals than PayPal takes for HUF (0): pay it another way' }] });
    expect(JSON.stringify(reply.body)).not.toContain(PAYPAL_SECRET);
    expect([(await status(ana!.id)).status, (await status(cho!.id)).status, (await status(dia!.id)).status]).toEqual(['processing', 'pending', 'pending']);
    const sendId = reply.body.data.send_id;
    expect(await queuedSends()).toContain(sendId);
    // Claimed: a manual mark-paid or cancel meanwhile is refused.
    const marked = await admin('POST', `/programs/${b.programId}/payouts/${ana!.id}/paid`, { reference: 'BY-HAND' });
    expect([marked.status, marked.body.error.message]).toEqual([409, 'This payout is being paid through PayPal; it is marked paid or failed when the provider settles it']);

    const posts = payoutPosts();
    let sent: any;
    token();
    nock(PAYPAL).post('/v1/payments/payouts', (body) => ((sent = body), posts.match(body))).matchHeader('authorization', 'Bearer A21AA-token').reply(201, created(`affix-${b.programId}-${b.batchId}-${sendId}`));
    nock(PAYPAL).get('/v1/payments/payouts/FYXMPQTX4JC9N').query(true).reply(200, batchAnswer('x', 'SUCCESS', [{ id: ana!.id, status: 'SUCCESS' }, { id: ben!.id, status: 'SUCCESS' }]));
    expect(await sendProviderPayouts(deps(), sendId)).toBe('sent');
    expect(posts.ids).toEqual([senderBatchId({ programId: b.programId, batchId: b.batchId, id: sendId })]);
    expect(sent.items.map((i: any) => [i.sender_item_id, i.receiver, i.amount])).toEqual([
      [String(ana!.id), 'ana@pay.example', { value: '123.45', currency: 'USD' }],
      [String(ben!.id), 'ben@pay.example', { value: '50.00', currency: 'EUR' }],
    ]);
    expect(await status(ana!.id)).toMatchObject({ status: 'paid', reference: `ITEM${ana!.id}` });
    expect(await status(ben!.id)).toMatchObject({ status: 'paid', reference: `ITEM${ben!.id}` });
    expect(await item(ana!.id)).toMatchObject({ outcome: 'paid', provider_status: 'SUCCESS' });
    expect(await item(cho!.id)).toMatchObject({ outcome: 'not_sent' });
    expect((await status(cho!.id)).status).toBe('pending');
    expect(await paidMessages(b.programId)).toBe(2);
    const stages = (await db.pool.query('SELECT DISTINCT stage FROM commissions WHERE payout_id = ANY($1)', [[ana!.id, ben!.id]])).rows.map((r) => r.stage);
    expect(stages).toEqual(['paid']);
    // The job again (a retry after all this): the send is done, nothing is sent.
    expect(await sendProviderPayouts(deps(), sendId)).toBe('done');
  });

  it('partial failure: one item FAILED → that payout failed and owed again, with PayPal\'s reason and item id; the other paid; the follower asks until each settles', async () => {
    const b = await owedBatch([['Eva', 'paypal', 'USD', 40_000], ['Fay', 'paypal', 'USD', 60_000]]);
    await savePayPal(b.programId);
    const [eva, fay] = ['Eva', 'Fay'].map(b.payoutOf);
    const { sendId } = await payBatchThroughProvider(deps(), OPERATOR, b.programId, b.batchId, { provider: 'paypal' });
    token();
    nock(PAYPAL).post('/v1/payments/payouts').reply(201, created('x'));
    nock(PAYPAL).get('/v1/payments/payouts/FYXMPQTX4JC9N').query(true).reply(200, batchAnswer('x', 'PROCESSING', [{ id: eva!.id, status: 'PENDING' }, { id: fay!.id, status: 'UNCLAIMED' }]));
    await sendProviderPayouts(deps(), sendId!);
    expect([(await item(eva!.id)).outcome, (await item(fay!.id)).outcome]).toEqual(['open', 'open']);

    // The follower: one GET of the batch for both items.
    clock = new Date(clock.getTime() + 5 * 60_000);
    token();
    nock(PAYPAL).get('/v1/payments/payouts/FYXMPQTX4JC9N').query(true).reply(200, batchAnswer('x', 'SUCCESS', [
      { id: eva!.id, status: 'SUCCESS' }, { id: fay!.id, status: 'FAILED', errors: { name: 'RECEIVER_UNREGISTERED', message: 'Receiver is unregistered' } },
    ]));
    const summary = await followProviderPayouts(deps());
    expect(summary).toMatchObject({ asked: 2, paid: 1, failed: 1, errors: [] });
    expect(await status(eva!.id)).toMatchObject({ status: 'paid', reference: `ITEM${eva!.id}` });
    expect(await status(fay!.id)).toMatchObject({ status: 'failed', failure_reason: 'PayPal: FAILED (Receiver is unregistered)', failure_reference: `ITEM${fay!.id}` });
    expect(await item(fay!.id)).toMatchObject({ outcome: 'failed', reason: 'PayPal: FAILED (Receiver is unregistered)' });
    // Owed again: the next run pays Fay again, exactly her commission.
    const balances = await payoutRuns.balances(deps(), OPERATOR, b.programId);
    expect(balances.find((x) => x.partnerName === 'Fay')).toMatchObject({ approvedCents: 6_000, paidCents: 0 });
    expect(balances.find((x) => x.partnerName === 'Eva')).toMatchObject({ approvedCents: 0, paidCents: 4_000 });
    // Nothing open: the next tick asks PayPal nothing.
    expect(await followProviderPayouts(deps())).toMatchObject({ asked: 0 });
  });

  it('a timeout after PayPal accepted: the job fails, its retry sends the same sender_batch_id, the duplicate answer leads to the batch; paid once', async () => {
    const b = await owedBatch([['Gus', 'paypal', 'USD', 30_000]]);
    await savePayPal(b.programId);
    const gus = b.payoutOf('Gus')!;
    const { sendId } = await payBatchThroughProvider(deps(), OPERATOR, b.programId, b.batchId, { provider: 'paypal' });
    const posts = payoutPosts();
    const logs: string[] = [];
    const logger = createLogger('info', new Writable({ write: (chunk, _enc, done) => (logs.push(String(chunk)), done()) }) as never);
    // Attempt 1: PayPal made the batch, every answer was lost (3 tries, the client's retries).
    token();
    nock(PAYPAL).post('/v1/payments/payouts', posts.match).times(3).replyWithError({ code: 'ETIMEDOUT', message: 'socket timed out' });
    await expect(runProviderSendJob({ ...deps(), logger }, { sendId })).rejects.toThrow('PayPal could not be reached');
    expect((await status(gus.id)).status).toBe('processing');
    // The queue's retry: the same sender_batch_id; PayPal refuses it as a duplicate and links the batch it made.
    token();
    nock(PAYPAL).post('/v1/payments/payouts', posts.match).reply(400, {
      name: 'USER_BUSINESS_ERROR', message: 'Batch with given sender_batch_id already exists', debug_id: 'a1b2c3',
      links: [{ href: `${PAYPAL}/v1/payments/payouts/FYXMPQTX4JC9N`, rel: 'self', method: 'GET' }],
    });
    nock(PAYPAL).get('/v1/payments/payouts/FYXMPQTX4JC9N').query(true).reply(200, batchAnswer('x', 'SUCCESS', [{ id: gus.id, status: 'SUCCESS' }]));
    expect(await runProviderSendJob({ ...deps(), logger }, { sendId })).toBe('sent');
    const expected = senderBatchId({ programId: b.programId, batchId: b.batchId, id: sendId! });
    expect(posts.ids).toEqual([expected, expected, expected, expected]);
    expect(await status(gus.id)).toMatchObject({ status: 'paid', reference: `ITEM${gus.id}` });
    expect(await paidEntries(gus.id)).toBe(1);
    expect(await paidMessages(b.programId)).toBe(1);
    // The credentials never reach the logs.
    expect(logs.join('')).not.toContain(PAYPAL_SECRET);
    expect(logs.join('')).not.toContain('A21AA-token');
    expect(logs.join('')).toContain('"sendId"');
  });

  it('a 5xx then a retry: the same request again, paid once', async () => {
    const b = await owedBatch([['Hal', 'paypal', 'EUR', 25_000]]);
    await savePayPal(b.programId);
    const hal = b.payoutOf('Hal')!;
    const { sendId } = await payBatchThroughProvider(deps(), OPERATOR, b.programId, b.batchId, { provider: 'paypal' });
    const posts = payoutPosts();
    token();
    nock(PAYPAL).post('/v1/payments/payouts', posts.match).reply(503, { name: 'SERVICE_UNAVAILABLE', message: 'Service Unavailable' });
    nock(PAYPAL).post('/v1/payments/payouts', posts.match).reply(201, created('x'));
    nock(PAYPAL).get('/v1/payments/payouts/FYXMPQTX4JC9N').query(true).reply(200, batchAnswer('x', 'SUCCESS', [{ id: hal.id, status: 'SUCCESS' }]));
    expect(await sendProviderPayouts(deps(), sendId!)).toBe('sent');
    expect(new Set(posts.ids).size).toBe(1);
    expect(await status(hal.id)).toMatchObject({ status: 'paid' });
    expect(await paidEntries(hal.id)).toBe(1);
  });

  it('a refusal (4xx) returns the payouts to pending with PayPal\'s words; the next "pay" is a new send', async () => {
    const b = await owedBatch([['Ivy', 'paypal', 'USD', 25_000]]);
    await savePayPal(b.programId);
    const ivy = b.payoutOf('Ivy')!;
    const first = await payBatchThroughProvider(deps(), OPERATOR, b.programId, b.batchId, { provider: 'paypal' });
    token();
    nock(PAYPAL).post('/v1/payments/payouts').reply(422, { name: 'INSUFFICIENT_FUNDS', message: 'Sender does not have sufficient funds. Please add funds and retry.', debug_id: 'd1' });
    expect(await sendProviderPayouts(deps(), first.sendId!)).toBe('refused');
    expect((await status(ivy.id)).status).toBe('pending');
    expect(await item(ivy.id)).toMatchObject({ outcome: 'not_sent', reason: 'PayPal refused the request (422 INSUFFICIENT_FUNDS): Sender does not have sufficient funds. Please add funds and retry.' });
    const again = await payBatchThroughProvider(deps(), OPERATOR, b.programId, b.batchId, { provider: 'paypal' });
    expect(again.sendId).not.toBe(first.sendId);
    expect((await status(ivy.id)).status).toBe('processing');
    token();
    nock(PAYPAL).post('/v1/payments/payouts', (body) => body.sender_batch_header.sender_batch_id === senderBatchId({ programId: b.programId, batchId: b.batchId, id: again.sendId! })).reply(201, created('x'));
    nock(PAYPAL).get('/v1/payments/payouts/FYXMPQTX4JC9N').query(true).reply(200, batchAnswer('x', 'SUCCESS', [{ id: ivy.id, status: 'SUCCESS' }]));
    expect(await sendProviderPayouts(deps(), again.sendId!)).toBe('sent');
    expect((await status(ivy.id)).status).toBe('paid');
  });

  it('two "pay batch" calls at the same moment, and a job retried while the first attempt is in flight: each payout is sent once (one POST)', async () => {
    const b = await owedBatch([['Jo', 'paypal', 'USD', 10_000], ['Kim', 'paypal', 'USD', 20_000]]);
    await savePayPal(b.programId);
    const calls = await Promise.allSettled([1, 2].map(() => admin('POST', `/programs/${b.programId}/payout-batches/${b.batchId}/pay`, { provider: 'paypal' })));
    const statuses = calls.map((c) => (c.status === 'fulfilled' ? c.value.status : 0)).sort();
    expect(statuses).toEqual([202, 409]);
    const refused = calls.map((c) => (c as PromiseFulfilledResult<any>).value).find((r) => r.status === 409)!;
    expect(refused.body.error.message).toBe('Nothing to send through PayPal: no payout of this batch paid by PayPal is waiting to be paid');
    const sends = await sendOf(b.batchId);
    expect(sends).toHaveLength(1);
    const sendId = Number(sends[0].id);

    const posts = payoutPosts();
    let answer!: () => void;
    const answered = new Promise<void>((resolve) => (answer = resolve));
    token();
    // PayPal holds its answer until the second attempt has come and gone.
    nock(PAYPAL).post('/v1/payments/payouts', posts.match).reply(async () => {
      await answered;
      return [201, created('x')];
    });
    nock(PAYPAL).get('/v1/payments/payouts/FYXMPQTX4JC9N').query(true).reply(200, batchAnswer('x', 'SUCCESS', [{ id: b.payoutOf('Jo')!.id, status: 'SUCCESS' }, { id: b.payoutOf('Kim')!.id, status: 'SUCCESS' }]));
    const first = sendProviderPayouts(deps(), sendId);
    // The job retried (its worker seemed lost) while the first attempt waits on PayPal.
    while (posts.ids.length === 0) await new Promise((resolve) => setImmediate(resolve));
    expect(await sendProviderPayouts(deps(), sendId)).toBe('busy');
    answer();
    expect(await first).toBe('sent');
    expect(posts.ids).toHaveLength(1);
    for (const name of ['Jo', 'Kim']) expect(await paidEntries(b.payoutOf(name)!.id)).toBe(1);
  });

  it('a send a crash left half-done (no attempt holds it) is sent again by the follower with the same id', async () => {
    const b = await owedBatch([['Lu', 'paypal', 'USD', 10_000]]);
    await savePayPal(b.programId);
    const { sendId } = await payBatchThroughProvider(deps(), OPERATOR, b.programId, b.batchId, { provider: 'paypal' });
    // An attempt took the send and died (its lease runs out 15 minutes later).
    await db.pool.query('UPDATE provider_payout_sends SET lease_until = $2, attempts = 1 WHERE id = $1', [sendId, new Date(clock.getTime() + 15 * 60_000)]);
    expect(await followProviderPayouts(deps())).toMatchObject({ resent: 0 });
    clock = new Date(clock.getTime() + 16 * 60_000);
    const posts = payoutPosts();
    token();
    nock(PAYPAL).post('/v1/payments/payouts', posts.match).reply(201, created('x'));
    nock(PAYPAL).get('/v1/payments/payouts/FYXMPQTX4JC9N').query(true).reply(200, batchAnswer('x', 'SUCCESS', [{ id: b.payoutOf('Lu')!.id, status: 'SUCCESS' }]));
    const logs: string[] = [];
    const logger = createLogger('info', new Writable({ write: (chunk, _enc, done) => (logs.push(String(chunk)), done()) }) as never);
    expect(await runProviderFollowJob({ ...deps(), logger })).toMatchObject({ resent: 1 });
    expect(posts.ids).toEqual([senderBatchId({ programId: b.programId, batchId: b.batchId, id: sendId! })]);
    expect((await status(b.payoutOf('Lu')!.id)).status).toBe('paid');
    expect(logs.join('')).not.toContain(PAYPAL_SECRET);
  });
});

describe('Wise', () => {
  const quoteAndRecipient = (currency: string, amount: number) => {
    nock(WISE).post('/v3/profiles/7001/quotes', { sourceCurrency: currency, targetCurrency: currency, targetAmount: amount, payOut: 'BALANCE' })
      .matchHeader('authorization', `Bearer ${WISE_TOKEN}`).reply(200, { id: '11144c35-9fe8-4c32-b7fd-d05383ac4d7c', rate: 1 });
    nock(WISE).post('/v1/accounts').reply(200, { id: 40000000, profile: 7001, currency, type: 'email' });
  };

  it('pays each payout as a transfer named by it, funded once; a timeout after Wise made the transfer gets the same one back; a bounced transfer is failed and owed again', async () => {
    const b = await owedBatch([['Max', 'wise', 'EUR', 50_000], ['Nia', 'wise', 'USD', 80_000], ['Oli', 'paypal', 'USD', 10_000]]);
    await saveWise(b.programId);
    const [max, nia, oli] = ['Max', 'Nia', 'Oli'].map(b.payoutOf);
    const { sendId, sending } = await payBatchThroughProvider(deps(), OPERATOR, b.programId, b.batchId, { provider: 'wise' });
    expect(sending).toEqual([max!.id, nia!.id]);
    expect((await status(oli!.id)).status).toBe('pending');
    const transferIds: string[] = [];
    const funded: string[] = [];
    // Max: straight through.
    quoteAndRecipient('EUR', 50);
    nock(WISE).post('/v1/transfers', (body) => (transferIds.push(body.customerTransactionId), true)).reply(200, { id: 501, status: 'incoming_payment_waiting' });
    nock(WISE).post('/v3/profiles/7001/transfers/501/payments', (body) => (funded.push('501'), body.type === 'BALANCE')).reply(201, { type: 'BALANCE', status: 'COMPLETED', errorCode: null });
    nock(WISE).get('/v1/transfers/501').reply(200, { id: 501, status: 'processing' });
    // Nia: Wise made the transfer, the answers were lost (the job fails and is retried).
    quoteAndRecipient('USD', 80);
    nock(WISE).post('/v1/transfers', (body) => (transferIds.push(body.customerTransactionId), true)).times(3).replyWithError({ code: 'ETIMEDOUT', message: 'timed out' });
    await expect(sendProviderPayouts(deps(), sendId!)).rejects.toThrow('Wise could not be reached');
    expect(await item(max!.id)).toMatchObject({ outcome: 'open', provider_item_id: '501' });
    expect(await item(nia!.id)).toMatchObject({ outcome: 'sending' });
    // The retry: Max is not sent again; Nia's transfer comes back (the same customerTransactionId), still waiting for its money: funded now, once.
    quoteAndRecipient('USD', 80);
    nock(WISE).post('/v1/transfers', (body) => (transferIds.push(body.customerTransactionId), true)).reply(200, { id: 502, status: 'incoming_payment_waiting' });
    nock(WISE).post('/v3/profiles/7001/transfers/502/payments', () => (funded.push('502'), true)).reply(201, { type: 'BALANCE', status: 'COMPLETED', errorCode: null });
    nock(WISE).get('/v1/transfers/502').reply(200, { id: 502, status: 'processing' });
    expect(await sendProviderPayouts(deps(), sendId!)).toBe('sent');
    expect(transferIds).toEqual([wiseTransactionId(b.programId, max!.id), ...Array(4).fill(wiseTransactionId(b.programId, nia!.id))]);
    expect(funded).toEqual(['501', '502']);

    // The follower: Max's transfer went out (paid), Nia's bounced back (failed, owed again).
    clock = new Date(clock.getTime() + 5 * 60_000);
    nock(WISE).get('/v1/transfers/501').reply(200, { id: 501, status: 'outgoing_payment_sent' });
    nock(WISE).get('/v1/transfers/502').reply(200, { id: 502, status: 'bounced_back' });
    expect(await followProviderPayouts(deps())).toMatchObject({ asked: 2, paid: 1, failed: 1 });
    expect(await status(max!.id)).toMatchObject({ status: 'paid', reference: '501' });
    expect(await status(nia!.id)).toMatchObject({ status: 'failed', failure_reason: 'Wise: transfer bounced_back', failure_reference: '502' });
    expect(await paidEntries(max!.id)).toBe(1);
    const balances = await payoutRuns.balances(deps(), OPERATOR, b.programId);
    expect(balances.find((x) => x.partnerName === 'Nia')).toMatchObject({ approvedCents: 8_000, paidCents: 0 });
  });

  it('Wise refuses one payout (its balance): that one is pending again with Wise\'s words, the other is sent', async () => {
    const b = await owedBatch([['Yan', 'wise', 'GBP', 30_000], ['Zoe', 'wise', 'EUR', 40_000]]);
    await saveWise(b.programId);
    const [yan, zoe] = ['Yan', 'Zoe'].map(b.payoutOf);
    const { sendId } = await payBatchThroughProvider(deps(), OPERATOR, b.programId, b.batchId, { provider: 'wise' });
    quoteAndRecipient('GBP', 30);
    nock(WISE).post('/v1/transfers').reply(200, { id: 601, status: 'incoming_payment_waiting' });
    nock(WISE).post('/v3/profiles/7001/transfers/601/payments').reply(422, { errors: [{ code: 'balance.payment-option-unavailable', message: 'Not enough GBP in your balance' }] });
    quoteAndRecipient('EUR', 40);
    nock(WISE).post('/v1/transfers').reply(200, { id: 602, status: 'incoming_payment_waiting' });
    nock(WISE).post('/v3/profiles/7001/transfers/602/payments').reply(201, { type: 'BALANCE', status: 'COMPLETED', errorCode: null });
    nock(WISE).get('/v1/transfers/602').reply(200, { id: 602, status: 'outgoing_payment_sent' });
    expect(await sendProviderPayouts(deps(), sendId!)).toBe('sent');
    expect((await status(yan!.id)).status).toBe('pending');
    expect(await item(yan!.id)).toMatchObject({ outcome: 'not_sent', reason: 'Wise refused the request (422 balance.payment-option-unavailable): Not enough GBP in your balance' });
    expect(await status(zoe!.id)).toMatchObject({ status: 'paid', reference: '602' });
  });

  it('without credentials: 409, nothing claimed', async () => {
    const b = await owedBatch([['Pia', 'wise', 'EUR', 10_000]]);
    const reply = await admin('POST', `/programs/${b.programId}/payout-batches/${b.batchId}/pay`, { provider: 'wise' });
    expect(reply.status).toBe(409);
    expect(reply.body.error.message).toBe("Wise is not set up for this program: save its credentials in the Payouts page's settings first");
    expect((await status(b.payoutOf('Pia')!.id)).status).toBe('pending');
  });
});

describe('the Payouts page', () => {
  it('saves the credentials write-only, pays a batch from its button, and shows each payout\'s outcome (paid, on its way, failed with the reason, not sent and why)', async () => {
    const b = await owedBatch([['Quy', 'paypal', 'USD', 40_000], ['Rae', 'paypal', 'USD', 60_000], ['Sol', 'paypal', 'HUF', 1_500_500], ['Tam', 'paypal', 'EUR', 30_000]]);
    const [quy, rae, sol, tam] = ['Quy', 'Rae', 'Sol', 'Tam'].map(b.payoutOf);
    const page = await dashboardOf(b.accountId);
    const url = `/dashboard/programs/${b.programId}/payouts`;
    let shown = await page.get(url);
    expect(shown.text).toContain('PayPal: not set up; Wise: not set up');
    expect(shown.text).not.toContain(`Pay batch ${b.batchId} through PayPal`);
    const saved = await page.post(`${url}/providers/paypal`, { paypal_client_id: 'AbCdPayPalClientId', paypal_client_secret: PAYPAL_SECRET, paypal_sandbox: 'on' });
    expect(saved.status).toBe(303);
    shown = await page.get(url);
    expect(shown.text).toContain('PayPal: sandbox; secret set, ends with …9XyZ');
    expect(shown.text).not.toContain(PAYPAL_SECRET);
    expect(shown.text).toContain(`Pay batch ${b.batchId} through PayPal`);

    const paid = await page.post(`${url}/batches/${b.batchId}/pay`, { provider: 'paypal' });
    expect(paid.status).toBe(303);
    shown = await page.get(url);
    expect(shown.text).toContain('Sending through PayPal…');
    expect(shown.text).toContain('Not sent through PayPal: Not payable through PayPal: 1500.50 HUF has more decimals than PayPal takes for HUF (0): pay it another way');
    // A second press finds nothing left to send, and says so beside the batch.
    const again = await page.post(`${url}/batches/${b.batchId}/pay`, { provider: 'paypal' });
    expect(again.status).toBe(409);
    expect(again.text).toContain(`Nothing to send through PayPal: payout ${sol!.id}: Not payable through PayPal`);

    const [sendId] = (await sendOf(b.batchId)).map((r) => Number(r.id));
    token();
    nock(PAYPAL).post('/v1/payments/payouts').reply(201, created('x'));
    nock(PAYPAL).get('/v1/payments/payouts/FYXMPQTX4JC9N').query(true).reply(200, batchAnswer('x', 'PROCESSING', [
      { id: quy!.id, status: 'SUCCESS' }, { id: rae!.id, status: 'FAILED', errors: { name: 'RECEIVER_UNREGISTERED', message: 'Receiver is unregistered' } }, { id: tam!.id, status: 'UNCLAIMED' },
    ]));
    await sendProviderPayouts(deps(), sendId!);
    shown = await page.get(url);
    expect(shown.text).toContain(`Paid through PayPal (ITEM${quy!.id})`);
    expect(shown.text).toContain(`Failed through PayPal (ITEM${rae!.id}): PayPal: FAILED (Receiver is unregistered)`);
    expect(shown.text).toContain(`On its way through PayPal (ITEM${tam!.id}): UNCLAIMED`);
    expect(shown.text).not.toContain(PAYPAL_SECRET);
  });
});

describe('the CLI', () => {
  it('saves PayPal\'s credentials with the secret from the environment (never a flag) and pays a batch: affix admin payouts provider / pay-batch', async () => {
    const b = await owedBatch([['Uma', 'paypal', 'USD', 10_000]]);
    const cli = async (env: Record<string, string>, ...args: string[]) =>
      JSON.parse((await promisify(execFile)(process.execPath, ['bin/affix.mjs', 'admin', 'payouts', ...args], { env: { ...process.env, AFFIX_ADMIN_TOKEN: ADMIN_TOKEN, AFFIX_API_URL: api.url, ...env } })).stdout);
    const saved = await cli({ AFFIX_PAYPAL_CLIENT_SECRET: PAYPAL_SECRET }, 'provider', 'paypal', '--program', String(b.programId), '--client-id', 'AbCdPayPalClientId', '--sandbox');
    expect(saved).toMatchObject({ provider: 'paypal', client_id: 'AbCdPayPalClientId', sandbox: true, secret: 'set, ends with …9XyZ' });
    expect(JSON.stringify(await cli({}, 'provider', '--program', String(b.programId)))).not.toContain(PAYPAL_SECRET);
    const sent = await cli({}, 'pay-batch', String(b.batchId), '--program', String(b.programId), '--provider', 'paypal');
    expect(sent).toMatchObject({ provider: 'paypal', batch_id: b.batchId, sending: [b.payoutOf('Uma')!.id], not_sent: [] });
    // The send, so no send is left for the follower of another test.
    token();
    nock(PAYPAL).post('/v1/payments/payouts').reply(201, created('x'));
    nock(PAYPAL).get('/v1/payments/payouts/FYXMPQTX4JC9N').query(true).reply(200, batchAnswer('x', 'SUCCESS', [{ id: b.payoutOf('Uma')!.id, status: 'SUCCESS' }]));
    expect(await sendProviderPayouts(deps(), sent.send_id)).toBe('sent');
  }, 60_000);
});

describe('unclaimed too long', () => {
  it('a PayPal item UNCLAIMED 30 days after it was sent is failed (owed again); before that it stays open', async () => {
    const b = await owedBatch([['Ada', 'paypal', 'USD', 10_000]]);
    await savePayPal(b.programId);
    const ada = b.payoutOf('Ada')!;
    const { sendId } = await payBatchThroughProvider(deps(), OPERATOR, b.programId, b.batchId, { provider: 'paypal' });
    token();
    nock(PAYPAL).post('/v1/payments/payouts').reply(201, created('x'));
    nock(PAYPAL).get('/v1/payments/payouts/FYXMPQTX4JC9N').query(true).reply(200, batchAnswer('x', 'PROCESSING', [{ id: ada.id, status: 'UNCLAIMED' }]));
    await sendProviderPayouts(deps(), sendId!);
    // The follower reads every program's open items: other tests' (still UNCLAIMED) are left out of this one's.
    await db.pool.query("UPDATE provider_payout_items SET outcome = 'paid' WHERE outcome = 'open' AND program_id <> $1", [b.programId]);
    clock = new Date(clock.getTime() + 29 * 86_400_000);
    token();
    nock(PAYPAL).get('/v1/payments/payouts/FYXMPQTX4JC9N').query(true).reply(200, batchAnswer('x', 'PROCESSING', [{ id: ada.id, status: 'UNCLAIMED' }]));
    await followProviderPayouts(deps());
    expect((await status(ada.id)).status).toBe('processing');
    clock = new Date(clock.getTime() + 1 * 86_400_000);
    token();
    nock(PAYPAL).get('/v1/payments/payouts/FYXMPQTX4JC9N').query(true).reply(200, batchAnswer('x', 'PROCESSING', [{ id: ada.id, status: 'UNCLAIMED' }]));
    await followProviderPayouts(deps());
    expect(await status(ada.id)).toMatchObject({ status: 'failed', failure_reason: 'PayPal: UNCLAIMED for 30 days (the receiver never claimed it)', failure_reference: `ITEM${ada.id}` });
  });
});

describe('marked failed by hand while PayPal was paying it', () => {
  it('before the send: never sent; after: PayPal\'s SUCCESS changes nothing, and the item says so beside the payout', async () => {
    const b = await owedBatch([['Bea', 'paypal', 'USD', 10_000], ['Cal', 'paypal', 'USD', 20_000]]);
    await savePayPal(b.programId);
    const [bea, cal] = ['Bea', 'Cal'].map(b.payoutOf);
    const { sendId } = await payBatchThroughProvider(deps(), OPERATOR, b.programId, b.batchId, { provider: 'paypal' });
    await failPayout(deps(), OPERATOR, b.programId, bea!.id, { reason: 'The partner says the PayPal account is closed' });
    let sent: any;
    token();
    nock(PAYPAL).post('/v1/payments/payouts', (body) => ((sent = body), true)).reply(201, created('x'));
    nock(PAYPAL).get('/v1/payments/payouts/FYXMPQTX4JC9N').query(true).reply(200, batchAnswer('x', 'PROCESSING', [{ id: cal!.id, status: 'PENDING' }]));
    await sendProviderPayouts(deps(), sendId!);
    expect(sent.items.map((i: any) => Number(i.sender_item_id))).toEqual([cal!.id]);
    expect(await item(bea!.id)).toMatchObject({ outcome: 'not_sent', reason: 'Not sent: it was marked failed before it went to PayPal' });

    await failPayout(deps(), OPERATOR, b.programId, cal!.id, { reason: 'Sent to the wrong account' });
    await db.pool.query("UPDATE provider_payout_items SET outcome = 'paid' WHERE outcome = 'open' AND program_id <> $1", [b.programId]);
    token();
    nock(PAYPAL).get('/v1/payments/payouts/FYXMPQTX4JC9N').query(true).reply(200, batchAnswer('x', 'SUCCESS', [{ id: cal!.id, status: 'SUCCESS' }]));
    await followProviderPayouts(deps());
    expect((await status(cal!.id)).status).toBe('failed');
    expect(await paidEntries(cal!.id)).toBe(0);
    expect(await item(cal!.id)).toMatchObject({ outcome: 'paid', reason: 'PayPal paid it, but it was already failed here: check before paying it again' });
  });
});

describe('a large batch', () => {
  it('goes as several sends of at most PAYOUTS_PER_SEND payouts, each its own sender_batch_id and job', async () => {
    const b = await owedBatch([['Vic', 'paypal', 'USD', 10_000], ['Wen', 'paypal', 'USD', 20_000], ['Xia', 'paypal', 'USD', 30_000]]);
    await savePayPal(b.programId);
    const made = await payBatchThroughProvider({ ...deps(), payoutsPerSend: 2 }, OPERATOR, b.programId, b.batchId, { provider: 'paypal' });
    expect(made.sendIds).toHaveLength(2);
    expect(made.sendId).toBe(made.sendIds[0]);
    expect(await queuedSends()).toEqual(expect.arrayContaining(made.sendIds));
    const posts = payoutPosts();
    const items: number[][] = [];
    for (const [n, sendId] of made.sendIds.entries()) {
      token();
      nock(PAYPAL).post('/v1/payments/payouts', (body) => (items.push(body.items.map((i: any) => Number(i.sender_item_id))), posts.match(body))).reply(201, created('x'));
      const ids = n === 0 ? [b.payoutOf('Vic')!.id, b.payoutOf('Wen')!.id] : [b.payoutOf('Xia')!.id];
      nock(PAYPAL).get('/v1/payments/payouts/FYXMPQTX4JC9N').query(true).reply(200, batchAnswer('x', 'SUCCESS', ids.map((id) => ({ id, status: 'SUCCESS' }))));
      expect(await sendProviderPayouts(deps(), sendId)).toBe('sent');
    }
    expect(posts.ids).toEqual(made.sendIds.map((id) => senderBatchId({ programId: b.programId, batchId: b.batchId, id })));
    expect(items).toEqual([[b.payoutOf('Vic')!.id, b.payoutOf('Wen')!.id], [b.payoutOf('Xia')!.id]]);
    for (const name of ['Vic', 'Wen', 'Xia']) expect((await status(b.payoutOf(name)!.id)).status).toBe('paid');
  });
});
