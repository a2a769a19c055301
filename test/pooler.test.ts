// Affix through PgBouncer in transaction mode (docs/database-pooler.md): a database made from
// nothing by migrations through the pooler, then every path a brand uses: click, lead, sale,
// refund, a Stripe webhook through the worker, a payout run and an outbound delivery. The
// pooler has 3 server connections for the service's many clients, so consecutive statements of
// one client meet different server connections: a named statement, a session setting or a
// session lock would fail here or leak into another client's work.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { formatReport, runChaos } from '../scripts/lib/chaos.js';
import { type PgBouncer, hasPgBouncer, startPgBouncer } from '../scripts/lib/pgbouncer.js';
import { type ServiceProcess, startServiceProcess } from '../scripts/lib/service-process.js';
import { expectNothingLostOrDoubled } from './support/chaos.js';
import { freePort } from './support/ports.js';
import { type Receiver, startReceiver } from './support/receiver.js';
import { seedStripeProgram, serviceClient } from './support/service-client.js';
import { fixture } from './support/stripe.js';

const ADMIN = 'pooler-admin-token-0123456789';
const SECRET = 'whsec_pooler_test_secret';

if (!hasPgBouncer()) console.warn('[pooler] PgBouncer is not installed (scripts/install-test-servers.sh): the pooler tests are skipped');

describe.skipIf(!hasPgBouncer())('through PgBouncer in transaction mode', () => {
  const name = `affix_pooler_${randomBytes(4).toString('hex')}`;
  const serverUrl = new URL(inject('pgAdminUrl'));
  serverUrl.pathname = `/${name}`;
  let bouncer: PgBouncer;
  let service: ServiceProcess;
  let client: ReturnType<typeof serviceClient>;
  let direct: pg.Pool;
  let receiver: Receiver;

  beforeAll(async () => {
    const admin = new pg.Client({ connectionString: inject('pgAdminUrl') });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    direct = new pg.Pool({ connectionString: serverUrl.toString(), max: 2 });
    bouncer = await startPgBouncer(serverUrl.toString(), { poolSize: 3 });
    receiver = await startReceiver();
    const port = await freePort();
    service = await startServiceProcess(
      'start',
      {
        DATABASE_URL: bouncer.urlFor(serverUrl.toString()),
        AFFIX_DATABASE_POOLING: 'transaction',
        PORT: String(port),
        HOST: '127.0.0.1',
        AFFIX_ADMIN_TOKEN: ADMIN,
        AFFIX_SECRET_KEY: 'pooler-test-secret-key-0123',
        AFFIX_SEED_DEMO: 'false',
        AFFIX_TRUST_PROXY: 'loopback',
        AFFIX_WORKER_POLL_SECONDS: '0.5',
        AFFIX_WEBHOOK_ALLOW_PRIVATE: 'true',
        LOG_LEVEL: 'info',
      },
      { port, timeoutMs: 60_000 },
    );
    client = serviceClient(`http://127.0.0.1:${port}`, ADMIN);
  }, 90_000);

  afterAll(async () => {
    if (service?.child.exitCode === null) {
      service.child.kill('SIGTERM');
      await service.exited;
    }
    await bouncer?.stop();
    await direct?.end();
    await receiver?.close();
    const admin = new pg.Client({ connectionString: inject('pgAdminUrl') });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  });

  const waitFor = async <T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> => {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const value = await read();
      if (done(value)) return value;
      if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(value)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };

  it('migrates an empty database through the pooler, and says the workers poll without a direct URL', async () => {
    const { rows } = await direct.query('SELECT count(*)::int AS n FROM affix_migrations');
    expect(rows[0].n).toBeGreaterThanOrEqual(29);
    expect(service.output()).toContain('DATABASE_URL is a transaction pooler and DATABASE_DIRECT_URL is unset: workers poll for new events');
  });

  it('click, lead, sale, refund, a Stripe webhook through the worker, a payout run and an outbound delivery', async () => {
    const program = await seedStripeProgram(client, SECRET);
    const bearer = { Authorization: `Bearer ${program.apiKey}` };
    const endpoint = await client.admin('POST', `/programs/${program.programId}/webhook-endpoints`, { url: receiver.url, event_types: ['sale.created'] });
    await client.admin('PATCH', `/programs/${program.programId}/payout-settings`, { hold_days: 0, payout_minimums_cents: {} });

    const click = await client.request('POST', '/api/v1/track/click', { body: { affiliate_url: `https://shop.example.com/?aff=${program.shortLink}` } });
    expect(click.status).toBe(200);
    const clickId = click.body.click_id as string;
    const lead = await client.request('POST', '/api/v1/track/lead', { body: { click_id: clickId, customer_key: 'pooled-customer', email: 'pooled@example.com' }, headers: bearer });
    expect(lead.body).toEqual({ success: true, message: 'Lead tracked successfully' });
    const sale = await client.request('POST', '/api/v1/track/sale', {
      body: { transaction_id: 'txn_pooled_1', amount_cents: 10_000, currency: 'USD', customer_key: 'pooled-customer' },
      headers: bearer,
    });
    expect(sale.status).toBe(200);
    const refund = await client.request('POST', '/api/v1/track/refund', {
      body: { transaction_id: 'txn_pooled_1', refund_amount_cents: 5_000, refund_id: 're_pooled_1', reason: 'refund' },
      headers: bearer,
    });
    expect(refund.status).toBe(200);

    // A Stripe payment through the inbox and the worker (found by polling: no LISTEN here).
    const secondClick = (await client.request('POST', '/api/v1/track/click', { body: { affiliate_url: `https://shop.example.com/?aff=${program.shortLink}` } })).body.click_id;
    const paid = await fixture('checkout.session.completed.payment', { run: `pooled${Date.now()}`, email: 'stripe-pooled@example.com', click_id: secondClick, customer_key: 'pooled-stripe', program_id: program.programId });
    expect((await client.deliver(program.programId, paid, SECRET)).status).toBe(200);
    const events = await waitFor(
      () => client.admin('GET', `/webhook-events?program_id=${program.programId}`),
      (list: { stripe_event_id: string; status: string }[]) => list.find((e) => e.stripe_event_id === paid.id)?.status === 'processed',
      'the Stripe event',
    );
    expect(events.find((e: { stripe_event_id: string }) => e.stripe_event_id === paid.id)).toMatchObject({ status: 'processed', attribution_step: 'click_id' });

    const money = await direct.query(
      `SELECT s.amount_cents, c.amount_cents AS commission, c.deducted_cents, c.earned_cents
         FROM sales s JOIN commission_states c ON c.sale_id = s.id WHERE s.program_id = $1 ORDER BY s.id`,
      [program.programId],
    );
    const stripeSale = Number(paid.data.object.amount_total);
    expect(money.rows.map((r) => [r.amount_cents, r.commission, r.deducted_cents, r.earned_cents])).toEqual([
      [10_000, 2_000, 1_000, 1_000],
      [stripeSale, stripeSale / 5, 0, stripeSale / 5],
    ]);

    // A payout run pays what is approved.
    const commissions = (await direct.query('SELECT id, earned_cents FROM commission_states WHERE program_id = $1 ORDER BY id', [program.programId])).rows;
    for (const commission of commissions) await client.admin('POST', `/programs/${program.programId}/commissions/${commission.id}/approve`, { reason: 'checked by hand' });
    const run = await client.admin('POST', `/programs/${program.programId}/payouts/run`);
    const owed = commissions.reduce((sum, c) => sum + Number(c.earned_cents), 0);
    expect(run.payouts.map((p: { amount_cents: number; currency: string }) => [p.currency, p.amount_cents])).toEqual([['USD', owed]]);

    // The brand's endpoint got both sales, signed.
    await waitFor(async () => receiver.received.length, (n) => n >= 2, 'outbound deliveries');
    for (const delivery of receiver.received) expect(() => new Webhook(endpoint.secret).verify(delivery.body, delivery.headers)).not.toThrow();
    expect(receiver.received.map((d) => JSON.parse(d.body).type)).toEqual(['sale.created', 'sale.created']);
  }, 60_000);
});

describe.skipIf(!hasPgBouncer())('chaos through PgBouncer', () => {
  it('loses and doubles nothing while processes are killed and PostgreSQL restarts behind the pooler', async () => {
    const report = await runChaos({ events: 40, workerKills: 3, killEveryMs: 3_000, apiKills: 1, databaseRestarts: 1, inFlight: 8, pooler: true });
    console.log(`[chaos through PgBouncer]\n${formatReport(report)}`);
    expect(report.databaseRestarts).toBe(1);
    expectNothingLostOrDoubled(report);
  }, 300_000);
});
