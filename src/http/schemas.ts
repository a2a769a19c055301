// Request schemas of the tracking API (zod). Browsers send nulls and extra fields: both are
// tolerated. Each field carries the spec's exact message; the first failing field wins.
import { BILLING_INTERVALS } from '../core/rewards.js';
import { z } from 'zod';
import { MESSAGES, PROVIDERS, errors, providerMessage } from '../core/errors.js';
import { OCCURRED_AT_MAX_AGE_MS, OCCURRED_AT_MAX_AHEAD_MS } from '../core/limits.js';
import { MAX_AMOUNT_CENTS } from '../core/money.js';

const message = (text: string) => ({ error: text });

/** Optional text that may arrive as null; "" counts as absent. */
const optionalText = (field: string, max = 2048) =>
  z
    .string(message(`${field} must be a string`))
    .max(max, message(`${field} must be at most ${max} characters`))
    .nullish()
    .transform((value) => (value === undefined || value === null || value.trim() === '' ? null : value.trim()));

/** Ids that clients sometimes send as numbers. */
const identifier = (field: string) =>
  z
    .union([z.string(), z.number()], message(`${field} must be a string`))
    .nullish()
    .transform((value) => (value === undefined || value === null || String(value).trim() === '' ? null : String(value).trim()))
    .refine((value) => value === null || value.length <= 255, message(`${field} must be at most 255 characters`));

const additionalData = z
  .record(z.string(), z.unknown(), message('additional_data must be an object'))
  .nullish()
  .transform((value) => value ?? null);

function parseOrThrow<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  const result = schema.safeParse(body);
  if (!result.success) throw errors.badRequest(result.error.issues[0]?.message ?? 'Invalid request body');
  return result.data;
}

// ---- click ---------------------------------------------------------------------------------

export const clickSchema = z.object({
  affiliate_url: z.unknown().optional(),
  page_url: optionalText('page_url'),
  referrer_url: optionalText('referrer_url'),
  existing_click_id: identifier('existing_click_id'),
  additional_data: additionalData,
  page_title: optionalText('page_title'),
  session_id: optionalText('session_id', 255),
  user_agent: optionalText('user_agent', 1024),
  screen_resolution: optionalText('screen_resolution', 64),
  viewport_size: optionalText('viewport_size', 64),
  language: optionalText('language', 64),
  timezone: optionalText('timezone', 128),
});

export function parseClickBody(body: unknown) {
  const parsed = parseOrThrow(clickSchema, body);
  const affiliateUrl = parsed.affiliate_url;
  if (affiliateUrl !== undefined && affiliateUrl !== null && typeof affiliateUrl !== 'string') {
    throw errors.badRequest(MESSAGES.invalidAffiliateUrl);
  }
  return { ...parsed, affiliate_url: affiliateUrl as string | null | undefined };
}

// ---- lead ----------------------------------------------------------------------------------

export const leadSchema = z.object({
  click_id: identifier('click_id'),
  customer_key: identifier('customer_key'),
  email: optionalText('email', 320),
  event_name: optionalText('event_name', 255),
  /** The brand's name or label for its customer, shown to the partner when the brand chose so (docs/api.md). */
  customer_name: optionalText('customer_name', 100),
  additional_data: additionalData,
  page_url: optionalText('page_url'),
  session_id: optionalText('session_id', 255),
  click_ids: z.array(z.unknown()).nullish(),
  program_id: identifier('program_id'),
  has_attribution: z.unknown().optional(),
  debug_mode: z.unknown().optional(),
});

export function parseLeadBody(body: unknown) {
  const parsed = parseOrThrow(leadSchema, body);
  const programId = parsed.program_id !== null && /^\d+$/.test(parsed.program_id) ? Number(parsed.program_id) : null;
  return { ...parsed, program_id: programId };
}

// ---- sale ----------------------------------------------------------------------------------

const ISO_WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/i;

const transactionId = z
  .string(message(MESSAGES.transactionIdRequired))
  .trim()
  .min(1, message(MESSAGES.transactionIdRequired))
  .max(255, message('transaction_id must be at most 255 characters'));

export const saleSchema = (testMode: boolean) =>
  z.object({
    transaction_id: testMode ? transactionId.nullish() : transactionId,
    amount_cents: z
      .number(message(MESSAGES.amountRequired))
      .int(message(MESSAGES.amountRequired))
      .positive(message(MESSAGES.amountRequired))
      .max(MAX_AMOUNT_CENTS, message(MESSAGES.amountTooLarge)),
    customer_key: identifier('customer_key'),
    click_id: identifier('click_id'),
    currency: z.unknown().optional(),
    occurred_at: z.string(message(MESSAGES.occurredAtInvalid)).nullish(),
    provider: z.enum(PROVIDERS, message(providerMessage)).nullish(),
    provider_payment_id: z
      .string(message(MESSAGES.providerPaymentIdInvalid))
      .min(1, message(MESSAGES.providerPaymentIdInvalid))
      .max(255, message(MESSAGES.providerPaymentIdInvalid))
      .nullish(),
    livemode: z.boolean(message(MESSAGES.livemodeInvalid)).nullish(),
    additional_data: additionalData,
    sale_type: z.enum(['payment', 'subscription'], message('sale_type must be payment or subscription')).nullish(),
    is_recurring: z.boolean(message('is_recurring must be a boolean')).nullish(),
    subscription_id: optionalText('subscription_id', 255),
    subscription_interval: z
      .enum(['monthly', 'quarterly', 'annual'], message('subscription_interval must be monthly, quarterly or annual'))
      .nullish(),
    event_name: optionalText('event_name', 255),
    // A discount code the customer used (a promotion code id, coupon id or the code typed): the fifth attribution step.
    promo_code: optionalText('promo_code', 255),
    tax_cents: z
      .number(message('tax_cents must be a non-negative integer'))
      .int(message('tax_cents must be a non-negative integer'))
      .min(0, message('tax_cents must be a non-negative integer'))
      .nullish(),
    // What the reward rules read (docs/rewards.md): the product and price bought, the billing interval, the buyer's country.
    product_id: optionalText('product_id', 255),
    price_id: optionalText('price_id', 255),
    interval: z.enum(BILLING_INTERVALS, message('interval must be day, week, month, year or one_time')).nullish(),
    country: z
      .string(message('country must be an ISO 3166-1 alpha-2 code such as DE'))
      .regex(/^[A-Za-z]{2}$/, message('country must be an ISO 3166-1 alpha-2 code such as DE'))
      .nullish(),
  });

function parseOccurredAt(value: string | null | undefined, now: Date): Date | null {
  if (value === undefined || value === null) return null;
  const time = ISO_WITH_OFFSET.test(value.trim()) ? Date.parse(value.trim()) : Number.NaN;
  if (Number.isNaN(time) || time < now.getTime() - OCCURRED_AT_MAX_AGE_MS || time > now.getTime() + OCCURRED_AT_MAX_AHEAD_MS) {
    throw errors.badRequest(MESSAGES.occurredAtInvalid);
  }
  return new Date(time);
}

export function parseSaleBody(body: unknown, now: Date) {
  const raw = (body ?? {}) as Record<string, unknown>;
  const rawData = raw.additional_data;
  const testMode = typeof rawData === 'object' && rawData !== null && (rawData as Record<string, unknown>).test_mode === true;
  const parsed = parseOrThrow(saleSchema(testMode), raw);
  const occurredAt = parseOccurredAt(parsed.occurred_at, now);
  if (!parsed.customer_key && !parsed.click_id) throw errors.noAttribution(MESSAGES.saleCustomerNotFound);
  // The currency goes on as sent: the core decides it with the program (src/core/currency.ts).
  return { ...parsed, transaction_id: parsed.transaction_id ?? null, occurred_at: occurredAt, testMode };
}

// ---- refund --------------------------------------------------------------------------------

export const refundSchema = z.object({
  transaction_id: z
    .string(message(MESSAGES.refundTransactionIdRequired))
    .trim()
    .min(1, message(MESSAGES.refundTransactionIdRequired)),
  reason: z
    .enum(['refund', 'chargeback'], message(MESSAGES.refundReasonInvalid))
    .nullish()
    .transform((value) => value ?? 'refund'),
  refund_reason: optionalText('refund_reason', 1000),
  refund_id: identifier('refund_id'),
  refund_amount_cents: z
    .number(message('refund_amount_cents must be a non-negative integer'))
    .int(message('refund_amount_cents must be a non-negative integer'))
    .min(0, message('refund_amount_cents must be a non-negative integer'))
    .max(MAX_AMOUNT_CENTS, message(MESSAGES.refundAmountTooLarge))
    .nullish(),
});

export function parseRefundBody(body: unknown) {
  return parseOrThrow(refundSchema, body);
}
