// The workers during a burst (AFFIX_WORKER_YIELD_ABOVE, src/core/intake-rate.ts), started for
// real on pg-boss: while the intake's wake-ups count more events a second than the threshold,
// only the first processor-event fetcher takes batches, pausing BURST_PAUSE_MS after each; once the
// burst is over (a second later by the workers' clock) every fetcher is woken and takes batches
// again. The workers' clock and the pause are the test's: nothing here waits on the wall clock
// (the fetchers' polling interval is 60 s, so only wake-ups make them fetch while the test runs).
import type PgBoss from 'pg-boss';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BURST_PAUSE_MS } from '../src/core/intake-rate.js';
import { wakeWorkers } from '../src/db/inbox/inbound-events.js';
import { type RunningWorkers, startWorkers } from '../src/jobs/index.js';
import { loadConfig } from '../src/platform/config.js';
import { createLogger } from '../src/platform/logger.js';
import { PROCESSOR_EVENTS_QUEUE } from '../src/core/queue-names.js';
import { type TestApi, type TestDatabase, createTestDatabase, startTestApi } from './support/harness.js';
import { deliver, fixture, seedStripeCustomer } from './support/stripe.js';

const ENV = {
  AFFIX_SECRET_KEY: 'worker-yield-test-secret-key-0123',
  AFFIX_WORKER_CONCURRENCY: '3',
  AFFIX_WORKER_BATCH_SIZE: '2',
  AFFIX_WORKER_POLL_SECONDS: '60',
  AFFIX_WORKER_YIELD_ABOVE: '10',
};

let db: TestDatabase;
let api: TestApi;
let workers: RunningWorkers;

/** Each batch a Stripe-event fetcher took: which fetcher (in the order they were started), and in which phase of the test. */
const batches: { fetcher: number; phase: string }[] = [];
/** Each fetcher woken by the workers (notifyWorker), in order. */
const woken: number[] = [];
let phase = 'start';

/** The queue as the workers see it, telling the test which fetcher takes a batch and which is woken. */
function watched(boss: PgBoss): PgBoss {
  const ids: string[] = [];
  return new Proxy(boss, {
    get(target, property) {
      if (property === 'work') {
        return async (name: string, ...args: unknown[]) => {
          if (name !== PROCESSOR_EVENTS_QUEUE) return (target.work as (...all: unknown[]) => Promise<string>)(name, ...args);
          const [options, handler] = args as [PgBoss.WorkOptions, PgBoss.WorkHandler<unknown>];
          const fetcher = ids.length;
          ids.push('');
          const id = await target.work(name, options, async (jobs: PgBoss.Job<unknown>[]) => {
            batches.push({ fetcher, phase });
            return handler(jobs);
          });
          ids[fetcher] = id;
          return id;
        };
      }
      if (property === 'notifyWorker') {
        return (id: string) => {
          if (ids.includes(id)) woken.push(ids.indexOf(id));
          target.notifyWorker(id);
        };
      }
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** Polled until true (never a fixed wait). */
async function until(what: string, done: () => boolean | Promise<boolean>) {
  for (let tries = 0; tries < 1_000; tries++) {
    if (await done()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`never: ${what}`);
}

// The workers' clock, moved by the test.
let nowMs = Date.parse('2026-03-02T10:00:00Z');
// The pause after a batch: recorded; released at once unless the test holds the next one.
const pauses: number[] = [];
let holdNextPause = false;
let heldPause: (() => void) | null = null;
const sleep = (ms: number) => {
  pauses.push(ms);
  if (!holdNextPause) return Promise.resolve();
  holdNextPause = false;
  return new Promise<void>((resolve) => (heldPause = resolve));
};

beforeAll(async () => {
  db = await createTestDatabase();
  api = await startTestApi(db.pool, ENV, { queueUrl: db.url });
  workers = await startWorkers(watched(api.queue!), { pool: db.pool, logger: createLogger('silent'), now: () => new Date(nowMs), sleep }, loadConfig(ENV));
});
afterAll(async () => {
  heldPause?.();
  await workers?.stop();
  await api?.close();
  await db?.drop();
});

describe('workers during a burst', () => {
  it('only the first fetcher takes batches, pausing between them; after the burst all fetch again', async () => {
    const { shop, vars } = await seedStripeCustomer(api);
    let sent = 0;
    /** `n` signed checkouts through the API: each stored with its job and a wake-up counting it. */
    const deliverCheckouts = async (n: number) => {
      for (let i = 0; i < n; i++) {
        sent += 1;
        const event = await fixture('checkout.session.completed.payment', { ...vars, run: `${vars.run}_${sent}`, created: Math.floor(nowMs / 1000) });
        expect((await deliver(api, `/api/v1/webhooks/stripe/${shop.programId}`, event)).status).toBe(200);
      }
    };
    const processed = async () =>
      (await db.pool.query("SELECT count(*)::int AS n FROM webhook_events WHERE program_id = $1 AND status = 'processed'", [shop.programId])).rows[0].n as number;
    // Each fetcher fetched once when started and once more when the listener started (it wakes
    // them all); their queue connections idle: they all sleep their 60 s now.
    await until('the listener wakes every fetcher', () => [0, 1, 2].every((f) => woken.includes(f)));
    await until('the fetchers are asleep', async () =>
      (await db.pool.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'affix-queue' AND state <> 'idle'")).rows[0].n === 0);

    // The burst: the intake's wake-ups count 50 events this second (threshold 10).
    phase = 'burst';
    const wokenBefore = woken.length;
    await wakeWorkers(db.pool, { newEvents: 50, received: 50 });
    await until('the wake-up is heard', () => woken.length > wokenBefore);
    await deliverCheckouts(8);
    // Drained, and the first fetcher's last pause begun (it follows its batch's commit).
    await until('the burst is drained', async () => (await processed()) === 8 && pauses.length >= batches.filter((b) => b.fetcher === 0).length);
    const inBurst = batches.filter((b) => b.phase === 'burst');
    expect(inBurst.length).toBeGreaterThanOrEqual(4);
    expect(new Set(inBurst.map((b) => b.fetcher))).toEqual(new Set([0]));
    expect(new Set(woken.slice(wokenBefore))).toEqual(new Set([0]));
    // A pause after each batch of the burst.
    expect(pauses).toEqual(inBurst.map(() => BURST_PAUSE_MS));

    // Still in the burst: the first fetcher is held in its pause after its next batch, and what
    // arrives meanwhile waits (nobody else is woken).
    holdNextPause = true;
    await deliverCheckouts(1);
    await until('the first fetcher pauses', () => heldPause !== null);
    await deliverCheckouts(6);
    expect(await processed()).toBe(9);

    // The burst is over by the workers' clock (nothing counted for two seconds); the next wake-up
    // wakes every fetcher, and the others take the waiting events while the first still pauses.
    phase = 'after';
    nowMs += 2_000;
    const wokenAfter = woken.length;
    await wakeWorkers(db.pool, { newEvents: 1, received: 1 });
    await until('the fetchers beyond the first take batches', () => [1, 2].every((f) => batches.some((b) => b.phase === 'after' && b.fetcher === f)));
    expect(new Set(woken.slice(wokenAfter))).toEqual(new Set([0, 1, 2]));
    heldPause!();
    await until('everything is processed', async () => (await processed()) === 15);
  });

  it('redeliveries count for the burst: their wake-ups wake no fetcher, and new events then go to the first fetcher alone', async () => {
    const { shop, vars } = await seedStripeCustomer(api);
    phase = 'before redeliveries';
    nowMs += 5_000; // the first test's deliveries are long past
    const event = await fixture('checkout.session.completed.payment', { ...vars, run: `${vars.run}_redelivered`, created: Math.floor(nowMs / 1000) });
    const first = await deliver(api, `/api/v1/webhooks/stripe/${shop.programId}`, event);
    expect(first.body).toMatchObject({ received: true, duplicate: false });
    await until('the event is processed', async () =>
      (await db.pool.query("SELECT status FROM webhook_events WHERE id = $1", [first.body.id])).rows[0].status === 'processed');
    await until('the fetchers are asleep', async () =>
      (await db.pool.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'affix-queue' AND state <> 'idle'")).rows[0].n === 0);

    // A processor retrying its backlog: the same event twelve times this second (threshold 10).
    phase = 'redeliveries';
    const wokenBefore = woken.length;
    for (let i = 0; i < 12; i++) expect((await deliver(api, `/api/v1/webhooks/stripe/${shop.programId}`, event)).body).toMatchObject({ duplicate: true });
    // New events now: the intake is busy, so only the first fetcher takes them.
    phase = 'new after redeliveries';
    for (let i = 0; i < 3; i++) {
      const fresh = await fixture('checkout.session.completed.payment', { ...vars, run: `${vars.run}_after_${i}`, created: Math.floor(nowMs / 1000) });
      expect((await deliver(api, `/api/v1/webhooks/stripe/${shop.programId}`, fresh)).body).toMatchObject({ duplicate: false });
    }
    await until('the new events are processed', async () =>
      (await db.pool.query("SELECT count(*)::int AS n FROM webhook_events WHERE program_id = $1 AND status = 'processed'", [shop.programId])).rows[0].n === 4);
    const taken = batches.filter((b) => b.phase === 'new after redeliveries');
    expect(taken.length).toBeGreaterThan(0);
    expect(new Set(taken.map((b) => b.fetcher))).toEqual(new Set([0]));
    // Wake-ups reach the listener in the order they were sent: the redeliveries' ones were heard
    // before the new events' ones, and none of them woke a fetcher beyond the first.
    expect(new Set(woken.slice(wokenBefore))).toEqual(new Set([0]));
  });
});
