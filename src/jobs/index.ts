// Worker process: pg-boss handlers for processor events (Stripe, Paddle, Lemon Squeezy) and their dead-letter queue.
import type PgBoss from 'pg-boss';
import type { Config } from '../platform/config.js';
import { BURST_PAUSE_MS, IntakeRate, intakeBusy, readWake } from '../core/intake-rate.js';
import { resumeInterruptedJobs } from '../db/infra/interrupted-jobs.js';
import { type Listening, listen } from '../db/infra/notifications.js';
import type { Pool } from '../db/infra/pool.js';
import { OUTBOUND_CHANNEL } from '../db/outbound/messages.js';
import { analyzeJobTable } from '../db/infra/queue-statistics.js';
import { PROCESSOR_EVENTS_CHANNEL } from '../db/inbox/inbound-events.js';
import { markExhausted, queueDueEvents, wakeWaitingEvents } from '../db/inbox/event-outcomes.js';
import { PROCESSOR_EVENTS_DEAD_QUEUE, PROCESSOR_EVENTS_JOB_QUEUE, PROCESSOR_EVENTS_QUEUE } from '../core/queue-names.js';
import { JOB_EXPIRY_SECONDS, type ProcessorEventJob, processorEventEnqueuer } from '../platform/queue.js';
import { createSecretBox } from '../platform/secret-box.js';
import { startMailJobs } from './mail-jobs.js';
import { startBulkActionJobs } from './bulk-action-jobs.js';
import { startDiscountJobs } from './discount-jobs.js';
import { startProviderPayoutJobs } from './provider-payout-jobs.js';
import { startBountyJobs } from './bounty-jobs.js';
import { startClickRewardJobs } from './click-reward-jobs.js';
import { startMailSender } from './mail-sender.js';
import { startMoneyJobs } from './money-jobs.js';
import { hourlyUpkeep, startUpkeepJobs } from './upkeep-jobs.js';
import { type Mailer, createMailer } from '../platform/mailer.js';
import { type QueuedEvent, type WorkerDeps, handleProcessorEvent, handleProcessorEventBatch, processorEventJobSchema } from './processor-event-job.js';

/** How often a worker looks for jobs whose worker died, for waiting events now bound, and for payments whose wait is due (idempotent). */
export const RESUME_SWEEP_MS = 5_000;

export interface RunningWorkers {
  /** Stops the sweep and gives the listening connection back (the queue is stopped by its owner). */
  stop(): Promise<void>;
}

/** One job on its own: completed with the batch when it succeeds, failed alone (for pg-boss to retry) when it throws. */
async function runJob(deps: WorkerDeps, job: QueuedEvent): Promise<void> {
  try {
    await handleProcessorEvent(deps, job.inboxId, job.jobId);
  } catch (error) {
    await deps.queue.fail(PROCESSOR_EVENTS_QUEUE, job.jobId, { message: (error as Error).message });
  }
}

/**
 * A fetched batch: attributed in one transaction when every event goes through; otherwise (and
 * for the few the batch leaves alone) each job runs on its own, side by side.
 */
async function runJobs(deps: WorkerDeps, jobs: PgBoss.Job<ProcessorEventJob>[]): Promise<void> {
  const queued: QueuedEvent[] = [];
  for (const job of jobs) {
    const parsed = processorEventJobSchema.safeParse(job.data);
    if (parsed.success) queued.push({ inboxId: parsed.data.inboxId, jobId: job.id });
    else await deps.queue.fail(PROCESSOR_EVENTS_QUEUE, job.id, { message: parsed.error.message });
  }
  const alone = await handleProcessorEventBatch(deps, queued).catch(() => queued);
  await Promise.all(alone.map((job) => runJob(deps, job)));
}

/** Many notifications in one tick wake the workers once. */
function coalesce(fn: () => void): () => void {
  let pending = false;
  return () => {
    if (pending) return;
    pending = true;
    setImmediate(() => {
      pending = false;
      fn();
    });
  };
}

/**
 * Workers fetch `batchSize` jobs at a time and attribute them in one transaction (or, when
 * one of them fails, each on its own, side by side: each job completes or fails alone); an
 * event stored anywhere wakes them at once through LISTEN, polling being only the fallback.
 */
export async function startWorkers(
  boss: PgBoss,
  workerDeps: Omit<WorkerDeps, 'queue'> & {
    mailer?: Mailer;
    listenPool?: Pool | null;
    /** The burst's pause between the first fetcher's batches (a timer; tests give their own, with `now`). */
    sleep?: (ms: number) => Promise<void>;
  },
  config: Readonly<Config>,
): Promise<RunningWorkers> {
  const { listenPool = workerDeps.pool, sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)), ...rest } = workerDeps;
  const deps: WorkerDeps = { ...rest, queue: boss, attributionWaitMinutes: config.worker.attributionWaitMinutes };
  // LISTEN needs a session of its own; through a transaction pooler without a direct URL there
  // is none, and the workers find new events and deliveries by polling alone.
  const listenOn = (channel: string, wake: (payload?: string) => void, what: string): Listening =>
    listenPool ? listen(listenPool, channel, wake, (error) => deps.logger.warn({ err: error }, `listening for ${what} failed; polling until it is back`)) : { stop: async () => undefined };
  await analyzeJobTable(deps.pool, PROCESSOR_EVENTS_JOB_QUEUE.schema).catch((error) => deps.logger.warn({ err: error }, 'analyzing the job table failed'));
  const options = { batchSize: config.worker.batchSize, pollingIntervalSeconds: config.worker.pollSeconds };
  // While the intake receives a burst (new events or redeliveries), the fetchers beyond the first wait (core/intake-rate.ts).
  const intake = new IntakeRate();
  const nowMs = () => (deps.now?.() ?? new Date()).getTime();
  const waits = (fetcher: number) => fetcher > 0 && intakeBusy(intake, config.worker.yieldAbovePerSecond, nowMs());
  const workerIds: string[] = [];
  const wakeAll = () => workerIds.forEach((id, fetcher) => waits(fetcher) || boss.notifyWorker(id));
  for (let i = 0; i < config.worker.concurrency; i++) {
    let workerId = '';
    workerId = await boss.work<ProcessorEventJob>(PROCESSOR_EVENTS_QUEUE, options, async (jobs) => {
      if (jobs.length === 0) return;
      // Jobs were found: fetch the next ones right away instead of sleeping the polling interval
      // (the first fetcher wakes the others too once a burst is over).
      if (i === 0) wakeAll();
      else if (!waits(i)) boss.notifyWorker(workerId);
      await runJobs(deps, jobs);
      // The first fetcher keeps draining during a burst, a batch at a time with a pause between.
      if (i === 0 && intakeBusy(intake, config.worker.yieldAbovePerSecond, nowMs())) await sleep(BURST_PAUSE_MS);
    });
    workerIds.push(workerId);
  }
  const wake = coalesce(wakeAll);
  const listening = listenOn(PROCESSOR_EVENTS_CHANNEL, (payload) => {
    // The listener's own call once listening starts carries nothing: every fetcher looks.
    if (payload === undefined) return wake();
    const { newEvents, received } = readWake(payload);
    intake.add(received, nowMs());
    if (newEvents > 0) wake();
  }, 'new events');
  // Retries exhausted: the event stays visible as parked (waiting on data) or dead (errors), replayable.
  await boss.work<ProcessorEventJob>(PROCESSOR_EVENTS_DEAD_QUEUE, options, async (jobs) => {
    for (const job of jobs) {
      const { inboxId } = processorEventJobSchema.parse(job.data);
      await markExhausted(deps.pool, inboxId);
      deps.logger.warn({ jobId: job.id, inboxId }, 'processor event retries exhausted');
    }
  });
  const wakeDeliveries = await startMoneyJobs(boss, {
    pool: deps.pool,
    logger: deps.logger,
    secretBox: config.secretKey ? createSecretBox(config.secretKey) : null,
    now: () => deps.now?.() ?? new Date(),
    outbound: config.outbound,
  });
  const mailDeps = { pool: deps.pool, logger: deps.logger, publicUrl: config.publicUrl, now: () => deps.now?.() ?? new Date() };
  await startMailJobs(boss, mailDeps);
  const mailSender = startMailSender({
    ...mailDeps,
    mailer: workerDeps.mailer ?? createMailer(config.mail, deps.logger),
    secretKey: config.secretKey,
    listenPool,
    pollMs: config.worker.pollSeconds * 1000,
  });
  await startBulkActionJobs(boss, {
    pool: deps.pool,
    logger: deps.logger,
    secretBox: null,
    now: () => deps.now?.() ?? new Date(),
    mailLinks: { publicUrl: config.publicUrl },
  });
  await startDiscountJobs(boss, {
    pool: deps.pool,
    logger: deps.logger,
    secretBox: config.secretKey ? createSecretBox(config.secretKey) : null,
    stripeSecretKey: config.stripeSecretKey,
    now: () => deps.now?.() ?? new Date(),
  });
  await startProviderPayoutJobs(boss, {
    pool: deps.pool,
    logger: deps.logger,
    secretBox: config.secretKey ? createSecretBox(config.secretKey) : null,
    stripeSecretKey: config.stripeSecretKey,
    now: () => deps.now?.() ?? new Date(),
  });
  await startBountyJobs(boss, { pool: deps.pool, logger: deps.logger, secretBox: null, now: () => deps.now?.() ?? new Date() });
  await startClickRewardJobs(boss, { pool: deps.pool, logger: deps.logger, now: () => deps.now?.() ?? new Date() });
  const deliveriesListening = listenOn(OUTBOUND_CHANNEL, coalesce(wakeDeliveries), 'new webhook deliveries');
  // Periodic upkeep is on pg-boss's clock (src/jobs/upkeep-jobs.ts); once now as well, so this
  // month's and the next months' click partitions exist before the first click of a new database.
  const upkeep = { pool: deps.pool, logger: deps.logger, now: () => deps.now?.() ?? new Date(), webhookRetentionDays: config.webhookRetentionDays };
  await startUpkeepJobs(boss, upkeep);
  await hourlyUpkeep(upkeep);
  // The sweep is a timer, not a scheduled job: it bounds how long an interrupted job or a due
  // payment waits (seconds), and pg-boss's clock ticks once a minute.
  const sweep = setInterval(() => {
    resumeInterruptedJobs(deps.pool, PROCESSOR_EVENTS_QUEUE, JOB_EXPIRY_SECONDS)
      .then((resumed) => resumed && deps.logger.warn({ resumed }, 'resumed jobs whose worker was lost'))
      .catch((error) => deps.logger.warn({ err: error }, 'looking for interrupted jobs failed'));
    // Events that started waiting while their binding committed (the fast path missed them).
    wakeWaitingEvents(deps.pool, processorEventEnqueuer(boss))
      .then((woken) => woken.length && deps.logger.info({ woken: woken.length }, 'queued events whose customer or account is now bound'))
      .catch((error) => deps.logger.warn({ err: error }, 'looking for waiting events failed'));
    // Payments that waited for their click or lead: one was recorded, or their wait ran out.
    queueDueEvents(deps.pool, PROCESSOR_EVENTS_JOB_QUEUE, deps.now?.() ?? new Date())
      .then((queued) => queued.length && deps.logger.info({ queued: queued.length }, 'queued payments whose wait for their attribution is over'))
      .catch((error) => deps.logger.warn({ err: error }, 'looking for payments due after their wait failed'));
  }, RESUME_SWEEP_MS);
  sweep.unref();
  return {
    stop: async () => {
      clearInterval(sweep);
      await listening.stop();
      await deliveriesListening.stop();
      await mailSender.stop();
    },
  };
}
