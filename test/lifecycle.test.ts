// The process lifecycle as an operator meets it: the real `affix start`, stopped by SIGTERM.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServiceProcess, startServiceProcess } from '../scripts/lib/service-process.js';
import { type TestDatabase, createTestDatabase } from './support/harness.js';
import { freePort } from './support/ports.js';

const ADMIN = 'lifecycle-admin-token-0123456';
let db: TestDatabase;
/** Every service a test started: killed at the end if a failing test left it running. */
const started: ServiceProcess[] = [];

async function startService(role: 'start' | 'api' = 'start', env: Record<string, string> = { AFFIX_SEED_DEMO: 'false' }): Promise<{ service: ServiceProcess; url: string }> {
  const port = await freePort();
  const service = await startServiceProcess(
    role,
    { DATABASE_URL: db.url, PORT: String(port), HOST: '127.0.0.1', AFFIX_ADMIN_TOKEN: ADMIN, LOG_LEVEL: 'info', ...env },
    { port },
  );
  started.push(service);
  return { service, url: `http://127.0.0.1:${port}` };
}

beforeAll(async () => {
  db = await createTestDatabase();
});

afterAll(async () => {
  for (const service of started) {
    if (service.child.exitCode === null && service.child.signalCode === null) {
      service.child.kill('SIGKILL');
      await service.exited;
    }
  }
  await db.drop();
});

describe('SIGTERM', () => {
  it('lets an in-flight request finish, refuses new connections, exits 0 and says how long it took', async () => {
    const { service, url } = await startService();
    // Hold the rate-limit table: the next click waits for the lock (lock_timeout) before answering.
    const holder = await db.pool.connect();
    await holder.query('BEGIN');
    await holder.query('LOCK TABLE rate_limit_counters IN ACCESS EXCLUSIVE MODE');
    const inFlight = fetch(`${url}/api/v1/track/click`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ affiliate_url: 'https://shop.example.com/?aff=nobody' }),
    });
    await waitFor(async () => (await db.pool.query("SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock'")).rowCount! > 0);
    const signalledAt = Date.now();
    service.child.kill('SIGTERM');
    await waitFor(async () => !(await answers(`${url}/healthz`)));
    await holder.query('ROLLBACK');
    holder.release();
    const answer = await inFlight;
    // The click's own answer (no such link), not a cut connection.
    expect(answer.status).toBe(400);
    expect((await answer.json()).error.message).toBe('Referral link not found');
    expect(await service.exited).toBe(0);
    expect(Date.now() - signalledAt).toBeLessThan(10_000);
    expect(service.output()).toMatch(/"msg":"stopped in \d+ ms"/);
  });

  it('exits on SIGTERM when whoever read its logs has gone (stdout and stderr closed)', async () => {
    const { service } = await startService('api');
    // The log reader goes away (a crashed supervisor, a closed terminal): every later line fails with EPIPE.
    service.child.stdout!.destroy();
    service.child.stderr!.destroy();
    service.child.kill('SIGTERM');
    // Before the fix the buffered logger retried its last write at exit forever (no exit at all).
    expect(await service.exited).toBe(0);
  }, 30_000);

  it('a SIGTERM while it starts stops it cleanly once it is up (no half-started kill)', async () => {
    const port = await freePort();
    const { spawn } = await import('node:child_process');
    const { AFFIX_BIN } = await import('../scripts/lib/service-process.js');
    const child = spawn(process.execPath, [AFFIX_BIN, 'start'], {
      env: { ...process.env, DATABASE_URL: db.url, PORT: String(port), HOST: '127.0.0.1', AFFIX_ADMIN_TOKEN: ADMIN, AFFIX_SEED_DEMO: 'false', LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout!.on('data', (chunk) => (output += chunk));
    const exited = new Promise((resolve) => child.on('close', (code, signal) => resolve(code ?? signal)));
    // As soon as the process has said anything, it is starting: signal it then.
    await new Promise<void>((resolve) => child.stdout!.once('data', () => resolve()));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(output).toMatch(/"msg":"stopped in \d+ ms"/);
  }, 30_000);

  it('leaves no job active and no connection open', async () => {
    const { service } = await startService();
    service.child.kill('SIGTERM');
    expect(await service.exited).toBe(0);
    const { rows } = await db.pool.query(
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name IN ('affix', 'affix-queue')",
    );
    expect(rows[0].n).toBe(0);
    const active = await db.pool.query("SELECT count(*)::int AS n FROM pgboss.job WHERE state = 'active'");
    expect(active.rows[0].n).toBe(0);
  });

  it('installs no exit handlers of any library: SIGTERM reaches our shutdown only', async () => {
    const { service } = await startService();
    service.child.kill('SIGTERM');
    await service.exited;
    expect(service.output()).toContain('"msg":"stopping"');
    expect(service.output()).not.toContain('Unhandled');
  });
});

async function answers(url: string): Promise<boolean> {
  try {
    await fetch(url, { signal: AbortSignal.timeout(500) });
    return true;
  } catch {
    return false;
  }
}

async function waitFor(check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('the demo belongs to the embedded database only', () => {
  it('`affix api` on DATABASE_URL with no data folder starts, seeds nothing and prints no credentials', async () => {
    const { service } = await startService('api', { AFFIX_DATA_DIR: `/tmp/affix-no-such-folder-${Date.now()}` });
    service.child.kill('SIGTERM');
    expect(await service.exited).toBe(0);
    expect(service.output()).not.toMatch(/Demo program|demo@affix\.local|affix_sk_/);
    expect((await db.pool.query('SELECT count(*)::int AS n FROM accounts')).rows[0].n).toBe(0);
  });
});
