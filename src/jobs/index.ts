// Worker process: pg-boss handlers for Stripe events and their dead-letter queue.
import type PgBoss from 'pg-boss';
import type { Config } from '../config.js';
import { markExhausted } from '../db/webhook-events.js';
import { STRIPE_EVENTS_DEAD_QUEUE, STRIPE_EVENTS_QUEUE, type StripeEventJob } from '../queue.js';
import { type WorkerDeps, processStripeEvent, stripeEventJobSchema } from './stripe-event-job.js';

export async function startWorkers(boss: PgBoss, deps: WorkerDeps, config: Readonly<Config>): Promise<void> {
  const options = { batchSize: 1, pollingIntervalSeconds: config.worker.pollSeconds };
  for (let i = 0; i < config.worker.concurrency; i++) {
    let workerId = '';
    workerId = await boss.work<StripeEventJob>(STRIPE_EVENTS_QUEUE, options, async ([job]) => {
      if (!job) return;
      // A job was found: fetch the next one right away instead of sleeping the polling interval.
      boss.notifyWorker(workerId);
      const { inboxId } = stripeEventJobSchema.parse(job.data);
      await processStripeEvent(deps, inboxId, job.id);
    });
  }
  // Retries exhausted: the event stays visible as parked (waiting on data) or dead (errors), replayable.
  await boss.work<StripeEventJob>(STRIPE_EVENTS_DEAD_QUEUE, options, async ([job]) => {
    if (!job) return;
    const { inboxId } = stripeEventJobSchema.parse(job.data);
    await markExhausted(deps.pool, inboxId);
    deps.logger.warn({ jobId: job.id, inboxId }, 'stripe event retries exhausted');
  });
}
