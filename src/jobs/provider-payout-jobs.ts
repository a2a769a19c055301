// Payouts sent through PayPal or Wise (src/app/money/payout-providers.ts): a job per send, written
// beside the claim, and the scheduled follower. A send's job retried by the queue (or resent by the
// follower after a crash) asks the provider with the same ids, so nothing is paid twice. Log lines
// name sends and programs by id only: never a credential, an email or an amount's receiver.
import type PgBoss from 'pg-boss';
import { z } from 'zod';
import { type ProviderDeps, followProviderPayouts, sendProviderPayouts } from '../app/money/payout-providers.js';
import type { Logger } from '../platform/logger.js';
import { PROVIDER_PAYOUTS_FOLLOW_QUEUE, PROVIDER_PAYOUTS_QUEUE } from '../core/queue-names.js';

export const providerSendJob = z.object({ sendId: z.number().int().positive() });

export type ProviderJobsDeps = ProviderDeps & { logger: Logger };

/** One send's job: throws when the provider is out of reach (the queue retries it, the same ids). */
export async function runProviderSendJob(deps: ProviderJobsDeps, data: unknown) {
  const { sendId } = providerSendJob.parse(data);
  try {
    const outcome = await sendProviderPayouts(deps, sendId);
    deps.logger.info({ job: PROVIDER_PAYOUTS_QUEUE, sendId, outcome }, 'provider payout send');
    return outcome;
  } catch (error) {
    deps.logger.warn({ job: PROVIDER_PAYOUTS_QUEUE, sendId, err: { message: (error as Error).message } }, 'provider payout send failed; retried with the same ids');
    throw error;
  }
}

export async function runProviderFollowJob(deps: ProviderJobsDeps) {
  const summary = await followProviderPayouts(deps);
  if (summary.resent || summary.asked || summary.errors.length) deps.logger.info({ job: PROVIDER_PAYOUTS_FOLLOW_QUEUE, ...summary, errors: summary.errors.length }, 'provider payouts followed');
  return summary;
}

export async function startProviderPayoutJobs(boss: PgBoss, deps: ProviderJobsDeps): Promise<void> {
  await boss.work(PROVIDER_PAYOUTS_QUEUE, { batchSize: 1, pollingIntervalSeconds: 2 }, async ([job]) => {
    if (job) await runProviderSendJob(deps, job.data);
  });
  await boss.work(PROVIDER_PAYOUTS_FOLLOW_QUEUE, async () => {
    await runProviderFollowJob(deps);
  });
}
