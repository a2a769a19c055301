// Performance bounties' evaluation (docs/rewards.md "Bounties"): a job on the clock (every five
// minutes: sales recorded since, and months just closed for the net-of-refunds rule), or for one
// program (its singleton key: one waiting and one running per program). Never in a sale's path.
// The award's unique key makes a repeated or concurrent run award nothing twice.
import type PgBoss from 'pg-boss';
import { z } from 'zod';
import { evaluateAllBounties, evaluateProgramBounties } from '../app/money/bounties.js';
import type { ManagementDeps } from '../app/programs/management.js';
import type { Logger } from '../platform/logger.js';
import { BOUNTY_CHECKS_QUEUE } from '../core/queue-names.js';

export const bountyCheckJob = z.object({ programId: z.number().int().positive().optional() });

export type BountyJobDeps = ManagementDeps & { logger: Logger };

/** One run: the named program's bounties, or every program's. Returns the awards made. */
export async function runBountyCheck(deps: BountyJobDeps, data: unknown): Promise<number> {
  const job = bountyCheckJob.parse(data ?? {});
  const made = job.programId === undefined ? await evaluateAllBounties(deps) : await evaluateProgramBounties(deps, job.programId);
  if (made > 0) deps.logger.info({ job: 'bounty-checks', programId: job.programId ?? null, made }, 'bounties awarded');
  return made;
}

/** Queues one program's evaluation (a second while one waits is the same job). */
export const queueBountyCheck = (boss: PgBoss, programId: number) => boss.send(BOUNTY_CHECKS_QUEUE, { programId }, { singletonKey: `program:${programId}` });

export async function startBountyJobs(boss: PgBoss, deps: BountyJobDeps): Promise<void> {
  await boss.work(BOUNTY_CHECKS_QUEUE, { batchSize: 1, pollingIntervalSeconds: 10 }, async ([job]) => {
    if (job) await runBountyCheck(deps, job.data);
  });
}
