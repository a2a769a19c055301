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
import { ADMIN_TOKEN, createTestDatabase, type TestDatabase } from './support/harness.js';
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
    expect(failed).toContain(`The embedded PostgreSQL did not start on port ${pgPort} with data in `);
    expect(failed).not.toContain('TypeError');
  }, 120_000);

  it('a failing job bookkeeping statement is logged; the process stays up and serves', async () => {
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
    // Every job pg-boss marks completed meets a database error (as a lock timeout would).
    await db.pool.query(`CREATE FUNCTION refuse_completion() RETURNS trigger LANGUAGE plpgsql AS $$
                           BEGIN IF NEW.state = 'completed' THEN RAISE EXCEPTION 'completion refused for the test'; END IF; RETURN NEW; END $$`);
    await db.pool.query('CREATE TRIGGER refuse_completion BEFORE UPDATE ON pgboss.job FOR EACH ROW EXECUTE FUNCTION refuse_completion()');
    const api = {
      url: `http://127.0.0.1:${port}`,
      pool: db.pool,
      clock: { now: new Date() },
      async request(method: string, path: string, options: { body?: unknown; raw?: string; headers?: Record<string, string> } = {}) {
        const headers: Record<string, string> = { ...(options.headers ?? {}) };
        if (options.body !== undefined) headers['Content-Type'] = 'application/json';
        const response = await fetch(`${this.url}${path}`, { method, headers, body: options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body)) });
        const text = await response.text();
        return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : null };
      },
      async close() {},
    };
    const { shop, vars } = await seedStripeCustomer(api as never);
    const event = await fixture('checkout.session.completed.payment', vars);
    const reply = await deliver(api as never, `/api/v1/webhooks/stripe/${shop.programId}`, event);
    expect(reply.status).toBe(200);
    // The event's own work commits (its outcome is written with the sale); pg-boss's completion fails after it.
    await waitForEvent(db.pool, event.id, ['processed']);
    await expect.poll(() => service.output(), { timeout: 15_000, interval: 100 }).toContain('a background database call failed; its job is retried when its lease runs out');
    await db.pool.query('DROP TRIGGER refuse_completion ON pgboss.job; DROP FUNCTION refuse_completion()');
    expect(service.child.exitCode).toBeNull();
    expect((await fetch(`${api.url}/healthz`)).status).toBe(200);
    // And the next event is processed as usual.
    const next = await fixture('checkout.session.completed.payment', { ...vars, run: `${vars.run}_again` });
    expect((await deliver(api as never, `/api/v1/webhooks/stripe/${shop.programId}`, next)).status).toBe(200);
    expect((await waitForEvent(db.pool, next.id, ['processed', 'ignored'])).status).toMatch(/processed|ignored/);
  }, 120_000);
});
