// Reads from a replica (DATABASE_READ_URL): Debian's PostgreSQL 15, a primary and its synchronous
// standby (the failover test's set-up), the service started on both. With the standby's replay
// paused, a sale recorded on the primary (the tracking API writes on) is not yet on the overview
// nor in the activity export nor in the partner's portal, and the overview says how far behind
// its figures may be; the page a form redirects to shows the caller's own change all the same
// (it reads the primary), as do the caller's other pages for a while (a program created then is
// found on each of its pages), not another browser's; once replay resumes, the overview, the
// export and the portal show the sale and the note is gone. Readiness names the replica beside the primary.
// (A replica out of reach, and a new program's pages: test/read-replica-fallback.test.ts.)
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ReplicatedPostgres, hasReplicationServers, startReplicatedPostgres } from '../scripts/lib/replicated-postgres.js';
import { loadConfig } from '../src/platform/config.js';
import { createLogger } from '../src/platform/logger.js';
import { type RunningService, startService } from '../src/start/service.js';
import { sha256 } from '../src/core/secrets.js';
import { ADMIN_TOKEN, type TestApi, seedProgram } from './support/harness.js';
import { apiSale } from './support/money.js';
import { dashboardVisitor } from './support/dashboard-visitor.js';
import { PROGRAM_SECTIONS } from '../src/app/programs/dashboard-pages.js';

const available = hasReplicationServers();
if (!available) console.warn("[read-replica] Debian's PostgreSQL 15 is not installed (scripts/install-test-servers.sh): the replica test is skipped");

let servers: ReplicatedPostgres;
let service: RunningService;
let primary: pg.Pool;
let standby: pg.Client;
let api: TestApi;

/** Until the standby has replayed everything the primary has written so far (polled, never a fixed wait). */
async function caughtUp() {
  const { rows } = await primary.query('SELECT pg_current_wal_lsn() AS lsn');
  for (let tries = 0; tries < 500; tries++) {
    const { rows: done } = await standby.query('SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn AS done', [rows[0].lsn]);
    if (done[0].done) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error('the standby never caught up');
}

beforeAll(async () => {
  if (!available) return;
  servers = await startReplicatedPostgres({ synchronous: true });
  const config = loadConfig({
    DATABASE_URL: servers.url,
    DATABASE_READ_URL: servers.standbyUrl,
    // Any lag at all is shown here (the default is 5 s): the test never waits for the clock.
    AFFIX_READ_LAG_NOTE_SECONDS: '0',
    PORT: '0',
    HOST: '127.0.0.1',
    AFFIX_ADMIN_TOKEN: ADMIN_TOKEN,
    AFFIX_SECRET_KEY: 'read-replica-test-secret-key-0123',
    AFFIX_SEED_DEMO: 'false',
    AFFIX_TRUST_PROXY: 'loopback',
  });
  service = await startService(config, createLogger('silent'), { api: true, worker: false });
  primary = new pg.Pool({ connectionString: servers.url, max: 2 });
  standby = new pg.Client({ connectionString: servers.standbyUrl });
  await standby.connect();
  const url = service.api!.url;
  let counter = 0;
  api = {
    url,
    pool: primary,
    async request(method: string, path: string, options: { body?: unknown; headers?: Record<string, string> } = {}) {
      counter += 1;
      const response = await fetch(`${url}${path}`, {
        method,
        headers: { 'Content-Type': 'application/json', 'X-Forwarded-For': `198.51.100.${counter % 250}`, ...(options.headers ?? {}) },
        body: options.body === undefined ? undefined : JSON.stringify(options.body),
      });
      const text = await response.text();
      return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : null };
    },
  } as unknown as TestApi;
}, 60_000);

afterAll(async () => {
  await standby?.query('SELECT pg_wal_replay_resume()').catch(() => undefined);
  await standby?.end();
  await primary?.end();
  await service?.lifecycle.stop('test done');
  await servers?.close();
});

describe('dashboards, exports and the portal read from the replica', () => {
  it.skipIf(!available)('figures wait for the replica and say so; the caller\'s own write and the tracking API use the primary', async () => {
    const ready = await fetch(`${service.api!.url}/readyz`);
    expect(await ready.json()).toEqual({ ok: true, database: 'ok', read_replica: 'ok' });

    const shop = await seedProgram(api);
    await apiSale(api, shop, 1_000);
    const token = randomBytes(24).toString('base64url');
    await primary.query("INSERT INTO dashboard_sessions (token_hash, account_id, expires_at) VALUES ($1, $2, now() + interval '1 hour')", [sha256(token), shop.accountId]);
    const visitor = dashboardVisitor(service.api!.url, { sessionToken: token });
    const overview = `/dashboard/programs/${shop.programId}`;
    // The partner signs in to the portal (the session on the primary, as sign-in writes it).
    const partnerEmail = `partner-${randomBytes(3).toString('hex')}@partners.test`;
    await primary.query('UPDATE partners SET email = $1, invited_at = now() WHERE id = $2', [partnerEmail, shop.partnerId]);
    const portalToken = randomBytes(24).toString('base64url');
    await primary.query("INSERT INTO partner_sessions (token_hash, email, expires_at) VALUES ($1, $2, now() + interval '1 hour')", [sha256(portalToken), partnerEmail]);
    const portalPage = async () => {
      const response = await fetch(`${service.api!.url}/portal/programs/${shop.partnerId}`, { headers: { cookie: `affix_portal=${portalToken}` }, redirect: 'manual' });
      expect(response.status).toBe(200);
      return response.text();
    };
    await caughtUp();
    // Every page and export that reads the replica only reads (a write there would be refused: it is read-only).
    for (const section of PROGRAM_SECTIONS) {
      const path = section === 'overview' ? overview : `${overview}/${section}`;
      expect((await visitor.get(path)).status, path).toBe(200);
    }
    for (const csv of ['activity.csv', 'partners.csv', 'applications.csv', 'audit.csv']) expect((await visitor.get(`${overview}/${csv}`)).status, csv).toBe(200);
    const portalHome = await fetch(`${service.api!.url}/portal`, { headers: { cookie: `affix_portal=${portalToken}` }, redirect: 'manual' });
    expect(portalHome.status).toBe(200);
    const before = await visitor.get(overview);
    expect(before.status).toBe(200);
    expect(before.text).toContain('$10.00');
    expect(before.text).not.toContain('Figures may be up to');

    // Replay paused: the primary goes on (a synchronous commit waits for the standby's flush, not its replay).
    await standby.query('SELECT pg_wal_replay_pause()');
    const sale = await apiSale(api, shop, 987_654);
    expect((await primary.query('SELECT count(*)::int AS n FROM sales WHERE processor_event_id = $1', [sale.transactionId])).rows[0].n).toBe(1);
    const stale = await visitor.get(overview);
    expect(stale.status).toBe(200);
    expect(stale.text).toContain('>$10.00<');
    expect(stale.text).not.toContain('$9,886.54');
    expect(stale.text).toMatch(/Figures may be up to \d+ s behind\./);
    // The partner's earnings: the first sale's commission only.
    const stalePortal = await portalPage();
    expect(stalePortal).toContain('$2.00');
    expect(stalePortal).not.toContain('$1,977.31');
    const staleCsv = await visitor.get(`${overview}/activity.csv`);
    expect(staleCsv.status).toBe(200);
    expect(staleCsv.text).not.toContain(sale.transactionId);

    // A form's answer shows what was just saved: the page it redirects to reads the primary (the
    // links page lists the program's links from its own data, not from the program's row).
    const code = `new${randomBytes(3).toString('hex')}`;
    expect((await visitor.get(`${overview}/links`)).text).not.toContain(code);
    const saved = await visitor.post(`${overview}/links`, { partner_id: String(shop.partnerId), short_link: code });
    expect(saved.status, saved.text.slice(0, 500)).toBe(303);
    expect(saved.location).toBe(`${overview}/links?done=link`);
    const landing = await visitor.get(saved.location!);
    expect(landing.status).toBe(200);
    expect(landing.text).toContain('Referral link created.');
    expect(landing.text).toContain(code);
    // The poster's other pages too, for a while (the cookie the form's answer set)…
    expect((await visitor.get(`${overview}/links`)).text).toContain(code);
    // …while the same page for a browser that wrote nothing reads the replica, which has not replayed the link yet.
    expect((await dashboardVisitor(service.api!.url, { sessionToken: token }).get(`${overview}/links`)).text).not.toContain(code);

    // A program created meanwhile: the page its form redirects to, and its other pages, read the primary.
    const name = `Lagging ${randomBytes(3).toString('hex')}`;
    const created = await visitor.post('/dashboard/programs', {
      name, domain: 'lagging.example.com', commission_type: 'percent', commission_rate: '15', attribution_window_days: '30', lead_auth: 'browser_allowed', allowed_origins: '',
    });
    expect(created.status, created.text.slice(0, 500)).toBe(303);
    for (const path of [created.location!, `${created.location}/setup`, `${created.location}/payouts`]) {
      const reply = await visitor.get(path);
      expect(reply.status, path).toBe(200);
      expect(reply.text).toContain(name);
    }

    await standby.query('SELECT pg_wal_replay_resume()');
    await caughtUp();
    const fresh = await visitor.get(overview);
    expect(fresh.text).toContain('$9,886.54');
    expect(fresh.text).not.toContain('Figures may be up to');
    expect((await visitor.get(`${overview}/activity.csv`)).text).toContain(sale.transactionId);
    expect(await portalPage()).toContain('$1,977.31');
  }, 60_000);
});
