// Reads from a replica (DATABASE_READ_URL) that cannot always serve them:
// - a replica out of reach (nothing listens where DATABASE_READ_URL points): the dashboard's
//   pages, its exports and the partner portal answer from the primary, with the right figures and
//   no lag note, and the log says so once, without the URL's password; once it answers again it
//   is read again (and the log says so);
// - a replica that has not replayed the caller's own write (here a database that never had it):
//   after the form that created a program, its pages read the primary for a while (a cookie the
//   form's answer sets), the page the form redirects to first.
// The test-traffic replica test (test/read-replica.test.ts) covers a real standby and its lag.
import { randomBytes } from 'node:crypto';
import { type Socket, connect, createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROGRAM_SECTIONS } from '../src/app/programs/dashboard-pages.js';
import { sha256 } from '../src/core/secrets.js';
import { createLogger } from '../src/platform/logger.js';
import { type TestApi, type TestDatabase, closeTestApi, createTestDatabase, openTestApi, seedProgram, startTestApi } from './support/harness.js';
import { dashboardVisitor } from './support/dashboard-visitor.js';
import { apiSale } from './support/money.js';

/** A loopback port nobody listens on (taken, then given back). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A dashboard visitor signed in to `accountId`'s account (its session written on the primary). */
async function signedIn(api: TestApi, accountId: number) {
  const token = randomBytes(24).toString('base64url');
  await api.pool.query("INSERT INTO dashboard_sessions (token_hash, account_id, expires_at) VALUES ($1, $2, now() + interval '1 hour')", [sha256(token), accountId]);
  return dashboardVisitor(api.url, { sessionToken: token });
}

describe('a replica out of reach', () => {
  let db: TestDatabase;
  let api: TestApi;
  const logged: Record<string, unknown>[] = [];
  const password = 'replica-password-not-for-logs';

  beforeAll(async () => {
    const logger = createLogger('info', { write: (line: string) => void logged.push(JSON.parse(line)) });
    ({ db, api } = await openTestApi(
      // Short, so that a replica that accepts no connection at all costs little; here it refuses at once.
      { AFFIX_READ_CONNECT_TIMEOUT_MS: '200', AFFIX_READ_LAG_NOTE_SECONDS: '0' },
      { readUrl: `postgres://affix:${password}@127.0.0.1:${await closedPort()}/replica`, logger },
    ));
  });
  afterAll(() => closeTestApi({ db, api }));

  it('the dashboard, its exports and the portal answer from the primary; the log says so once', async () => {
    const shop = await seedProgram(api);
    const sale = await apiSale(api, shop, 1_000);
    const visitor = await signedIn(api, shop.accountId);
    const overview = `/dashboard/programs/${shop.programId}`;

    const page = await visitor.get(overview);
    expect(page.status, page.text.slice(0, 300)).toBe(200);
    expect(page.text).toContain('>$10.00<');
    // The lag note would be false: the figures are the primary's.
    expect(page.text).not.toContain('Figures may be up to');
    for (const section of PROGRAM_SECTIONS) {
      const path = section === 'overview' ? overview : `${overview}/${section}`;
      expect((await visitor.get(path)).status, path).toBe(200);
    }
    for (const csv of ['partners.csv', 'applications.csv', 'audit.csv']) expect((await visitor.get(`${overview}/${csv}`)).status, csv).toBe(200);
    const activity = await visitor.get(`${overview}/activity.csv`);
    expect(activity.status).toBe(200);
    expect(activity.text).toContain(sale.transactionId);

    // The partner's portal: the sale's commission (20 %).
    const partnerEmail = `partner-${randomBytes(3).toString('hex')}@partners.test`;
    await api.pool.query('UPDATE partners SET email = $1, invited_at = now() WHERE id = $2', [partnerEmail, shop.partnerId]);
    const portalToken = randomBytes(24).toString('base64url');
    await api.pool.query("INSERT INTO partner_sessions (token_hash, email, expires_at) VALUES ($1, $2, now() + interval '1 hour')", [sha256(portalToken), partnerEmail]);
    const portal = await fetch(`${api.url}/portal/programs/${shop.partnerId}`, { headers: { cookie: `affix_portal=${portalToken}` }, redirect: 'manual' });
    expect(portal.status).toBe(200);
    expect(await portal.text()).toContain('$2.00');
    const portalHome = await fetch(`${api.url}/portal`, { headers: { cookie: `affix_portal=${portalToken}` }, redirect: 'manual' });
    expect(portalHome.status).toBe(200);

    // Readiness names the replica as unavailable, without failing the instance.
    const ready = await fetch(`${api.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ ok: true, database: 'ok', read_replica: 'unavailable' });

    const fallbacks = logged.filter((line) => String(line.msg).includes('read replica'));
    expect(fallbacks.map((line) => line.msg)).toEqual(['the read replica (DATABASE_READ_URL) cannot be reached: its reads go to the primary until it answers']);
    expect(JSON.stringify(logged)).not.toContain(password);
  });
});

describe('a replica back after an outage', () => {
  let db: TestDatabase;
  let api: TestApi;
  let port: number;
  const logged: Record<string, unknown>[] = [];
  // The "replica": this file's database reached through a port that is closed at first, then forwarded.
  const forwarding = createServer();
  const sockets: Socket[] = [];

  beforeAll(async () => {
    db = await createTestDatabase();
    port = await closedPort();
    const replicaUrl = new URL(db.url);
    replicaUrl.hostname = '127.0.0.1';
    replicaUrl.port = String(port);
    const logger = createLogger('info', { write: (line: string) => void logged.push(JSON.parse(line)) });
    // A generous connect timeout: a connection refused fails at once, and one through the forwarding
    // must not time out on a busy machine (that would read the primary and log the outage again).
    api = await startTestApi(db.pool, { AFFIX_READ_CONNECT_TIMEOUT_MS: '10000' }, { readUrl: replicaUrl.toString(), logger });
  });
  afterAll(async () => {
    sockets.forEach((socket) => socket.destroy());
    await new Promise<void>((resolve) => forwarding.close(() => resolve()));
    await closeTestApi({ db, api });
  });

  it('is read again as soon as it answers, and the log says so once', async () => {
    const shop = await seedProgram(api);
    const visitor = await signedIn(api, shop.accountId);
    const overview = `/dashboard/programs/${shop.programId}`;
    expect((await visitor.get(overview)).status).toBe(200);
    expect((await visitor.get(`${overview}/activity`)).status).toBe(200);

    // The replica comes back (its port now reaches the server); the next page reads it.
    const server = new URL(db.url);
    forwarding.on('connection', (socket) => {
      const upstream = connect(Number(server.port), server.hostname === 'localhost' ? '127.0.0.1' : server.hostname);
      sockets.push(socket, upstream);
      socket.pipe(upstream).pipe(socket);
      socket.on('error', () => upstream.destroy());
      upstream.on('error', () => socket.destroy());
    });
    await new Promise<void>((resolve) => forwarding.listen(port, '127.0.0.1', resolve));
    expect((await visitor.get(overview)).status).toBe(200);
    expect(sockets.length).toBeGreaterThan(0);
    expect(logged.filter((line) => String(line.msg).includes('read replica')).map((line) => line.msg), JSON.stringify(logged.filter((line) => String(line.msg).includes('read replica')))).toEqual([
      'the read replica (DATABASE_READ_URL) cannot be reached: its reads go to the primary until it answers',
      'the read replica (DATABASE_READ_URL) answers again: reading it',
    ]);
  });
});

describe("a replica without the caller's own write", () => {
  let db: TestDatabase;
  let replica: TestDatabase;
  let api: TestApi;

  beforeAll(async () => {
    // The migrated template's copy: the schema, none of the rows this test writes.
    replica = await createTestDatabase();
    // A generous connect timeout: a slow connection to the replica on a busy machine would read the primary instead.
    ({ db, api } = await openTestApi({ AFFIX_READ_CONNECT_TIMEOUT_MS: '10000' }, { readUrl: replica.url }));
  });
  afterAll(async () => {
    await closeTestApi({ db, api });
    await replica?.drop();
  });

  it("the new program's pages read the primary for a while after its form, the page it redirects to first", async () => {
    const shop = await seedProgram(api);
    const visitor = await signedIn(api, shop.accountId);
    await visitor.get('/dashboard');
    const name = `Fresh ${randomBytes(3).toString('hex')}`;
    const created = await visitor.post('/dashboard/programs', {
      name, domain: 'fresh.example.com', commission_type: 'percent', commission_rate: '15', attribution_window_days: '30', lead_auth: 'browser_allowed', allowed_origins: '',
    });
    expect(created.status, created.text.slice(0, 300)).toBe(303);
    const { rows } = await api.pool.query('SELECT id FROM programs WHERE name = $1', [name]);
    expect(created.location).toMatch(new RegExp(`^/dashboard/programs/${rows[0].id}\\b`));
    const landing = await visitor.get(created.location!);
    expect(landing.status, landing.text.slice(0, 300)).toBe(200);
    expect(landing.text).toContain(name);
    // Every page of the new program, as the caller goes on from there (the replica has none of it:
    // read there, the set-up, partners and payouts pages would not find the program or its settings).
    for (const section of PROGRAM_SECTIONS) {
      const path = section === 'overview' ? created.location! : `${created.location}/${section}`;
      const reply = await visitor.get(path);
      expect(reply.status, `${path}: ${reply.text.slice(0, 200)}`).toBe(200);
      expect(reply.text).toContain(name);
    }
    // The marker is short-lived (the app's clock ten minutes on, past its 30 s): the pages read the replica again.
    api.clock.now = new Date(api.clock.now.getTime() + 600_000);
    expect((await visitor.get(`${created.location}/partners`)).status).toBe(404);
  });
});
