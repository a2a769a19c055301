// pg-boss: the job queue lives in the same PostgreSQL. Retry and expiry policy and schedules in
// one place; the queues' names are in src/core/queue-names.ts.
import pg from 'pg';
import PgBoss from 'pg-boss';
import { DATABASE_TIMEOUTS, type PoolClient, type Pooling, connectionSettings, createPool } from '../db/infra/pool.js';
import { moveRenamedQueues } from '../db/infra/renamed-queues.js';
import {
  APPROVALS_QUEUE,
  BOUNTY_CHECKS_QUEUE,
  BULK_ACTIONS_DEAD_QUEUE,
  CLICK_REWARDS_QUEUE,
  BULK_ACTIONS_QUEUE,
  DIGEST_QUEUE,
  DISCOUNT_CODES_DEAD_QUEUE,
  DISCOUNT_CODES_QUEUE,
  HOURLY_UPKEEP_QUEUE,
  HOUSEKEEPING_QUEUE,
  PROVIDER_PAYOUTS_FOLLOW_QUEUE,
  PROVIDER_PAYOUTS_QUEUE,
  OUTBOUND_QUEUE,
  PROCESSOR_EVENTS_DEAD_QUEUE,
  PROCESSOR_EVENTS_JOB_QUEUE,
  PROCESSOR_EVENTS_QUEUE,
  RENAMED_QUEUES,
} from '../core/queue-names.js';
import type { Logger } from './logger.js';

/** Every day at 07:00 UTC: yesterday's commissions, one mail per partner and program. */
export const DIGEST_CRON = '0 7 * * *';
export const APPROVALS_CRON = '*/10 * * * *';
export const HOUSEKEEPING_CRON = '* * * * *';
/** PayPal items and Wise transfers asked about every 5 minutes until they settle. */
export const PROVIDER_PAYOUTS_FOLLOW_CRON = '*/5 * * * *';
export const HOURLY_UPKEEP_CRON = '0 * * * *';
/** Performance bounties are evaluated this often (never in a sale's path; docs/rewards.md "Bounties"). */
export const BOUNTY_CHECKS_CRON = '*/5 * * * *';
/** Click rewards: each hour, a quarter past, for the days that have ended (never in a click's path; docs/rewards.md "Leads and clicks"). */
export const CLICK_REWARDS_CRON = '15 * * * *';

/**
 * A job whose worker died (killed, crashed, lost its database) stays `active` until it expires.
 * A processor's event takes milliseconds and every statement is cut at
 * DATABASE_TIMEOUTS.workerStatementMs (15 s), so 20 s of expiry cannot cut a live job. Workers
 * put expired jobs back every 5 s without backoff (src/db/infra/interrupted-jobs.ts): an interrupted
 * job runs again within about 20 + 5 + one polling interval, measured by `npm run chaos`.
 * pg-boss's own supervision (every 10 s) archives, and dead-letters jobs out of retries.
 */
export const JOB_EXPIRY_SECONDS = 20;
export const SUPERVISION_INTERVAL_SECONDS = 10;

/** The planner settings of the queue's connections (see `startQueue`), as session options and for a pooled transaction. */
const QUEUE_SETTINGS = { enable_sort: 'off', jit: 'off' };
const QUEUE_SESSION_OPTIONS = Object.entries(QUEUE_SETTINGS).map(([name, value]) => `-c ${name}=${value}`).join(' ');
const QUEUE_LOCAL_SETTINGS = Object.entries(QUEUE_SETTINGS).map(([name, value]) => `SET LOCAL ${name} = ${value}`).join('; ');

export interface QueuePolicy {
  retryLimit: number;
  retryDelaySeconds: number;
}

export async function startQueue(
  connectionString: string,
  policy: QueuePolicy,
  role: { supervise: boolean; logger?: Logger; pooling?: Pooling },
): Promise<PgBoss> {
  const settings = { max: 4, applicationName: 'affix-queue', statementTimeoutMs: DATABASE_TIMEOUTS.workerStatementMs, pooling: role.pooling };
  const pooled = role.pooling === 'transaction' ? pooledQueueDatabase(connectionString, settings, role.logger) : null;
  const boss = new PgBoss({
    ...connectionSettings(connectionString, settings),
    // pg-boss's fetch orders waiting jobs by priority, created_on, id. Its own index is on
    // start_after, and the queue's statistics are stale after every burst (they still say
    // "no job waiting"): the planner then sorted the whole backlog on each fetch. On the queue's
    // connections a sort is the last resort: the fetch walks the index below in its order and
    // reads only the rows it takes, whatever the backlog. JIT off beside it: the fetch still
    // sorts its 32 taken rows (its window function), so enable_sort=off prices the plan at 10^10,
    // past every jit_*_above_cost; a server built with LLVM (Debian's, most packaged and managed
    // ones) then compiled each fetch. Figures: docs/operations.md, "Performance".
    ...(pooled ? { db: pooled } : { options: QUEUE_SESSION_OPTIONS }),
    supervise: role.supervise,
    maintenanceIntervalSeconds: SUPERVISION_INTERVAL_SECONDS,
    // The instance that supervises also runs the cron clock (scheduled approvals).
    schedule: role.supervise,
  } as PgBoss.ConstructorOptions);
  // pg-boss reports lost connections and failed polls here and keeps polling: log, never crash.
  boss.on('error', (error) => role.logger?.warn({ err: error }, 'job queue: database error; retrying'));
  if (pooled) boss.on('stopped', () => void pooled.close().catch(() => undefined));
  // Several processes starting on an empty database at once deadlocked in pg-boss's schema and
  // queue creation: one at a time, under an advisory lock held by a transaction kept open on a
  // connection of its own (transaction-scoped, so that a transaction pooler hands it back whole).
  // Waiting for another process's setup is no lock timeout: the wait is as long as that setup.
  const lock = new pg.Client({ ...connectionSettings(connectionString, { applicationName: 'affix-queue-setup', pooling: role.pooling }), query_timeout: undefined });
  await lock.connect();
  try {
    await lock.query('BEGIN; SET LOCAL lock_timeout = 0; SET LOCAL statement_timeout = 0; SET LOCAL idle_in_transaction_session_timeout = 0');
    await lock.query('SELECT pg_advisory_xact_lock($1)', [QUEUE_SETUP_LOCK]);
    await setUpQueues(boss, policy, role, lock);
    await lock.query('COMMIT');
  } finally {
    await lock.end().catch(() => undefined);
  }
  return boss;
}

/**
 * pg-boss's statements through a transaction pooler. They need no session of their own
 * (pg-boss takes only transaction-scoped locks); the fetch gets its planner setting
 * (see `options` above) in a transaction of its own instead of at connection start.
 */
function pooledQueueDatabase(connectionString: string, settings: Parameters<typeof createPool>[1], logger: Logger | undefined) {
  const pool = createPool(connectionString, { ...settings, onError: (error) => logger?.warn({ err: error }, 'job queue: database connection lost; reopened on next use') });
  const isFetch = (text: string) => /FOR UPDATE SKIP LOCKED/.test(text) && /^\s*WITH next/.test(text);
  return {
    async executeSql(text: string, values?: unknown[]) {
      if (!isFetch(text)) return pool.query(text, values);
      const client = await pool.connect();
      try {
        await client.query(`BEGIN; ${QUEUE_LOCAL_SETTINGS}`);
        const result = await client.query(text, values);
        await client.query('COMMIT');
        client.release();
        return result;
      } catch (error) {
        client.release(error as Error);
        throw error;
      }
    },
    close: () => pool.end(),
  };
}

/** Advisory lock key of queue setup (migrations use their own). */
const QUEUE_SETUP_LOCK = 744_217_002;

async function setUpQueues(boss: PgBoss, policy: QueuePolicy, role: { supervise: boolean; logger?: Logger }, setup: pg.Client): Promise<void> {
  await boss.start();
  await boss.createQueue(PROCESSOR_EVENTS_DEAD_QUEUE, { name: PROCESSOR_EVENTS_DEAD_QUEUE, retryLimit: 0 }).catch(ignoreExists);
  const options: PgBoss.Queue = {
    name: PROCESSOR_EVENTS_QUEUE,
    retryLimit: policy.retryLimit,
    retryDelay: policy.retryDelaySeconds,
    retryBackoff: true,
    expireInSeconds: JOB_EXPIRY_SECONDS,
    deadLetter: PROCESSOR_EVENTS_DEAD_QUEUE,
  };
  await boss.createQueue(PROCESSOR_EVENTS_QUEUE, options).catch(ignoreExists);
  await boss.updateQueue(PROCESSOR_EVENTS_QUEUE, options);
  // A delivery's own retries follow its schedule (each a new job); pg-boss retries only an attempt
  // whose worker died (expired), and the attempt checks the delivery's state first.
  await boss.createQueue(OUTBOUND_QUEUE, { name: OUTBOUND_QUEUE, retryLimit: 3, retryDelay: 5, expireInSeconds: 60 }).catch(ignoreExists);
  await boss.createQueue(APPROVALS_QUEUE, { name: APPROVALS_QUEUE, retryLimit: 2, retryDelay: 60, expireInSeconds: 600, policy: 'singleton' }).catch(ignoreExists);
  // Mail has no queue of its own: the outbox is its queue (src/jobs/mail-sender.ts).
  await boss.createQueue(DIGEST_QUEUE, { name: DIGEST_QUEUE, retryLimit: 2, retryDelay: 300, expireInSeconds: 600, policy: 'singleton' }).catch(ignoreExists);
  // A bulk action's chunk (src/jobs/bulk-action-jobs.ts): retried whole when its worker died; out of retries, the action is marked failed.
  await boss.createQueue(BULK_ACTIONS_DEAD_QUEUE, { name: BULK_ACTIONS_DEAD_QUEUE, retryLimit: 0 }).catch(ignoreExists);
  await boss
    .createQueue(BULK_ACTIONS_QUEUE, { name: BULK_ACTIONS_QUEUE, retryLimit: 5, retryDelay: 10, retryBackoff: true, expireInSeconds: 120, deadLetter: BULK_ACTIONS_DEAD_QUEUE })
    .catch(ignoreExists);
  // Partners' discount codes (src/jobs/discount-jobs.ts): calls to processors, retried with backoff.
  await boss.createQueue(DISCOUNT_CODES_DEAD_QUEUE, { name: DISCOUNT_CODES_DEAD_QUEUE, retryLimit: 0 }).catch(ignoreExists);
  await boss
    .createQueue(DISCOUNT_CODES_QUEUE, { name: DISCOUNT_CODES_QUEUE, retryLimit: 6, retryDelay: 30, retryBackoff: true, expireInSeconds: 600, deadLetter: DISCOUNT_CODES_DEAD_QUEUE })
    .catch(ignoreExists);
  // Payouts sent through PayPal or Wise (src/jobs/provider-payout-jobs.ts): the same request on every retry; followed every 5 minutes.
  await boss.createQueue(PROVIDER_PAYOUTS_QUEUE, { name: PROVIDER_PAYOUTS_QUEUE, retryLimit: 6, retryDelay: 30, retryBackoff: true, expireInSeconds: 900 }).catch(ignoreExists);
  await boss.createQueue(PROVIDER_PAYOUTS_FOLLOW_QUEUE, { name: PROVIDER_PAYOUTS_FOLLOW_QUEUE, retryLimit: 0, expireInSeconds: 600, policy: 'singleton' }).catch(ignoreExists);
  // Bounty evaluation (src/jobs/bounty-jobs.ts): at most one waiting and one running per program (its singleton key) and for the clock's run.
  await boss.createQueue(BOUNTY_CHECKS_QUEUE, { name: BOUNTY_CHECKS_QUEUE, retryLimit: 2, retryDelay: 60, expireInSeconds: 900, policy: 'stately' }).catch(ignoreExists);
  // Click rewards (src/jobs/click-reward-jobs.ts): one run at a time; a missed hour is caught up by the next.
  await boss.createQueue(CLICK_REWARDS_QUEUE, { name: CLICK_REWARDS_QUEUE, retryLimit: 2, retryDelay: 300, expireInSeconds: 1800, policy: 'singleton' }).catch(ignoreExists);
  // Periodic upkeep: one run at a time (singleton), a short expiry (the next tick runs it again).
  await boss.createQueue(HOUSEKEEPING_QUEUE, { name: HOUSEKEEPING_QUEUE, retryLimit: 0, expireInSeconds: 120, policy: 'singleton' }).catch(ignoreExists);
  await boss.createQueue(HOURLY_UPKEEP_QUEUE, { name: HOURLY_UPKEEP_QUEUE, retryLimit: 1, retryDelay: 300, expireInSeconds: 1800, policy: 'singleton' }).catch(ignoreExists);
  if (role.supervise) {
    // Every periodic job is on this one clock (docs/operations.md, "Periodic work").
    await boss.schedule(APPROVALS_QUEUE, APPROVALS_CRON, {}, { tz: 'UTC' });
    await boss.schedule(DIGEST_QUEUE, DIGEST_CRON, {}, { tz: 'UTC' });
    await boss.schedule(HOUSEKEEPING_QUEUE, HOUSEKEEPING_CRON, {}, { tz: 'UTC' });
    await boss.schedule(HOURLY_UPKEEP_QUEUE, HOURLY_UPKEEP_CRON, {}, { tz: 'UTC' });
    await boss.schedule(PROVIDER_PAYOUTS_FOLLOW_QUEUE, PROVIDER_PAYOUTS_FOLLOW_CRON, {}, { tz: 'UTC' });
    await boss.schedule(BOUNTY_CHECKS_QUEUE, BOUNTY_CHECKS_CRON, {}, { tz: 'UTC' });
    await boss.schedule(CLICK_REWARDS_QUEUE, CLICK_REWARDS_CRON, {}, { tz: 'UTC' });
  }
  // The index in pg-boss's fetch order (see `options` above). Created only when missing: even
  // with IF NOT EXISTS, CREATE INDEX first waits for a SHARE lock on the job table behind every
  // open intake transaction, and every webhook stored meanwhile waits behind it.
  const db = boss.getDb();
  const { rows } = await db.executeSql('SELECT to_regclass($1) AS index', [`${PROCESSOR_EVENTS_JOB_QUEUE.schema}.affix_job_fetch_order`]);
  if (!rows[0].index) {
    await db
      .executeSql(`CREATE INDEX IF NOT EXISTS affix_job_fetch_order ON ${PROCESSOR_EVENTS_JOB_QUEUE.schema}.job (name, priority DESC, created_on, id) WHERE state < 'active'`, [])
      .catch(ignoreExists);
  }
  // Last: jobs queued under an earlier name (before a deploy) move in the set-up's transaction,
  // together. Deleting an old queue drops its partition, which locks the job table until that
  // transaction commits: nothing of pg-boss's own set-up may come after it.
  const moved = await moveRenamedQueues(setup, PROCESSOR_EVENTS_JOB_QUEUE.schema, RENAMED_QUEUES);
  if (moved) role.logger?.info({ moved }, 'job queue: jobs moved from renamed queues');
}

function ignoreExists(error: unknown): void {
  if (!/already exists/i.test(String((error as Error)?.message))) throw error;
}

export interface ProcessorEventJob {
  inboxId: number;
}

/** Enqueues inside the caller's transaction: the job exists exactly when the inbox row does. */
export const processorEventEnqueuer =
  (boss: PgBoss) =>
  (client: PoolClient, job: ProcessorEventJob): Promise<string | null> =>
    enqueueProcessorEvent(boss, client, job);

function enqueueProcessorEvent(boss: PgBoss, client: PoolClient, job: ProcessorEventJob): Promise<string | null> {
  return boss.send(PROCESSOR_EVENTS_QUEUE, job, { db: { executeSql: (text, values) => client.query(text, values) } });
}
