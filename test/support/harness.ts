// Per-file test harness: a fresh database cloned from the migrated template, the real express
// app listening on a loopback port, and small helpers that talk to it over HTTP.
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { inject } from 'vitest';
import { loadConfig } from '../../src/platform/config.js';
import { type Pool, createPool } from '../../src/db/infra/pool.js';
import { PgStore } from '../../src/db/tracking/store.js';
import { type BuiltApp, createApp, requestListener } from '../../src/http/app.js';
import { type Logger, createLogger } from '../../src/platform/logger.js';
import { readReplica } from '../../src/start/api.js';
import { startQueue } from '../../src/platform/queue.js';
import { createSecretBox } from '../../src/platform/secret-box.js';
import { startWorkers } from '../../src/jobs/index.js';
import type PgBoss from 'pg-boss';

export const ADMIN_TOKEN = 'test-admin-token-0123456789';

export interface TestDatabase {
  url: string;
  pool: Pool;
  drop(): Promise<void>;
}

export async function createTestDatabase(): Promise<TestDatabase> {
  const adminUrl = inject('pgAdminUrl');
  const name = `affix_t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  // A file copy of the template, where the server flushes nothing (the suite's own server:
  // test/support/global-setup.ts), is a few times faster than the default, which writes the copy
  // through the WAL; with flushing on, its checkpoint makes it the slower one.
  const { rows } = await admin.query("SELECT current_setting('server_version_num')::int >= 150000 AND current_setting('fsync') = 'off' AS copy");
  await admin.query(`CREATE DATABASE ${name} TEMPLATE ${inject('pgTemplate')}${rows[0].copy ? ' STRATEGY FILE_COPY' : ''}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const pool = createPool(url.toString(), { max: 5, applicationName: 'affix-test' });
  return {
    url: url.toString(),
    pool,
    drop: async () => {
      await pool.end();
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}

export interface Reply<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

export interface TestApi {
  url: string;
  pool: Pool;
  /** The app's clock; tests move it to exercise time rules. */
  clock: { now: Date };
  queue?: PgBoss;
  /** The express application itself (its routes, for the API reference's test). */
  app: BuiltApp['app'];
  request<T = any>(method: string, path: string, options?: { body?: unknown; raw?: string; headers?: Record<string, string> }): Promise<Reply<T>>;
  close(): Promise<void>;
}

export interface TestApiOptions {
  /** A pg-boss queue on this database (webhook intake); with `workers`, also the Stripe workers. */
  queueUrl?: string;
  workers?: boolean;
  /** A read pool (DATABASE_READ_URL's): the dashboard's figures, the exports and the portal read it, as in production (start/api.ts readReplica). */
  readUrl?: string;
  /** Where the API logs (silent unless TEST_LOG_LEVEL says otherwise). */
  logger?: Logger;
}

export async function startTestApi(pool: Pool, env: Record<string, string> = {}, options: TestApiOptions = {}): Promise<TestApi> {
  // Behind "loopback" trust, X-Forwarded-For names the client: each request gets its own
  // address unless a test sets one, so only the rate-limit tests meet the per-IP limits.
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // The public URL is where the tests reach the app (links in pages and mails), unless a test set one.
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    AFFIX_ADMIN_TOKEN: ADMIN_TOKEN,
    AFFIX_TRUST_PROXY: 'loopback',
    AFFIX_PUBLIC_URL: url,
    ...env,
  });
  let requestCounter = 0;
  const clock = { now: new Date() };
  const logger = options.logger ?? createLogger(process.env.TEST_LOG_LEVEL ?? 'silent');
  const readPool = options.readUrl ? createPool(options.readUrl, { max: 4, applicationName: 'affix-reads', connectTimeoutMs: config.readConnectTimeoutMs }) : null;
  const queue = options.queueUrl ? await startQueue(options.queueUrl, config.worker, { supervise: Boolean(options.workers) }) : undefined;
  const workers = queue && options.workers ? await startWorkers(queue, { pool, logger }, config) : null;
  const deps = {
    config,
    pool,
    store: new PgStore(pool, { linkCacheMs: config.linkCacheMs }),
    logger,
    now: () => new Date(clock.now),
    queue,
    secretBox: config.secretKey ? createSecretBox(config.secretKey) : undefined,
    reads: readPool ? readReplica(config, pool, readPool, logger) : undefined,
  };
  const built = createApp(deps);
  server.on('request', requestListener(deps, built));
  return {
    url,
    app: built.app,
    pool,
    clock,
    async request(method, path, options = {}) {
      requestCounter += 1;
      const headers: Record<string, string> = {
        'X-Forwarded-For': `198.51.${Math.floor(requestCounter / 250) % 250}.${(requestCounter % 250) + 1}`,
        ...(options.headers ?? {}),
      };
      let body: string | undefined = options.raw;
      if (options.body !== undefined) {
        body = JSON.stringify(options.body);
        headers['Content-Type'] ??= 'application/json';
      }
      const response = await fetch(`${url}${path}`, { method, headers, body });
      const text = await response.text();
      let parsed: unknown = text;
      try {
        parsed = text ? JSON.parse(text) : null;
      } catch {
        // keep text: a test asserting JSON will fail on it
      }
      return { status: response.status, headers: response.headers, body: parsed as any };
    },
    queue,
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await workers?.stop();
      await queue?.stop({ graceful: false, wait: true, close: true });
      await readPool?.end();
    },
  };
}

export const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });
export const adminHeaders = bearer(ADMIN_TOKEN);

export interface SeededProgram {
  accountId: number;
  programId: number;
  apiKey: string;
  keyId: number;
  partnerId: number;
  linkId: number;
  shortLink: string;
  affiliateUrl: string;
}

let seedCounter = 0;

/** Creates account, program, partner, link and key through the admin API. */
export async function seedProgram(api: TestApi, program: Record<string, unknown> = {}): Promise<SeededProgram> {
  const n = ++seedCounter;
  const suffix = `${n}_${randomBytes(3).toString('hex')}`;
  const must = async (method: string, path: string, body?: unknown) => {
    const reply = await api.request(method, `/api/v1/admin${path}`, { body, headers: adminHeaders });
    if (reply.status >= 300) throw new Error(`${method} ${path}: ${reply.status} ${JSON.stringify(reply.body)}`);
    return reply.body.data;
  };
  const account = await must('POST', '/accounts', { email: `brand${suffix}@example.com` });
  const created = await must('POST', '/programs', {
    account_id: account.id,
    name: `Shop ${suffix}`,
    domain: 'shop.example.com',
    commission_type: 'percent',
    commission_rate: 20,
    allowed_origins: ['https://shop.example.com'],
    ...program,
  });
  const partner = await must('POST', `/programs/${created.id}/partners`, { name: `Partner ${suffix}` });
  // Paid by bank transfer: a payout run pays only partners with payout details (docs/payouts.md).
  await must('PATCH', `/programs/${created.id}/partners/${partner.id}/payout-details`, { payout_method: 'bank_transfer', payout_reference: `DE00 TEST ${suffix}` });
  const shortLink = `p${suffix}`;
  const link = await must('POST', `/programs/${created.id}/links`, { partner_id: partner.id, short_link: shortLink });
  const key = await must('POST', `/programs/${created.id}/keys`);
  return {
    accountId: account.id,
    programId: created.id,
    apiKey: key.api_key,
    keyId: key.id,
    partnerId: partner.id,
    linkId: link.id,
    shortLink,
    affiliateUrl: `https://shop.example.com/pricing?aff=${shortLink}`,
  };
}

/** Adds a second partner and link to a program. */
export async function addPartnerLink(api: TestApi, programId: number): Promise<{ partnerId: number; shortLink: string; linkId: number }> {
  const code = `x${randomBytes(4).toString('hex')}`;
  const partner = await api.request('POST', `/api/v1/admin/programs/${programId}/partners`, { body: { name: code }, headers: adminHeaders });
  await api.request('PATCH', `/api/v1/admin/programs/${programId}/partners/${partner.body.data.id}/payout-details`, {
    body: { payout_method: 'bank_transfer', payout_reference: `DE00 TEST ${code}` },
    headers: adminHeaders,
  });
  const link = await api.request('POST', `/api/v1/admin/programs/${programId}/links`, {
    body: { partner_id: partner.body.data.id, short_link: code },
    headers: adminHeaders,
  });
  return { partnerId: partner.body.data.id, shortLink: code, linkId: link.body.data.id };
}

export async function trackClick(api: TestApi, affiliateUrl: string, extra: Record<string, unknown> = {}) {
  const reply = await api.request('POST', '/api/v1/track/click', { body: { affiliate_url: affiliateUrl, ...extra } });
  if (reply.status !== 200) throw new Error(`click failed: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.click_id as string;
}

export async function count(pool: Pool, sql: string, params: unknown[] = []): Promise<number> {
  const { rows } = await pool.query(`SELECT count(*)::int AS n FROM (${sql}) q`, params);
  return rows[0].n;
}

/** Platform envelope as the spec writes it. */
export const platformError = (status: number, name: string, message: string, extra: Record<string, unknown> = {}) => ({
  data: null,
  error: { status, name, message, details: {}, ...extra },
});


/** A test file's own database and API (the usual beforeAll). */
export async function openTestApi(env: Record<string, string> = {}, options: TestApiOptions = {}): Promise<{ db: TestDatabase; api: TestApi }> {
  const db = await createTestDatabase();
  const api = await startTestApi(db.pool, env, options.queueUrl === 'own' ? { ...options, queueUrl: db.url } : options);
  return { db, api };
}

/** The usual afterAll: stop the API (and its queue), drop the database. */
export async function closeTestApi(opened: { db?: TestDatabase; api?: TestApi }): Promise<void> {
  await opened.api?.close();
  await opened.db?.drop();
}
