// Which events of a worker's batch may be attributed at once (their statements interleaved and
// sent together) with the same result as one after the other: payments that name nothing any
// other payment of the group names. Everything else keeps the batch's order.
import type { ProcessorFact } from './processor-port.js';
import { hashEmail } from './secrets.js';

/**
 * The ids a payment is looked up, resolved and recorded by: its transaction and payment ids,
 * the click, customer key, email, processor customer, subscription and promotion codes. Two
 * payments sharing none of them read nothing the other writes (the customer row they resolve
 * to is checked as it is found: a first click both lead to is one customer, refused by its
 * unique click).
 */
export function paymentKeys(fact: Extract<ProcessorFact, { kind: 'payment' }>): string[] {
  const { payment } = fact;
  const keys = [`transaction:${payment.transactionId}`, ...payment.paymentIds.map((id) => `payment:${id}`)];
  if (payment.metadata.clickId) keys.push(`click:${payment.metadata.clickId}`);
  if (payment.metadata.customerKey) keys.push(`customer_key:${payment.metadata.customerKey}`);
  if (payment.email) keys.push(`email:${hashEmail(payment.email).toString('hex')}`);
  if (payment.processorCustomerId) keys.push(`processor_customer:${payment.processorCustomerId}`);
  if (payment.subscriptionId) keys.push(`subscription:${payment.subscriptionId}`);
  for (const ref of payment.promotionRefs) keys.push(`promotion:${ref.toLowerCase()}`);
  return keys;
}

/**
 * How many of the batch's first facts may be applied at once: the longest run of payments from
 * the start whose keys are pairwise disjoint. Only a leading run: an event after a refund or a
 * link keeps its place behind it (a refund may find its sale through a link no key names).
 */
export function atOnceCount(facts: readonly ProcessorFact[]): number {
  const seen = new Set<string>();
  let count = 0;
  for (const fact of facts) {
    if (fact.kind !== 'payment') break;
    const keys = paymentKeys(fact);
    if (keys.some((key) => seen.has(key))) break;
    for (const key of keys) seen.add(key);
    count++;
  }
  return count;
}
