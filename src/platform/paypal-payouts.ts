// PayPal Payouts through its API (docs/payouts.md, "PayPal and Wise through their APIs"): one
// batch per payout run, its sender_batch_id the run's own id, so a retry after a lost answer never
// pays twice (PayPal refuses a sender_batch_id used in the last 30 days and links the original
// batch, which is then read instead). Network failures and 5xx answers are retried with the same
// id (PayPal's documented advice); 4xx answers are not. Amounts as PayPal reads them
// (src/core/payout-export.ts, paypalAmount): a line PayPal cannot take is never sent.
import { paypalAmount } from '../core/payout-export.js';
import type { Currency } from '../core/types.js';
import { type RetryOptions, providerRequest, retried } from './provider-request.js';

export interface PayPalAccount {
  clientId: string;
  clientSecret: string;
  sandbox: boolean;
}

export interface PayPalPayoutLine {
  /** Our payout's id: PayPal's sender_item_id, so each item names the payout it pays. */
  payoutId: number;
  /** The partner's PayPal email. */
  receiver: string;
  amountCents: number;
  currency: Currency;
}

/** PayPal's item statuses, as its API spells them. */
export type PayPalItemStatus = 'SUCCESS' | 'FAILED' | 'PENDING' | 'UNCLAIMED' | 'RETURNED' | 'ONHOLD' | 'BLOCKED' | 'REFUNDED' | 'REVERSED' | 'NEW' | 'DENIED' | 'CANCELED';

export interface PayPalBatch {
  payoutBatchId: string;
  batchStatus: 'DENIED' | 'PENDING' | 'PROCESSING' | 'SUCCESS' | 'CANCELED';
  items: { payoutId: number; payoutItemId: string | null; transactionId: string | null; status: PayPalItemStatus; error: string | null }[];
}

/** An answer PayPal gave that says the request itself is wrong (not retried). */
export class PayPalRefusal extends Error {
  constructor(readonly status: number, readonly errorName: string, message: string) {
    super(`PayPal refused the request (${status} ${errorName}): ${message}`);
    this.name = 'PayPalRefusal';
  }
}

export type PayPalOptions = RetryOptions;

const base = (account: PayPalAccount) => (account.sandbox ? 'https://api-m.sandbox.paypal.com' : 'https://api-m.paypal.com');

/** One request: a 4xx is PayPal's refusal, with its answer kept (a duplicate's links lead to the original batch). */
const call = (url: string, init: RequestInit) =>
  providerRequest('PayPal', url, init, (status, body, text) => Object.assign(new PayPalRefusal(status, String(body.name ?? body.error ?? 'ERROR'), String(body.message ?? body.error_description ?? text)), { body }));

async function accessToken(account: PayPalAccount, options: PayPalOptions): Promise<string> {
  const body = await retried(() => call(`${base(account)}/v1/oauth2/token`, {
    method: 'POST',
    headers: { Authorization: `Basic ${Buffer.from(`${account.clientId}:${account.clientSecret}`).toString('base64')}`, 'Content-Type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials',
  }), options);
  return String(body.access_token);
}

function toBatch(body: any): PayPalBatch {
  return {
    payoutBatchId: String(body.batch_header.payout_batch_id),
    batchStatus: body.batch_header.batch_status,
    items: (body.items ?? []).map((item: any) => ({
      payoutId: Number(item.payout_item?.sender_item_id),
      payoutItemId: item.payout_item_id ?? null,
      transactionId: item.transaction_id ?? null,
      status: item.transaction_status,
      error: item.errors?.message ?? item.errors?.name ?? null,
    })),
  };
}

/** The lines PayPal can take, and those it cannot (never sent), with why. */
export function paypalLines(lines: PayPalPayoutLine[]) {
  const sendable: (PayPalPayoutLine & { value: string })[] = [];
  const refused: { payoutId: number; problem: string }[] = [];
  for (const line of lines) {
    const amount = paypalAmount(line.amountCents, line.currency);
    if ('problem' in amount) refused.push({ payoutId: line.payoutId, problem: amount.problem });
    else sendable.push({ ...line, value: amount.amount });
  }
  return { sendable, refused };
}

/**
 * Sends a run's lines as one PayPal batch named `senderBatchId`. A retry (of this call, or of the
 * whole run after a crash) with the same id reads the batch PayPal already made instead of paying
 * again.
 */
export async function sendPayPalBatch(account: PayPalAccount, senderBatchId: string, lines: PayPalPayoutLine[], options: PayPalOptions & { subject?: string; note?: string } = {}): Promise<PayPalBatch> {
  const { sendable } = paypalLines(lines);
  if (sendable.length === 0) throw new Error('no line of this run can be paid through PayPal');
  const token = await accessToken(account, options);
  const request = {
    sender_batch_header: { sender_batch_id: senderBatchId, recipient_type: 'EMAIL', email_subject: options.subject ?? 'You have a payout' },
    items: sendable.map((line) => ({
      recipient_type: 'EMAIL',
      amount: { value: line.value, currency: line.currency },
      receiver: line.receiver,
      sender_item_id: String(line.payoutId),
      ...(options.note ? { note: options.note } : {}),
    })),
  };
  try {
    const created = await retried(() => call(`${base(account)}/v1/payments/payouts`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(request),
    }), options);
    return await readPayPalBatch(account, String(created.batch_header.payout_batch_id), options, token);
  } catch (error) {
    // Already made (an earlier attempt's answer was lost): PayPal links the original batch.
    const original = duplicateOf(error);
    if (original) return readPayPalBatch(account, original, options, token);
    throw error;
  }
}

/** The batch PayPal made earlier for a sender_batch_id it refused as a duplicate, from the links of its answer. */
function duplicateOf(error: unknown): string | null {
  if (!(error instanceof PayPalRefusal)) return null;
  const links: { href?: string }[] = (error as PayPalRefusal & { body?: { links?: { href?: string }[] } }).body?.links ?? [];
  for (const link of links) {
    const match = /\/v1\/payments\/payouts\/([A-Za-z0-9]+)$/.exec(link.href ?? '');
    if (match) return match[1]!;
  }
  return null;
}

/** A batch and each item's status, as PayPal has them now (followed until every item is settled). */
export async function readPayPalBatch(account: PayPalAccount, payoutBatchId: string, options: PayPalOptions = {}, token?: string): Promise<PayPalBatch> {
  const bearer = token ?? (await accessToken(account, options));
  const body = await retried(() => call(`${base(account)}/v1/payments/payouts/${encodeURIComponent(payoutBatchId)}?page_size=1000&total_required=true`, {
    method: 'GET',
    headers: { Authorization: `Bearer ${bearer}` },
  }), options);
  return toBatch(body);
}

/** What an item's PayPal status means for its payout: paid, failed (back to owed), or still open. */
export function payoutOutcome(status: PayPalItemStatus): 'paid' | 'failed' | 'open' {
  if (status === 'SUCCESS') return 'paid';
  if (status === 'FAILED' || status === 'RETURNED' || status === 'BLOCKED' || status === 'REFUNDED' || status === 'REVERSED' || status === 'DENIED' || status === 'CANCELED') return 'failed';
  // PENDING, UNCLAIMED (PayPal returns it after 30 days), ONHOLD, NEW: not settled yet.
  return 'open';
}
