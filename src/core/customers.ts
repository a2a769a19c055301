// Clicks to customers: the one place that follows first-click and creates a customer from a click.
import type { ClickWithCode, TrackingTx } from './ports.js';
import type { ResolvedCustomer } from './types.js';

/** The click that carries attribution for `clickId`: itself, or the first click it was logged under. */
export async function attributedClick(tx: Pick<TrackingTx, 'findClick'>, clickId: string): Promise<ClickWithCode | null> {
  const click = await tx.findClick(clickId);
  if (!click || click.attributedClickId === click.clickId) return click;
  return (await tx.findClick(click.attributedClickId)) ?? click;
}

/**
 * The customer bound to a (first) click, created when the click has none yet. A customer key is
 * bound to it when it has none and no other customer of the program holds that key. A customer
 * created here gets the payment's processor customer too, unless another customer holds it.
 */
export async function customerForClick(
  tx: TrackingTx,
  click: ClickWithCode,
  customerKey: string | null,
  processorCustomerId: string | null = null,
): Promise<Omit<ResolvedCustomer, 'step'> & { created: boolean }> {
  const { existing, keyTaken } = await tx.findClickCustomer(click.clickId, click.programId, customerKey);
  if (existing) {
    if (customerKey && !existing.customerKey && !keyTaken) await tx.updateCustomer(existing.id, { customerKey });
    return { customer: existing, created: false };
  }
  const customer = await tx.insertCustomer({
    programId: click.programId,
    customerKey: keyTaken ? null : customerKey,
    status: 'click',
    clickId: click.clickId,
    clickedAt: click.createdAt,
    linkId: click.linkId,
    partnerId: click.partnerId,
    emailHash: null,
    provisionalLead: false,
    leadAt: null,
    convertedAt: null,
    processorCustomerId,
  });
  return { customer, created: true };
}
