import { describe, expect, it } from 'vitest';
import {
  type SeededProgram,
  type TestApi,
  type TestDatabase,
  bearer,
  count,
  seedProgram,
  trackClick,
} from './support/harness.js';
import { useSeededApi } from './support/seeded-api.js';

let db: TestDatabase;
let api: TestApi;
let shop: SeededProgram;

useSeededApi({ programs: [{ commission_rate: 20 }] }, (t) => ({ db, api, programs: [shop] } = t));

let n = 0;
const uid = (prefix: string) => `${prefix}_${++n}_${Date.now()}`;
const refund = (body: unknown, headers: Record<string, string> = bearer(shop.apiKey)) =>
  api.request('POST', '/api/v1/track/refund', { body, headers });
const refundError = (status: number, name: string, message: string, code: string) => ({
  data: null,
  error: { status, name, message, details: {}, code },
});

/** A recorded sale with its commission; returns its transaction id and commission id. */
async function recordedSale(amountCents: number, extra: Record<string, unknown> = {}, program = shop) {
  const clickId = await trackClick(api, program.affiliateUrl);
  const transactionId = uid('txn');
  const reply = await api.request('POST', '/api/v1/track/sale', {
    body: { transaction_id: transactionId, amount_cents: amountCents, click_id: clickId, customer_key: uid('c'), ...extra },
    headers: bearer(program.apiKey),
  });
  if (reply.status !== 200) throw new Error(JSON.stringify(reply.body));
  return { transactionId, commissionId: reply.body.commission_id as number | null, saleId: reply.body.sale_id as number };
}

const commissionRow = async (commissionId: number) =>
  (await db.pool.query('SELECT status, amount_cents, refunded_total_cents, deducted_cents FROM commissions WHERE id = $1', [commissionId])).rows[0];

describe('authentication', () => {
  it.each([
    [{}, 'Missing or malformed Authorization header. Expected: Bearer <token>'],
    [{ Authorization: 'Token abc' }, 'Missing or malformed Authorization header. Expected: Bearer <token>'],
    // Refund answers an empty token with Invalid API token (spec §7).
    [{ Authorization: 'Bearer ' }, 'Invalid API token'],
    [{ Authorization: 'Bearer affix_sk_unknown' }, 'Invalid API token'],
  ])('%j', async (headers, message) => {
    const reply = await refund({ transaction_id: 'x' }, headers);
    expect(reply.status).toBe(401);
    expect(reply.body).toEqual(refundError(401, 'UnauthorizedError', message, 'unauthorized'));
  });
});

describe('validation and lookup', () => {
  it.each([
    [{}, 'transaction_id is required'],
    [{ transaction_id: null }, 'transaction_id is required'],
    [{ transaction_id: '' }, 'transaction_id is required'],
    [{ transaction_id: 'x', reason: 'fraud' }, 'reason must be refund or chargeback'],
    [{ transaction_id: 'x', refund_amount_cents: -1 }, 'refund_amount_cents must be a non-negative integer'],
    [{ transaction_id: 'x', refund_amount_cents: 1.5 }, 'refund_amount_cents must be a non-negative integer'],
  ])('400 %j', async (body, message) => {
    const reply = await refund(body);
    expect(reply.body).toEqual(refundError(400, 'BadRequestError', message, 'invalid_request'));
  });

  it('404 Sale not found for transaction_id, also for another program\'s sale', async () => {
    expect((await refund({ transaction_id: 'never' })).body).toEqual(
      refundError(404, 'NotFoundError', 'Sale not found for transaction_id', 'not_found'),
    );
    const other = await seedProgram(api);
    const { transactionId } = await recordedSale(1000, {}, other);
    expect((await refund({ transaction_id: transactionId })).status).toBe(404);
  });
});

describe('refund arithmetic (spec §3)', () => {
  it('amount omitted: reversed, everything refunded', async () => {
    const { transactionId, commissionId } = await recordedSale(4900);
    const reply = await refund({ transaction_id: transactionId, reason: 'refund', refund_reason: 'customer asked' });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ success: true, status: 'reversed', commission_id: commissionId, deduction_amount_cents: 980 });
    expect(await commissionRow(commissionId!)).toEqual({ status: 'reversed', amount_cents: 980, refunded_total_cents: 4900, deducted_cents: 980 });
  });

  it('amount 0 is a full refund too', async () => {
    const { transactionId } = await recordedSale(1000);
    expect((await refund({ transaction_id: transactionId, refund_amount_cents: 0 })).body.status).toBe('reversed');
  });

  it('partial: refunded and proportional, then reversed when the running total reaches the sale', async () => {
    const { transactionId, commissionId } = await recordedSale(5000);
    const first = await refund({ transaction_id: transactionId, refund_amount_cents: 1000 });
    expect(first.body).toEqual({
      success: true, status: 'refunded', commission_id: commissionId, deduction_amount_cents: 200,
      refund_amount_cents: 1000, refunded_total_cents: 1000, commission_remaining_cents: 800,
    });
    const second = await refund({ transaction_id: transactionId, refund_amount_cents: 4000 });
    expect(second.body).toMatchObject({ status: 'reversed', deduction_amount_cents: 800, refunded_total_cents: 5000 });
    expect(await commissionRow(commissionId!)).toEqual({ status: 'reversed', amount_cents: 1000, refunded_total_cents: 5000, deducted_cents: 1000 });
  });

  it('an identical retry is ignored; a distinct refund_id counts again', async () => {
    const { transactionId, commissionId } = await recordedSale(3000);
    expect((await refund({ transaction_id: transactionId, refund_amount_cents: 500 })).body.status).toBe('refunded');
    const retry = await refund({ transaction_id: transactionId, refund_amount_cents: 500 });
    expect(retry.body).toMatchObject({ success: true, status: 'skipped', commission_id: commissionId, deduction_amount_cents: 0 });
    expect((await commissionRow(commissionId!)).refunded_total_cents).toBe(500);

    expect((await refund({ transaction_id: transactionId, refund_amount_cents: 500, refund_id: 're_1' })).body.status).toBe('refunded');
    expect((await refund({ transaction_id: transactionId, refund_amount_cents: 500, refund_id: 're_2' })).body.status).toBe('refunded');
    expect((await refund({ transaction_id: transactionId, refund_amount_cents: 500, refund_id: 're_2' })).body.status).toBe('skipped');
    expect((await commissionRow(commissionId!)).refunded_total_cents).toBe(1500);
    expect(await count(db.pool, 'SELECT 1 FROM refunds WHERE commission_id = $1', [commissionId])).toBe(3);
  });

  it('refund_amount_cents never exceeds what is left', async () => {
    const { transactionId, commissionId } = await recordedSale(1000);
    await refund({ transaction_id: transactionId, refund_amount_cents: 700 });
    const over = await refund({ transaction_id: transactionId, refund_amount_cents: 5000 });
    expect(over.body).toMatchObject({ status: 'reversed', refund_amount_cents: 300, refunded_total_cents: 1000 });
    const after = await refund({ transaction_id: transactionId, refund_amount_cents: 10, refund_id: 'late' });
    expect(after.body).toMatchObject({ status: 'skipped', deduction_amount_cents: 0 });
    expect((await commissionRow(commissionId!)).refunded_total_cents).toBe(1000);
  });

  it('many odd partial refunds sum exactly to the sale and the commission', async () => {
    const program = await seedProgram(api, { commission_rate: 33.33 });
    const { transactionId, commissionId } = await recordedSale(1001, {}, program);
    const parts = [1, 7, 13, 100, 333, 2, 500, 45];
    let deducted = 0;
    for (const [index, part] of parts.entries()) {
      const reply = await refund({ transaction_id: transactionId, refund_amount_cents: part, refund_id: `r${index}` }, bearer(program.apiKey));
      deducted += reply.body.deduction_amount_cents;
    }
    const row = await commissionRow(commissionId!);
    expect(row).toEqual({ status: 'reversed', amount_cents: 334, refunded_total_cents: 1001, deducted_cents: 334 });
    expect(deducted).toBe(334);
  });

  it('chargeback reverses with its reason recorded', async () => {
    const { transactionId, saleId } = await recordedSale(2000);
    const reply = await refund({ transaction_id: transactionId, reason: 'chargeback' });
    expect(reply.body.status).toBe('reversed');
    const { rows } = await db.pool.query('SELECT reason FROM refunds WHERE sale_id = $1', [saleId]);
    expect(rows).toEqual([{ reason: 'chargeback' }]);
  });

  it('a refund of a sale charged back in full is counted by its own amount: reversed, nothing more deducted; the refunds never pass the sale', async () => {
    const { transactionId, commissionId, saleId } = await recordedSale(2900);
    expect((await refund({ transaction_id: transactionId, reason: 'chargeback' })).body).toMatchObject({ status: 'reversed', deduction_amount_cents: 580, refunded_total_cents: 2900 });
    const reply = await refund({ transaction_id: transactionId, refund_amount_cents: 1000, refund_id: 're_after_chargeback' });
    expect(reply.body).toEqual({
      success: true, status: 'reversed', commission_id: commissionId, deduction_amount_cents: 0,
      refund_amount_cents: 1000, refunded_total_cents: 2900, commission_remaining_cents: 0,
    });
    expect((await refund({ transaction_id: transactionId, refund_amount_cents: 1000, refund_id: 're_after_chargeback' })).body).toMatchObject({ status: 'skipped', refund_amount_cents: 0 });
    // The rest of the sale may still be refunded, once; past the sale, nothing.
    expect((await refund({ transaction_id: transactionId, refund_id: 're_rest' })).body).toMatchObject({ status: 'reversed', refund_amount_cents: 1900, deduction_amount_cents: 0 });
    expect((await refund({ transaction_id: transactionId, refund_amount_cents: 1, refund_id: 're_past' })).body).toMatchObject({ status: 'skipped', refund_amount_cents: 0 });
    expect(await commissionRow(commissionId!)).toEqual({ status: 'reversed', amount_cents: 580, refunded_total_cents: 2900, deducted_cents: 580 });
    const { rows } = await db.pool.query('SELECT reason, amount_cents::int AS amount, deduction_cents::int AS deduction FROM refunds WHERE sale_id = $1 ORDER BY id', [saleId]);
    expect(rows).toEqual([{ reason: 'chargeback', amount: 2900, deduction: 580 }, { reason: 'refund', amount: 1000, deduction: 0 }, { reason: 'refund', amount: 1900, deduction: 0 }]);
  });

  it('concurrent partial refunds with distinct ids never over-refund', async () => {
    const { transactionId, commissionId } = await recordedSale(1000);
    await Promise.all(
      Array.from({ length: 6 }, (_, i) => refund({ transaction_id: transactionId, refund_amount_cents: 300, refund_id: `c${i}` })),
    );
    expect(await commissionRow(commissionId!)).toEqual({ status: 'reversed', amount_cents: 200, refunded_total_cents: 1000, deducted_cents: 200 });
  });

  it('a test sale has no commission: no_commission', async () => {
    const { transactionId } = await recordedSale(1000, { additional_data: { test_mode: true } });
    const reply = await refund({ transaction_id: transactionId });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ success: true, status: 'no_commission', message: expect.any(String) });
  });
});
