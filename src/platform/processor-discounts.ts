// Discount codes in the brand's processor (docs/discounts.md), through each one's documented API:
// Stripe (a coupon per group discount, a promotion code per partner, on the program's connected
// account), Paddle Billing (a discount per partner) and Lemon Squeezy (a discount per partner,
// JSON:API). A retry never makes a second code: Stripe's requests carry an Idempotency-Key and the
// coupon an id of ours; every processor is asked for the code before one is made, and a code found
// that is ours (its metadata, or its name for Lemon Squeezy) is taken as made. Network failures,
// 5xx and 429 are retried (p-retry); other 4xx are the processor's refusal, never retried.
import Stripe from 'stripe';
import { type DiscountTerms, percentText } from '../core/discounts.js';
import { PROCESSOR_NAMES, type ProcessorName } from '../core/processor-names.js';
import { type RetryOptions, providerRequest, retried } from './provider-request.js';

export type DiscountAccount =
  | { processor: 'stripe'; secretKey: string; stripeAccount: string }
  | { processor: 'paddle'; apiKey: string; sandbox: boolean }
  | { processor: 'lemonsqueezy'; apiKey: string; storeId: string };

/** What a made (or found) code is known by at its processor. */
export interface MadeCode {
  code: string;
  stripePromotionCodeId: string | null;
  processorDiscountId: string | null;
}

export interface CodeRequest {
  programId: number;
  discountId: number;
  partnerId: number;
  code: string;
  /** The words of the discount (the processor's name or description of it). */
  description: string;
  terms: DiscountTerms;
  /** Stripe: the group discount's coupon. */
  stripeCouponId: string | null;
}

/** An answer that says the request itself is wrong (not retried); `taken` when the code is another's. */
export class DiscountRefusal extends Error {
  constructor(readonly processor: ProcessorName, readonly status: number, readonly reason: string, message: string, readonly taken = false) {
    super(`${PROCESSOR_NAMES[processor]} refused the request (${status} ${reason}): ${message}`);
    this.name = 'DiscountRefusal';
  }
}

export type DiscountOptions = RetryOptions;

type Obj = Record<string, any>;

// ---- Stripe ------------------------------------------------------------------------------------

const STRIPE_API = 'https://api.stripe.com';

function stripeForm(fields: Record<string, string | number | boolean | null | undefined>): string {
  const form = new URLSearchParams();
  for (const [key, value] of Object.entries(fields)) if (value !== null && value !== undefined) form.append(key, String(value));
  return form.toString();
}

function stripeCall(account: Extract<DiscountAccount, { processor: 'stripe' }>, path: string, init: { method: string; form?: string; idempotencyKey?: string }) {
  const headers: Record<string, string> = {
    Authorization: `Bearer ${account.secretKey}`,
    // Pinned: the request and answer shapes below are this version's.
    'Stripe-Version': Stripe.API_VERSION,
    'Stripe-Account': account.stripeAccount,
  };
  if (init.form !== undefined) headers['Content-Type'] = 'application/x-www-form-urlencoded';
  if (init.idempotencyKey) headers['Idempotency-Key'] = init.idempotencyKey;
  return providerRequest('Stripe', `${STRIPE_API}${path}`, { method: init.method, headers, body: init.form }, (status, body, text) => {
    const error = (body.error ?? {}) as Obj;
    const message = String(error.message ?? text);
    const taken = error.code === 'resource_already_exists' || (error.param === 'code' && /already exists/i.test(message));
    return new DiscountRefusal('stripe', status, String(error.code ?? error.type ?? 'error'), message, taken);
  });
}

/** The group discount's coupon: its id ours, so a retry finds the one made before. */
export async function ensureStripeCoupon(account: Extract<DiscountAccount, { processor: 'stripe' }>, request: Omit<CodeRequest, 'partnerId' | 'code' | 'stripeCouponId'>, options: DiscountOptions = {}): Promise<string> {
  const id = `affix_${request.programId}_${request.discountId}`;
  const { amount, duration } = request.terms;
  const form = stripeForm({
    id,
    name: request.description.slice(0, 40),
    ...(amount.kind === 'percent' ? { percent_off: percentText(amount.basisPoints) } : { amount_off: amount.cents, currency: amount.currency.toLowerCase() }),
    duration: duration.kind,
    duration_in_months: duration.kind === 'repeating' ? duration.months : null,
    'metadata[affix_program_id]': request.programId,
    'metadata[affix_group_discount_id]': request.discountId,
  });
  try {
    const made = await retried(() => stripeCall(account, '/v1/coupons', { method: 'POST', form, idempotencyKey: `affix-coupon-${request.programId}-${request.discountId}` }), options);
    return String(made.id);
  } catch (error) {
    if (!(error instanceof DiscountRefusal) || !error.taken) throw error;
    // Made before (its answer lost past the idempotency key's day): ours by its id.
    const found = await retried(() => stripeCall(account, `/v1/coupons/${encodeURIComponent(id)}`, { method: 'GET' }), options);
    return String(found.id);
  }
}

const stripeCouponOf = (promotion: Obj): string | null => promotion.promotion?.coupon ?? (typeof promotion.coupon === 'string' ? promotion.coupon : promotion.coupon?.id) ?? null;

async function stripeFind(account: Extract<DiscountAccount, { processor: 'stripe' }>, request: CodeRequest, options: DiscountOptions): Promise<MadeCode | 'taken' | null> {
  const list = await retried(() => stripeCall(account, `/v1/promotion_codes?${new URLSearchParams({ code: request.code, active: 'true', limit: '10' })}`, { method: 'GET' }), options);
  const active = ((list.data ?? []) as Obj[]).filter((p) => p.active !== false && String(p.code).toUpperCase() === request.code);
  const ours = active.find((p) => p.metadata?.affix_partner_id === String(request.partnerId) && stripeCouponOf(p) === request.stripeCouponId);
  if (ours) return { code: String(ours.code), stripePromotionCodeId: String(ours.id), processorDiscountId: null };
  return active.length > 0 ? 'taken' : null;
}

async function stripeCreate(account: Extract<DiscountAccount, { processor: 'stripe' }>, request: CodeRequest, options: DiscountOptions): Promise<MadeCode> {
  const form = stripeForm({
    'promotion[type]': 'coupon',
    'promotion[coupon]': request.stripeCouponId,
    code: request.code,
    'metadata[affix_program_id]': request.programId,
    'metadata[affix_partner_id]': request.partnerId,
    'metadata[affix_group_discount_id]': request.discountId,
  });
  const idempotencyKey = `affix-promo-${request.programId}-${request.discountId}-${request.partnerId}-${request.code}`;
  const made = await retried(() => stripeCall(account, '/v1/promotion_codes', { method: 'POST', form, idempotencyKey }), options);
  return { code: String(made.code), stripePromotionCodeId: String(made.id), processorDiscountId: null };
}

// ---- Paddle ------------------------------------------------------------------------------------

function paddleCall(account: Extract<DiscountAccount, { processor: 'paddle' }>, path: string, init: { method: string; json?: unknown }) {
  const base = account.sandbox ? 'https://sandbox-api.paddle.com' : 'https://api.paddle.com';
  return providerRequest('Paddle', `${base}${path}`, {
    method: init.method,
    headers: { Authorization: `Bearer ${account.apiKey}`, 'Content-Type': 'application/json' },
    body: init.json === undefined ? undefined : JSON.stringify(init.json),
  }, (status, body, text) => {
    const error = (body.error ?? {}) as Obj;
    return new DiscountRefusal('paddle', status, String(error.code ?? 'error'), String(error.detail ?? text), error.code === 'discount_code_conflict');
  });
}

const paddleOurs = (discount: Obj, request: CodeRequest) =>
  discount.custom_data?.affix_partner_id === String(request.partnerId) && discount.custom_data?.affix_group_discount_id === String(request.discountId);

async function paddleFind(account: Extract<DiscountAccount, { processor: 'paddle' }>, request: CodeRequest, options: DiscountOptions): Promise<MadeCode | 'taken' | null> {
  const list = await retried(() => paddleCall(account, `/discounts?${new URLSearchParams({ code: request.code })}`, { method: 'GET' }), options);
  const found = ((list.data ?? []) as Obj[]).filter((d) => String(d.code ?? '').toUpperCase() === request.code);
  const ours = found.find((d) => paddleOurs(d, request));
  if (!ours) return found.length > 0 ? 'taken' : null;
  // Ours but archived (the partner left the group and came back): live again.
  if (ours.status === 'archived') await retried(() => paddleCall(account, `/discounts/${encodeURIComponent(ours.id)}`, { method: 'PATCH', json: { status: 'active' } }), options);
  return { code: String(ours.code), stripePromotionCodeId: null, processorDiscountId: String(ours.id) };
}

async function paddleCreate(account: Extract<DiscountAccount, { processor: 'paddle' }>, request: CodeRequest, options: DiscountOptions): Promise<MadeCode> {
  const { amount, duration } = request.terms;
  const body = {
    description: request.description,
    enabled_for_checkout: true,
    code: request.code,
    ...(amount.kind === 'percent' ? { type: 'percentage', amount: percentText(amount.basisPoints) } : { type: 'flat', amount: String(amount.cents), currency_code: amount.currency }),
    // Paddle repeats per billing period: only once (no repeat) and forever (no limit) mean the same there.
    recur: duration.kind === 'forever',
    maximum_recurring_intervals: null,
    custom_data: { affix_program_id: String(request.programId), affix_partner_id: String(request.partnerId), affix_group_discount_id: String(request.discountId) },
  };
  const made = await retried(() => paddleCall(account, '/discounts', { method: 'POST', json: body }), options);
  return { code: String(made.data?.code ?? request.code), stripePromotionCodeId: null, processorDiscountId: String(made.data?.id) };
}

// ---- Lemon Squeezy -----------------------------------------------------------------------------

const LEMON_SQUEEZY_API = 'https://api.lemonsqueezy.com';
/** Pages of the store's discounts read when looking for a code (100 each). */
const LEMON_SQUEEZY_PAGES = 20;

function lemonCall(account: Extract<DiscountAccount, { processor: 'lemonsqueezy' }>, url: string, init: { method: string; json?: unknown }) {
  return providerRequest('Lemon Squeezy', url.startsWith('https://') ? url : `${LEMON_SQUEEZY_API}${url}`, {
    method: init.method,
    headers: { Authorization: `Bearer ${account.apiKey}`, Accept: 'application/vnd.api+json', 'Content-Type': 'application/vnd.api+json' },
    body: init.json === undefined ? undefined : JSON.stringify(init.json),
  }, (status, body, text) => {
    const first = ((body.errors ?? []) as Obj[])[0] ?? {};
    const taken = status === 422 && first.source?.pointer === '/data/attributes/code';
    return new DiscountRefusal('lemonsqueezy', status, String(first.title ?? first.status ?? 'error'), String(first.detail ?? text), taken);
  });
}

/** Lemon Squeezy keeps no metadata on a discount: its name says whose it is. */
const lemonName = (request: CodeRequest) => `${request.description} (Affix ${request.discountId}/${request.partnerId})`;

async function lemonFind(account: Extract<DiscountAccount, { processor: 'lemonsqueezy' }>, request: CodeRequest, options: DiscountOptions): Promise<MadeCode | 'taken' | null> {
  let url: string | null = `/v1/discounts?${new URLSearchParams({ 'filter[store_id]': account.storeId, 'page[size]': '100' })}`;
  for (let page = 0; url && page < LEMON_SQUEEZY_PAGES; page++) {
    const current: string = url;
    const list = await retried(() => lemonCall(account, current, { method: 'GET' }), options);
    const found = ((list.data ?? []) as Obj[]).find((d) => String(d.attributes?.code ?? '').toUpperCase() === request.code);
    if (found) return found.attributes?.name === lemonName(request) ? { code: String(found.attributes.code), stripePromotionCodeId: null, processorDiscountId: String(found.id) } : 'taken';
    url = typeof list.links?.next === 'string' && list.links.next.startsWith(`${LEMON_SQUEEZY_API}/`) ? list.links.next : null;
  }
  return null;
}

async function lemonCreate(account: Extract<DiscountAccount, { processor: 'lemonsqueezy' }>, request: CodeRequest, options: DiscountOptions): Promise<MadeCode> {
  const { amount, duration } = request.terms;
  const body = {
    data: {
      type: 'discounts',
      attributes: {
        name: lemonName(request),
        code: request.code,
        ...(amount.kind === 'percent' ? { amount: amount.basisPoints / 100, amount_type: 'percent' } : { amount: amount.cents, amount_type: 'fixed' }),
        duration: duration.kind,
        ...(duration.kind === 'repeating' ? { duration_in_months: duration.months } : {}),
      },
      relationships: { store: { data: { type: 'stores', id: account.storeId } } },
    },
  };
  const made = await retried(() => lemonCall(account, '/v1/discounts', { method: 'POST', json: body }), options);
  return { code: String(made.data?.attributes?.code ?? request.code), stripePromotionCodeId: null, processorDiscountId: String(made.data?.id) };
}

// ---- the three, alike --------------------------------------------------------------------------

/**
 * The partner's code under this text: the one found (ours), 'taken' (another's: the caller tries
 * the next text), or the one made now. A create refused as taken looks again, since the code may
 * be ours from an attempt whose answer was lost.
 */
export async function createPartnerCode(account: DiscountAccount, request: CodeRequest, options: DiscountOptions = {}): Promise<MadeCode | 'taken'> {
  const find = () =>
    account.processor === 'stripe' ? stripeFind(account, request, options) : account.processor === 'paddle' ? paddleFind(account, request, options) : lemonFind(account, request, options);
  const found = await find();
  if (found) return found;
  try {
    if (account.processor === 'stripe') return await stripeCreate(account, request, options);
    if (account.processor === 'paddle') return await paddleCreate(account, request, options);
    return await lemonCreate(account, request, options);
  } catch (error) {
    if (!(error instanceof DiscountRefusal) || !error.taken) throw error;
    return (await find()) ?? 'taken';
  }
}

/** The code no longer takes new buyers: Stripe's promotion code inactive, Paddle's discount archived, Lemon Squeezy's deleted. */
export async function deactivateCode(account: DiscountAccount, code: { stripePromotionCodeId: string | null; processorDiscountId: string | null }, options: DiscountOptions = {}): Promise<void> {
  if (account.processor === 'stripe') {
    if (!code.stripePromotionCodeId) return;
    const id = encodeURIComponent(code.stripePromotionCodeId);
    await retried(() => stripeCall(account, `/v1/promotion_codes/${id}`, { method: 'POST', form: stripeForm({ active: false }), idempotencyKey: `affix-promo-off-${id}` }), options);
    return;
  }
  if (!code.processorDiscountId) return;
  const id = encodeURIComponent(code.processorDiscountId);
  if (account.processor === 'paddle') {
    await retried(() => paddleCall(account, `/discounts/${id}`, { method: 'PATCH', json: { status: 'archived' } }), options);
    return;
  }
  try {
    await retried(() => lemonCall(account, `/v1/discounts/${id}`, { method: 'DELETE' }), options);
  } catch (error) {
    // Already deleted (by an earlier attempt whose answer was lost, or by the brand).
    if (!(error instanceof DiscountRefusal) || error.status !== 404) throw error;
  }
}
