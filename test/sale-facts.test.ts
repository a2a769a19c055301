// What a sale carries for the reward rules, read from each processor's documented payload
// (test/fixtures: Stripe invoices before and after API 2025-03-31, a Stripe checkout with its
// line items, a Paddle transaction, a Lemon Squeezy order) by the processor adapters.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { lemonSqueezyAdapter } from '../src/core/lemonsqueezy/adapter.js';
import { paddleAdapter } from '../src/core/paddle/adapter.js';
import type { ProcessorFact } from '../src/core/processor-port.js';
import { stripeAdapter } from '../src/core/stripe/adapter.js';

const fixture = (name: string) => JSON.parse(readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8'));
const purchaseOf = (fact: ProcessorFact) => {
  if (fact.kind !== 'payment') throw new Error(`not a payment: ${JSON.stringify(fact)}`);
  return fact.payment.purchase;
};

describe('sale facts from processors', () => {
  it('Stripe invoice (API 2025-03-31 on): price and product from pricing.price_details, the interval from the line period, the country from customer_address', () => {
    expect(purchaseOf(stripeAdapter.read(fixture('stripe-invoice-paid-2025.json'), { livemode: true }))).toEqual({
      productIds: ['prod_Rpro'], priceIds: ['price_1QproYear'], interval: 'year', country: 'DE',
    });
  });

  it('Stripe invoice (before): the embedded price and its recurring interval; no address, no country', () => {
    expect(purchaseOf(stripeAdapter.read(fixture('stripe-invoice-paid-2024.json'), { livemode: true }))).toEqual({
      productIds: ['prod_Rstarter'], priceIds: ['price_1QstarterMonth'], interval: 'month', country: null,
    });
  });

  it('Stripe checkout in payment mode: one-time, its line items, the billing address country', () => {
    expect(purchaseOf(stripeAdapter.read(fixture('stripe-checkout-payment.json'), { livemode: true }))).toEqual({
      productIds: ['prod_Rlifetime'], priceIds: ['price_1Qlifetime'], interval: 'one_time', country: 'FR',
    });
  });

  it('Paddle transaction: items[].price (id, product_id, billing_cycle); the address is named by id only', () => {
    expect(purchaseOf(paddleAdapter.read(fixture('paddle-transaction-completed.json'), { livemode: true }))).toEqual({
      productIds: ['pro_01hpro'], priceIds: ['pri_01hyear'], interval: 'year', country: null,
    });
  });

  it('Lemon Squeezy order: first_order_item product and variant (the variant is the price)', () => {
    expect(purchaseOf(lemonSqueezyAdapter.read(fixture('lemonsqueezy-order-created.json'), { livemode: true }))).toEqual({
      productIds: ['4004'], priceIds: ['5005'], interval: null, country: null,
    });
  });
});
