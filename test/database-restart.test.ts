// A PostgreSQL restart (immediate: like a crash) under load: every process keeps running,
// answers 503 with Retry-After while the database is gone, and serves again by itself.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type RestartablePostgres, startRestartablePostgres } from '../scripts/lib/restartable-postgres.js';
import { type ServiceProcess, startServiceProcess } from '../scripts/lib/service-process.js';
import { freePort } from './support/ports.js';
import { seedStripeProgram, serviceClient } from './support/service-client.js';
import { fixture } from './support/stripe.js';

const ADMIN = 'restart-admin-token-0123456789';
const SECRET = 'whsec_restart_test_secret';
let pg: RestartablePostgres;
let service: ServiceProcess;
let client: ReturnType<typeof serviceClient>;

beforeAll(async () => {
  pg = await startRestartablePostgres();
  const port = await freePort();
  service = await startServiceProcess(
    'start',
    {
      DATABASE_URL: pg.url,
      PORT: String(port),
      HOST: '127.0.0.1',
      AFFIX_ADMIN_TOKEN: ADMIN,
      AFFIX_SECRET_KEY: 'restart-test-secret-key-0123',
      AFFIX_SEED_DEMO: 'false',
      AFFIX_TRUST_PROXY: 'loopback',
      AFFIX_WORKER_POLL_SECONDS: '0.5',
    },
    { port },
  );
  client = serviceClient(`http://127.0.0.1:${port}`, ADMIN);
}, 60_000);

afterAll(async () => {
  if (service?.child.exitCode === null) service.child.kill('SIGKILL');
  await pg?.close();
});

const click = (shortLink: string) => client.request('POST', '/api/v1/track/click', { body: { affiliate_url: `https://shop.example.com/?aff=${shortLink}` } });

it('keeps running through a database restart under load and recovers within 10 s', async () => {
  const program = await seedStripeProgram(client, SECRET);
  let load = true;
  const statuses: number[] = [];
  const loadLoop = (async () => {
    while (load) statuses.push(await click(program.shortLink).then((r) => r.status, () => 0));
  })();
  await new Promise((resolve) => setTimeout(resolve, 500));

  await pg.stopImmediate();
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  expect(service.child.exitCode).toBeNull();
  expect((await client.request('GET', '/healthz')).status).toBe(200);
  const ready = await client.request('GET', '/readyz', { timeoutMs: 3_000 });
  expect(ready.status).toBe(503);
  const refused = await click(program.shortLink);
  expect(refused.status).toBe(503);
  expect(refused.headers.get('retry-after')).toBe('5');
  expect(refused.body.error).toMatchObject({ status: 503, name: 'ServiceUnavailableError' });
  const clickId = 'not-needed';
  const event = await fixture('checkout.session.completed.payment', { run: `restart${Date.now()}`, email: 'r@example.com', click_id: clickId, customer_key: 'cust-restart', program_id: program.programId });
  expect((await client.deliver(program.programId, event, SECRET)).status).toBe(503);

  await pg.start();
  const back = Date.now();
  let recovered = 0;
  for (;;) {
    const [readiness, again] = await Promise.all([client.request('GET', '/readyz'), click(program.shortLink)]);
    if (readiness.status === 200 && again.status === 200) {
      recovered = Date.now() - back;
      break;
    }
    expect(Date.now() - back).toBeLessThan(10_000);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  load = false;
  await loadLoop;
  expect(recovered).toBeLessThan(10_000);
  console.log(`[database restart] serving again ${recovered} ms after PostgreSQL came back`);
  expect(statuses.filter((status) => status !== 200 && status !== 503)).toEqual([]);

  // The workers are back too: a webhook stored now is processed.
  const realClick = (await click(program.shortLink)).body.click_id as string;
  const paid = await fixture('checkout.session.completed.payment', { run: `restart2${Date.now()}`, email: 'r2@example.com', click_id: realClick, customer_key: 'cust-restart-2', program_id: program.programId });
  expect((await client.deliver(program.programId, paid, SECRET)).status).toBe(200);
  const deadline = Date.now() + 10_000;
  let status = '';
  while (Date.now() < deadline) {
    const events = await client.admin('GET', `/webhook-events?program_id=${program.programId}`);
    status = events.find((e: { stripe_event_id: string }) => e.stripe_event_id === paid.id)?.status ?? '';
    if (status === 'processed') break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  expect(status).toBe('processed');
  expect(service.child.exitCode).toBeNull();

  service.child.kill('SIGTERM');
  expect(await service.exited).toBe(0);
}, 60_000);
