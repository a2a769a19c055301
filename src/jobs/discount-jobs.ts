// Job handlers for partners' discount codes (src/app/partners/discounts.ts): each job brings up to
// DISCOUNT_JOB_PARTNERS partners' codes in line with their status and group. The processors'
// calls are retried within the job (p-retry); a job that still fails is retried by the queue, and
// every step is safe to repeat. Log lines name programs and partners by id only.
import type PgBoss from 'pg-boss';
import { z } from 'zod';
import { type DiscountJobDeps, syncPartnerCodes } from '../app/partners/discounts.js';
import type { Logger } from '../platform/logger.js';
import { DISCOUNT_CODES_DEAD_QUEUE, DISCOUNT_CODES_QUEUE } from '../core/queue-names.js';

const discountJob = z.object({ programId: z.number().int().positive(), partnerIds: z.array(z.number().int().positive()).max(1000) });

export type DiscountJobsDeps = DiscountJobDeps & { logger: Logger };

/** One job: each partner in turn; the first failure throws (the partners before it are done, and stay done on the retry). */
export async function runDiscountJob(deps: DiscountJobsDeps, data: unknown): Promise<void> {
  const job = discountJob.parse(data);
  for (const partnerId of job.partnerIds) {
    try {
      const outcome = await syncPartnerCodes(deps, job.programId, partnerId);
      if (outcome.made || outcome.deactivated || outcome.refused) {
        deps.logger.info({ job: 'discount-codes', programId: job.programId, partnerId, made: outcome.made !== null, deactivated: outcome.deactivated, refused: outcome.refused }, 'discount codes');
      }
    } catch (error) {
      deps.logger.warn({ job: 'discount-codes', programId: job.programId, partnerId, err: { message: (error as Error).message } }, 'discount codes failed; retried');
      throw error;
    }
  }
}

export async function startDiscountJobs(boss: PgBoss, deps: DiscountJobsDeps): Promise<void> {
  await boss.work(DISCOUNT_CODES_QUEUE, { batchSize: 1, pollingIntervalSeconds: 2 }, async ([job]) => {
    if (job) await runDiscountJob(deps, job.data);
  });
  await boss.work(DISCOUNT_CODES_DEAD_QUEUE, { batchSize: 1, pollingIntervalSeconds: 30 }, async ([job]) => {
    if (job) deps.logger.warn({ job: 'discount-codes', data: discountJob.safeParse(job.data).data ?? null }, 'discount codes: retries exhausted; "Make missing codes" on the Discounts page tries again');
  });
}
