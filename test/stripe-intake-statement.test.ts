// The intake writes an event's inbox row, its pg-boss job and the workers' wake-up in one
// statement. These tests hold that statement to pg-boss's own job row, to all-or-nothing, and to
// the LISTEN wake-up the workers rely on.
import type PgBoss from 'pg-boss';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type NewInboxEvent, STRIPE_EVENTS_CHANNEL, storeEvent } from '../src/db/webhook-events.js';
import { STRIPE_EVENTS_JOB_QUEUE, STRIPE_EVENTS_QUEUE, startQueue } from '../src/platform/queue.js';
import { type TestDatabase, count, createTestDatabase } from './support/harness.js';

let db: TestDatabase;
let boss: PgBoss;

beforeAll(async () => {
  db = await createTestDatabase();
  boss = await startQueue(db.url, { retryLimit: 3, retryDelaySeconds: 2 }, { supervise: false });
});
afterAll(async () => {
  await boss?.stop({ graceful: false, wait: true, close: true });
  await db?.drop();
});

const event = (id: string, status: NewInboxEvent['status'] = 'queued'): NewInboxEvent => ({
  stripeEventId: id, endpoint: 'program', programId: null, account: null, type: 'checkout.session.completed', livemode: false,
  apiVersion: null, rawBody: Buffer.from(JSON.stringify({ id })), status, reason: null, objectIds: [], waitingFor: null,
});

const POLICY_COLUMNS = `name, priority, state, retry_limit, retry_count, retry_delay, retry_backoff, expire_in, dead_letter, policy,
  singleton_key, singleton_on, round(extract(epoch from keep_until - start_after) / 60) AS keep_minutes`;

it('writes the job pg-boss itself would write for the queue (policy, expiry, dead letter, retention)', async () => {
  const stored = await storeEvent(db.pool, STRIPE_EVENTS_JOB_QUEUE, event('evt_statement_1'));
  const ours = (await db.pool.query(`SELECT ${POLICY_COLUMNS}, data FROM pgboss.job WHERE data->>'inboxId' = $1`, [String(stored.id)])).rows;
  const theirsId = await boss.send(STRIPE_EVENTS_QUEUE, { inboxId: -1 });
  const theirs = (await db.pool.query(`SELECT ${POLICY_COLUMNS}, data FROM pgboss.job WHERE id = $1`, [theirsId])).rows;
  expect(ours).toHaveLength(1);
  expect({ ...ours[0], data: null }).toEqual({ ...theirs[0], data: null });
  expect(ours[0].data).toEqual({ inboxId: stored.id });
});

it('a redelivery adds neither a row nor a job; an ignored event gets no job', async () => {
  const first = await storeEvent(db.pool, STRIPE_EVENTS_JOB_QUEUE, event('evt_statement_2'));
  const again = await storeEvent(db.pool, STRIPE_EVENTS_JOB_QUEUE, event('evt_statement_2'));
  expect(again).toEqual({ ...first, duplicate: true });
  expect(await count(db.pool, "SELECT 1 FROM pgboss.job WHERE data->>'inboxId' = $1", [String(first.id)])).toBe(1);
  const ignored = await storeEvent(db.pool, STRIPE_EVENTS_JOB_QUEUE, event('evt_statement_3', 'ignored'));
  expect(await count(db.pool, "SELECT 1 FROM pgboss.job WHERE data->>'inboxId' = $1", [String(ignored.id)])).toBe(0);
});

it('no job, no row: a queue that does not exist stores nothing', async () => {
  await expect(storeEvent(db.pool, { schema: 'pgboss', name: 'no-such-queue' }, event('evt_statement_4'))).rejects.toThrow();
  expect(await count(db.pool, "SELECT 1 FROM webhook_events WHERE stripe_event_id = 'evt_statement_4'")).toBe(0);
});

it('wakes listening workers when the row commits', async () => {
  const listener = new pg.Client({ connectionString: db.url });
  await listener.connect();
  try {
    await listener.query(`LISTEN ${STRIPE_EVENTS_CHANNEL}`);
    const heard = new Promise<string>((resolve) => listener.on('notification', (message) => resolve(message.channel)));
    await storeEvent(db.pool, STRIPE_EVENTS_JOB_QUEUE, event('evt_statement_5'));
    expect(await heard).toBe(STRIPE_EVENTS_CHANNEL);
  } finally {
    await listener.end();
  }
});
