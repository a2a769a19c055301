// Sales and refunds through the tracking API, for tests of what partners are owed.
import type { TestApi } from './harness.js';
import { bearer, trackClick } from './harness.js';

let n = 0;
export const uid = (prefix: string) => `${prefix}_${++n}_${Date.now()}`;

/** A click on the partner's link, then a sale by its click; returns the sale's transaction id and its commission. */
export async function apiSale(
  api: TestApi,
  program: { apiKey: string; affiliateUrl: string },
  amountCents: number,
  options: { currency?: string; occurredAt?: Date; isRecurring?: boolean; customerKey?: string; clickId?: string } = {},
) {
  const clickId = options.clickId ?? (await trackClick(api, program.affiliateUrl));
  const transactionId = uid('txn');
  const reply = await api.request('POST', '/api/v1/track/sale', {
    body: {
      transaction_id: transactionId, amount_cents: amountCents, currency: options.currency ?? 'USD', click_id: clickId, customer_key: options.customerKey ?? uid('c'),
      ...(options.occurredAt ? { occurred_at: options.occurredAt.toISOString() } : {}), ...(options.isRecurring ? { is_recurring: true } : {}),
    },
    headers: bearer(program.apiKey),
  });
  if (reply.status !== 200) throw new Error(JSON.stringify(reply.body));
  const { rows } = await api.pool.query('SELECT c.id FROM commissions c JOIN sales s ON s.id = c.sale_id WHERE s.processor_event_id = $1', [transactionId]);
  return { transactionId, clickId, saleId: reply.body.sale_id as number, commissionId: rows[0] ? Number(rows[0].id) : null, reply };
}

export async function apiRefund(api: TestApi, program: { apiKey: string }, transactionId: string, amountCents?: number, reason = 'refund') {
  const reply = await api.request('POST', '/api/v1/track/refund', {
    body: { transaction_id: transactionId, reason, refund_id: uid('re'), ...(amountCents ? { refund_amount_cents: amountCents } : {}) },
    headers: bearer(program.apiKey),
  });
  if (reply.status !== 200) throw new Error(`refund: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply;
}
