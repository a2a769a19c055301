// Job handlers for money going out: webhook deliveries to brands and the scheduled approval.
import type PgBoss from 'pg-boss';
import { z } from 'zod';
import { approveDueCommissions } from '../app/money/commission-lifecycle.js';
import { type EndpointShare, type WebhookDeps, deliver } from '../app/outbound/webhook-endpoints.js';
import type { Logger } from '../platform/logger.js';
import { APPROVALS_QUEUE, OUTBOUND_QUEUE } from '../core/queue-names.js';

const deliveryJob = z.object({ deliveryId: z.number().int().positive() });

/**
 * At most `limit` attempts under way per endpoint in this process: a brand whose receiver is slow
 * (or trickles its answer) never holds more than that share of the delivery workers.
 */
export function endpointShare(limit: number): EndpointShare {
  const underWay = new Map<number, number>();
  return {
    tryEnter(endpointId) {
      const count = underWay.get(endpointId) ?? 0;
      if (count >= limit) return false;
      underWay.set(endpointId, count + 1);
      return true;
    },
    leave(endpointId) {
      const count = (underWay.get(endpointId) ?? 1) - 1;
      if (count <= 0) underWay.delete(endpointId);
      else underWay.set(endpointId, count);
    },
  };
}

/**
 * Deliveries: `outbound.concurrency` workers, each one attempt at a time, so a slow attempt holds
 * only its own worker (a batch would wait for its slowest member); one endpoint gets at most a
 * quarter of them. A delivery due now wakes the workers through LISTEN (polling every 2 s is the
 * fallback). Returns the wake-up.
 */
export async function startMoneyJobs(boss: PgBoss, deps: WebhookDeps & { logger: Logger }): Promise<() => void> {
  const share = endpointShare(Math.max(1, Math.floor(deps.outbound.concurrency / 4)));
  const workerIds: string[] = [];
  for (let i = 0; i < deps.outbound.concurrency; i++) {
    workerIds.push(
      await boss.work<{ deliveryId: number }>(OUTBOUND_QUEUE, { batchSize: 1, pollingIntervalSeconds: 2 }, async ([job]) => {
        if (!job) return;
        const { deliveryId } = deliveryJob.parse(job.data);
        const outcome = await deliver({ ...deps, endpointShare: share }, deliveryId);
        deps.logger.info({ job: 'webhook-delivery', deliveryId, outcome }, 'webhook delivery attempt');
      }),
    );
  }
  await boss.work(APPROVALS_QUEUE, async () => {
    const approved = await approveDueCommissions(deps);
    deps.logger.info({ job: 'commission-approvals', approved }, 'scheduled approval');
  });
  return () => {
    for (const id of workerIds) boss.notifyWorker(id);
  };
}
