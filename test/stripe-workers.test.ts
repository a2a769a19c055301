// Stripe events end to end: signed delivery -> inbox -> pg-boss worker -> core -> exact rows.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type TestApi,
  type TestDatabase,
  adminHeaders,
  count,
  createTestDatabase,
  startTestApi,
} from './support/harness.js';
import { CONNECT_SECRET, deliver, fixture, seedStripeCustomer, waitForEvent } from './support/stripe.js';

let db: TestDatabase;
let api: TestApi;

beforeAll(async () => {
  db = await createTestDatabase();
  api = await startTestApi(
    db.pool,
    {
      AFFIX_SECRET_KEY: 'test-secret-key-0123456789',
      AFFIX_WORKER_RETRY_LIMIT: '2',
      AFFIX_WORKER_RETRY_DELAY_SECONDS: '1',
      AFFIX_WORKER_POLL_SECONDS: '0.5',
      AFFIX_WORKER_CONCURRENCY: '2',
      STRIPE_CONNECT_WEBHOOK_SECRET: CONNECT_SECRET,
    },
    { queueUrl: db.url, workers: true },
  );
});
afterAll(async () => {
  await api.close();
  await db.drop();
});

/** A program connected to Stripe, with a click and a lead for one customer. */
async function setup(program: Record<string, unknown> = {}, opts: { lead?: boolean; email?: string } = {}) {
  const { shop, clickId, run, vars } = await seedStripeCustomer(api, program, opts);
  const { customer_key: customerKey, email } = vars;
  const send = async (name: string, overrides: (event: any) => void = () => undefined) => {
    const event = await fixture(name, vars);
    overrides(event);
    const reply = await deliver(api, `/api/v1/webhooks/stripe/${shop.programId}`, event);
    expect(reply.status).toBe(200);
    return event;
  };
  return { shop, clickId, customerKey, email, run, vars, send };
}

const saleRow = async (transactionId: string) =>
  (
    await db.pool.query(
      `SELECT s.amount_cents, s.currency, s.provider, s.is_recurring, s.attribution_step, s.test, s.partner_id,
              c.amount_cents AS commission, c.status AS commission_status, c.refunded_total_cents, c.deducted_cents
         FROM sales s LEFT JOIN commissions c ON c.sale_id = s.id WHERE s.processor_event_id = $1`,
      [transactionId],
    )
  ).rows;

describe('checkout.session.completed', () => {
  it('payment mode: sale and commission, attributed by affix_click_id', async () => {
    const { send, run, shop } = await setup();
    const event = await send('checkout.session.completed.payment');
    const inbox = await waitForEvent(db.pool, event.id, ['processed']);
    expect(inbox).toMatchObject({ attribution_step: 'click_id', sale_id: expect.any(Number), attempts: 0 });
    expect(await saleRow(`cs_${run}_payment`)).toEqual([
      { amount_cents: 4900, currency: 'USD', provider: 'stripe', is_recurring: false, attribution_step: 'click_id', test: false,
        partner_id: shop.partnerId, commission: 980, commission_status: 'pending', refunded_total_cents: 0, deducted_cents: 0 },
    ]);
  });

  it('guest checkout (no customer, no metadata) attributes by the lead email', async () => {
    const { send, run } = await setup();
    const event = await send('checkout.session.completed.guest');
    expect(await waitForEvent(db.pool, event.id, ['processed'])).toMatchObject({ attribution_step: 'email' });
    expect((await saleRow(`cs_${run}_guest`))[0]).toMatchObject({ amount_cents: 4900, commission: 980 });
  });

  it('a checkout nobody referred is recorded as ignored, no sale', async () => {
    const { send, run } = await setup({}, { lead: false, email: 'stranger@example.com' });
    const event = await send('checkout.session.completed.guest');
    const inbox = await waitForEvent(db.pool, event.id, ['ignored']);
    expect(inbox.reason).toMatch(/^no affiliate attribution/);
    expect(await saleRow(`cs_${run}_guest`)).toEqual([]);
  });

  it('async payment: unpaid waits, async_payment_succeeded records the sale', async () => {
    const { send, run } = await setup();
    const unpaid = await send('checkout.session.completed.async-unpaid');
    expect((await waitForEvent(db.pool, unpaid.id, ['ignored'])).reason).toContain('async_payment_succeeded');
    expect(await saleRow(`cs_${run}_async`)).toEqual([]);
    const paid = await send('checkout.session.async_payment_succeeded');
    await waitForEvent(db.pool, paid.id, ['processed']);
    expect((await saleRow(`cs_${run}_async`))[0]).toMatchObject({ amount_cents: 4900, commission: 980 });
  });

  it('livemode false is a test event (no commission) unless the program opts in', async () => {
    const { send, run, shop } = await setup();
    const event = await send('checkout.session.completed.payment', (e) => {
      e.livemode = false;
    });
    await waitForEvent(db.pool, event.id, ['processed']);
    expect((await saleRow(`cs_${run}_payment`))[0]).toMatchObject({ test: true, commission: null });

    await api.request('PATCH', `/api/v1/admin/programs/${shop.programId}/stripe`, { body: { livemode_only_commissions: false }, headers: adminHeaders });
    const other = await send('checkout.session.completed.guest', (e) => {
      e.livemode = false;
    });
    await waitForEvent(db.pool, other.id, ['processed']);
    expect((await saleRow(`cs_${run}_guest`))[0]).toMatchObject({ test: false, commission: 980 });
  });

  it('unsupported currency: failed with the reason, not retried', async () => {
    const { send, run } = await setup();
    const event = await send('checkout.session.completed.payment', (e) => {
      e.data.object.currency = 'gbp';
    });
    const inbox = await waitForEvent(db.pool, event.id, ['failed']);
    expect(inbox).toMatchObject({ reason: 'currency gbp is not supported', attempts: 0 });
    expect(await saleRow(`cs_${run}_payment`)).toEqual([]);
  });

  it('metadata program_id of another program: ignored', async () => {
    const { send } = await setup();
    const event = await send('checkout.session.completed.payment', (e) => {
      e.data.object.metadata.program_id = '999999';
    });
    expect((await waitForEvent(db.pool, event.id, ['ignored'])).reason).toBe('metadata program_id 999999 does not match this program');
  });
});

describe('subscriptions (both invoice shapes)', () => {
  it('checkout binds the customer; invoices record first sale and renewals; invoice.paid does not count twice', async () => {
    const { send, run, customerKey } = await setup({ commission_type: 'recurring_percent', commission_rate: 10, lead_auth: 'server_required' });
    const checkout = await send('checkout.session.completed.subscription');
    expect(await waitForEvent(db.pool, checkout.id, ['processed'])).toMatchObject({ attribution_step: 'click_id', sale_id: null });
    const { rows } = await db.pool.query('SELECT processor_customer_id, provisional_lead FROM customers WHERE customer_key = $1', [customerKey]);
    // The checkout binds; the payment (the invoice) settles the provisional lead (spec §3).
    expect(rows).toEqual([{ processor_customer_id: `cus_${run}`, provisional_lead: true }]);
    expect(await saleRow(`cs_${run}_subscription`)).toEqual([]);

    const first = await send('invoice.payment_succeeded.first');
    await waitForEvent(db.pool, first.id, ['processed']);
    const settled = await db.pool.query('SELECT provisional_lead FROM customers WHERE customer_key = $1', [customerKey]);
    expect(settled.rows).toEqual([{ provisional_lead: false }]);
    expect(await saleRow(`in_${run}_first`)).toEqual([expect.objectContaining({ amount_cents: 2000, is_recurring: false, commission: 200 })]);

    // Renewal without subscription metadata: resolved through the Stripe customer bound above.
    const renewal = await send('invoice.payment_succeeded.renewal', (e) => {
      e.data.object.customer_email = null;
    });
    expect(await waitForEvent(db.pool, renewal.id, ['processed'])).toMatchObject({ attribution_step: 'stripe_customer' });
    const paid = await send('invoice.paid.renewal');
    expect(await waitForEvent(db.pool, paid.id, ['processed'])).toMatchObject({ reason: 'sale already recorded' });
    expect(await saleRow(`in_${run}_renewal`)).toEqual([expect.objectContaining({ is_recurring: true, commission: 200 })]);
    expect(await count(db.pool, 'SELECT 1 FROM sales WHERE processor_event_id = $1', [`in_${run}_renewal`])).toBe(1);

    // Legacy shape (before 2025-03-31): top-level subscription_details and subscription.
    const legacy = await send('invoice.payment_succeeded.legacy-renewal');
    expect(await waitForEvent(db.pool, legacy.id, ['processed'])).toMatchObject({ attribution_step: 'click_id' });
    expect(await saleRow(`in_${run}_legacy`)).toEqual([expect.objectContaining({ is_recurring: true, commission: 200 })]);
  });

  it('a renewal under a non-recurring commission records the sale without a commission', async () => {
    const { send, run } = await setup({ commission_type: 'percent', commission_rate: 10 });
    await waitForEvent(db.pool, (await send('invoice.payment_succeeded.first')).id, ['processed']);
    await waitForEvent(db.pool, (await send('invoice.payment_succeeded.legacy-renewal')).id, ['processed']);
    expect((await saleRow(`in_${run}_first`))[0]).toMatchObject({ commission: 200 });
    expect((await saleRow(`in_${run}_legacy`))[0]).toMatchObject({ commission: null });
  });
});

describe('refunds and disputes', () => {
  it('partial (legacy embedded list), redelivered refund ignored, then full without a list', async () => {
    const { send, run } = await setup();
    await waitForEvent(db.pool, (await send('checkout.session.completed.payment')).id, ['processed']);
    const partial = await send('charge.refunded.partial-legacy');
    await waitForEvent(db.pool, partial.id, ['processed']);
    expect((await saleRow(`cs_${run}_payment`))[0]).toMatchObject({ commission_status: 'refunded', refunded_total_cents: 1000, deducted_cents: 200 });
    // The same refund again under another event id: counted once.
    const again = await send('charge.refunded.partial-legacy', (e) => {
      e.id = `${e.id}_again`;
    });
    await waitForEvent(db.pool, again.id, ['processed']);
    expect((await saleRow(`cs_${run}_payment`))[0]).toMatchObject({ refunded_total_cents: 1000 });
    const full = await send('charge.refunded.full');
    await waitForEvent(db.pool, full.id, ['processed']);
    expect((await saleRow(`cs_${run}_payment`))[0]).toMatchObject({ commission_status: 'reversed', refunded_total_cents: 4900, deducted_cents: 980 });
    const { rows } = await db.pool.query(
      "SELECT r.refund_key, r.amount_cents FROM refunds r JOIN sales s ON s.id = r.sale_id WHERE s.processor_event_id = $1 ORDER BY r.id",
      [`cs_${run}_payment`],
    );
    expect(rows).toEqual([
      { refund_key: `id:re_${run}_1`, amount_cents: 1000 },
      { refund_key: `id:ch_${run}_payment:total:4900`, amount_cents: 3900 },
    ]);
  });

  it('dispute created reverses as chargeback; dispute won restores the commission', async () => {
    const { send, run } = await setup();
    await waitForEvent(db.pool, (await send('checkout.session.completed.payment')).id, ['processed']);
    await waitForEvent(db.pool, (await send('charge.dispute.created')).id, ['processed']);
    expect((await saleRow(`cs_${run}_payment`))[0]).toMatchObject({ commission_status: 'reversed', deducted_cents: 980 });
    const { rows } = await db.pool.query("SELECT reason FROM refunds r JOIN sales s ON s.id = r.sale_id WHERE s.processor_event_id = $1", [`cs_${run}_payment`]);
    expect(rows).toEqual([{ reason: 'chargeback' }]);
    const won = await send('charge.dispute.closed.won');
    expect((await waitForEvent(db.pool, won.id, ['processed'])).reason).toBe('dispute won: commission restored');
    expect((await saleRow(`cs_${run}_payment`))[0]).toMatchObject({ commission_status: 'pending', refunded_total_cents: 0, deducted_cents: 0 });
    // Redelivered "won": nothing more to restore; a redelivered "created" stays counted once.
    const wonAgain = await send('charge.dispute.closed.won', (e) => {
      e.id = `${e.id}_again`;
    });
    expect((await waitForEvent(db.pool, wonAgain.id, ['processed'])).reason).toBe('nothing to restore');
  });
});

describe('out of order, retries, parking and replay', () => {
  it('a refund before its sale is retried and applied once the sale arrives', async () => {
    const { send, run } = await setup();
    const refund = await send('charge.refunded.partial-legacy');
    await waitForEvent(db.pool, refund.id, ['retrying']);
    await waitForEvent(db.pool, (await send('checkout.session.completed.payment')).id, ['processed']);
    const done = await waitForEvent(db.pool, refund.id, ['processed']);
    expect(done.attempts).toBeGreaterThanOrEqual(1);
    expect((await saleRow(`cs_${run}_payment`))[0]).toMatchObject({ refunded_total_cents: 1000 });
  });

  it('a payment with our metadata that nothing matches is attempted once and waits (never retried, never parked); its late lead attributes it', async () => {
    const { send, run, vars, shop } = await setup({}, { lead: false });
    const event = await send('checkout.session.completed.payment', (e) => {
      e.data.object.metadata.affix_click_id = `clk_missing_${run}`;
      e.data.object.customer_details.email = `nobody_${run}@example.com`;
      e.data.object.customer = `cus_missing_${run}`;
    });
    const waiting = await waitForEvent(db.pool, event.id, ['ignored']);
    expect(waiting.attempts).toBe(1);
    expect(waiting.reason).toMatch(/^no affiliate attribution yet: waiting up to 60 minutes/);
    const listed = await api.request('GET', '/api/v1/admin/webhook-events?status=ignored', { headers: adminHeaders });
    expect(listed.body.data.map((e: any) => e.id)).toContain(waiting.id);

    // The lead arrives late: the workers' sweep queues the payment once more, and it is attributed.
    await api.request('POST', '/api/v1/track/lead', { body: { click_id: vars.click_id, customer_key: vars.customer_key } });
    expect(await waitForEvent(db.pool, event.id, ['processed'], 30_000)).toMatchObject({ attribution_step: 'customer_key', attempts: 1 });
    const shown = await api.request('GET', `/api/v1/admin/webhook-events/${waiting.id}`, { headers: adminHeaders });
    expect(shown.body.data).toMatchObject({ status: 'processed', attribution_step: 'customer_key', program_id: shop.programId });
  }, 40_000);

  it('many events for one customer at once: each recorded once', async () => {
    const { send, run } = await setup({ commission_type: 'recurring_fixed', commission_rate: 1 });
    await waitForEvent(db.pool, (await send('checkout.session.completed.subscription')).id, ['processed']);
    const events = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        send('invoice.payment_succeeded.renewal', (e) => {
          e.id = `${e.id}_${i}`;
          e.data.object.id = `in_${run}_burst_${i % 3}`;
        }),
      ),
    );
    for (const event of events) await waitForEvent(db.pool, event.id, ['processed']);
    expect(await count(db.pool, 'SELECT 1 FROM sales WHERE processor_event_id LIKE $1', [`in_${run}_burst_%`])).toBe(3);
    expect(await count(db.pool, 'SELECT 1 FROM commissions c JOIN sales s ON s.id = c.sale_id WHERE s.processor_event_id LIKE $1', [`in_${run}_burst_%`])).toBe(3);
  });
});

describe('Connect and the dead-letter queue', () => {
  it('a Connect event is attributed to the program of its account', async () => {
    const { run, vars, shop } = await setup();
    await api.request('PATCH', `/api/v1/admin/programs/${shop.programId}/stripe`, { body: { account_id: `acct_${run}` }, headers: adminHeaders });
    const event = await fixture('checkout.session.completed.connect', { ...vars, account_id: `acct_${run}` });
    expect((await deliver(api, '/api/v1/webhooks/stripe', event, { secret: CONNECT_SECRET })).status).toBe(200);
    expect(await waitForEvent(db.pool, event.id, ['processed'])).toMatchObject({ attribution_step: 'click_id' });
    expect((await saleRow(`cs_${run}_connect`))[0]).toMatchObject({ amount_cents: 4900, commission: 980, partner_id: shop.partnerId });
  });

  it('an unexpected error is retried, then dead-lettered with nothing half-written; replay completes it', async () => {
    const { send, run } = await setup();
    const fn = `fail_commission_${run}`;
    await db.pool.query(`CREATE FUNCTION ${fn}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'disk full'; END $$`);
    await db.pool.query(`CREATE TRIGGER ${fn} BEFORE INSERT ON commissions FOR EACH ROW WHEN (NEW.amount_cents = 980) EXECUTE FUNCTION ${fn}()`);
    let dead;
    try {
      const event = await send('checkout.session.completed.payment');
      dead = await waitForEvent(db.pool, event.id, ['dead'], 30_000);
      expect(dead).toMatchObject({ attempts: 3, reason: 'commission could not be created' });
      expect(await saleRow(`cs_${run}_payment`)).toEqual([]);
    } finally {
      await db.pool.query(`DROP TRIGGER ${fn} ON commissions`);
    }
    await api.request('POST', `/api/v1/admin/webhook-events/${dead.id}/replay`, { headers: adminHeaders });
    await waitForEvent(db.pool, `evt_${run}_checkout_session_completed_payment`, ['processed']);
    expect((await saleRow(`cs_${run}_payment`))[0]).toMatchObject({ commission: 980 });
  }, 40_000);
});
