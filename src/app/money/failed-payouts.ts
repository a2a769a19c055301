// A payout that failed or was returned (any method: a bounced bank transfer, a PayPal item
// returned, a Wise transfer cancelled). One use case for the dashboard, the admin API and the
// PayPal/Wise followers: the payout becomes 'failed', its commissions are owed again, the ledger
// shows the round trip and the partner is told what to fix. docs/payouts.md, "Failed payouts".
import { z } from 'zod';
import { errors } from '../../core/errors.js';
import * as payouts from '../../db/money/commissions-and-payouts.js';
import * as failed from '../../db/money/failed-payouts.js';
import { type PoolClient } from '../../db/infra/pool.js';
import { queueMails } from '../../db/outbound/mail-outbox.js';
import { programName } from '../../db/programs/programs-links-keys.js';
import { type ManagementDeps, audit, parseInput } from '../programs/management.js';
import { type Scope, programInScope } from '../accounts/scope.js';
import { mailBrand, payoutFailedMail } from '../outbound/mail.js';
import { releasePayoutClaim, withPayout } from './payout-runs.js';

export const failPayoutInput = z.object({
  reason: z
    .string({ error: 'Say why the payout failed (what the bank or provider answered).' })
    .trim()
    .min(1, 'Say why the payout failed (what the bank or provider answered).')
    .max(500, 'A reason is at most 500 characters.'),
  provider_reference: z.string().trim().min(1).max(200, 'A provider reference is at most 200 characters.').nullish(),
});

export type FailedPayout = payouts.PayoutRow & { failedAt: Date | null; failureReason: string | null; failureReference: string | null };

/**
 * Marks a paid or processing payout failed, in one transaction under the program's payout lock
 * (the lock runs take, so a run at the same moment sees the commissions either still paid or
 * owed again, never both). Failing a failed payout changes nothing and answers it as it is.
 */
export async function failPayout(
  deps: ManagementDeps,
  scope: Scope,
  programId: number,
  payoutId: number,
  input: { reason: string; providerReference?: string | null },
): Promise<FailedPayout> {
  const { reason, provider_reference: providerReference } = parseInput(failPayoutInput, { reason: input.reason, provider_reference: input.providerReference ?? null });
  await programInScope(deps, scope, programId);
  return withPayout(
    deps,
    programId,
    payoutId,
    async (client, payout) => {
      if (payout.status === 'failed') return withFailure(client, payout);
      if (payout.status === 'pending') throw errors.conflict('This payout was not sent yet: cancel it instead of marking it failed', 'payout_not_sent');
      const at = deps.now();
      if (payout.status === 'paid') {
        await failed.reversePaidEntries(client, payout.id, reason);
        await failed.unpayCommissions(client, payout.id, at);
      }
      await releasePayoutClaim(client, payout);
      await failed.markPayoutFailed(client, payout.id, { reason, providerReference: providerReference ?? null, at });
      await audit(client, scope, [
        { programId, action: 'payout.failed', objectType: 'payout', objectId: payout.id, changes: { status: { from: payout.status, to: 'failed' }, failure_reason: { from: null, to: reason } } },
      ]);
      if (payout.partnerEmail) {
        const program = await programName(client, programId);
        await queueMails(client, [
          payoutFailedMail({ publicUrl: '{{affix}}' }, {
            programId, programName: program, brand: await mailBrand(client, programId), email: payout.partnerEmail,
            partnerId: payout.partnerId, payoutId: payout.id, amountCents: payout.amountCents, currency: payout.currency, reason,
          }),
        ]);
      }
      return withFailure(client, { ...payout, status: 'failed' });
    },
    ['pending', 'paid', 'processing', 'failed'],
  );
}

async function withFailure(client: PoolClient, payout: payouts.PayoutRow): Promise<FailedPayout> {
  const failure = await failed.payoutFailure(client, payout.id);
  if (!failure) throw errors.notFound('Payout not found');
  return { ...payout, failedAt: failure.failedAt, failureReason: failure.reason, failureReference: failure.providerReference };
}
