// Benchmark: tracking API (click -> lead -> sale) and Stripe intake -> worker, on a throwaway
// embedded PostgreSQL. Prints figures; asserts nothing. Run: npx tsx scripts/bench.ts [journeys] [concurrency]
import { mkdtemp, rm, chmod } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Stripe from 'stripe';
import { loadConfig } from '../src/platform/config.js';
import { startEmbeddedPostgres } from '../src/start/embedded-postgres.js';
import { migrate } from '../src/db/migrate.js';
import { createPool } from '../src/db/pool.js';
import { stablePort } from './lib/ports.js';
import { PgStore } from '../src/db/store.js';
import { loadFixture } from '../src/platform/fixtures.js';
import { createLogger } from '../src/platform/logger.js';
import { startQueue } from '../src/platform/queue.js';
import { startApi } from '../src/start/api.js';
import { startWorkers } from '../src/jobs/index.js';

const journeys = Number(process.argv[2] ?? 300);
const concurrency = Number(process.argv[3] ?? 16);
const ADMIN = 'bench-admin-token-0123456789';
const SECRET = 'whsec_bench';

const percentile = (values: number[], p: number) => values.sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((p / 100) * values.length))]!;

async function pool<T>(count: number, width: number, task: (i: number) => Promise<T>): Promise<T[]> {
  const results: T[] = [];
  let next = 0;
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < count) {
      const i = next++;
      results[i] = await task(i);
    }
  }));
  return results;
}

const dir = await mkdtemp(join(tmpdir(), 'affix-bench-'));
await chmod(dir, 0o755);
const pg = await startEmbeddedPostgres({ dataDir: dir, port: await stablePort(), persistent: false });
const config = loadConfig({
  PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', AFFIX_ADMIN_TOKEN: ADMIN, AFFIX_SECRET_KEY: 'bench-secret-key-0123456789',
  AFFIX_TRUST_PROXY: 'loopback', AFFIX_WORKER_POLL_SECONDS: '0.5', AFFIX_WORKER_CONCURRENCY: '4',
});
const db = createPool(pg.connectionString, { max: 20 });
await migrate(db);
const logger = createLogger('silent');
const queue = await startQueue(pg.connectionString, config.worker, { supervise: true });
await startWorkers(queue, { pool: db, store: new PgStore(db), logger }, config);
const api = await startApi(config, db, logger, { queue });

let ip = 0;
const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
  ip += 1; // a client per request: the benchmark measures the service, not the rate limiter
  const started = performance.now();
  const response = await fetch(`${api.url}${path}`, {
    method,
    headers: { 'Content-Type': 'application/json', 'X-Forwarded-For': `10.${(ip >> 16) & 255}.${(ip >> 8) & 255}.${ip & 255}`, ...headers },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const json = (await response.json()) as any;
  return { ms: performance.now() - started, status: response.status, json };
};
const admin = { Authorization: `Bearer ${ADMIN}` };
const account = (await call('POST', '/api/v1/admin/accounts', { email: 'bench@example.com' }, admin)).json.data;
const program = (await call('POST', '/api/v1/admin/programs', { account_id: account.id, name: 'Bench', domain: 'bench.example', commission_type: 'percent', commission_rate: 20 }, admin)).json.data;
const partner = (await call('POST', `/api/v1/admin/programs/${program.id}/partners`, { name: 'P' }, admin)).json.data;
await call('POST', `/api/v1/admin/programs/${program.id}/links`, { partner_id: partner.id, short_link: 'bench' }, admin);
// Sales are limited to 120 a minute per key: one key per 100 journeys keeps the limiter out of the figures.
const keys: string[] = [];
for (let k = 0; k < Math.ceil(journeys / 100); k++) {
  keys.push((await call('POST', `/api/v1/admin/programs/${program.id}/keys`, undefined, admin)).json.data.api_key);
}
await call('PATCH', `/api/v1/admin/programs/${program.id}/stripe`, { webhook_secret: SECRET }, admin);
const auth = (i: number) => ({ Authorization: `Bearer ${keys[Math.floor(i / 100)]}` });

const timings: Record<'click' | 'lead' | 'sale', number[]> = { click: [], lead: [], sale: [] };
const started = performance.now();
const clicks = await pool(journeys, concurrency, async (i) => {
  const click = await call('POST', '/api/v1/track/click', { affiliate_url: 'https://bench.example/?aff=bench' });
  timings.click.push(click.ms);
  const lead = await call('POST', '/api/v1/track/lead', { click_id: click.json.click_id, customer_key: `u${i}` }, auth(i));
  timings.lead.push(lead.ms);
  const sale = await call('POST', '/api/v1/track/sale', { transaction_id: `t${i}`, amount_cents: 4900, customer_key: `u${i}` }, auth(i));
  timings.sale.push(sale.ms);
  if (sale.status !== 200) throw new Error(JSON.stringify(sale.json));
  return click.json.click_id as string;
});
const apiSeconds = (performance.now() - started) / 1000;
console.log(`tracking API: ${journeys} journeys (3 requests each), concurrency ${concurrency}, ${apiSeconds.toFixed(1)} s, ${((journeys * 3) / apiSeconds).toFixed(0)} requests/s`);
for (const [name, values] of Object.entries(timings)) {
  console.log(`  ${name.padEnd(5)} p50 ${percentile(values, 50).toFixed(1)} ms  p95 ${percentile(values, 95).toFixed(1)} ms  p99 ${percentile(values, 99).toFixed(1)} ms`);
}

const events = Math.min(journeys, 200);
const intake: number[] = [];
const webhookStarted = performance.now();
await pool(events, concurrency, async (i) => {
  const event = await loadFixture('checkout.session.completed.payment', { run: `b${i}`, click_id: clicks[i]!, customer_key: `u${i}`, program_id: program.id, email: `u${i}@example.com` });
  const payload = JSON.stringify(event);
  const reply = await call('POST', `/api/v1/webhooks/stripe/${program.id}`, payload, { 'Stripe-Signature': Stripe.webhooks.generateTestHeaderString({ payload, secret: SECRET }) });
  intake.push(reply.ms);
});
const intakeSeconds = (performance.now() - webhookStarted) / 1000;
for (;;) {
  const { rows } = await db.query("SELECT count(*) FILTER (WHERE status IN ('processed','ignored','failed')) AS done FROM webhook_events");
  if (rows[0].done >= events) break;
  await new Promise((resolve) => setTimeout(resolve, 100));
}
const totalSeconds = (performance.now() - webhookStarted) / 1000;
console.log(`stripe intake: ${events} signed events accepted in ${intakeSeconds.toFixed(1)} s (p50 ${percentile(intake, 50).toFixed(1)} ms, p95 ${percentile(intake, 95).toFixed(1)} ms); all attributed by the workers after ${totalSeconds.toFixed(1)} s (${(events / totalSeconds).toFixed(0)} events/s, 4 jobs at once)`);

await api.close();
await queue.stop({ graceful: false, wait: true, close: true });
await db.end();
await pg.stop();
await rm(dir, { recursive: true, force: true });
