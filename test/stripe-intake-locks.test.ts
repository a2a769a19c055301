// The intake never waits on a worker. A worker batch holds its transaction open while it
// attributes its events and writes their outcomes (a batch of 32 holds it for a second or
// more under load); a redelivery of one of those events, or a new event, arriving meanwhile
// is answered at once. Driven by order, not by the clock: the real batch is paused at its
// COMMIT, when every lock it takes is held, and the deliveries must be answered before it
// is let go.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type Pool, type PoolClient, createPool } from '../src/db/infra/pool.js';
import { type NewInboxEvent, storeEvents } from '../src/db/inbox/inbound-events.js';
import { handleProcessorEventBatch } from '../src/jobs/processor-event-job.js';
import { PROCESSOR_EVENTS_JOB_QUEUE } from '../src/core/queue-names.js';
import { type TestApi, type TestDatabase, count, createTestDatabase, startTestApi, trackClick } from './support/harness.js';
import { CONNECT_SECRET, deliver, fixture, seedStripeCustomer, workerDeps } from './support/stripe.js';

let db: TestDatabase;
let api: TestApi;
let workerPool: Pool;

beforeAll(async () => {
  db = await createTestDatabase();
  // Intake only: the test runs the worker's batch itself, paused where it holds its locks.
  api = await startTestApi(db.pool, { AFFIX_SECRET_KEY: 'test-secret-key-0123456789', STRIPE_CONNECT_WEBHOOK_SECRET: CONNECT_SECRET }, { queueUrl: db.url });
  workerPool = createPool(db.url, { statementTimeoutMs: 15_000 });
});
afterAll(async () => {
  await workerPool?.end();
  await api?.close();
  await db?.drop();
});

/** A latch on the worker pool's COMMIT: `reached` resolves when a transaction is about to commit, which waits for `release()`. */
function pauseCommits(pool: Pool) {
  let reachedCommit!: () => void;
  let release!: () => void;
  const reached = new Promise<void>((resolve) => (reachedCommit = resolve));
  const released = new Promise<void>((resolve) => (release = resolve));
  let committed = false;
  const connect = pool.connect.bind(pool) as (...args: unknown[]) => Promise<PoolClient>;
  const paused = new Set<PoolClient>();
  // Transactions take a client with connect(); pool.query's own clients (a callback) are left alone.
  (pool as { connect: unknown }).connect = async (...args: unknown[]) => {
    if (args.length) return connect(...args);
    const client = await connect();
    if (paused.has(client)) return client;
    paused.add(client);
    const query = client.query.bind(client) as (...args: unknown[]) => Promise<unknown>;
    (client as { query: unknown }).query = async (...args: unknown[]) => {
      if (args[0] !== 'COMMIT') return query(...args);
      reachedCommit();
      await released;
      const result = await query(...args);
      committed = true;
      return result;
    };
    return client;
  };
  return { reached, release, committed: () => committed };
}

/** The inbox row the intake would store for a verified event of the program. */
const inboxEvent = (programId: number, event: { id: string }): NewInboxEvent => ({
  eventKey: event.id, endpoint: 'program', programId, account: null, type: 'checkout.session.completed', livemode: true,
  apiVersion: null, rawBody: Buffer.from(JSON.stringify(event)), status: 'queued', reason: null, objectIds: [], waitingFor: null,
});

it('a redelivery of an event whose worker batch is mid-transaction, and a new event, are answered 2xx before the batch commits', async () => {
  const { shop, run } = await seedStripeCustomer(api);
  const endpoint = `/api/v1/webhooks/stripe/${shop.programId}`;
  // Four buyers, each with a click: three payments go into the batch, the fourth arrives while it is open.
  const events: Record<string, any>[] = [];
  for (let i = 0; i < 4; i++) {
    const buyer = `${run}_b${i}`;
    const clickId = await trackClick(api, shop.affiliateUrl);
    events.push(await fixture('checkout.session.completed.payment', { run: buyer, click_id: clickId, customer_key: `user_${buyer}`, program_id: shop.programId, email: `buyer_${buyer}@example.com` }));
  }
  const batched = events.slice(0, 3);
  const ids: number[] = [];
  for (const event of batched) {
    const reply = await deliver(api, endpoint, event);
    expect(reply.status).toBe(200);
    ids.push(reply.body.id);
  }

  const latch = pauseCommits(workerPool);
  const batch = handleProcessorEventBatch({ ...workerDeps(api), pool: workerPool }, ids.map((inboxId) => ({ inboxId, jobId: `locks-${inboxId}` })));
  await latch.reached;
  // The batch holds its locks now: its outcome's row is locked against anyone who would change it.
  const locked = await db.pool.connect();
  try {
    await locked.query('BEGIN');
    await expect(locked.query('SELECT 1 FROM webhook_events WHERE id = $1 FOR UPDATE NOWAIT', [ids[0]])).rejects.toMatchObject({ code: '55P03' });
  } finally {
    await locked.query('ROLLBACK');
    locked.release();
  }

  // While it is open: the redelivery of one of its events and a new event through the HTTP intake,
  // then (concurrent deliveries share one statement, InboxWriter) a redelivery and a new event in one statement.
  const whileOpen = async () => {
    const started = Date.now();
    const [redelivery, fresh] = await Promise.all([deliver(api, endpoint, batched[0]), deliver(api, endpoint, events[3])]);
    const ms = Date.now() - started;
    const answeredOpen = !latch.committed();
    const together = await storeEvents(db.pool, PROCESSOR_EVENTS_JOB_QUEUE, [inboxEvent(shop.programId, batched[1] as { id: string }), inboxEvent(shop.programId, { id: `evt_${run}_new` })])
      .catch((error: Error) => error.message);
    return { redelivery, fresh, ms, answeredOpen, together, storedOpen: !latch.committed() };
  };
  const open = await whileOpen().finally(latch.release);
  expect(await batch).toEqual([]);

  const { redelivery, fresh } = open;
  console.log(`intake while a worker batch held its transaction: redelivery ${redelivery.status}, new event ${fresh.status}, both answered in ${open.ms} ms`);
  expect(open.answeredOpen).toBe(true);
  expect(redelivery.status).toBe(200);
  expect(redelivery.body).toEqual({ received: true, id: ids[0], duplicate: true, status: 'queued' });
  expect(fresh.status).toBe(200);
  expect(fresh.body).toMatchObject({ received: true, duplicate: false, status: 'queued' });
  expect(open.storedOpen).toBe(true);
  expect(open.together).toEqual([{ id: ids[1], duplicate: true, status: 'queued' }, { id: expect.any(Number), duplicate: false, status: 'queued' }]);
  // The batch then committed its outcomes; the redelivery added neither a row nor a job, the new event has its own.
  expect((await db.pool.query('SELECT status FROM webhook_events WHERE id = ANY ($1::bigint[])', [ids])).rows.map((row) => row.status)).toEqual(['processed', 'processed', 'processed']);
  expect(await count(db.pool, 'SELECT 1 FROM webhook_events WHERE event_key = $1', [batched[0]!.id])).toBe(1);
  expect(await count(db.pool, "SELECT 1 FROM pgboss.job WHERE name = 'processor-events' AND data ->> 'inboxId' = $1", [String(ids[0])])).toBe(1);
  expect(await count(db.pool, "SELECT 1 FROM pgboss.job WHERE name = 'processor-events' AND data ->> 'inboxId' = $1", [String(fresh!.body.id)])).toBe(1);
});

it('an inbox row without its key (stored by a version before migration 0039 running beside this one) is answered as a redelivery, alone and in one statement with others', async () => {
  const { shop, run } = await seedStripeCustomer(api);
  const endpoint = `/api/v1/webhooks/stripe/${shop.programId}`;
  const event = await fixture('checkout.session.completed.payment', { run: `${run}_old`, customer_key: `user_${run}_old`, program_id: shop.programId, email: `buyer_${run}_old@example.com` });
  const first = await deliver(api, endpoint, event);
  expect(first.status).toBe(200);
  await db.pool.query('DELETE FROM webhook_event_keys WHERE event_key = $1', [event.id]);
  const again = await deliver(api, endpoint, event);
  expect(again.status).toBe(200);
  expect(again.body).toMatchObject({ received: true, id: first.body.id, duplicate: true });
  await db.pool.query('DELETE FROM webhook_event_keys WHERE event_key = $1', [event.id]);
  const together = await storeEvents(db.pool, PROCESSOR_EVENTS_JOB_QUEUE, [inboxEvent(shop.programId, event as { id: string }), inboxEvent(shop.programId, { id: `evt_${run}_beside` })]);
  expect(together).toEqual([{ id: first.body.id, duplicate: true, status: expect.any(String) }, { id: expect.any(Number), duplicate: false, status: 'queued' }]);
  expect(await count(db.pool, 'SELECT 1 FROM webhook_events WHERE event_key = $1', [event.id])).toBe(1);
});
