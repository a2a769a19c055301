// Chaos: 1 API + 2 workers on one PostgreSQL; signed Stripe, Paddle and Lemon Squeezy events delivered 2-3 times each,
// shuffled, many in flight, retried like Stripe does; meanwhile workers and the API are killed
// (SIGKILL) and PostgreSQL is restarted (immediate). Then the database must hold every event
// once, every sale once, commissions and refunds exact to the cent, and no job stuck.
import { createHmac, randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import Stripe from 'stripe';
import { fileURLToPath } from 'node:url';
import { ADAPTERS } from '../../src/core/adapters.js';
import { loadFixture } from '../../src/platform/fixtures.js';
import { stablePort } from './ports.js';
import { startPgBouncer } from './pgbouncer.js';
import { startReplicatedPostgres } from './replicated-postgres.js';
import { startRestartablePostgres } from './restartable-postgres.js';
import { type ServiceProcess, startServiceProcess } from './service-process.js';

export interface ChaosOptions {
  /** At least this many distinct Stripe events. */
  events: number;
  workerKills: number;
  killEveryMs: number;
  apiKills: number;
  databaseRestarts: number;
  inFlight: number;
  /** Through PgBouncer in transaction mode; the API and one worker have a direct URL (migrations, LISTEN), the other worker none (it polls). */
  pooler?: boolean;
  /**
   * On a primary with a synchronous standby behind a switched endpoint: the first database
   * disruption is a failover (primary killed, standby promoted, endpoint switched), and each
   * event is delivered until its first 2xx only, so that an acknowledged event lost in the
   * failover shows as lost.
   */
  failover?: boolean;
  log?: (line: string) => void;
}

export interface ChaosReport {
  events: number;
  /** Events per processor (Stripe, Paddle, Lemon Squeezy). */
  byProcessor: Record<string, number>;
  deliveries: number;
  deliveryRetries: number;
  workerKills: number;
  apiKills: number;
  databaseRestarts: number;
  /** The failover run: how long the switch took, and from the primary's death to the first webhook acknowledged again. */
  failover?: { switchMs: number; serveAgainMs: number };
  lostEvents: string[];
  duplicatedEvents: string[];
  lostSales: string[];
  duplicatedSales: string[];
  wrongMoney: string[];
  notProcessed: string[];
  stuckJobs: number;
  /** Jobs a kill or a restart interrupted, and the longest time until one ran again. */
  interruptedJobs: number;
  longestRecoveryMs: number;
  durationMs: number;
}

const ADMIN = 'chaos-admin-token-0123456789';
const SECRET = 'whsec_chaos_secret';
const FIXTURES = fileURLToPath(new URL('../../fixtures/', import.meta.url));
const RATE = 20; // recurring_percent: every sale pays 20 %

type Processor = 'stripe' | 'paddle' | 'lemonsqueezy';

interface Expectation {
  /** As the inbox stores it (namespaced for Paddle and Lemon Squeezy). */
  eventId: string;
  processor: Processor;
  event: Record<string, any>;
  sale?: { transactionId: string; amountCents: number };
  refundOf?: string;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function shuffle<T>(items: T[]): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}

/** The database the service runs on, and what a disruption does to it. */
interface ChaosDatabase {
  /** What the service is given (the pooler's or the switched endpoint's URL, or the server's). */
  serviceEnv: Record<string, string>;
  workerEnv: Record<string, string>;
  observerUrl: string;
  /** A restart (immediate), or the failover; returns what it was (`none`: a failover run's later disruptions). */
  disrupt(): Promise<'restart' | 'none' | { switchMs: number }>;
  close(): Promise<void>;
}

async function chaosDatabase(options: ChaosOptions): Promise<ChaosDatabase> {
  if (options.failover) {
    const pair = await startReplicatedPostgres({ synchronous: true });
    let failedOver = false;
    return {
      serviceEnv: { DATABASE_URL: pair.url },
      workerEnv: {},
      observerUrl: pair.url,
      async disrupt() {
        // The promoted standby has no standby of its own: one failover a run.
        if (failedOver) return 'none' as const;
        failedOver = true;
        return { switchMs: await pair.failover() };
      },
      close: () => pair.close(),
    };
  }
  const server = await startRestartablePostgres();
  const restart = async () => {
    await server.stopImmediate();
    await sleep(2_000);
    await server.start();
    return 'restart' as const;
  };
  if (!options.pooler) return { serviceEnv: { DATABASE_URL: server.url }, workerEnv: {}, observerUrl: server.url, disrupt: restart, close: () => server.close() };
  const bouncer = await startPgBouncer(server.url, { poolSize: 6 });
  return {
    serviceEnv: { DATABASE_URL: bouncer.urlFor(server.url), AFFIX_DATABASE_POOLING: 'transaction', DATABASE_DIRECT_URL: server.url },
    workerEnv: { DATABASE_DIRECT_URL: '' },
    observerUrl: server.url,
    disrupt: restart,
    async close() {
      await bouncer.stop();
      await server.close();
    },
  };
}

export async function runChaos(options: ChaosOptions): Promise<ChaosReport> {
  const log = options.log ?? (() => undefined);
  const started = Date.now();
  const database = await chaosDatabase(options);
  const dataDir = await mkdtemp(join(tmpdir(), 'affix-chaos-'));
  const port = await stablePort();
  const env = {
    ...database.serviceEnv,
    PORT: String(port),
    HOST: '127.0.0.1',
    AFFIX_ADMIN_TOKEN: ADMIN,
    AFFIX_SECRET_KEY: 'chaos-secret-key-0123456789',
    AFFIX_SEED_DEMO: 'false',
    AFFIX_TRUST_PROXY: 'loopback',
    AFFIX_DATA_DIR: dataDir,
    AFFIX_WORKER_POLL_SECONDS: '0.5',
    LOG_LEVEL: 'fatal',
  };
  const url = `http://127.0.0.1:${port}`;
  const startApi = () => startServiceProcess('api', env, { port, timeoutMs: 60_000 });
  // Worker 1 gets the second worker's settings (through a pooler: no direct URL, so it polls).
  const startWorker = (slot: number) => startServiceProcess('worker', { ...env, ...(slot === 1 ? database.workerEnv : {}) }, { timeoutMs: 60_000 });
  let api = await startApi();
  const workers = [await startWorker(0), await startWorker(1)];
  const observer = new pg.Pool({ connectionString: database.observerUrl, max: 2 });
  observer.on('error', () => undefined);
  try {
    const program = await seed(url);
    const expectations = await buildEvents(url, program, options.events);
    log(`chaos: ${expectations.length} events for program ${program.programId}`);
    const copies = () => (options.failover ? 1 : 2 + Math.floor(Math.random() * 2));
    const deliveries = shuffle(expectations.flatMap((e) => Array.from({ length: copies() }, () => e)));
    // Deliveries are paced by the monkey's rounds (a round's share over its first killEveryMs),
    // so that load is running when a process dies or the database goes away.
    const roundStarts: number[] = [];
    let next = 0;
    let retries = 0;
    /** When each acknowledged delivery's last attempt was sent, and when its 2xx came. */
    const acknowledged: { sentAt: number; at: number }[] = [];
    const senders = Array.from({ length: options.inFlight }, async () => {
      for (let index = next++; index < deliveries.length; index = next++) {
        const position = (index * options.workerKills) / deliveries.length;
        const round = Math.floor(position);
        while (roundStarts[round] === undefined) await sleep(20);
        const due = roundStarts[round]! + (position - round) * options.killEveryMs;
        if (due > Date.now()) await sleep(due - Date.now());
        const delivered = await deliverLikeStripe(url, program.programId, deliveries[index]!);
        retries += delivered.retries;
        acknowledged.push({ sentAt: delivered.sentAt, at: Date.now() });
      }
    });

    // The monkey: one action at a time, so that a process is never started while the database is down.
    const recovery = watchRecovery(observer);
    const snapshot = () => recovery.snapshot();
    const apiKillAt = new Set(Array.from({ length: options.apiKills }, (_, i) => Math.floor(((i + 1) * options.workerKills) / (options.apiKills + 1))));
    const restartAt = new Set(Array.from({ length: options.databaseRestarts }, (_, i) => Math.floor(((i + 0.5) * options.workerKills) / options.databaseRestarts)));
    let workerKills = 0;
    let apiKills = 0;
    let restarts = 0;
    let failover: { switchMs: number; startedAt: number } | null = null;
    for (let round = 0; round < options.workerKills; round++) {
      roundStarts[round] = Date.now();
      const pause = options.killEveryMs * (0.6 + Math.random() * 0.8);
      if (restartAt.has(round)) {
        // In the middle of the round's deliveries.
        await sleep(options.killEveryMs * 0.4);
        await snapshot();
        const startedAt = Date.now();
        const disrupted = await database.disrupt();
        if (disrupted === 'restart') {
          restarts++;
          log(`chaos: PostgreSQL restarted (${restarts})`);
        } else if (disrupted === 'none') {
          log('chaos: no second failover (the promoted standby has no standby)');
        } else {
          failover = { switchMs: disrupted.switchMs, startedAt };
          log(`chaos: failed over to the standby in ${disrupted.switchMs} ms`);
        }
        await sleep(Math.max(0, roundStarts[round]! + pause - Date.now()));
      } else {
        await sleep(pause);
      }
      // Kill while a job runs (up to 2 s of waiting for one), so that kills interrupt real work.
      await busyWorkers(observer, 2_000);
      const victim = Math.floor(Math.random() * workers.length);
      await snapshot();
      workers[victim]!.child.kill('SIGKILL');
      await workers[victim]!.exited;
      workerKills++;
      workers[victim] = await startWorker(victim);
      if (apiKillAt.has(round)) {
        api.child.kill('SIGKILL');
        await api.exited;
        apiKills++;
        api = await startApi();
        log(`chaos: API killed and restarted (${apiKills})`);
      }
      if (round % 5 === 4) log(`chaos: ${workerKills} worker kills`);
    }
    await Promise.all(senders);
    log(`chaos: all ${deliveries.length} deliveries acknowledged (${retries} retries); waiting for the workers`);
    await settle(observer, 180_000);
    const recovered = await recovery.stop();
    const report = { ...(await verify(observer, expectations)), ...recovered };
    // The first 2xx to an attempt sent after the primary died (the senders retry after 200 ms, doubling).
    const servedAgain = failover ? Math.min(...acknowledged.filter((ack) => ack.sentAt > failover!.startedAt).map((ack) => ack.at)) : undefined;
    return {
      ...report,
      events: expectations.length,
      byProcessor: Object.fromEntries(['stripe', 'paddle', 'lemonsqueezy'].map((p) => [p, expectations.filter((e) => e.processor === p).length])),
      deliveries: deliveries.length,
      deliveryRetries: retries,
      workerKills,
      apiKills,
      databaseRestarts: restarts,
      ...(failover ? { failover: { switchMs: failover.switchMs, serveAgainMs: servedAgain! - failover.startedAt } } : {}),
      durationMs: Date.now() - started,
    };
  } finally {
    await observer.end().catch(() => undefined);
    await stopAll([api, ...workers]);
    await database.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

async function stopAll(processes: ServiceProcess[]): Promise<void> {
  await Promise.all(
    processes.map(async (process) => {
      if (process.child.exitCode !== null || process.child.signalCode !== null) return;
      process.child.kill('SIGTERM');
      const timer = setTimeout(() => process.child.kill('SIGKILL'), 15_000);
      await process.exited;
      clearTimeout(timer);
    }),
  );
}

let forwarded = 0;
const headers = (extra: Record<string, string> = {}) => ({
  'Content-Type': 'application/json',
  'X-Forwarded-For': `198.18.${Math.floor(++forwarded / 250) % 250}.${(forwarded % 250) + 1}`,
  ...extra,
});

async function call(url: string, method: string, path: string, body: unknown, extra: Record<string, string> = {}) {
  const response = await fetch(`${url}${path}`, { method, headers: headers(extra), body: JSON.stringify(body) });
  const parsed = (await response.json()) as any;
  if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(parsed)}`);
  return parsed;
}

async function seed(url: string): Promise<{ programId: number; shortLink: string }> {
  const admin = (method: string, path: string, body?: unknown) =>
    call(url, method, `/api/v1/admin${path}`, body ?? {}, { Authorization: `Bearer ${ADMIN}` }).then((reply) => reply.data);
  const suffix = randomBytes(3).toString('hex');
  const account = await admin('POST', '/accounts', { email: `chaos-${suffix}@example.com` });
  const program = await admin('POST', '/programs', {
    account_id: account.id,
    name: 'Chaos shop',
    domain: 'shop.example.com',
    commission_type: 'recurring_percent',
    commission_rate: RATE,
  });
  const partner = await admin('POST', `/programs/${program.id}/partners`, { name: 'Chaos partner' });
  const shortLink = `chaos${suffix}`;
  await admin('POST', `/programs/${program.id}/links`, { partner_id: partner.id, short_link: shortLink });
  await admin('PATCH', `/programs/${program.id}/stripe`, { webhook_secret: SECRET, livemode_only_commissions: false });
  for (const processor of ['paddle', 'lemonsqueezy']) await admin('PATCH', `/programs/${program.id}/processors/${processor}`, { webhook_secret: SECRET });
  return { programId: program.id, shortLink };
}

/**
 * Journeys: a paid Stripe checkout (a third of them refunded), a Stripe subscription's first
 * invoice and a renewal, a Paddle transaction, a Lemon Squeezy order.
 */
async function buildEvents(url: string, program: { programId: number; shortLink: string }, wanted: number): Promise<Expectation[]> {
  const expectations: Expectation[] = [];
  const fixtures = (processor: string, name: string, vars: Record<string, string | number>) => loadFixture(join(FIXTURES, processor, `${name}.json`), vars);
  for (let journey = 0; expectations.length < wanted; journey++) {
    const run = `chaos${journey}x${randomBytes(3).toString('hex')}`;
    const click = await call(url, 'POST', '/api/v1/track/click', { affiliate_url: `https://shop.example.com/?aff=${program.shortLink}` });
    const vars = { run, email: `${run}@example.com`, click_id: click.click_id, customer_key: `cust_${run}`, program_id: program.programId };
    if (journey % 4 === 0) {
      const checkout = await loadFixture('checkout.session.completed.payment', vars);
      expectations.push({ eventId: checkout.id, processor: 'stripe', event: checkout, sale: { transactionId: checkout.data.object.id, amountCents: checkout.data.object.amount_total } });
      if (journey % 3 === 0) {
        const refund = await loadFixture('charge.refunded.full', vars);
        expectations.push({ eventId: refund.id, processor: 'stripe', event: refund, refundOf: checkout.data.object.id });
      }
    } else if (journey % 4 === 1) {
      for (const name of ['invoice.payment_succeeded.first', 'invoice.payment_succeeded.legacy-renewal']) {
        const invoice = await loadFixture(name, vars);
        expectations.push({ eventId: invoice.id, processor: 'stripe', event: invoice, sale: { transactionId: invoice.data.object.id, amountCents: invoice.data.object.amount_paid } });
      }
    } else if (journey % 4 === 2) {
      const transaction = await fixtures('paddle', '01-transaction.completed', vars);
      expectations.push({ eventId: `paddle:${transaction.event_id}`, processor: 'paddle', event: transaction, sale: { transactionId: transaction.data.id, amountCents: Number(transaction.data.details.totals.grand_total) } });
    } else {
      const order = await fixtures('lemonsqueezy', '01-order_created', vars);
      const eventId = ADAPTERS.lemonsqueezy.envelope(order, { sandbox: false }).eventId;
      expectations.push({ eventId: `lemonsqueezy:${eventId}`, processor: 'lemonsqueezy', event: order, sale: { transactionId: `ls_order_${order.data.id}`, amountCents: order.data.attributes.total } });
    }
  }
  return expectations;
}

/** Each processor's signature of a body, as it signs its deliveries. */
function signed(processor: Processor, payload: string): Record<string, string> {
  if (processor === 'stripe') return { 'Stripe-Signature': Stripe.webhooks.generateTestHeaderString({ payload, secret: SECRET }) };
  if (processor === 'lemonsqueezy') return { 'X-Signature': createHmac('sha256', SECRET).update(payload).digest('hex') };
  const ts = Math.floor(Date.now() / 1000);
  return { 'Paddle-Signature': `ts=${ts};h1=${createHmac('sha256', SECRET).update(`${ts}:${payload}`).digest('hex')}` };
}

/** Like the processors: retry on anything but a 2xx, with growing pauses. Returns the number of retries and when the acknowledged attempt was sent. */
async function deliverLikeStripe(url: string, programId: number, { event, processor }: Expectation): Promise<{ retries: number; sentAt: number }> {
  const payload = JSON.stringify(event);
  for (let attempt = 0; ; attempt++) {
    const sentAt = Date.now();
    try {
      const response = await fetch(`${url}/api/v1/webhooks/${processor}/${programId}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', ...signed(processor, payload) },
        body: payload,
        signal: AbortSignal.timeout(10_000),
      });
      await response.arrayBuffer();
      if (response.ok) return { retries: attempt, sentAt };
    } catch {
      // connection refused or cut: the API is being restarted
    }
    if (attempt > 200) throw new Error(`event ${processor} ${JSON.stringify(event).slice(0, 40)} was never acknowledged`);
    await sleep(Math.min(3_000, 200 * 2 ** Math.min(attempt, 4)));
  }
}

/**
 * Recovery of interrupted jobs. At each kill or restart the jobs active then are noted; a poller
 * (every 200 ms) sees when each starts again (started_on after the kill: the first new attempt)
 * or finishes without one (the other worker held it: not interrupted).
 */
function watchRecovery(observer: pg.Pool) {
  const pending = new Map<string, number>();
  let interruptedJobs = 0;
  let longestRecoveryMs = 0;
  let running = true;
  const poll = async () => {
    if (!pending.size) return;
    const { rows } = await observer
      .query("SELECT id, state, started_on, output ->> 'message' AS message FROM pgboss.job WHERE id = ANY($1::uuid[])", [[...pending.keys()]])
      .catch(() => ({ rows: [] as { id: string; state: string; started_on: Date | null; message: string | null }[] }));
    for (const row of rows) {
      const at = pending.get(row.id)!;
      const started = row.started_on ? new Date(row.started_on).getTime() : 0;
      if (started > at) {
        interruptedJobs++;
        longestRecoveryMs = Math.max(longestRecoveryMs, started - at);
        pending.delete(row.id);
      } else if (row.state === 'completed' || row.state === 'failed') {
        pending.delete(row.id);
      } else if (row.state === 'retry' && !/worker lost|timeout/.test(row.message ?? '')) {
        pending.delete(row.id); // its worker ran it to the end and it asked for a retry (waiting on data)
      }
    }
  };
  const loop = (async () => {
    while (running) {
      await poll();
      await sleep(200);
    }
  })();
  return {
    async snapshot() {
      const at = Date.now();
      const { rows } = await observer.query("SELECT id FROM pgboss.job WHERE name = 'processor-events' AND state = 'active'").catch(() => ({ rows: [] }));
      for (const row of rows as { id: string }[]) if (!pending.has(row.id)) pending.set(row.id, at);
    },
    async stop() {
      running = false;
      await loop;
      await poll();
      // Still waiting after everything settled: never recovered.
      if (pending.size) longestRecoveryMs = Number.POSITIVE_INFINITY;
      return { interruptedJobs, longestRecoveryMs };
    },
  };
}

async function busyWorkers(observer: pg.Pool, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const { rows } = await observer
      .query("SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'processor-events' AND state = 'active'")
      .catch(() => ({ rows: [{ n: 0 }] }));
    if (rows[0].n > 0) return;
    await sleep(10);
  }
}

async function settle(observer: pg.Pool, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const { rows } = await observer
      .query(
        `SELECT (SELECT count(*) FROM webhook_events WHERE status IN ('queued', 'retrying'))::int AS open,
                (SELECT count(*) FROM pgboss.job WHERE name LIKE 'processor-events%' AND state IN ('created', 'retry', 'active'))::int AS jobs`,
      )
      .catch(() => ({ rows: [{ open: 1, jobs: 1 }] }));
    if (rows[0].open === 0 && rows[0].jobs === 0) return;
    await sleep(500);
  }
}

async function verify(observer: pg.Pool, expectations: Expectation[]) {
  const ids = expectations.map((e) => e.eventId);
  const inbox = await observer.query('SELECT event_key, status, reason FROM webhook_events WHERE event_key = ANY($1)', [ids]);
  const seen = new Map<string, { status: string; reason: string | null }[]>();
  for (const row of inbox.rows) seen.set(row.event_key, [...(seen.get(row.event_key) ?? []), row]);
  const lostEvents = ids.filter((id) => !seen.has(id));
  const duplicatedEvents = ids.filter((id) => (seen.get(id)?.length ?? 0) > 1);
  const notProcessed = inbox.rows.filter((row) => row.status !== 'processed').map((row) => `${row.event_key}: ${row.status} ${row.reason ?? ''}`);

  const saleIds = expectations.flatMap((e) => (e.sale ? [e.sale.transactionId] : []));
  const sales = await observer.query(
    `SELECT s.processor_event_id AS transaction_id, s.amount_cents, c.amount_cents AS commission_cents, c.deducted_cents, c.status,
            (SELECT count(*) FROM refunds r WHERE r.sale_id = s.id AND r.reverted_at IS NULL)::int AS refunds
       FROM sales s LEFT JOIN commissions c ON c.sale_id = s.id WHERE s.processor_event_id = ANY($1)`,
    [saleIds],
  );
  const byTransaction = new Map<string, any[]>();
  for (const row of sales.rows) byTransaction.set(row.transaction_id, [...(byTransaction.get(row.transaction_id) ?? []), row]);
  const refunded = new Set(expectations.flatMap((e) => (e.refundOf ? [e.refundOf] : [])));
  const lostSales: string[] = [];
  const duplicatedSales: string[] = [];
  const wrongMoney: string[] = [];
  for (const expectation of expectations) {
    if (!expectation.sale) continue;
    const rows = (byTransaction.get(expectation.sale.transactionId) ?? []).map((row) => ({
      ...row,
      amount_cents: Number(row.amount_cents),
      commission_cents: row.commission_cents === null ? null : Number(row.commission_cents),
      deducted_cents: row.deducted_cents === null ? null : Number(row.deducted_cents),
    }));
    if (rows.length === 0) lostSales.push(expectation.sale.transactionId);
    if (rows.length > 1) duplicatedSales.push(expectation.sale.transactionId);
    const row = rows[0];
    if (!row) continue;
    const commission = Math.round((expectation.sale.amountCents * RATE) / 100);
    const isRefunded = refunded.has(expectation.sale.transactionId);
    const ok =
      row.amount_cents === expectation.sale.amountCents &&
      row.commission_cents === commission &&
      row.deducted_cents === (isRefunded ? commission : 0) &&
      row.status === (isRefunded ? 'reversed' : 'pending') &&
      row.refunds === (isRefunded ? 1 : 0);
    if (!ok) wrongMoney.push(`${expectation.sale.transactionId}: ${JSON.stringify(row)}`);
  }
  const stuck = await observer.query("SELECT count(*)::int AS n FROM pgboss.job WHERE name LIKE 'processor-events%' AND state IN ('created', 'retry', 'active')");

  return { lostEvents, duplicatedEvents, lostSales, duplicatedSales, wrongMoney, notProcessed, stuckJobs: stuck.rows[0].n };
}

/** One line per figure, then the verdict. */
export function formatReport(report: ChaosReport): string {
  return [
    `events: ${report.events} (${report.deliveries} deliveries, ${report.deliveryRetries} retried like the processors); ${Object.entries(report.byProcessor).map(([p, n]) => `${p} ${n}`).join(', ')}`,
    `chaos: ${report.workerKills} worker kills, ${report.apiKills} API kills, ${report.databaseRestarts} PostgreSQL restarts${report.failover ? ', 1 failover' : ''}`,
    ...(report.failover
      ? [`failover: endpoint switched ${report.failover.switchMs} ms after the primary was killed; webhooks acknowledged again after ${report.failover.serveAgainMs} ms`]
      : []),
    `lost events: ${report.lostEvents.length}; duplicated events: ${report.duplicatedEvents.length}; not processed: ${report.notProcessed.length}`,
    `lost sales: ${report.lostSales.length}; duplicated sales: ${report.duplicatedSales.length}; wrong commissions or refunds: ${report.wrongMoney.length}`,
    `jobs left active or waiting: ${report.stuckJobs}`,
    `interrupted jobs: ${report.interruptedJobs}; longest recovery of an interrupted job: ${(report.longestRecoveryMs / 1000).toFixed(1)} s`,
    `duration: ${(report.durationMs / 1000).toFixed(0)} s`,
    ...[...report.notProcessed, ...report.wrongMoney].slice(0, 10).map((line) => `  ${line}`),
  ].join('\n');
}

export function chaosPassed(report: ChaosReport): boolean {
  return (
    report.lostEvents.length + report.duplicatedEvents.length + report.lostSales.length + report.duplicatedSales.length + report.wrongMoney.length + report.notProcessed.length === 0 &&
    report.stuckJobs === 0 &&
    report.longestRecoveryMs < 60_000 &&
    (report.failover === undefined || Number.isFinite(report.failover.serveAgainMs))
  );
}
