// Job handlers for bulk actions on partners (src/app/partners/bulk-action-jobs.ts): each job runs one chunk and
// writes the next chunk's job with it, so the queue serves brands' chunks in turn. A job out of
// retries marks its bulk action failed (the dead-letter queue), which lets the account's next start.
import type PgBoss from 'pg-boss';
import { z } from 'zod';
import { failBulkAction, runBulkActionChunk } from '../app/partners/bulk-action-jobs.js';
import type { PartnerDeps } from '../app/partners/bulk-actions.js';
import type { Logger } from '../platform/logger.js';
import { BULK_ACTIONS_DEAD_QUEUE, BULK_ACTIONS_QUEUE } from '../core/queue-names.js';

const bulkActionJob = z.object({ bulkActionId: z.number().int().positive(), chunk: z.number().int().min(0) });

/** Workers on the queue: a brand has one chunk waiting at a time, so two let another brand's run beside it. */
export const BULK_ACTION_WORKERS = 2;

export type BulkJobDeps = PartnerDeps & { logger: Logger };

/** One job: one chunk (or the end). Throws for pg-boss to retry; the log line never names partners. */
export async function runBulkActionJob(deps: BulkJobDeps, data: unknown): Promise<'chunk' | 'done' | 'stale'> {
  const job = bulkActionJob.parse(data);
  try {
    const outcome = await runBulkActionChunk(deps, job);
    deps.logger.info({ job: 'partner-bulk-action', bulkActionId: job.bulkActionId, chunk: job.chunk, outcome }, 'bulk action chunk');
    return outcome;
  } catch (error) {
    deps.logger.warn({ job: 'partner-bulk-action', bulkActionId: job.bulkActionId, chunk: job.chunk, err: { message: (error as Error).message } }, 'bulk action chunk failed; retried');
    throw error;
  }
}

/** A job out of retries (its last error, or its worker lost every time). */
export async function failBulkActionJob(deps: BulkJobDeps, data: unknown): Promise<void> {
  const job = bulkActionJob.parse(data);
  await failBulkAction(deps, job.bulkActionId, 'A chunk failed after every retry; the partners of the chunks done stay changed.');
  deps.logger.warn({ job: 'partner-bulk-action', bulkActionId: job.bulkActionId, chunk: job.chunk }, 'bulk action failed: retries exhausted');
}

export async function startBulkActionJobs(boss: PgBoss, deps: BulkJobDeps): Promise<void> {
  for (let i = 0; i < BULK_ACTION_WORKERS; i++) {
    let workerId = '';
    workerId = await boss.work(BULK_ACTIONS_QUEUE, { batchSize: 1, pollingIntervalSeconds: 1 }, async ([job]) => {
      if (!job) return;
      // A chunk was found: its successor is queued with it; look again at once.
      boss.notifyWorker(workerId);
      await runBulkActionJob(deps, job.data);
    });
  }
  await boss.work(BULK_ACTIONS_DEAD_QUEUE, { batchSize: 1, pollingIntervalSeconds: 5 }, async ([job]) => {
    if (job) await failBulkActionJob(deps, job.data);
  });
}
