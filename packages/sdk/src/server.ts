// `@affix/sdk/server`: the brand's backend client. Every method returns AffixResponse<T>;
// HTTP errors never reject. Invalid inputs throw synchronously (spec §4.9).
import { send } from './http.js';
import type { AffixResponse } from './types.js';

export type { AffixResponse } from './types.js';

export interface AffixOptions {
  apiKey: string;
  /** Affix base URL, e.g. https://affix.example.com */
  apiUrl?: string;
  /** A fetch implementation where no global fetch exists. */
  fetch?: typeof fetch;
  /** Retries of 429 and retry-safe 5xx answers (default 2). */
  maxRetries?: number;
  /** How to wait before a retry (tests inject one; default: a timer). */
  sleep?: (ms: number) => Promise<void>;
}

export interface TrackClickInput {
  affiliateUrl?: string;
  pageUrl?: string;
  referrerUrl?: string;
  existingClickId?: string;
}

export interface TrackLeadInput {
  customerExternalId?: string;
  clickId?: string;
  email?: string;
  eventName?: string;
  additionalData?: Record<string, unknown>;
}

export interface TrackSaleInput {
  customerExternalId?: string;
  clickId?: string;
  /** Integer cents. */
  amount: number;
  /** Tax included in amount; accepted, unused (commissions use the full amount). */
  taxCents?: number;
  /** Idempotency key: a second call with the same id answers 409 (already recorded, a no-op). */
  invoiceId: string;
  currency?: string;
  saleType?: 'payment' | 'subscription';
  isRecurring?: boolean;
  subscriptionId?: string;
  subscriptionInterval?: 'monthly' | 'quarterly' | 'annual';
  eventName?: string;
}

export interface TrackRefundInput {
  invoiceId: string;
  /** Omit or 0 to refund everything not yet refunded. Call once per refund. */
  refundAmountCents?: number;
  refundReason?: string;
  /** Distinct per refund when two refunds have the same amount. */
  refundId?: string;
  reason?: 'refund' | 'chargeback';
}

export interface ClickResult { success: true; click_id: string; partner_code: string; cookie_window_days: number }
export interface LeadResult { success: true; message: string; provisional?: true }
export interface SaleResult {
  success: true;
  sale_id: number | null;
  commission_id: number | null;
  message?: string;
  attributed?: boolean;
  reason?: string;
}
export interface RefundResult { success: true; status: 'reversed' | 'refunded' | 'skipped' | 'no_commission'; commission_id?: number; deduction_amount_cents?: number; message?: string }

const DEFAULT_API_URL = 'http://localhost:3000';
/** The one 500 that must not be retried: the sale is stored and its transaction_id consumed. */
const NOT_RETRY_SAFE = 'Failed to create commission';

const compact = (body: Record<string, unknown>) => Object.fromEntries(Object.entries(body).filter(([, value]) => value !== undefined));

export class Affix {
  private readonly apiKey: string;
  private readonly apiUrl: string;
  private readonly fetchImpl: typeof fetch;
  private readonly maxRetries: number;
  private readonly sleep?: (ms: number) => Promise<void>;

  constructor(options: AffixOptions) {
    if (!options || typeof options.apiKey !== 'string' || options.apiKey.trim() === '') throw new TypeError('Affix: apiKey is required');
    const fetchImpl = options.fetch ?? (typeof fetch === 'function' ? fetch : undefined);
    if (!fetchImpl) throw new TypeError('Affix: no global fetch here; pass options.fetch');
    this.apiKey = options.apiKey;
    this.apiUrl = (options.apiUrl ?? DEFAULT_API_URL).replace(/\/+$/, '');
    this.fetchImpl = fetchImpl;
    this.maxRetries = options.maxRetries ?? 2;
    this.sleep = options.sleep;
  }

  trackClick(input: TrackClickInput = {}): Promise<AffixResponse<ClickResult>> {
    return this.send('/api/v1/track/click', compact({
      affiliate_url: input.affiliateUrl,
      page_url: input.pageUrl,
      referrer_url: input.referrerUrl,
      existing_click_id: input.existingClickId,
    }), false);
  }

  /**
   * Binds the user to their click. For a user nobody referred (no click), the answer is a 400
   * `Customer not found. Provide customer_key or click_id.`: expected for organic traffic,
   * nothing recorded, nothing to retry.
   */
  trackLead(input: TrackLeadInput): Promise<AffixResponse<LeadResult>> {
    if (!input || (!input.customerExternalId && !input.clickId)) throw new TypeError('Affix.trackLead: customerExternalId or clickId is required');
    return this.send('/api/v1/track/lead', compact({
      customer_key: input.customerExternalId,
      click_id: input.clickId,
      email: input.email,
      event_name: input.eventName,
      additional_data: input.additionalData,
    }));
  }

  /**
   * Records a payment and its commission. A 409 means already recorded (a no-op). For a user
   * nobody referred the answer is a 400 `no_attribution`: expected for organic traffic,
   * nothing recorded, nothing to retry. Call it for every payment; Affix decides.
   */
  trackSale(input: TrackSaleInput): Promise<AffixResponse<SaleResult>> {
    if (!input || typeof input.invoiceId !== 'string' || input.invoiceId.trim() === '') throw new TypeError('Affix.trackSale: invoiceId (string) is required');
    if (!Number.isInteger(input.amount) || input.amount <= 0) throw new TypeError('Affix.trackSale: amount must be a positive integer (cents)');
    if (!input.customerExternalId && !input.clickId) throw new TypeError('Affix.trackSale: customerExternalId or clickId is required');
    return this.send('/api/v1/track/sale', compact({
      transaction_id: input.invoiceId,
      amount_cents: input.amount,
      customer_key: input.customerExternalId,
      click_id: input.clickId,
      currency: input.currency,
      tax_cents: input.taxCents,
      sale_type: input.saleType,
      is_recurring: input.isRecurring,
      subscription_id: input.subscriptionId,
      subscription_interval: input.subscriptionInterval,
      event_name: input.eventName,
    }));
  }

  trackRefund(input: TrackRefundInput): Promise<AffixResponse<RefundResult>> {
    if (!input || typeof input.invoiceId !== 'string' || input.invoiceId.trim() === '') throw new TypeError('Affix.trackRefund: invoiceId (string) is required');
    return this.send('/api/v1/track/refund', compact({
      transaction_id: input.invoiceId,
      refund_amount_cents: input.refundAmountCents,
      refund_reason: input.refundReason,
      refund_id: input.refundId,
      reason: input.reason,
    }));
  }

  private async send<T>(path: string, body: Record<string, unknown>, withKey = true): Promise<AffixResponse<T>> {
    const answer = await send(
      this.fetchImpl,
      {
        method: 'POST',
        url: `${this.apiUrl}${path}`,
        headers: { 'Content-Type': 'application/json', ...(withKey ? { Authorization: `Bearer ${this.apiKey}` } : {}) },
        body: JSON.stringify(body),
      },
      {
        retries: this.maxRetries,
        // 429 and 5xx, except the one 500 after which the sale is stored; never a network failure.
        retryable: (failed) => failed.status === 429 || (failed.status >= 500 && failed.error !== NOT_RETRY_SAFE),
        maxWaitSeconds: 60,
        sleep: this.sleep,
      },
    );
    if (answer.ok) return { ok: true, status: answer.status, data: answer.payload as T };
    return { ok: false, status: answer.status, data: null, error: answer.error ?? `HTTP ${answer.status}` };
  }
}
