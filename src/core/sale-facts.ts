// What a sale carries for the reward rules (issue 46 item 1, docs/rewards.md): the product and
// price ids bought, the billing interval and the buyer's country, read from each processor's
// payload (or given to POST /track/sale). Pure readers: a payload that does not say leaves the
// fact empty, never guessed from something else.
import { BILLING_INTERVALS, type BillingInterval } from './rewards.js';

export interface PurchaseFacts {
  productIds: string[];
  priceIds: string[];
  interval: BillingInterval | null;
  /** ISO 3166-1 alpha-2, upper case. */
  country: string | null;
}

export const NO_PURCHASE_FACTS: PurchaseFacts = { productIds: [], priceIds: [], interval: null, country: null };

type Obj = Record<string, any>;

const idText = (value: unknown): string | null => {
  const id = typeof value === 'string' ? value : value && typeof value === 'object' && typeof (value as Obj).id === 'string' ? (value as Obj).id : typeof value === 'number' ? String(value) : null;
  return id && id.length <= 255 ? id : null;
};
const unique = (values: (string | null)[]): string[] => [...new Set(values.filter((v): v is string => v !== null))];
const list = (value: unknown): Obj[] => (Array.isArray(value) ? value.filter((v) => v && typeof v === 'object') : []);

/** An ISO 3166-1 alpha-2 country (any case in, upper case out), or null. */
export function countryCode(value: unknown): string | null {
  return typeof value === 'string' && /^[A-Za-z]{2}$/.test(value.trim()) ? value.trim().toUpperCase() : null;
}

/** A billing interval in our words; processors say day/week/month/year (Stripe, Paddle, Lemon Squeezy alike). */
export function billingInterval(value: unknown): BillingInterval | null {
  return typeof value === 'string' && (BILLING_INTERVALS as readonly string[]).includes(value) ? (value as BillingInterval) : null;
}

/** One interval for the whole sale: the lines' only one, else null (a mix names none). */
const onlyInterval = (intervals: (BillingInterval | null)[]): BillingInterval | null => {
  const seen = unique(intervals);
  return seen.length === 1 ? (seen[0] as BillingInterval) : null;
};

// ---- Stripe ------------------------------------------------------------------------------------

/**
 * A Stripe line (invoice line or checkout line item): before API 2025-03-31 it embeds the price
 * (`price.id`, `price.product`, `price.recurring.interval`); from it on it names them under
 * `pricing.price_details` (`price`, `product`), without the interval.
 */
function stripeLine(line: Obj): { product: string | null; price: string | null; interval: BillingInterval | null } {
  const details = (line.pricing?.price_details ?? {}) as Obj;
  const price = (line.price ?? line.plan ?? null) as Obj | null;
  const interval = price?.recurring?.interval ?? price?.interval ?? null;
  return {
    product: idText(details.product) ?? idText(price?.product),
    price: idText(details.price) ?? idText(price?.id),
    interval: billingInterval(interval) ?? (price?.type === 'one_time' ? 'one_time' : null),
  };
}

/**
 * An invoice: its lines (`lines.data`) and the customer's billing address
 * (`customer_address.country`). A subscription invoice whose lines do not say their interval
 * reads it from the subscription's line period (Stripe's lines since 2025-03-31).
 */
export function stripeInvoicePurchase(invoice: Obj): PurchaseFacts {
  const lines = list(invoice.lines?.data).map((line) => {
    const read = stripeLine(line);
    return read.interval === null && line.parent?.type === 'subscription_item_details' ? { ...read, interval: periodInterval(line.period) } : read;
  });
  return {
    productIds: unique(lines.map((l) => l.product)),
    priceIds: unique(lines.map((l) => l.price)),
    interval: onlyInterval(lines.map((l) => l.interval)),
    country: countryCode(invoice.customer_address?.country),
  };
}

/** The interval a subscription line's period spans (Stripe bills whole periods: a day, a week, a month, a year). */
function periodInterval(period: unknown): BillingInterval | null {
  const p = (period ?? {}) as Obj;
  const days = (Number(p.end) - Number(p.start)) / 86_400;
  if (!Number.isFinite(days) || days <= 0) return null;
  if (days <= 1.1) return 'day';
  if (days >= 6.9 && days <= 7.1) return 'week';
  if (days >= 28 && days <= 31) return 'month';
  if (days >= 365 && days <= 366) return 'year';
  return null;
}

/**
 * A checkout session in payment mode: one-time, its line items when the webhook carries them
 * (`line_items.data`, only when expanded), the buyer's billing address
 * (`customer_details.address.country`).
 */
export function stripeCheckoutPurchase(session: Obj): PurchaseFacts {
  const lines = list(session.line_items?.data).map(stripeLine);
  return {
    productIds: unique(lines.map((l) => l.product)),
    priceIds: unique(lines.map((l) => l.price)),
    interval: session.mode === 'payment' ? 'one_time' : onlyInterval(lines.map((l) => l.interval)),
    country: countryCode(session.customer_details?.address?.country),
  };
}

// ---- Paddle ------------------------------------------------------------------------------------

/**
 * A Paddle transaction: `items[].price` (`id`, `product_id`, `billing_cycle.interval`, null for
 * a one-time price). Paddle's transaction names its address by id only; the country is read
 * when the payload includes the address (`address.country_code`).
 */
export function paddleTransactionPurchase(txn: Obj): PurchaseFacts {
  const items = list(txn.items).map((item) => {
    const price = (item.price ?? {}) as Obj;
    return {
      product: idText(price.product_id) ?? idText(item.product?.id),
      price: idText(price.id) ?? idText(item.price_id),
      interval: price.billing_cycle ? billingInterval(price.billing_cycle.interval) : price.id ? ('one_time' as const) : null,
    };
  });
  return {
    productIds: unique(items.map((i) => i.product)),
    priceIds: unique(items.map((i) => i.price)),
    interval: onlyInterval(items.map((i) => i.interval)),
    country: countryCode(txn.address?.country_code),
  };
}

// ---- Lemon Squeezy -----------------------------------------------------------------------------

/**
 * A Lemon Squeezy order: `first_order_item` names the product and the variant (Lemon Squeezy's
 * price). Its payloads carry neither the billing interval nor the buyer's country, and a
 * subscription invoice names no product: those facts stay empty (the tracking API can give them).
 */
export function lemonSqueezyPurchase(attributes: Obj): PurchaseFacts {
  const item = (attributes.first_order_item ?? {}) as Obj;
  return { productIds: unique([idText(item.product_id)]), priceIds: unique([idText(item.variant_id)]), interval: null, country: null };
}
