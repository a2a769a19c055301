// Click rewards (docs/rewards.md "Leads and clicks"): a job on the clock (hourly) pays each
// partner's ended UTC days not yet decided, or one program's on demand. Never in a click's path.
// The day's unique key makes a repeated or concurrent run pay nothing twice.
import type PgBoss from 'pg-boss';
import { z } from 'zod';
import { payAllClickDays, payProgramClickDays } from '../app/money/click-rewards.js';
import type { ManagementDeps } from '../app/programs/management.js';
import type { Logger } from '../platform/logger.js';
import { CLICK_REWARDS_QUEUE } from '../core/queue-names.js';

export const clickRewardJob = z.object({ programId: z.number().int().positive().optional() });

export type ClickRewardJobDeps = Pick<ManagementDeps, 'pool' | 'now'> & { logger: Logger };

/** One run: the named program's click days, or every program's. Returns the commissions made. */
export async function runClickRewards(deps: ClickRewardJobDeps, data: unknown): Promise<number> {
  const job = clickRewardJob.parse(data ?? {});
  const made = job.programId === undefined ? await payAllClickDays(deps) : await payProgramClickDays(deps, job.programId);
  if (made > 0) deps.logger.info({ job: CLICK_REWARDS_QUEUE, programId: job.programId ?? null, made }, 'click rewards paid');
  return made;
}

export async function startClickRewardJobs(boss: PgBoss, deps: ClickRewardJobDeps): Promise<void> {
  await boss.work(CLICK_REWARDS_QUEUE, { batchSize: 1, pollingIntervalSeconds: 30 }, async ([job]) => {
    if (job) await runClickRewards(deps, job.data);
  });
}
