// What a processor's dispute does to a commission (docs/architecture.md, "Disputes"): only money the processor
// takes back changes it. An inquiry takes nothing; a dispute that withdraws funds deducts in
// proportion to the disputed amount; a won one gives exactly that back.

/** The dispute events the workers see (Stripe: charge.dispute.*). */
export type DisputeEvent = 'created' | 'funds_withdrawn' | 'funds_reinstated' | 'closed';

export type DisputeEffect =
  | { effect: 'deduct'; why: string }
  | { effect: 'restore'; why: string }
  | { effect: 'none'; why: string };

/** Stripe's inquiry statuses: the card network asks questions; no funds are withdrawn. */
export const isInquiry = (status: string): boolean => status.startsWith('warning_');

export function disputeEffect(event: DisputeEvent, status: string): DisputeEffect {
  if (event === 'funds_withdrawn') return { effect: 'deduct', why: 'dispute funds withdrawn: commission reduced by the disputed amount' };
  if (event === 'funds_reinstated') return { effect: 'restore', why: 'dispute funds reinstated: deduction given back' };
  if (isInquiry(status)) return { effect: 'none', why: `inquiry (${status}): no money taken, commission unchanged` };
  if (event === 'created') return { effect: 'deduct', why: 'chargeback: commission reduced by the disputed amount' };
  if (status === 'won') return { effect: 'restore', why: 'dispute won: commission restored' };
  if (status === 'lost') return { effect: 'deduct', why: 'dispute lost: chargeback stands' };
  // Closed because the brand refunded the charge: the refund's own event counts that money.
  if (status === 'charge_refunded') return { effect: 'restore', why: 'dispute closed by a refund: the refund counts the money once' };
  return { effect: 'none', why: `dispute closed with status ${status}: nothing to change` };
}

/**
 * Processors whose chargebacks and reversals are separate adjustments with their own ids and
 * amounts (Paddle): what stands charged back is everything taken less everything given back,
 * never below nothing. Any delivery order of the same adjustments gives the same figure.
 */
export const standingChargebackCents = (takenCents: number, givenBackCents: number): number => Math.max(0, takenCents - givenBackCents);

/**
 * What chargebacks count against the sale: what stands charged back, but never more than the
 * refunds of other kinds left unrefunded (`otherRefundedCents` of `saleCents`). A reverse then
 * gives back only the part that stood: after a refund of 2000 of 2900, a chargeback of 2900
 * counts 900, and its reverse gives back those 900, not the refund.
 */
export const countedChargebackCents = (takenCents: number, givenBackCents: number, saleCents: number, otherRefundedCents: number): number =>
  Math.min(standingChargebackCents(takenCents, givenBackCents), Math.max(0, saleCents - otherRefundedCents));

/**
 * The one rule for what a sale's refunds and chargebacks count together: refunds by their own
 * amounts (each kept within the sale less the other refunds, so they never pass the sale), and
 * chargebacks only what the refunds leave. A refund that arrives while chargebacks cover the
 * whole sale is counted all the same (the total stays at the sale); when the chargeback is
 * reversed later, the refund still counts.
 */
export const refundedTotalCents = (saleCents: number, refundsCents: number, standingChargebacksCents: number): number => {
  const refunds = Math.min(saleCents, Math.max(0, refundsCents));
  return refunds + countedChargebackCents(standingChargebacksCents, 0, saleCents, refunds);
};
