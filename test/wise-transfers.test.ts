// Wise transfers through its API, against its documented requests and answers (nock): quote,
// recipient, transfer named by the payout, funding from the balance; a retry after a 5xx or a
// crash gets the same transfer and never funds it twice; refusals are not retried (docs/payouts.md).
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { nockForThisFile } from './support/nock.js';
import { type WiseAccount, WiseRefusal, readWiseTransfer, sendWiseTransfer, wiseOutcome, wiseTransactionId } from '../src/platform/wise-transfers.js';

const nock = nockForThisFile();

const SANDBOX = 'https://api.wise-sandbox.com';
const account: WiseAccount = { token: 'wise-token', profileId: 7001, sandbox: true };
const fast = { minTimeoutMs: 0, retries: 3 };
const line = { programId: 3, payoutId: 41, partnerName: 'Ana Lima', email: 'ana@example.com', amountCents: 12_345, currency: 'EUR' as const, reference: 'Shop commissions, payout 41' };

beforeAll(() => nock.disableNetConnect());
afterEach(() => {
  expect(nock.pendingMocks()).toEqual([]);
  nock.cleanAll();
});

const quoteAndRecipient = () => {
  nock(SANDBOX).post('/v3/profiles/7001/quotes', { sourceCurrency: 'EUR', targetCurrency: 'EUR', targetAmount: 123.45, payOut: 'BALANCE' })
    .matchHeader('authorization', 'Bearer wise-token').reply(200, { id: '11144c35-9fe8-4c32-b7fd-d05383ac4d7c', sourceAmount: 123.45, targetAmount: 123.45, rate: 1 });
  nock(SANDBOX).post('/v1/accounts', { profile: 7001, accountHolderName: 'Ana Lima', currency: 'EUR', type: 'email', details: { email: 'ana@example.com' } })
    .reply(200, { id: 40000000, profile: 7001, currency: 'EUR', type: 'email' });
};

describe('Wise transfers', () => {
  it('a payout is a quote, an email recipient, a transfer named by the payout, funded from the balance', async () => {
    const id = wiseTransactionId(3, 41);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(wiseTransactionId(3, 41)).toBe(id);
    expect(wiseTransactionId(3, 42)).not.toBe(id);
    quoteAndRecipient();
    nock(SANDBOX).post('/v1/transfers', { targetAccount: 40000000, quoteUuid: '11144c35-9fe8-4c32-b7fd-d05383ac4d7c', customerTransactionId: id, details: { reference: 'Shop commissions, payout 41' } })
      .reply(200, { id: 16521632, status: 'incoming_payment_waiting', customerTransactionId: id });
    nock(SANDBOX).post('/v3/profiles/7001/transfers/16521632/payments', { type: 'BALANCE' }).reply(201, { type: 'BALANCE', status: 'COMPLETED', errorCode: null });
    nock(SANDBOX).get('/v1/transfers/16521632').reply(200, { id: 16521632, status: 'processing' });
    expect(await sendWiseTransfer(account, line, fast)).toEqual({ transferId: 16521632, status: 'processing' });
  });

  it('a retry after a crash or a 5xx gets the same transfer back and does not fund it again', async () => {
    quoteAndRecipient();
    const ids: string[] = [];
    nock(SANDBOX).post('/v1/transfers', (body) => (ids.push(body.customerTransactionId), true)).reply(502, 'Bad gateway');
    // The first attempt reached Wise after all: the same customerTransactionId returns that transfer, already funded.
    nock(SANDBOX).post('/v1/transfers', (body) => (ids.push(body.customerTransactionId), true)).reply(200, { id: 16521632, status: 'processing' });
    expect(await sendWiseTransfer(account, line, fast)).toEqual({ transferId: 16521632, status: 'processing' });
    expect(ids).toEqual([wiseTransactionId(3, 41), wiseTransactionId(3, 41)]);
  });

  it('a refusal is not retried and says what Wise said; states map to paid, failed or open', async () => {
    nock(SANDBOX).post('/v3/profiles/7001/quotes').reply(422, { errors: [{ code: 'error.currency.unsupported', message: 'Currency XOF is not supported as a target currency' }] });
    const refusal = await sendWiseTransfer(account, line, fast).catch((error) => error);
    expect(refusal).toBeInstanceOf(WiseRefusal);
    expect(refusal.message).toBe('Wise refused the request (422 error.currency.unsupported): Currency XOF is not supported as a target currency');
    nock(SANDBOX).get('/v1/transfers/16521632').replyWithError('socket hang up');
    nock(SANDBOX).get('/v1/transfers/16521632').reply(200, { id: 16521632, status: 'bounced_back' });
    const transfer = await readWiseTransfer(account, 16521632, fast);
    expect(wiseOutcome(transfer.status)).toBe('failed');
    expect((['outgoing_payment_sent', 'processing', 'funds_refunded', 'cancelled', 'incoming_payment_waiting'] as const).map(wiseOutcome)).toEqual(['paid', 'open', 'failed', 'failed', 'open']);
  });
});
