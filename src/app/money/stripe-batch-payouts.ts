// Paying a batch's Stripe payouts with one action (docs/payouts.md, "Stripe: a batch with one
// action"). The claim is PayPal's and Wise's (src/app/money/payout-providers.ts): the batch's
// pending Stripe payouts become 'processing' in one transaction under the program's payout lock,
// beside a send and its job; a payout Stripe cannot take stays pending with why. The job pays
// each through the one per-payout transfer (payWithStripe: idempotency key affix-payout-<id>),
// so a retried job, a second action or the per-payout button never makes a second transfer.
import { SYSTEM } from '../../core/audit.js';
import { AffixError, errors } from '../../core/errors.js';
import { toStripeAmount } from '../../core/stripe/amounts.js';
import type { Currency } from '../../core/types.js';
import * as payouts from '../../db/money/commissions-and-payouts.js';
import * as providers from '../../db/money/payout-providers.js';
import { withTransaction } from '../../db/infra/pool.js';
import { type Scope, programInScope } from '../accounts/scope.js';
import { type ManagementDeps, audit } from '../programs/management.js';
import { payWithStripe, stripeRefused, withPayout } from './payout-runs.js';

export type StripeBatchDeps = ManagementDeps & { stripeSecretKey?: string | undefined };

/** What "pay batch" answers (the shape of PayPal's and Wise's answer, src/app/money/payout-providers.ts). */
interface BatchSend {
  sendId: number | null;
  sendIds: number[];
  provider: 'stripe';
  batchId: number;
  sending: number[];
  notSent: { payoutId: number; reason: string }[];
}

const NOT_CONFIGURED = 'Stripe transfers are not configured: set STRIPE_SECRET_KEY';
const systemScope: Scope = { kind: 'operator', actor: SYSTEM('Stripe payout') };

/** The claimed lines Stripe can take (a connected account, an amount it can represent) and those it cannot, with why. */
function splitStripeLines(lines: Awaited<ReturnType<typeof providers.lockPendingOfMethod>>) {
  const refused: { payoutId: number; reason: string }[] = [];
  const sendable: number[] = [];
  for (const line of lines) {
    const amount = toStripeAmount(line.amountCents, line.currency as Currency);
    if (!line.payTo?.startsWith('acct_')) refused.push({ payoutId: line.payoutId, reason: "Not sent: no connected Stripe account (acct_…) in this payout's details" });
    else if ('problem' in amount) refused.push({ payoutId: line.payoutId, reason: `Not payable through Stripe: ${amount.problem}. Pay it another way and mark it paid` });
    else sendable.push(line.payoutId);
  }
  return { sendable, refused };
}

/**
 * Claims the batch's pending Stripe payouts as 'processing' and queues their transfers (a job), in
 * one transaction under the program's payout lock: a second action at the same moment finds
 * nothing left (409 nothing_to_send). Stripe is called by the job, never inside this.
 */
export async function payBatchThroughStripe(deps: StripeBatchDeps, scope: Scope, programId: number, batchId: number, perSend: number): Promise<BatchSend> {
  if (!deps.stripeSecretKey) throw errors.conflict(NOT_CONFIGURED, 'stripe_not_configured');
  await programInScope(deps, scope, programId);
  const made = await withTransaction(deps.pool, async (client): Promise<BatchSend> => {
    await payouts.lockProgramPayouts(client, programId);
    if (!Number.isSafeInteger(batchId) || !(await providers.batchExists(client, programId, batchId))) throw errors.notFound('Payout batch not found');
    const now = deps.now();
    const { sendable, refused } = splitStripeLines(await providers.lockPendingOfMethod(client, programId, batchId, 'stripe'));
    await providers.markNotSent(client, programId, 'stripe', refused, now);
    if (sendable.length === 0) return { sendId: null, sendIds: [], provider: 'stripe', batchId, sending: [], notSent: refused };
    for (const payoutId of sendable) await payouts.setPayoutStatus(client, payoutId, 'processing', null, now);
    const sendIds: number[] = [];
    for (let at = 0; at < sendable.length; at += perSend) sendIds.push(await providers.insertSend(client, programId, batchId, 'stripe', sendable.slice(at, at + perSend), now));
    await audit(client, scope, [{
      programId, action: 'payout_batch.provider_send', objectType: 'payout_batch', objectId: batchId,
      changes: { provider: { from: null, to: 'stripe' }, payout_ids: { from: null, to: sendable } },
    }]);
    return { sendId: sendIds[0]!, sendIds, provider: 'stripe', batchId, sending: sendable, notSent: refused };
  });
  if (made.sendId === null) {
    const why = made.notSent.length ? `: ${made.notSent.map((n) => `payout ${n.payoutId}: ${n.reason}`).join('; ')}` : ': no payout of this batch paid by Stripe is waiting to be paid';
    throw errors.conflict(`Nothing to send through Stripe${why}`, 'nothing_to_send');
  }
  return made;
}

/** Back to pending after a claim Stripe was never asked about (its details no longer fit). */
const unclaim = (deps: ManagementDeps, programId: number, payoutId: number) =>
  withPayout(deps, programId, payoutId, (client, claimed) => payouts.setPayoutStatus(client, claimed.id, 'pending', null, deps.now()), ['processing']).catch((error: unknown) => {
    if (!(error instanceof AffixError && error.status === 409)) throw error;
  });

/**
 * One attempt at a Stripe send (its lease is held by the caller): each claimed payout is paid by
 * payWithStripe, one after another. Paid: the item says so with the transfer id. Refused by
 * Stripe: the payout is pending again (payWithStripe did it) and the item says Stripe's words.
 * Stripe out of reach: throws, the payout still processing, for the queue (or the follower) to
 * try again with the same idempotency key, and the payouts already paid are not asked about again.
 */
export async function sendThroughStripe(deps: StripeBatchDeps, send: providers.SendRow): Promise<'sent' | 'not_configured'> {
  if (!deps.stripeSecretKey) {
    await providers.releaseSend(deps.pool, send.id, NOT_CONFIGURED);
    return 'not_configured';
  }
  const withKey = { ...deps, stripeSecretKey: deps.stripeSecretKey };
  for (const item of (await providers.sendItems(deps.pool, send.id)).filter((i) => i.outcome === 'sending')) {
    if (item.payoutStatus !== 'processing') {
      await settleAsItIs(deps, send.programId, item.payoutId, `Not sent: it was marked ${item.payoutStatus} before it went to Stripe`);
      continue;
    }
    try {
      const paid = await payWithStripe(withKey, systemScope, send.programId, item.payoutId);
      await providers.recordItem(deps.pool, item.payoutId, { outcome: 'paid', providerItemId: paid.reference, providerStatus: 'paid', at: deps.now(), sent: true });
    } catch (error) {
      if (!(error instanceof AffixError)) throw error;
      if (error.init?.code === 'stripe_transfer_failed') {
        if (!stripeRefused(error.cause)) throw error;
        await providers.recordItem(deps.pool, item.payoutId, { outcome: 'not_sent', reason: error.message, at: deps.now() });
        continue;
      }
      if (error.status !== 409) throw error;
      // Paid meanwhile (the per-payout button, the same transfer) or marked failed by hand; or its
      // details no longer fit Stripe: then it was never sent and is pending again.
      if (error.init?.code === 'not_stripe' || error.init?.code === 'stripe_amount_unrepresentable') await unclaim(deps, send.programId, item.payoutId);
      await settleAsItIs(deps, send.programId, item.payoutId, `Not sent: ${error.message}`);
    }
  }
  await providers.finishSend(deps.pool, send.id, { state: 'sent', at: deps.now() });
  return 'sent';
}

/** The item says what became of a payout this send did not pay now: paid (its transfer), or not sent and why. */
async function settleAsItIs(deps: ManagementDeps, programId: number, payoutId: number, reason: string): Promise<void> {
  const payout = await payouts.getPayout(deps.pool, programId, payoutId);
  if (payout?.status === 'paid') {
    await providers.recordItem(deps.pool, payoutId, { outcome: 'paid', providerItemId: payout.reference, providerStatus: 'paid', at: deps.now(), sent: true });
  } else {
    await providers.recordItem(deps.pool, payoutId, { outcome: 'not_sent', reason, at: deps.now() });
  }
}
