// Wise transfers through its API (docs/payouts.md, "PayPal and Wise through their APIs"): per payout a quote in
// the payout's currency, an email recipient, a transfer, and its funding from the brand's Wise
// balance. The transfer's customerTransactionId is derived from the payout, so a retry after a lost
// answer or a crash gets the same transfer back from Wise, never a second one; a transfer already
// funded is never funded again. Network failures and 5xx are retried; 4xx answers are not.
import { createHash } from 'node:crypto';
import { majorUnits } from '../core/money.js';
import type { Currency } from '../core/types.js';
import { type RetryOptions, providerRequest, retried } from './provider-request.js';

export interface WiseAccount {
  /** A personal or business API token of the brand's Wise account. */
  token: string;
  profileId: number;
  sandbox: boolean;
}

export interface WisePayoutLine {
  programId: number;
  payoutId: number;
  partnerName: string;
  /** The partner's email with Wise. */
  email: string;
  amountCents: number;
  currency: Currency;
  reference: string;
}

/** Wise's transfer states, as its API spells them. */
export type WiseTransferStatus =
  | 'incoming_payment_waiting' | 'incoming_payment_initiated' | 'processing' | 'funds_converted' | 'outgoing_payment_sent'
  | 'cancelled' | 'funds_refunded' | 'bounced_back' | 'charged_back' | 'unknown';

export interface WiseTransfer {
  transferId: number;
  status: WiseTransferStatus;
}

export class WiseRefusal extends Error {
  constructor(readonly status: number, readonly code: string, message: string) {
    super(`Wise refused the request (${status} ${code}): ${message}`);
    this.name = 'WiseRefusal';
  }
}

export type WiseOptions = RetryOptions;

const base = (account: WiseAccount) => (account.sandbox ? 'https://api.wise-sandbox.com' : 'https://api.wise.com');

const call = (account: WiseAccount, path: string, init: { method: string; body?: unknown }) =>
  providerRequest('Wise', `${base(account)}${path}`, {
    method: init.method,
    headers: { Authorization: `Bearer ${account.token}`, 'Content-Type': 'application/json' },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  }, (status, body, text) => {
    const first = body.errors?.[0] ?? body;
    return new WiseRefusal(status, String(first.code ?? body.error ?? 'error'), String(first.message ?? body.message ?? text));
  });

/** The payout's own transaction id for Wise: a UUID made from the program and payout, the same on every attempt. */
export function wiseTransactionId(programId: number, payoutId: number): string {
  const hex = createHash('sha256').update(`affix-payout:${programId}:${payoutId}`).digest('hex');
  // Laid out as a version-4, variant-1 UUID (the shape Wise checks).
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${((Number.parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16)}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/**
 * Pays one payout through Wise: quote, recipient, transfer (named by the payout), then funding
 * from the balance unless the transfer is already past waiting for its money.
 */
export async function sendWiseTransfer(account: WiseAccount, line: WisePayoutLine, options: WiseOptions = {}): Promise<WiseTransfer> {
  const amount = Number(majorUnits(line.amountCents, line.currency));
  const quote = await retried(() => call(account, `/v3/profiles/${account.profileId}/quotes`, {
    method: 'POST',
    body: { sourceCurrency: line.currency, targetCurrency: line.currency, targetAmount: amount, payOut: 'BALANCE' },
  }), options);
  const recipient = await retried(() => call(account, '/v1/accounts', {
    method: 'POST',
    body: { profile: account.profileId, accountHolderName: line.partnerName, currency: line.currency, type: 'email', details: { email: line.email } },
  }), options);
  const transfer = await retried(() => call(account, '/v1/transfers', {
    method: 'POST',
    body: { targetAccount: recipient.id, quoteUuid: quote.id, customerTransactionId: wiseTransactionId(line.programId, line.payoutId), details: { reference: line.reference.slice(0, 35) } },
  }), options);
  const transferId = Number(transfer.id);
  // Funded already (an earlier attempt got this far): funding again would be refused or, worse, paid.
  if (transfer.status !== 'incoming_payment_waiting') return { transferId, status: transfer.status };
  await retried(() => call(account, `/v3/profiles/${account.profileId}/transfers/${transferId}/payments`, { method: 'POST', body: { type: 'BALANCE' } }), options);
  return readWiseTransfer(account, transferId, options);
}

export async function readWiseTransfer(account: WiseAccount, transferId: number, options: WiseOptions = {}): Promise<WiseTransfer> {
  const body = await retried(() => call(account, `/v1/transfers/${transferId}`, { method: 'GET' }), options);
  return { transferId: Number(body.id), status: body.status };
}

/** What a transfer's state means for its payout. */
export function wiseOutcome(status: WiseTransferStatus): 'paid' | 'failed' | 'open' {
  if (status === 'outgoing_payment_sent') return 'paid';
  if (status === 'cancelled' || status === 'funds_refunded' || status === 'bounced_back' || status === 'charged_back') return 'failed';
  return 'open';
}
