// pg-boss: the job queue lives in the same PostgreSQL. Queue names and retry policy in one place.
import PgBoss from 'pg-boss';
import type { PoolClient } from './db/pool.js';

export const STRIPE_EVENTS_QUEUE = 'stripe-events';
export const STRIPE_EVENTS_DEAD_QUEUE = 'stripe-events-dead';

export interface QueuePolicy {
  retryLimit: number;
  retryDelaySeconds: number;
}

export async function startQueue(connectionString: string, policy: QueuePolicy, role: { supervise: boolean }): Promise<PgBoss> {
  const boss = new PgBoss({ connectionString, max: 4, application_name: 'affix-queue', supervise: role.supervise, schedule: false });
  boss.on('error', () => undefined); // surfaced by the worker's own logging; never crash the process
  await boss.start();
  await boss.createQueue(STRIPE_EVENTS_DEAD_QUEUE, { name: STRIPE_EVENTS_DEAD_QUEUE, retryLimit: 0 }).catch(ignoreExists);
  await boss.createQueue(STRIPE_EVENTS_QUEUE, {
    name: STRIPE_EVENTS_QUEUE,
    retryLimit: policy.retryLimit,
    retryDelay: policy.retryDelaySeconds,
    retryBackoff: true,
    deadLetter: STRIPE_EVENTS_DEAD_QUEUE,
  }).catch(ignoreExists);
  await boss.updateQueue(STRIPE_EVENTS_QUEUE, {
    name: STRIPE_EVENTS_QUEUE,
    retryLimit: policy.retryLimit,
    retryDelay: policy.retryDelaySeconds,
    retryBackoff: true,
    deadLetter: STRIPE_EVENTS_DEAD_QUEUE,
  });
  return boss;
}

function ignoreExists(error: unknown): void {
  if (!/already exists/i.test(String((error as Error)?.message))) throw error;
}

export interface StripeEventJob {
  inboxId: number;
}

/** Enqueues inside the caller's transaction: the job exists exactly when the inbox row does. */
export function enqueueStripeEvent(boss: PgBoss, client: PoolClient, job: StripeEventJob): Promise<string | null> {
  return boss.send(STRIPE_EVENTS_QUEUE, job, { db: { executeSql: (text, values) => client.query(text, values) } });
}
