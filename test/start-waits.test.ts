// Starts that wait instead of giving up: processes started while PostgreSQL is down wait for it
// with backoff, saying so, and serve once it is back; several processes started at once on an
// empty database all come up (schema and queue creation one at a time).
import { afterAll, describe, expect, it } from 'vitest';
import { type RestartablePostgres, startRestartablePostgres } from '../scripts/lib/restartable-postgres.js';
import { type ServiceProcess, startServiceProcess } from '../scripts/lib/service-process.js';
import { freePort } from './support/ports.js';

const running: ServiceProcess[] = [];
let postgres: RestartablePostgres | undefined;
afterAll(async () => {
  for (const service of running) {
    service.child.kill('SIGTERM');
    await service.exited;
  }
  await postgres?.close();
});

const env = (databaseUrl: string, port: number) => ({
  DATABASE_URL: databaseUrl,
  PORT: String(port),
  HOST: '127.0.0.1',
  AFFIX_ADMIN_TOKEN: 'start-waits-admin-token-0123',
  AFFIX_SECRET_KEY: 'start-waits-secret-key-0123',
  AFFIX_WORKER_POLL_SECONDS: '0.5',
});

describe('starting', () => {
  it('2 APIs and 2 workers started at once on an empty database all come up, with no error', async () => {
    postgres = await startRestartablePostgres();
    const ports = await Promise.all([freePort(), freePort()]);
    const started = await Promise.allSettled([
      startServiceProcess('api', env(postgres.url, ports[0]!), { port: ports[0], timeoutMs: 60_000 }),
      startServiceProcess('api', env(postgres.url, ports[1]!), { port: ports[1], timeoutMs: 60_000 }),
      startServiceProcess('worker', env(postgres.url, 0), { timeoutMs: 60_000 }),
      startServiceProcess('worker', env(postgres.url, 0), { timeoutMs: 60_000 }),
    ]);
    for (const outcome of started) if (outcome.status === 'fulfilled') running.push(outcome.value);
    expect(started.map((outcome) => (outcome.status === 'fulfilled' ? 'up' : String(outcome.reason).slice(0, 400)))).toEqual(['up', 'up', 'up', 'up']);
    for (const service of running) expect(service.output()).not.toMatch(/deadlock|ERROR|exited/i);
  }, 120_000);

  it('PostgreSQL down at start: the processes wait through attempts with backoff, say so, and serve within seconds of its return', async () => {
    await postgres!.stopImmediate();
    const port = await freePort();
    // Each process has tried and backed off four times (0.25 + 0.5 + 1 + 2 s) before PostgreSQL
    // comes back: a start that gave up would have exited (and rejected) instead.
    const waited = () => {
      let seen: () => void = () => undefined;
      const fourth = new Promise<void>((resolve) => (seen = resolve));
      return { fourth, onOutput: (output: string) => (output.match(/waiting for the database/g)?.length ?? 0) >= 4 && seen() };
    };
    const [apiWait, workerWait] = [waited(), waited()];
    const api = startServiceProcess('api', env(postgres!.url, port), { port, timeoutMs: 60_000, onOutput: apiWait.onOutput });
    const worker = startServiceProcess('worker', env(postgres!.url, 0), { timeoutMs: 60_000, onOutput: workerWait.onOutput });
    const gaveUp = Promise.race([api, worker]).then(() => 'came up with the database down', (error: Error) => `gave up: ${error.message.slice(0, 400)}`);
    expect(await Promise.race([Promise.all([apiWait.fourth, workerWait.fourth]).then(() => 'both waiting'), gaveUp])).toBe('both waiting');
    const back = performance.now();
    await postgres!.start();
    const [apiUp, workerUp] = await Promise.all([api, worker]);
    running.push(apiUp, workerUp);
    const seconds = (performance.now() - back) / 1000;
    console.log(`[start-waits] both processes serving ${seconds.toFixed(1)} s after PostgreSQL came back`);
    expect(apiUp.output()).toContain('waiting for the database');
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
  }, 120_000);
});
