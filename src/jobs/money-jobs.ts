// Job handlers for money going out: webhook deliveries to brands and the scheduled approval.
import type PgBoss from 'pg-boss';
import { z } from 'zod';
import { approveDueCommissions } from '../app/payouts.js';
import { type WebhookDeps, deliver } from '../app/webhook-endpoints.js';
import type { Logger } from '../platform/logger.js';
import { APPROVALS_QUEUE, OUTBOUND_QUEUE } from '../platform/queue.js';

const deliveryJob = z.object({ deliveryId: z.number().int().positive() });

/**
 * Deliveries: 16 at a time per fetch; a full fetch fetches again at once, and a delivery due now
 * wakes the fetcher through LISTEN (polling every 2 s is the fallback). Returns the wake-up.
 */
export async function startMoneyJobs(boss: PgBoss, deps: WebhookDeps & { logger: Logger }): Promise<() => void> {
  let workerId = '';
  workerId = await boss.work<{ deliveryId: number }>(OUTBOUND_QUEUE, { batchSize: 16, pollingIntervalSeconds: 2 }, async (jobs) => {
    if (jobs.length === 0) return;
    boss.notifyWorker(workerId);
    await Promise.all(
      jobs.map(async (job) => {
        const { deliveryId } = deliveryJob.parse(job.data);
        const outcome = await deliver(deps, deliveryId);
        deps.logger.info({ job: 'webhook-delivery', deliveryId, outcome }, 'webhook delivery attempt');
      }),
    );
  });
  await boss.work(APPROVALS_QUEUE, async () => {
    const approved = await approveDueCommissions(deps);
    deps.logger.info({ job: 'commission-approvals', approved }, 'scheduled approval');
  });
  return () => boss.notifyWorker(workerId);
}
