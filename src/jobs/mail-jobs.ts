// Job handlers for mail: each outbox row is sent by one job (retried by pg-boss when the mail
// server fails; the row is never sent twice), and the daily commission digest.
import type PgBoss from 'pg-boss';
import { z } from 'zod';
import { type SendingDeps, queueCommissionDigests, queueDailySummaries, sendOutboxMail } from '../app/mail.js';
import type { Logger } from '../platform/logger.js';
import { DIGEST_QUEUE, MAIL_QUEUE } from '../platform/queue.js';

const mailJob = z.object({ mailId: z.number().int().positive() });

export async function startMailJobs(boss: PgBoss, deps: SendingDeps & { logger: Logger }): Promise<void> {
  let workerId = '';
  workerId = await boss.work<{ mailId: number }>(MAIL_QUEUE, { batchSize: 1, pollingIntervalSeconds: 0.5 }, async ([job]) => {
    if (!job) return;
    // A mail was found: look for the next one at once instead of sleeping the polling interval.
    boss.notifyWorker(workerId);
    const { mailId } = mailJob.parse(job.data);
    try {
      const outcome = await sendOutboxMail(deps, mailId);
      deps.logger.info({ job: 'mail', mailId, outcome }, 'mail');
    } catch (error) {
      // The row keeps the error; pg-boss retries the job. Never the address or the text in the log.
      deps.logger.warn({ job: 'mail', mailId, err: { message: (error as Error).message } }, 'mail failed; retried');
      throw error;
    }
  });
  await boss.work(DIGEST_QUEUE, async () => {
    const queued = await queueCommissionDigests(deps);
    const summaries = await queueDailySummaries(deps);
    deps.logger.info({ job: 'commission-digests', queued, summaries }, 'commission digests and daily summaries');
  });
}
