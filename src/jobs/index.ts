// Worker process: pg-boss handlers for Stripe events and their dead-letter queue.
import type PgBoss from 'pg-boss';
import type { Config } from '../platform/config.js';
import { resumeInterruptedJobs } from '../db/interrupted-jobs.js';
import { markExhausted, wakeWaitingEvents } from '../db/webhook-events.js';
import { JOB_EXPIRY_SECONDS, STRIPE_EVENTS_DEAD_QUEUE, STRIPE_EVENTS_QUEUE, type StripeEventJob, stripeEventEnqueuer } from '../platform/queue.js';
import { type WorkerDeps, processStripeEvent, stripeEventJobSchema } from './stripe-event-job.js';

/** How often a worker looks for jobs whose worker died and for waiting events now bound (idempotent). */
export const RESUME_SWEEP_MS = 5_000;

export interface RunningWorkers {
  stop(): void;
}

export async function startWorkers(boss: PgBoss, workerDeps: Omit<WorkerDeps, 'queue'>, config: Readonly<Config>): Promise<RunningWorkers> {
  const deps: WorkerDeps = { ...workerDeps, queue: boss };
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
  const sweep = setInterval(() => {
    resumeInterruptedJobs(deps.pool, STRIPE_EVENTS_QUEUE, JOB_EXPIRY_SECONDS)
      .then((resumed) => resumed && deps.logger.warn({ resumed }, 'resumed jobs whose worker was lost'))
      .catch((error) => deps.logger.warn({ err: error }, 'looking for interrupted jobs failed'));
    // Events that started waiting while their binding committed (the fast path missed them).
    wakeWaitingEvents(deps.pool, stripeEventEnqueuer(boss))
      .then((woken) => woken.length && deps.logger.info({ woken: woken.length }, 'queued events whose customer or account is now bound'))
      .catch((error) => deps.logger.warn({ err: error }, 'looking for waiting events failed'));
  }, RESUME_SWEEP_MS);
  sweep.unref();
  return { stop: () => clearInterval(sweep) };
}
