// The fifth attribution step: a promotion code (or coupon, or plain code) the brand mapped to a
// partner. Its customer is created bound to that partner, so renewals follow like any other.
import { randomBytes } from 'node:crypto';
import type { TrackingTx } from './ports.js';
import { hashEmail } from './secrets.js';
import type { Program, ResolvedCustomer } from './types.js';

export async function customerForPromoCode(
  tx: TrackingTx,
  program: Program,
  refs: string[],
  who: { customerKey: string | null; email: string | null },
  now: Date,
): Promise<ResolvedCustomer | null> {
  if (refs.length === 0) return null;
  const promo = await tx.findPromoCode(program.id, refs);
  if (!promo) return null;
  const keyTaken = who.customerKey ? (await tx.findCustomerByKey(program.id, who.customerKey)) !== null : false;
  const customer = await tx.insertCustomer({
    programId: program.id,
    customerKey: keyTaken ? null : who.customerKey,
    status: 'click',
    // No click happened: the code stands in for it (unique, and says where it came from).
    clickId: `promo_${promo.id}_${randomBytes(9).toString('base64url')}`,
    clickedAt: now,
    linkId: promo.linkId,
    partnerId: promo.partnerId,
    emailHash: who.email ? hashEmail(who.email) : null,
    provisionalLead: false,
    leadAt: null,
    convertedAt: null,
  });
  return { customer, step: 'promo_code' };
}
