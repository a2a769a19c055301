// PayPal Payouts through its API, against its documented requests and answers (nock): a batch per
// run named by the run, amounts as PayPal reads them, a retry after a 5xx or a lost answer that never
// pays twice, a refusal that is not retried, and each item's status (docs/payouts.md).
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { nockForThisFile } from './support/nock.js';
import { type PayPalAccount, PayPalRefusal, paypalLines, payoutOutcome, readPayPalBatch, sendPayPalBatch } from '../src/platform/paypal-payouts.js';

const nock = nockForThisFile();

const SANDBOX = 'https://api-m.sandbox.paypal.com';
const account: PayPalAccount = { clientId: 'client-id', clientSecret: 'client-secret', sandbox: true };
const fast = { minTimeoutMs: 0, retries: 3 };
const lines = [
  { payoutId: 41, receiver: 'ana@example.com', amountCents: 12_345, currency: 'USD' as const },
  { payoutId: 42, receiver: 'ben@example.com', amountCents: 5_000, currency: 'EUR' as const },
  { payoutId: 43, receiver: 'cho@example.com', amountCents: 150_050, currency: 'HUF' as const },
];

beforeAll(() => nock.disableNetConnect());
afterEach(() => {
  expect(nock.pendingMocks()).toEqual([]);
  nock.cleanAll();
});

const token = () => nock(SANDBOX)
  .post('/v1/oauth2/token', 'grant_type=client_credentials')
  .basicAuth({ user: 'client-id', pass: 'client-secret' })
  .reply(200, { scope: 'https://uri.paypal.com/services/payments/payouts', access_token: 'A21AA-token', token_type: 'Bearer', expires_in: 32400 });

const batchAnswer = (status: string, items: { id: number; status: string; errors?: object }[]) => ({
  batch_header: { payout_batch_id: 'FYXMPQTX4JC9N', batch_status: status, sender_batch_header: { sender_batch_id: 'affix-run-7' } },
  items: items.map((item) => ({
    payout_item_id: `ITEM${item.id}`, transaction_id: item.status === 'SUCCESS' ? `TX${item.id}` : undefined, transaction_status: item.status,
    payout_batch_id: 'FYXMPQTX4JC9N', payout_item: { sender_item_id: String(item.id), receiver: 'x@example.com', recipient_type: 'EMAIL', amount: { value: '1.00', currency: 'USD' } },
    ...(item.errors ? { errors: item.errors } : {}),
  })),
});

describe('PayPal Payouts', () => {
  it('sends one batch named by the run, each item named by its payout, amounts as PayPal reads them; a line PayPal cannot take is never sent', async () => {
    expect(paypalLines(lines).refused).toEqual([{ payoutId: 43, problem: '1500.50 HUF has more decimals than PayPal takes for HUF (0): pay it another way' }]);
    let sent: any;
    token();
    nock(SANDBOX).post('/v1/payments/payouts', (body) => ((sent = body), true)).matchHeader('authorization', 'Bearer A21AA-token')
      .reply(201, { batch_header: { payout_batch_id: 'FYXMPQTX4JC9N', batch_status: 'PENDING', sender_batch_header: { sender_batch_id: 'affix-run-7' } }, links: [] });
    nock(SANDBOX).get('/v1/payments/payouts/FYXMPQTX4JC9N').query(true).reply(200, batchAnswer('PROCESSING', [{ id: 41, status: 'SUCCESS' }, { id: 42, status: 'UNCLAIMED' }]));
    const batch = await sendPayPalBatch(account, 'affix-run-7', lines, fast);
    expect(sent).toEqual({
      sender_batch_header: { sender_batch_id: 'affix-run-7', recipient_type: 'EMAIL', email_subject: 'You have a payout' },
      items: [
        { recipient_type: 'EMAIL', amount: { value: '123.45', currency: 'USD' }, receiver: 'ana@example.com', sender_item_id: '41' },
        { recipient_type: 'EMAIL', amount: { value: '50.00', currency: 'EUR' }, receiver: 'ben@example.com', sender_item_id: '42' },
      ],
    });
    expect(batch).toEqual({
      payoutBatchId: 'FYXMPQTX4JC9N', batchStatus: 'PROCESSING',
      items: [
        { payoutId: 41, payoutItemId: 'ITEM41', transactionId: 'TX41', status: 'SUCCESS', error: null },
        { payoutId: 42, payoutItemId: 'ITEM42', transactionId: null, status: 'UNCLAIMED', error: null },
      ],
    });
    expect(batch.items.map((i) => payoutOutcome(i.status))).toEqual(['paid', 'open']);
  });

  it('a 5xx is retried with the same sender_batch_id; when the first attempt was made after all, the duplicate answer leads to the original batch, paid once', async () => {
    const ids: string[] = [];
    token();
    nock(SANDBOX).post('/v1/payments/payouts', (body) => (ids.push(body.sender_batch_header.sender_batch_id), true)).reply(503, { name: 'SERVICE_UNAVAILABLE' });
    // PayPal made the batch but the answer was lost: the retry is refused as a duplicate, linking the original.
    nock(SANDBOX).post('/v1/payments/payouts', (body) => (ids.push(body.sender_batch_header.sender_batch_id), true)).reply(400, {
      name: 'USER_BUSINESS_ERROR', message: 'Batch with given sender_batch_id already exists', debug_id: 'a1b2c3',
      links: [{ href: `${SANDBOX}/v1/payments/payouts/FYXMPQTX4JC9N`, rel: 'self', method: 'GET' }],
    });
    nock(SANDBOX).get('/v1/payments/payouts/FYXMPQTX4JC9N').query(true).reply(200, batchAnswer('SUCCESS', [{ id: 41, status: 'SUCCESS' }, { id: 42, status: 'SUCCESS' }]));
    const batch = await sendPayPalBatch(account, 'affix-run-7', lines, fast);
    expect(ids).toEqual(['affix-run-7', 'affix-run-7']);
    expect(batch.items.map((i) => i.status)).toEqual(['SUCCESS', 'SUCCESS']);
  });

  it('a refusal is not retried and says what PayPal said; a failed item carries its reason', async () => {
    token();
    nock(SANDBOX).post('/v1/payments/payouts').reply(422, { name: 'INSUFFICIENT_FUNDS', message: 'Sender does not have sufficient funds. Please add funds and retry.', debug_id: 'd1' });
    const refusal = await sendPayPalBatch(account, 'affix-run-8', lines, fast).catch((error) => error);
    expect(refusal).toBeInstanceOf(PayPalRefusal);
    expect(refusal.message).toBe('PayPal refused the request (422 INSUFFICIENT_FUNDS): Sender does not have sufficient funds. Please add funds and retry.');
    token();
    nock(SANDBOX).get('/v1/payments/payouts/FYXMPQTX4JC9N').query(true).reply(200, batchAnswer('SUCCESS', [
      { id: 41, status: 'SUCCESS' }, { id: 42, status: 'FAILED', errors: { name: 'RECEIVER_UNREGISTERED', message: 'Receiver is unregistered' } },
    ]));
    const batch = await readPayPalBatch(account, 'FYXMPQTX4JC9N', fast);
    expect(batch.items[1]).toMatchObject({ payoutId: 42, status: 'FAILED', error: 'Receiver is unregistered' });
    expect(['SUCCESS', 'FAILED', 'RETURNED', 'UNCLAIMED', 'ONHOLD', 'PENDING'].map((s) => payoutOutcome(s as never))).toEqual(['paid', 'failed', 'failed', 'open', 'open', 'open']);
  });

  it('a token request that times out is tried again', async () => {
    nock(SANDBOX).post('/v1/oauth2/token').replyWithError({ code: 'ETIMEDOUT', message: 'timed out' });
    token();
    nock(SANDBOX).get('/v1/payments/payouts/FYXMPQTX4JC9N').query(true).reply(200, batchAnswer('PENDING', [{ id: 41, status: 'PENDING' }]));
    expect((await readPayPalBatch(account, 'FYXMPQTX4JC9N', fast)).batchStatus).toBe('PENDING');
  });
});
