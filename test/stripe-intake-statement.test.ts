// The intake writes an event's inbox row, its pg-boss job and the workers' wake-up in one
// statement. These tests hold that statement to pg-boss's own job row, to all-or-nothing, and to
// the LISTEN wake-up the workers rely on; and the writer that puts concurrent deliveries in one
// statement to the same rows and answers as one statement per event.
import type PgBoss from 'pg-boss';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InboxWriter } from '../src/db/inbox/inbox-writer.js';
import { type Wake, readWake } from '../src/core/intake-rate.js';
import { type NewInboxEvent, PROCESSOR_EVENTS_CHANNEL, storeEvent } from '../src/db/inbox/inbound-events.js';
import { PROCESSOR_EVENTS_JOB_QUEUE, PROCESSOR_EVENTS_QUEUE } from '../src/core/queue-names.js';
import { startQueue } from '../src/platform/queue.js';
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
  eventKey: id, endpoint: 'program', programId: null, account: null, type: 'checkout.session.completed', livemode: false,
  apiVersion: null, rawBody: Buffer.from(JSON.stringify({ id })), status, reason: null, objectIds: [], waitingFor: null,
});

const POLICY_COLUMNS = `name, priority, state, retry_limit, retry_count, retry_delay, retry_backoff, expire_in, dead_letter, policy,
  singleton_key, singleton_on, round(extract(epoch from keep_until - start_after) / 60) AS keep_minutes`;

it('writes the job pg-boss itself would write for the queue (policy, expiry, dead letter, retention)', async () => {
  const stored = await storeEvent(db.pool, PROCESSOR_EVENTS_JOB_QUEUE, event('evt_statement_1'));
  const ours = (await db.pool.query(`SELECT ${POLICY_COLUMNS}, data FROM pgboss.job WHERE data->>'inboxId' = $1`, [String(stored.id)])).rows;
  const theirsId = await boss.send(PROCESSOR_EVENTS_QUEUE, { inboxId: -1 });
  const theirs = (await db.pool.query(`SELECT ${POLICY_COLUMNS}, data FROM pgboss.job WHERE id = $1`, [theirsId])).rows;
  expect(ours).toHaveLength(1);
  expect({ ...ours[0], data: null }).toEqual({ ...theirs[0], data: null });
  expect(ours[0].data).toEqual({ inboxId: stored.id });
});

it('a redelivery adds neither a row nor a job; an ignored event gets no job', async () => {
  const first = await storeEvent(db.pool, PROCESSOR_EVENTS_JOB_QUEUE, event('evt_statement_2'));
  const again = await storeEvent(db.pool, PROCESSOR_EVENTS_JOB_QUEUE, event('evt_statement_2'));
  expect(again).toEqual({ ...first, duplicate: true });
  expect(await count(db.pool, "SELECT 1 FROM pgboss.job WHERE data->>'inboxId' = $1", [String(first.id)])).toBe(1);
  const ignored = await storeEvent(db.pool, PROCESSOR_EVENTS_JOB_QUEUE, event('evt_statement_3', 'ignored'));
  expect(await count(db.pool, "SELECT 1 FROM pgboss.job WHERE data->>'inboxId' = $1", [String(ignored.id)])).toBe(0);
});

it('no job, no row: a queue that does not exist stores nothing', async () => {
  await expect(storeEvent(db.pool, { schema: 'pgboss', name: 'no-such-queue' }, event('evt_statement_4'))).rejects.toThrow();
  expect(await count(db.pool, "SELECT 1 FROM webhook_events WHERE event_key = 'evt_statement_4'")).toBe(0);
});

/** The workers' channel heard from a connection of the test's own: each wake-up as it reads; `sync` returns once every notification sent before it has been heard. */
async function hearWakes(): Promise<{ heard: Wake[]; sync: () => Promise<unknown>; end: () => Promise<void> }> {
  const listener = new pg.Client({ connectionString: db.url });
  await listener.connect();
  const heard: Wake[] = [];
  listener.on('notification', (message) => message.channel === PROCESSOR_EVENTS_CHANNEL && heard.push(readWake(message.payload)));
  await listener.query(`LISTEN ${PROCESSOR_EVENTS_CHANNEL}`);
  return { heard, sync: () => listener.query('SELECT 1'), end: () => listener.end() };
}

it('wakes listening workers after the row commits, outside its statement (a redelivery or an ignored event is counted, with nothing to fetch)', async () => {
  const { heard, sync, end } = await hearWakes();
  try {
    // The statement alone notifies nobody: its commit holds no NOTIFY lock.
    await storeEvent(db.pool, PROCESSOR_EVENTS_JOB_QUEUE, event('evt_statement_5'));
    await sync();
    expect(heard).toEqual([]);
    // Through the writer, a redelivery and an ignored event: two deliveries received (they count
    // for the workers' burst rate, core/intake-rate.ts), nothing to fetch.
    const writer = new InboxWriter(db.pool, PROCESSOR_EVENTS_JOB_QUEUE);
    expect((await writer.store(event('evt_statement_5'))).duplicate).toBe(true);
    await writer.store(event('evt_statement_5b', 'ignored'));
    const received = () => heard.reduce((sum, wake) => sum + wake.received, 0);
    await expect.poll(received, { timeout: 5_000 }).toBe(2);
    expect(heard.every((wake) => wake.newEvents === 0)).toBe(true);
    // A new event, once its row committed: one to fetch.
    const stored = await writer.store(event('evt_statement_6'));
    expect(stored.duplicate).toBe(false);
    await expect.poll(received, { timeout: 5_000 }).toBe(3);
    expect(heard.at(-1)).toEqual({ newEvents: 1, received: 1 });
  } finally {
    await end();
  }
});

describe('concurrent deliveries written together', () => {
  // One statement on its way at a time: the first event goes alone, the ones behind it together.
  const writer = () => new InboxWriter(db.pool, PROCESSOR_EVENTS_JOB_QUEUE, { inFlight: 1, batch: 32 });
  const ROW = `endpoint, program_id, account, type, livemode, api_version, payload, raw_body, status, reason, object_ids, waiting_for,
               round(extract(epoch from wait_until - received_at) / 86400) AS wait_days`;
  const varied = (id: string, i: number): NewInboxEvent => ({
    ...event(id, i % 2 ? 'ignored' : 'queued'),
    endpoint: i % 2 ? 'connect' : 'program', account: i % 2 ? `acct_${id}` : null, livemode: i % 3 === 0, apiVersion: i % 3 ? '2024-06-20' : null,
    reason: i % 2 ? `waiting for acct_${id}` : null, objectIds: [`cs_${id}`, `pi_${id}`], waitingFor: i % 2 ? { id: `acct_${id}`, days: 7 } : null,
  });

  it("a batch mixing new events and redeliveries is counted whole, and its new events are fetched", async () => {
    const { heard, end } = await hearWakes();
    try {
      const mixing = writer();
      // The first goes alone; the four behind it together: a redelivery of it, two new events, one twice.
      const answers = await Promise.all(['evt_mix_1', 'evt_mix_1', 'evt_mix_2', 'evt_mix_3', 'evt_mix_3'].map((id) => mixing.store(event(id))));
      expect(answers.map((answer) => answer.duplicate)).toEqual([false, true, false, false, true]);
      const total = () => heard.reduce((sum, wake) => ({ newEvents: sum.newEvents + wake.newEvents, received: sum.received + wake.received }), { newEvents: 0, received: 0 });
      await expect.poll(() => total().received, { timeout: 5_000 }).toBe(5);
      expect(total()).toEqual({ newEvents: 3, received: 5 });
      expect(heard.some((wake) => wake.newEvents > 0 && wake.received > wake.newEvents)).toBe(true);
    } finally {
      await end();
    }
  });

  it('each event gets the row and job one statement of its own would write, and its own answer', async () => {
    const events = Array.from({ length: 10 }, (_, i) => varied(`evt_batch_${i}`, i));
    const answers = await Promise.all(events.map((e) => writer().store(e)));
    // (a writer per call would never batch: the same writer for all of them)
    const shared = writer();
    const batched = Array.from({ length: 10 }, (_, i) => varied(`evt_batched_${i}`, i));
    const together = await Promise.all(batched.map((e) => shared.store(e)));
    expect(new Set(together.map((answer) => answer.id)).size).toBe(10);
    const transactions = await db.pool.query("SELECT count(DISTINCT xmin::text)::int AS n FROM webhook_events WHERE event_key LIKE 'evt_batched_%'");
    expect(transactions.rows[0].n).toBe(2);
    for (let i = 0; i < 10; i++) {
      expect(together[i]).toEqual({ id: expect.any(Number), duplicate: false, status: batched[i]!.status });
      const [alone] = (await db.pool.query(`SELECT ${ROW} FROM webhook_events WHERE id = $1`, [answers[i]!.id])).rows;
      const [inBatch] = (await db.pool.query(`SELECT ${ROW}, event_key FROM webhook_events WHERE id = $1`, [together[i]!.id])).rows;
      expect(inBatch.event_key).toBe(`evt_batched_${i}`);
      const strip = (row: Record<string, unknown>) => JSON.parse(JSON.stringify(row).replaceAll('evt_batched_', 'X').replaceAll('evt_batch_', 'X'));
      expect(strip({ ...inBatch, event_key: undefined })).toEqual(strip(alone));
      const jobs = await count(db.pool, "SELECT 1 FROM pgboss.job WHERE data->>'inboxId' = $1", [String(together[i]!.id)]);
      expect(jobs).toBe(batched[i]!.status === 'queued' ? 1 : 0);
    }
  });

  it('a redelivery, earlier or in the same statement, is answered with the row already stored', async () => {
    const shared = writer();
    const first = await shared.store(event('evt_batch_dup_a'));
    const [, againA, b, againB] = await Promise.all(
      [event('evt_batch_dup_first'), event('evt_batch_dup_a'), event('evt_batch_dup_b'), event('evt_batch_dup_b')].map((e) => shared.store(e)),
    );
    expect(againA).toEqual({ ...first, duplicate: true });
    expect(b).toMatchObject({ duplicate: false, status: 'queued' });
    expect(againB).toEqual({ ...b, duplicate: true });
    expect(await count(db.pool, "SELECT 1 FROM webhook_events WHERE event_key = 'evt_batch_dup_b'")).toBe(1);
    expect(await count(db.pool, "SELECT 1 FROM pgboss.job WHERE data->>'inboxId' = $1", [String(b!.id)])).toBe(1);
  });

  it('a payload jsonb refuses is kept as bytes and refuses none of the events sent with it', async () => {
    const refused: NewInboxEvent = { ...event('evt_batch_nul'), rawBody: Buffer.from('{"id":"evt_batch_nul","note":"\\u0000"}') };
    const shared = writer();
    const [, good, bad, other] = await Promise.all(
      [event('evt_batch_nul_first'), event('evt_batch_nul_good'), refused, event('evt_batch_nul_other')].map((e) => shared.store(e)),
    );
    const rows = await db.pool.query('SELECT id, payload IS NOT NULL AS json, raw_body IS NOT NULL AS bytes FROM webhook_events WHERE id = ANY ($1::bigint[]) ORDER BY id', [[good!.id, bad!.id, other!.id]]);
    expect(Object.fromEntries(rows.rows.map((row) => [row.id, [row.json, row.bytes]]))).toEqual({
      [good!.id]: [true, false], [bad!.id]: [false, true], [other!.id]: [true, false],
    });
  });
});
