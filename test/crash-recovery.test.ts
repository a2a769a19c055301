// After a crash: a process killed with SIGKILL leaves its embedded PostgreSQL running, and the
// next start stops it, says so and serves; a pg-boss bookkeeping statement that fails (a lock
// timeout or any database error in complete/fail, which pg-boss does not await) is logged and
// never kills the process.
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startServiceProcess } from '../scripts/lib/service-process.js';
import { ADMIN_TOKEN, type TestApi, type TestDatabase, createTestDatabase } from './support/harness.js';
import { freePort } from './support/ports.js';
import { deliver, fixture, seedStripeCustomer, waitForEvent } from './support/stripe.js';

const cleanups: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
});

const { DATABASE_URL: _external, ...environment } = process.env;

describe('crash recovery', () => {
  it('a service killed with SIGKILL on the embedded database starts again: the leftover PostgreSQL is stopped, and said so', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'affix-crash-'));
    cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
    const port = await freePort();
    const env = { ...environment, AFFIX_DATA_DIR: dataDir, AFFIX_EMBEDDED_PG_PORT: String(await freePort()), PORT: String(port), HOST: '127.0.0.1', AFFIX_SEED_DEMO: 'false' };
    const first = await startServiceProcess('start', env, { port, timeoutMs: 60_000 });
    first.child.kill('SIGKILL');
    await first.exited;
    const second = await startServiceProcess('start', env, { port, timeoutMs: 60_000 });
    cleanups.push(async () => {
      second.child.kill('SIGTERM');
      await second.exited;
    });
    expect(second.output()).toMatch(/stopped the embedded PostgreSQL a previous run left running \(pid \d+, data in /);
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
  }, 120_000);

  it('a start that cannot run its embedded PostgreSQL says why (the port it tried, the folder), never a bare TypeError', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'affix-port-'));
    cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
    const taken = createServer();
    const pgPort = await freePort();
    await new Promise<void>((resolve) => taken.listen(pgPort, '127.0.0.1', resolve));
    cleanups.push(() => new Promise((resolve) => taken.close(resolve)));
    const port = await freePort();
    const failed = await startServiceProcess('start', { ...environment, AFFIX_DATA_DIR: dataDir, AFFIX_EMBEDDED_PG_PORT: String(pgPort), PORT: String(port), HOST: '127.0.0.1' }, { port, timeoutMs: 60_000 }).then(
      () => 'started',
      (error: Error) => error.message,
    );
    expect(failed).toContain(`Port ${pgPort}, where the embedded PostgreSQL listens, is taken by another program: set AFFIX_EMBEDDED_PG_PORT to a free port`);
    expect(failed).not.toContain('TypeError');
  }, 120_000);

  /** `affix start` on a database of its own, and a client the Stripe helpers can use against it. */
  async function serviceOnOwnDatabase() {
    const db: TestDatabase = await createTestDatabase();
    cleanups.push(() => db.drop());
    const port = await freePort();
    const service = await startServiceProcess(
      'start',
      { ...environment, DATABASE_URL: db.url, PORT: String(port), HOST: '127.0.0.1', AFFIX_ADMIN_TOKEN: ADMIN_TOKEN, AFFIX_SECRET_KEY: 'crash-recovery-secret-key-0123', AFFIX_WORKER_POLL_SECONDS: '0.5' },
      { port, timeoutMs: 60_000 },
    );
    cleanups.push(async () => {
      service.child.kill('SIGTERM');
      await service.exited;
    });
    const url = `http://127.0.0.1:${port}`;
    const api = {
      url,
      pool: db.pool,
      clock: { now: new Date() },
      async request(method: string, path: string, options: { body?: unknown; raw?: string; headers?: Record<string, string> } = {}) {
        const headers: Record<string, string> = { ...(options.headers ?? {}) };
        if (options.body !== undefined) headers['Content-Type'] = 'application/json';
        const response = await fetch(`${url}${path}`, { method, headers, body: options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body)) });
        const text = await response.text();
        return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : null };
      },
      async close() {},
    } as unknown as TestApi;
    return { db, service, api };
  }
  const LOGGED = 'a background database call failed; its job is retried when its lease runs out';

  it('pg-boss\'s fail meets a lock timeout on the job row while the API serves: the process stays up, and the job runs later', async () => {
    const { db, service, api } = await serviceOnOwnDatabase();
    const { shop, vars } = await seedStripeCustomer(api);
    // The customer's row locked here: the event's attribution waits on it and fails at the lock timeout;
    // the job row, locked here too once a worker holds it, makes pg-boss's own `fail` meet a lock timeout.
    const holder = await db.pool.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT 1 FROM customers WHERE click_id = $1 FOR UPDATE', [vars.click_id]);
      const event = await fixture('checkout.session.completed.payment', vars);
      const reply = await deliver(api, `/api/v1/webhooks/stripe/${shop.programId}`, event);
      expect(reply.status).toBe(200);
      let jobId: string | undefined;
      await expect
        .poll(async () => {
          jobId = (await db.pool.query(`SELECT id FROM pgboss.job WHERE name = 'processor-events' AND state = 'active' AND data ->> 'inboxId' = $1`, [String(reply.body.id)])).rows[0]?.id;
          return jobId;
        }, { timeout: 10_000, interval: 20 })
        .toBeDefined();
      await holder.query('SELECT 1 FROM pgboss.job WHERE id = $1 FOR UPDATE', [jobId]);
      await expect.poll(() => service.output(), { timeout: 15_000, interval: 100 }).toContain(LOGGED);
      // The API served all along.
      expect((await fetch(`${api.url}/healthz`)).status).toBe(200);
      await holder.query('ROLLBACK');
      expect(service.child.exitCode).toBeNull();
      // The job's lease ends and the sweep runs it again: the sale is recorded once.
      await waitForEvent(db.pool, event.id, ['processed'], 60_000);
      expect((await db.pool.query('SELECT count(*)::int AS n FROM sales WHERE program_id = $1', [shop.programId])).rows[0].n).toBe(1);
    } finally {
      holder.release();
    }
  }, 120_000);

  it('a failing completion (any database error) is logged; the process stays up and serves', async () => {
    const { db, service, api } = await serviceOnOwnDatabase();
    // Every job pg-boss marks completed meets a database error.
    await db.pool.query(`CREATE FUNCTION refuse_completion() RETURNS trigger LANGUAGE plpgsql AS $$
                           BEGIN IF NEW.state = 'completed' THEN RAISE EXCEPTION 'completion refused for the test'; END IF; RETURN NEW; END $$`);
    await db.pool.query('CREATE TRIGGER refuse_completion BEFORE UPDATE ON pgboss.job FOR EACH ROW EXECUTE FUNCTION refuse_completion()');
    const { shop, vars } = await seedStripeCustomer(api);
    const event = await fixture('checkout.session.completed.payment', vars);
    expect((await deliver(api, `/api/v1/webhooks/stripe/${shop.programId}`, event)).status).toBe(200);
    // The event's own work commits (its outcome is written with the sale); pg-boss's completion fails after it.
    await waitForEvent(db.pool, event.id, ['processed']);
    await expect.poll(() => service.output(), { timeout: 15_000, interval: 100 }).toContain(LOGGED);
    await db.pool.query('DROP TRIGGER refuse_completion ON pgboss.job; DROP FUNCTION refuse_completion()');
    expect(service.child.exitCode).toBeNull();
    expect((await fetch(`${api.url}/healthz`)).status).toBe(200);
  }, 120_000);
});
