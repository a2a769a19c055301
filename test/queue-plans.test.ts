// The worker's drain on every supported PostgreSQL version (README, "Supported PostgreSQL
// versions"): pg-boss's fetch and the batch's statements read a backlog of 20,000 jobs through
// their indexes, never sort or scan it whole, and are never planned for JIT compilation (a
// server built with LLVM compiled each fetch: 100-600 ms a call on Debian's 15, drain 0.13 of
// ingest). Plans only (EXPLAIN, structure), never timings; each version its own throw-away
// server, started side by side.
import { createRequire } from 'node:module';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type PgBoss from 'pg-boss';
import { migrate } from '../src/db/infra/migrate.js';
import { DATABASE_TIMEOUTS, type Pool, createPool } from '../src/db/infra/pool.js';
import { finishEvents } from '../src/db/inbox/event-outcomes.js';
import { loadEventPayloads, storeEvent, storeEvents, type NewInboxEvent } from '../src/db/inbox/inbound-events.js';
import { PROCESSOR_EVENTS_JOB_QUEUE, PROCESSOR_EVENTS_QUEUE } from '../src/core/queue-names.js';
import { startQueue } from '../src/platform/queue.js';
import { type PlanNode, planAsksForJit, planNodes, recordStatements, sortsOfLargeTables, wholeTableScans } from './support/query-plans.js';
import { type PostgresBuild, type ThrowawayServer, postgresBuilds, startThrowawayServer } from './support/postgres-versions.js';

const plans = createRequire(import.meta.url)('pg-boss/src/plans.js') as {
  fetchNextJob(schema: string): (options: { includeMetadata: boolean; priority: boolean }) => string;
  completeJobs(schema: string): string;
};
const SCHEMA = PROCESSOR_EVENTS_JOB_QUEUE.schema;
/** The text pg-boss's `work` fetches with (its defaults: no metadata, by priority). */
const FETCH = plans.fetchNextJob(SCHEMA)({ includeMetadata: false, priority: true });
const BATCH = 32;
const BACKLOG = 20_000;

interface Explained {
  plan: PlanNode;
  jit: boolean;
}

interface Examined {
  version: string;
  /** Each statement, in each phase: what is wrong with its plan (none: []). */
  problems: string[];
  /** The index each fetch walked. */
  fetchIndexes: string[];
  statementsExplained: number;
}

/** EXPLAIN (FORMAT JSON) on a connection: the plan, and whether the planner asked for JIT with that connection's settings. */
async function explain(query: (text: string, values?: unknown[]) => Promise<{ rows: any[] }>, text: string, values: unknown[]): Promise<Explained> {
  const { rows } = await query(`EXPLAIN (FORMAT JSON) ${text}`, values);
  const root = rows[0]['QUERY PLAN'][0];
  const settings = (await query("SELECT current_setting('jit') AS jit, current_setting('jit_above_cost')::float8 AS above")).rows[0];
  return { plan: root.Plan, jit: 'JIT' in root || planAsksForJit(root.Plan, { jit: settings.jit, jitAboveCost: Number(settings.above) }) };
}

/** The generic plan of a named statement (what a connection runs from its sixth execution on). */
async function explainGeneric(pool: Pool, text: string): Promise<Explained> {
  const client = await pool.connect();
  try {
    const count = Math.max(0, ...[...text.matchAll(/\$(\d+)/g)].map((m) => Number(m[1])));
    await client.query(`PREPARE affix_plan_check AS ${text}`);
    await client.query('SET plan_cache_mode = force_generic_plan');
    const args = count ? `(${Array(count).fill('NULL').join(', ')})` : '';
    return await explain((t, v) => client.query(t, v), `EXECUTE affix_plan_check${args}`, []);
  } finally {
    await client.query('DEALLOCATE affix_plan_check; RESET plan_cache_mode').catch(() => undefined);
    client.release();
  }
}

function problemsOf(what: string, explained: Explained, large: Set<string>): string[] {
  return [...wholeTableScans(explained.plan, large), ...sortsOfLargeTables(explained.plan, large), ...(explained.jit ? ['planned for JIT compilation'] : [])].map(
    (problem) => `${what}: ${problem}`,
  );
}

const inboxEvent = (id: string): NewInboxEvent => ({
  eventKey: id, endpoint: 'program', programId: null, account: null, type: 'checkout.session.completed', livemode: false, apiVersion: '2024-06-20',
  rawBody: Buffer.from(JSON.stringify({ id, object: 'event' })), status: 'queued', reason: null, objectIds: ['cs_test_plan'], waitingFor: null,
});

async function examine(build: PostgresBuild & { bin: string }): Promise<Examined> {
  let server: ThrowawayServer | null = null;
  let setup: Pool | null = null;
  let app: Pool | null = null;
  let boss: PgBoss | null = null;
  try {
    server = await startThrowawayServer(build.bin);
    const url = server.adminUrl;
    setup = createPool(url, { max: 2, statementTimeoutMs: 120_000 });
    await migrate(setup);
    boss = await startQueue(url, { retryLimit: 5, retryDelaySeconds: 5 }, { supervise: false });
    const db = boss.getDb();
    const queueQuery = (text: string, values?: unknown[]) => db.executeSql(text, values ?? []) as Promise<{ rows: any[] }>;
    const version = (await setup.query('SHOW server_version')).rows[0].server_version as string;
    const { rows: partitions } = await setup.query(`SELECT partition_name FROM ${SCHEMA}.queue WHERE name = $1`, [PROCESSOR_EVENTS_QUEUE]);
    const partition = partitions[0].partition_name as string;
    const { rows: fetchOrder } = await setup.query(
      `SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_class p ON p.oid = i.inhparent
        WHERE p.relname = 'affix_job_fetch_order' AND c.relname IN (SELECT indexname FROM pg_indexes WHERE schemaname = $1 AND tablename = $2)`,
      [SCHEMA, partition],
    );
    const fetchOrderIndex = fetchOrder[0]?.relname as string | undefined;

    // The queue's statistics as a quiet hour leaves them (no job waiting); then a burst: 20,000
    // events waiting beside 20,000 done. Plans are checked on those stale statistics, and again
    // once analyzed (as a worker starting on a backlog does: src/db/infra/queue-statistics.ts).
    await setup.query('ANALYZE');
    await setup.query(
      `INSERT INTO webhook_events (event_key, endpoint, type, livemode, payload, status)
       SELECT 'evt_plan_' || g, 'program', 'checkout.session.completed', false, '{}', CASE WHEN g <= $1 THEN 'processed' ELSE 'queued' END
         FROM generate_series(1, 2 * $1::int) g`,
      [BACKLOG],
    );
    await setup.query(
      `INSERT INTO ${SCHEMA}.job (name, data, state, started_on, completed_on, created_on)
       SELECT $1, jsonb_build_object('inboxId', g), 'completed', now(), now(), now() - interval '2 hours' + g * interval '1 ms' FROM generate_series(1, $2::int) g`,
      [PROCESSOR_EVENTS_QUEUE, BACKLOG],
    );
    await setup.query(
      `INSERT INTO ${SCHEMA}.job (name, data, created_on, start_after)
       SELECT $1, jsonb_build_object('inboxId', g), now() - interval '1 hour' + g * interval '1 ms', now() - interval '1 hour'
         FROM generate_series($2::int + 1, 2 * $2::int) g`,
      [PROCESSOR_EVENTS_QUEUE, BACKLOG],
    );
    const large = new Set(['webhook_events', partition]);

    app = createPool(url, { max: 2, statementTimeoutMs: DATABASE_TIMEOUTS.workerStatementMs });
    const recorder = recordStatements(app);
    const problems: string[] = [];
    const fetchIndexes: string[] = [];
    let statementsExplained = 0;
    let inboxFrom = BACKLOG + 1;
    for (const phase of ['statistics stale after the burst', 'analyzed']) {
      if (phase === 'analyzed') await setup.query(`ANALYZE webhook_events; ANALYZE ${SCHEMA}.job`);

      // pg-boss's fetch, on the queue's own connections, as its workers send it (unnamed: planned
      // with its values at each call), a few times first, as a worker polls.
      for (let i = 0; i < 6; i++) await queueQuery(FETCH, [PROCESSOR_EVENTS_QUEUE, BATCH]);
      const fetch = await explain(queueQuery, FETCH, [PROCESSOR_EVENTS_QUEUE, BATCH]);
      const walked = planNodes(fetch.plan).filter((node) => node['Relation Name'] === partition && node['Index Name']).map((node) => node['Index Name']!);
      fetchIndexes.push(...walked);
      if (!fetchOrderIndex || !walked.includes(fetchOrderIndex)) problems.push(`${phase}, fetch: walks ${walked.join(', ') || 'no index'}, not affix_job_fetch_order (${fetchOrderIndex ?? 'missing'})`);
      problems.push(...problemsOf(`${phase}, fetch`, fetch, large));
      const taken = (await queueQuery(FETCH, [PROCESSOR_EVENTS_QUEUE, BATCH])).rows.map((row) => row.id as string);
      const complete = await explain(queueQuery, plans.completeJobs(SCHEMA), [PROCESSOR_EVENTS_QUEUE, taken, null]);
      problems.push(...problemsOf(`${phase}, completion`, complete, large));

      // The intake's statements (one event, several at once) and the worker batch's: its events
      // read, their outcomes written (with every wake branch taken), each as its connection
      // plans it first (with the values) and from its sixth execution (generic).
      recorder.sent.splice(0);
      await storeEvent(app, PROCESSOR_EVENTS_JOB_QUEUE, inboxEvent(`evt_plan_one_${randomUUID()}`));
      await storeEvents(app, PROCESSOR_EVENTS_JOB_QUEUE, [inboxEvent(`evt_plan_a_${randomUUID()}`), inboxEvent(`evt_plan_b_${randomUUID()}`)]);
      const ids = Array.from({ length: BATCH }, (_, i) => inboxFrom + i);
      inboxFrom += BATCH;
      await loadEventPayloads(app, ids);
      await finishEvents(
        app,
        ids.map((id) => ({
          id,
          update: { status: 'processed', attributionStep: 'click', saleId: null },
          wake: { queue: PROCESSOR_EVENTS_JOB_QUEUE, programId: 1, processorCustomerId: 'cus_plan', saleId: 1, linked: { invoiceId: 'in_plan', paymentIds: ['pi_plan'] } },
        })),
      );
      const seen = new Set<string>();
      // The explaining below goes through the same pool: only what was sent before it.
      for (const statement of recorder.sent.splice(0)) {
        if (seen.has(statement.text) || /^\s*(BEGIN|COMMIT|ROLLBACK|SELECT pg_notify)/i.test(statement.text)) continue;
        seen.add(statement.text);
        const what = `${phase}, ${statement.text.replace(/\s+/g, ' ').slice(0, 90)}`;
        problems.push(...problemsOf(`${what} (with its values)`, await explain((t, v) => app!.query(t, v), statement.text, statement.values), large));
        problems.push(...problemsOf(`${what} (generic)`, await explainGeneric(app, statement.text), large));
        statementsExplained++;
      }
    }
    return { version, problems, fetchIndexes, statementsExplained };
  } finally {
    await boss?.stop({ graceful: false, wait: true }).catch(() => undefined);
    await app?.end().catch(() => undefined);
    await setup?.end().catch(() => undefined);
    await server?.stop();
  }
}

const builds = postgresBuilds();
const examined = new Map<string, Examined | Error>();

beforeAll(async () => {
  // Side by side: each server is small, and most of the time is each one's start and migrations.
  await Promise.all(
    builds.map(async (build) => {
      if (!build.bin) return;
      examined.set(build.label, await examine({ ...build, bin: build.bin }).catch((error: Error) => error));
    }),
  );
}, 120_000);

afterAll(() => {
  for (const build of builds) if (build.missing) console.warn(`[queue-plans] PostgreSQL ${build.label} skipped: ${build.missing}`);
});

describe('the drain on every supported PostgreSQL version', () => {
  for (const build of builds) {
    // Debian's 15 is the one optional build (as for the failover tests); the embedded ones are development dependencies.
    const run = build.bin || !build.label.includes('Debian') ? it : it.skip;
    run(`PostgreSQL ${build.label}: the fetch walks affix_job_fetch_order and the batch's statements their indexes; no sort or scan of the backlog, no JIT`, () => {
      expect(build.missing, 'binaries').toBeUndefined();
      const result = examined.get(build.label);
      if (result instanceof Error) throw result;
      expect(result?.version.startsWith(String(build.major))).toBe(true);
      expect(result!.problems).toEqual([]);
      expect(result!.fetchIndexes.length).toBeGreaterThan(0);
      expect(result!.statementsExplained).toBeGreaterThanOrEqual(8);
    });
  }
});
