// What the benchmarks share: a throwaway embedded PostgreSQL (or DATABASE_URL), the service as a
// real process, a keep-alive HTTP client, concurrency helpers and percentiles. Benchmarks print
// figures and ratios; they assert nothing.
import { request as httpRequest, Agent } from 'node:http';
import { chmod, mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import pg from 'pg';
import Stripe from 'stripe';
import { loadFixture } from '../../src/platform/fixtures.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmbeddedPostgres } from '../../src/start/embedded-postgres.js';
import { stablePort } from './ports.js';
import { type ServiceProcess, startServiceProcess } from './service-process.js';

export const ADMIN_TOKEN = 'bench-admin-token-0123456789';
export const SECRET_KEY = 'bench-secret-key-0123456789';

export const percentile = (values: number[], p: number): number => {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
};
export const median = (values: number[]) => percentile(values, 50);
export const fmt = (value: number, digits = 0) => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a');

/**
 * Runs a benchmark; whatever it started (`cleanup` registers it) is stopped afterwards, in
 * reverse order, also when it fails, so no process or database outlives it.
 */
export async function benchMain(body: (cleanup: (stop: () => Promise<unknown> | unknown) => void) => Promise<void>): Promise<void> {
  const stops: (() => Promise<unknown> | unknown)[] = [];
  let failed = false;
  try {
    await body((stop) => stops.push(stop));
  } catch (error) {
    failed = true;
    console.error(error);
  } finally {
    for (const stop of stops.reverse()) await Promise.resolve(stop()).catch((error) => console.error('cleanup:', error));
  }
  process.exit(failed ? 1 : 0);
}

export interface BenchDatabase {
  url: string;
  stop(): Promise<void>;
}

/** A new embedded PostgreSQL in a temporary folder, or DATABASE_URL when it is set. */
export async function benchDatabase(): Promise<BenchDatabase> {
  if (process.env.DATABASE_URL) return { url: process.env.DATABASE_URL, stop: async () => undefined };
  const dir = await mkdtemp(join(tmpdir(), 'affix-bench-'));
  await chmod(dir, 0o755);
  const server = await startEmbeddedPostgres({
    dataDir: dir, port: await stablePort(), persistent: false, database: 'affix_bench',
    postgresFlags: ['-c', 'shared_preload_libraries=pg_stat_statements', '-c', 'pg_stat_statements.track_utility=on', ...(process.env.BENCH_TRACK_PLANNING ? ['-c', 'pg_stat_statements.track_planning=on'] : [])],
  });
  // pg_stat_statements counts only inside statementsDuring: with 32 sessions running one statement,
  // its counter's lock halved pgbench's rate. The instrument is off while throughput is timed
  // (ALTER SYSTEM, not a -c flag: statementsDuring turns it on and off the same way).
  const setup = new pg.Pool({ connectionString: server.connectionString, max: 1 });
  await tracking(setup, 'none');
  await setup.end();
  return {
    url: server.connectionString,
    async stop() {
      await server.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Statements PostgreSQL ran while `work` ran (pg_stat_statements; the bench's own look-ups
 * excluded): calls per unit of work, and the statements that took the most time.
 */
export async function statementsDuring(sql: { query: (text: string, values?: unknown[]) => Promise<{ rows: any[] }> }, units: number, work: () => Promise<unknown>) {
  await sql.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
  // BENCH_TRACK_NESTED=1 counts the statements inside functions and triggers too.
  await tracking(sql, process.env.BENCH_TRACK_NESTED ? 'all' : 'top');
  await sql.query('SELECT pg_stat_statements_reset()');
  try {
    await work();
  } finally {
    await tracking(sql, 'none');
  }
  const { rows } = await sql.query(
    `SELECT calls::int, total_exec_time, total_plan_time, left(regexp_replace(query, '\\s+', ' ', 'g'), ${Number(process.env.BENCH_STATEMENT_WIDTH ?? 90)}) AS query FROM pg_stat_statements
      WHERE query NOT ILIKE '%pg_stat_statements%' AND query NOT ILIKE '%pg_reload_conf%' AND query NOT ILIKE 'ALTER SYSTEM%' AND query NOT ILIKE '%webhook_events WHERE status = %' AND query NOT ILIKE '%count(*) FROM webhook_events%'
      ORDER BY total_exec_time DESC`,
  );
  const calls = rows.reduce((sum, row) => sum + row.calls, 0);
  return {
    perUnit: calls / units,
    // BENCH_STATEMENTS=40 lists more of them (what a profile of the database side starts from).
    top: rows
      .slice(0, Number(process.env.BENCH_STATEMENTS ?? 6))
      .map((row) => `${(row.calls / units).toFixed(2)}× ${Number(row.total_exec_time / row.calls).toFixed(2)} ms${process.env.BENCH_TRACK_PLANNING ? ` (+${Number(row.total_plan_time / row.calls).toFixed(2)} ms planning)` : ''}  ${row.query}`),
  };
}

/** Turns pg_stat_statements' counting on or off for every session (each picks it up at its next statement). */
async function tracking(sql: { query: (text: string) => Promise<unknown> }, mode: 'all' | 'top' | 'none'): Promise<void> {
  await sql.query(`ALTER SYSTEM SET pg_stat_statements.track = '${mode}'`);
  await sql.query('SELECT pg_reload_conf()');
  await new Promise((resolve) => setTimeout(resolve, 300));
}

export interface RunningService {
  url: string;
  process: ServiceProcess;
  stop(): Promise<void>;
}

/** `affix api|worker|start` as its own process on the bench database (migrates on start). */
export async function startService(role: 'api' | 'worker' | 'start', databaseUrl: string, env: Record<string, string> = {}): Promise<RunningService> {
  const port = await stablePort();
  const service = await startServiceProcess(
    role,
    {
      DATABASE_URL: databaseUrl, PORT: String(port), HOST: '127.0.0.1', AFFIX_ADMIN_TOKEN: ADMIN_TOKEN, AFFIX_SECRET_KEY: SECRET_KEY,
      AFFIX_TRUST_PROXY: 'loopback', LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info', ...env,
    },
    // BENCH_NODE_ARGS='--cpu-prof --cpu-prof-dir=prof' profiles the service processes.
    { port, timeoutMs: 60_000, nodeArgs: process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) },
  );
  return {
    url: `http://127.0.0.1:${port}`,
    process: service,
    async stop() {
      service.child.kill('SIGTERM');
      await service.exited;
    },
  };
}

export interface Reply {
  status: number;
  ms: number;
  body: any;
}

/** Keep-alive HTTP/1.1 with `sockets` connections: a load generator that costs little CPU. */
export function httpClient(base: string, sockets = 64) {
  const agent = new Agent({ keepAlive: true, maxSockets: sockets });
  const url = new URL(base);
  let client = 0;
  return {
    /** One retry when the server closed a kept-alive socket just as it was reused (the classic race). */
    async request(method: string, path: string, body?: string | object, headers: Record<string, string> = {}): Promise<Reply> {
      try {
        return await send(method, path, body, headers);
      } catch (error) {
        if ((error as { code?: string }).code !== 'ECONNRESET') throw error;
        return send(method, path, body, headers);
      }
    },
    close: () => agent.destroy(),
  };

  function send(method: string, path: string, body: string | object | undefined, headers: Record<string, string>): Promise<Reply> {
      client += 1; // every request from its own address: the figures measure the service, not the per-IP limiter
      const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
      const started = performance.now();
      return new Promise((resolve, reject) => {
        const req = httpRequest(
          {
            agent, host: url.hostname, port: url.port, method, path,
            headers: {
              'Content-Type': 'application/json',
              'X-Forwarded-For': `10.${(client >> 16) & 255}.${(client >> 8) & 255}.${client & 255}`,
              ...(payload === undefined ? {} : { 'Content-Length': Buffer.byteLength(payload) }),
              ...headers,
            },
          },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (chunk) => chunks.push(chunk));
            res.on('end', () => {
              const text = Buffer.concat(chunks).toString('utf8');
              let parsed: unknown = text;
              try {
                parsed = JSON.parse(text);
              } catch {
                // not JSON: kept as text
              }
              resolve({ status: res.statusCode ?? 0, ms: performance.now() - started, body: parsed });
            });
          },
        );
        req.on('error', reject);
        if (payload !== undefined) req.write(payload);
        req.end();
      });
  }
}
export type HttpClient = ReturnType<typeof httpClient>;

/** Runs `count` tasks, `width` at a time. */
export async function runConcurrent<T>(count: number, width: number, task: (index: number) => Promise<T>): Promise<T[]> {
  const results: T[] = new Array(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(width, count) }, async () => {
      while (next < count) {
        const index = next++;
        results[index] = await task(index);
      }
    }),
  );
  return results;
}

/** Sends `count` requests at a steady `perSecond`, whatever the answers' latency. */
export async function atRate<T>(count: number, perSecond: number, task: (index: number) => Promise<T>): Promise<T[]> {
  const started = performance.now();
  const pending: Promise<T>[] = [];
  for (let index = 0; index < count; index++) {
    const due = started + (index * 1000) / perSecond;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const sent = task(index);
    sent.catch(() => undefined); // reported by Promise.all below, not as an unhandled rejection
    pending.push(sent);
  }
  return Promise.all(pending);
}

/** An account, a program (20 % commission), a partner and its link `bench`, a key, a Stripe signing secret. */
export async function setUpProgram(client: HttpClient, webhookSecret: string) {
  const admin = { Authorization: `Bearer ${ADMIN_TOKEN}` };
  const ok = (reply: Reply, what: string) => {
    if (reply.status >= 300) throw new Error(`${what}: ${reply.status} ${JSON.stringify(reply.body)}`);
    return reply.body.data;
  };
  const account = ok(await client.request('POST', '/api/v1/admin/accounts', { email: `bench-${Date.now()}@example.com` }, admin), 'account');
  const program = ok(
    await client.request('POST', '/api/v1/admin/programs', { account_id: account.id, name: 'Bench', domain: 'bench.example', commission_type: 'percent', commission_rate: 20 }, admin),
    'program',
  );
  const partner = ok(await client.request('POST', `/api/v1/admin/programs/${program.id}/partners`, { name: 'Partner' }, admin), 'partner');
  ok(await client.request('POST', `/api/v1/admin/programs/${program.id}/links`, { partner_id: partner.id, short_link: `bench${program.id}` }, admin), 'link');
  const key = ok(await client.request('POST', `/api/v1/admin/programs/${program.id}/keys`, undefined, admin), 'key');
  ok(await client.request('PATCH', `/api/v1/admin/programs/${program.id}/stripe`, { webhook_secret: webhookSecret }, admin), 'stripe');
  return { programId: program.id as number, partnerId: partner.id as number, shortLink: `bench${program.id}`, apiKey: key.api_key as string };
}

/**
 * What every benchmark starts with: the database, `affix api` on it, a client with `sockets`
 * connections, a small pool for the bench's own queries, and a program set up through the API.
 * Each is stopped by `cleanup`.
 */
export async function startBench(
  cleanup: (stop: () => Promise<unknown> | unknown) => void,
  options: { sockets: number; webhookSecret: string; env?: Record<string, string> },
) {
  const database = await benchDatabase();
  cleanup(() => database.stop());
  const api = await startService('api', database.url, options.env);
  cleanup(() => api.stop());
  const client = httpClient(api.url, options.sockets);
  cleanup(() => client.close());
  const sql = new pg.Pool({ connectionString: database.url, max: 4 });
  cleanup(() => sql.end());
  const program = await setUpProgram(client, options.webhookSecret);
  return { database, api, client, sql, program };
}

let eventCounter = 0;

/**
 * Signed Stripe checkout events, each naming a real click of the program's link (so a worker
 * attributes a sale for each), and their delivery to the program's webhook endpoint. `organic`:
 * the share of buyers nobody referred (no click; the brand's own customer key that no lead
 * matches, as a brand sends on every checkout), their events' ids starting `evt_organic`.
 */
/**
 * Attempts per organic payment so far (events whose id starts `evt_organic`): each job of the
 * event counts the runs it started (pg-boss's retry_count, plus the one running or done), from
 * the job table and its archive. The same count whatever the workers do with a payment.
 */
export async function organicAttempts(sql: pg.Pool, queueName: string): Promise<{ payments: number; mean: number; max: number; byAttempts: Record<number, number> }> {
  const { rows } = await sql.query(
    `WITH organic AS (SELECT id::text AS inbox_id FROM webhook_events WHERE event_key LIKE 'evt_organic%'),
          jobs AS (SELECT data ->> 'inboxId' AS inbox_id, state, retry_count FROM pgboss.job WHERE name = $1
                   UNION ALL SELECT data ->> 'inboxId', state, retry_count FROM pgboss.archive WHERE name = $1),
          runs AS (SELECT o.inbox_id, coalesce(sum(CASE WHEN j.state = 'created' THEN 0 WHEN j.state = 'retry' THEN j.retry_count ELSE j.retry_count + 1 END), 0)::int AS attempts
                     FROM organic o LEFT JOIN jobs j USING (inbox_id) GROUP BY o.inbox_id)
     SELECT attempts, count(*)::int AS payments FROM runs GROUP BY attempts ORDER BY attempts`,
    [queueName],
  );
  const payments = rows.reduce((sum, row) => sum + row.payments, 0);
  const total = rows.reduce((sum, row) => sum + row.attempts * row.payments, 0);
  return { payments, mean: payments ? total / payments : 0, max: rows.length ? Math.max(...rows.map((row) => row.attempts)) : 0, byAttempts: Object.fromEntries(rows.map((row) => [row.attempts, row.payments])) };
}

export function stripeEventSource(client: HttpClient, program: { programId: number; shortLink: string }, options: { concurrency: number; secret: string; organic?: number }) {
  async function signed(count: number): Promise<{ payload: string; header: string }[]> {
    const organic = Array.from({ length: count }, () => Math.random() < (options.organic ?? 0));
    const clicks = await runConcurrent(count, options.concurrency, async (i) => {
      if (organic[i]) return null;
      const reply = await client.request('POST', '/api/v1/track/click', { affiliate_url: `https://bench.example/?aff=${program.shortLink}` });
      if (reply.status !== 200) throw new Error(`click: ${reply.status} ${JSON.stringify(reply.body)}`);
      return reply.body.click_id as string;
    });
    return Promise.all(
      clicks.map(async (clickId) => {
        // One count for every source of the run: a second source's events are new events, not redeliveries.
        const n = eventCounter++;
        const run = clickId === null ? `organic${n}` : `bench${n}`;
        const event = await loadFixture('checkout.session.completed.payment', { run, click_id: clickId ?? '', customer_key: `c${n}`, program_id: program.programId, email: `c${n}@example.com` });
        if (clickId === null) (event as any).data.object.metadata = { affix_customer_key: `c${n}`, program_id: String(program.programId) };
        const payload = JSON.stringify(event);
        return { payload, header: Stripe.webhooks.generateTestHeaderString({ payload, secret: options.secret }) };
      }),
    );
  }
  const deliver = (event: { payload: string; header: string }) =>
    client.request('POST', `/api/v1/webhooks/stripe/${program.programId}`, event.payload, { 'Stripe-Signature': event.header });
  return { signed, deliver };
}

/** CPU time used so far (user + system, ms) by one process, from /proc (0 once it is gone). */
export async function processCpuMs(pid: number | string): Promise<number> {
  const ticks = 10; // ms per clock tick (USER_HZ 100)
  const fields = (await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '')).split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11] ?? 0) + Number(fields[12] ?? 0)) * ticks;
}

/** CPU time used so far (ms) by every PostgreSQL process of the machine. */
export async function databaseCpuMs(): Promise<number> {
  let total = 0;
  for (const pid of (await readdir('/proc')).filter((name) => /^\d+$/.test(name))) {
    if ((await readFile(`/proc/${pid}/comm`, 'utf8').catch(() => '')).trim() === 'postgres') total += await processCpuMs(pid);
  }
  return total;
}
