// Stripe delivers related events within a second, in any order, and retries them. Each
// scenario here runs in every order of its events (delivered, then processed one at a time,
// re-running what had to wait) and must end in the same rows, exact to the cent.
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPool } from '../src/db/infra/pool.js';
import { wakeWaitingEvents } from '../src/db/inbox/event-outcomes.js';
import { handleProcessorEvent, handleProcessorEventBatch } from '../src/jobs/processor-event-job.js';
import { processorEventEnqueuer } from '../src/platform/queue.js';
import {
  type SeededProgram,
  type TestApi,
  type TestDatabase,
  adminHeaders,
  count,
  createTestDatabase,
  startTestApi,
  trackClick,
} from './support/harness.js';
import { recountRollups, rolledUp } from './support/rollups.js';
import { CONNECT_SECRET, type Step, deliver, deliverSteps, fixture, processEventsAsBatch, processEventsInOrder, seedStripeCustomer, workerDeps } from './support/stripe.js';

let db: TestDatabase;
let api: TestApi;

beforeAll(async () => {
  db = await createTestDatabase();
  // Intake only: this file runs the worker's handler itself, in the order under test.
  api = await startTestApi(db.pool, { AFFIX_SECRET_KEY: 'test-secret-key-0123456789', STRIPE_CONNECT_WEBHOOK_SECRET: CONNECT_SECRET }, { queueUrl: db.url });
});
afterAll(async () => {
  await api.close();
  await db.drop();
});

function permutations<T>(items: T[]): T[][] {
  if (items.length <= 1) return [items];
  return items.flatMap((item, i) => permutations([...items.slice(0, i), ...items.slice(i + 1)]).map((rest) => [item, ...rest]));
}

const DAY = 86_400;

/** A program with a partner, a click and (unless told otherwise) a browser-mode lead. */
async function newRun(program: Record<string, unknown>, opts: { lead?: boolean } = {}) {
  const { shop, run, vars } = await seedStripeCustomer(api, program, opts);
  return { shop, run, vars };
}

const processInOrder = (inboxIds: number[]) => processEventsInOrder(api, inboxIds);
const deps = () => workerDeps(api);
const deliverAll = (shop: SeededProgram, vars: Record<string, string | number>, steps: Step[]) => deliverSteps(api, shop, vars, steps);

/** Everything money depends on, with run-specific ids taken out so runs compare. */
async function moneyState(programId: number, run: string) {
  const strip = (text: string | null) => text?.replaceAll(run, 'RUN') ?? null;
  const sales = await db.pool.query(
    `SELECT s.processor_event_id, s.amount_cents, s.is_recurring, s.attribution_step, s.commission_reason, s.test,
            c.amount_cents AS commission, c.status, c.refunded_total_cents, c.deducted_cents
       FROM sales s LEFT JOIN commissions c ON c.sale_id = s.id AND c.moved_to_sale_id IS NULL WHERE s.program_id = $1 ORDER BY s.processor_event_id`,
    [programId],
  );
  // What the partner is owed, whatever commissions moved on the way (a first sale processed late takes the commission).
  const ledger = await db.pool.query(
    'SELECT coalesce(sum(pending_cents), 0)::bigint AS pending, coalesce(sum(approved_cents), 0)::bigint AS approved FROM commission_ledger WHERE program_id = $1',
    [programId],
  );
  const customers = await db.pool.query(
    'SELECT status, provisional_lead, processor_customer_id FROM customers WHERE program_id = $1 ORDER BY id',
    [programId],
  );
  const refunds = await db.pool.query(
    `SELECT coalesce(sum(r.amount_cents) FILTER (WHERE r.reverted_at IS NULL AND r.reason <> 'refund_failed'), 0)::bigint
            - coalesce(sum(r.amount_cents) FILTER (WHERE r.reason = 'refund_failed'), 0)::bigint AS net_refunded
       FROM refunds r JOIN sales s ON s.id = r.sale_id WHERE s.program_id = $1`,
    [programId],
  );
  return {
    sales: sales.rows.map((row) => ({ ...row, processor_event_id: strip(row.processor_event_id) })),
    customers: customers.rows.map((row) => ({ ...row, processor_customer_id: strip(row.processor_customer_id) })),
    netRefunded: refunds.rows[0].net_refunded,
    ledger: ledger.rows[0],
  };
}

/**
 * Runs the scenario in every order, processed one at a time and as one worker batch (one
 * transaction, the pages' rollups written once at its end); returns the one state all reached.
 * The rollups equal a count of the rows in every run, and the order the events were meant to
 * arrive in commits as a batch (the others may fall back to one at a time, reaching the same state).
 */
async function everyOrder(program: Record<string, unknown>, steps: Step[], opts: { lead?: boolean } = {}) {
  const states: { order: string; state: unknown }[] = [];
  for (const [i, order] of permutations(steps).entries()) {
    for (const mode of ['one at a time', 'as a batch'] as const) {
      const { shop, run, vars } = await newRun(program, opts);
      const ids = await deliverAll(shop, vars, order);
      if (mode === 'as a batch') {
        const { batched } = await processEventsAsBatch(api, ids);
        if (i === 0) expect(batched, 'the events in their own order commit as one batch').toBe(true);
      } else {
        await processInOrder(ids);
      }
      expect(await rolledUp(db.pool, shop.programId)).toEqual(await recountRollups(db.pool, shop.programId));
      states.push({ order: `${order.map((s) => s.fixture).join(' > ')} (${mode})`, state: await moneyState(shop.programId, run) });
    }
  }
  for (const other of states.slice(1)) expect({ order: other.order, state: other.state }).toEqual({ order: other.order, state: states[0]!.state });
  return states[0]!.state as Awaited<ReturnType<typeof moneyState>>;
}

const withoutMetadataOrEmail = (event: any) => {
  event.data.object.parent.subscription_details.metadata = null;
  event.data.object.customer_email = null;
};

describe('every order ends in the same rows', () => {
  it('D1 + D3: checkout, first invoice without metadata or email, renewal processed first: the first invoice earns (taking it from the renewal when late), the renewal says why not', async () => {
    const state = await everyOrder({ commission_type: 'percent', commission_rate: 10 }, [
      { fixture: 'checkout.session.completed.subscription' },
      { fixture: 'invoice.payment_succeeded.first', change: withoutMetadataOrEmail },
      { fixture: 'invoice.payment_succeeded.renewal', at: 30 * DAY, change: (e) => (e.data.object.customer_email = null) },
    ]);
    expect(state.sales).toEqual([
      expect.objectContaining({ processor_event_id: 'in_RUN_first', amount_cents: 2000, is_recurring: false, attribution_step: 'stripe_customer', commission: 200, commission_reason: null, status: 'pending' }),
      expect.objectContaining({ processor_event_id: 'in_RUN_renewal', is_recurring: true, attribution_step: 'stripe_customer', commission: null, commission_reason: 'not_first_sale' }),
    ]);
  });

  it('D4: a won dispute processed before its creation leaves the commission whole', async () => {
    const state = await everyOrder({}, [
      { fixture: 'checkout.session.completed.payment' },
      { fixture: 'charge.dispute.created', at: 10 },
      { fixture: 'charge.dispute.closed.won', at: 20 },
    ]);
    expect(state.sales).toEqual([expect.objectContaining({ commission: 980, status: 'pending', refunded_total_cents: 0, deducted_cents: 0 })]);
  });

  it('a refund while the whole charge is disputed is counted; the dispute won leaves it counted, in every order', async () => {
    const state = await everyOrder({}, [
      { fixture: 'checkout.session.completed.payment' },
      { fixture: 'charge.dispute.created', at: 10 },
      { fixture: 'charge.refunded.partial-legacy', at: 20 },
      { fixture: 'charge.dispute.closed.won', at: 30 },
    ]);
    // 980 x 1000 / 4900 = 200; the ledger holds exactly what is left.
    expect(state.sales).toEqual([expect.objectContaining({ commission: 980, status: 'refunded', refunded_total_cents: 1000, deducted_cents: 200 })]);
    expect(state.ledger).toEqual({ pending: 780, approved: 0 });
  });

  it('a refund during a dispute, step by step: the total stays at the sale, then the won dispute gives back only its part; redeliveries change nothing', async () => {
    const { shop, run, vars } = await newRun({});
    const sales = async () => (await moneyState(shop.programId, run)).sales;
    await processInOrder(await deliverAll(shop, vars, [{ fixture: 'checkout.session.completed.payment' }, { fixture: 'charge.dispute.created', at: 10 }]));
    const disputed = [expect.objectContaining({ commission: 980, status: 'reversed', refunded_total_cents: 4900, deducted_cents: 980 })];
    expect(await sales()).toEqual(disputed);
    await processInOrder(await deliverAll(shop, vars, [{ fixture: 'charge.refunded.partial-legacy', at: 20 }]));
    expect(await sales()).toEqual(disputed);
    const rows = await db.pool.query(
      `SELECT r.reason, r.amount_cents::int AS amount, r.reverted_at IS NOT NULL AS reverted FROM refunds r JOIN sales s ON s.id = r.sale_id WHERE s.program_id = $1 ORDER BY r.id`,
      [shop.programId],
    );
    expect(rows.rows).toEqual([{ reason: 'chargeback', amount: 4900, reverted: false }, { reason: 'refund', amount: 1000, reverted: false }]);
    await processInOrder(await deliverAll(shop, vars, [{ fixture: 'charge.dispute.closed.won', at: 30 }]));
    const settled = await moneyState(shop.programId, run);
    expect(settled.sales).toEqual([expect.objectContaining({ status: 'refunded', refunded_total_cents: 1000, deducted_cents: 200 })]);
    expect(settled.ledger).toEqual({ pending: 780, approved: 0 });
    const again = (e: any) => (e.id = `${e.id}_again`);
    await processInOrder(
      await deliverAll(shop, vars, [
        { fixture: 'charge.dispute.created', at: 10, change: again },
        { fixture: 'charge.refunded.partial-legacy', at: 20, change: again },
        { fixture: 'charge.dispute.closed.won', at: 30, change: again },
      ]),
    );
    expect(await moneyState(shop.programId, run)).toEqual(settled);
  });

  it('a refund that fails while the whole charge is disputed changes nothing; the dispute won then leaves nothing refunded', async () => {
    const { shop, run, vars } = await newRun({});
    const failed = (e: any) => Object.assign(e.data.object, { id: `re_${run}_1`, amount: 1000, payment_intent: `pi_${run}_payment` });
    await processInOrder(
      await deliverAll(shop, vars, [
        { fixture: 'checkout.session.completed.payment' },
        { fixture: 'charge.dispute.created', at: 10 },
        { fixture: 'charge.refunded.partial-legacy', at: 20 },
        { fixture: 'charge.refund.updated.failed', at: 25, change: failed },
      ]),
    );
    const state = await moneyState(shop.programId, run);
    expect(state.sales).toEqual([expect.objectContaining({ status: 'reversed', refunded_total_cents: 4900, deducted_cents: 980 })]);
    expect(state.ledger).toEqual({ pending: 0, approved: 0 });
    await processInOrder(await deliverAll(shop, vars, [{ fixture: 'charge.dispute.closed.won', at: 30 }]));
    const won = await moneyState(shop.programId, run);
    expect(won.sales).toEqual([expect.objectContaining({ status: 'pending', refunded_total_cents: 0, deducted_cents: 0 })]);
    expect(won.ledger).toEqual({ pending: 980, approved: 0 });
  });

  it('refunds before their sale, listed and cumulative: the same total once', async () => {
    const state = await everyOrder({}, [
      { fixture: 'checkout.session.completed.payment' },
      { fixture: 'charge.refunded.partial-legacy', at: 10 },
      { fixture: 'charge.refunded.full', at: 20 },
    ]);
    expect(state.sales).toEqual([expect.objectContaining({ commission: 980, status: 'reversed', refunded_total_cents: 4900, deducted_cents: 980 })]);
    expect(state.netRefunded).toBe(4900);
  });

  it('D2: an invoice that names no payment is refunded through invoice_payment.paid, in any order', async () => {
    const state = await everyOrder({ commission_type: 'recurring_percent', commission_rate: 10 }, [
      { fixture: 'invoice.payment_succeeded.first-unexpanded' },
      { fixture: 'invoice_payment.paid', at: 1 },
      { fixture: 'charge.refunded.invoice', at: 10 },
    ]);
    expect(state.sales).toEqual([
      expect.objectContaining({ processor_event_id: 'in_RUN_first', commission: 200, status: 'refunded', refunded_total_cents: 500, deducted_cents: 50 }),
    ]);
  });
});

describe('worker batches at once', () => {
  it('two batches of sales and refunds in one program, committed side by side: every refund applied once, the ledger balances to the cent, the rollups equal the rows', async () => {
    const { shop, vars: first } = await newRun({});
    // Three more buyers of the same program, each with a click and a lead.
    const buyers = [first];
    for (let i = 1; i < 4; i++) {
      const clickId = await trackClick(api, shop.affiliateUrl);
      const run = `${first.run}_b${i}`;
      const vars = { run, click_id: clickId, customer_key: `user_${run}`, program_id: shop.programId, email: `buyer_${run}@example.com` };
      expect((await api.request('POST', '/api/v1/track/lead', { body: { click_id: clickId, customer_key: vars.customer_key, email: vars.email } })).status).toBe(200);
      buyers.push(vars);
    }
    const steps: Step[] = [{ fixture: 'checkout.session.completed.payment' }, { fixture: 'charge.refunded.partial-legacy', at: 10 }];
    const ids = await Promise.all(buyers.map((vars) => deliverAll(shop, vars, steps)));
    const results = await Promise.all([
      processEventsAsBatch(api, [...ids[0]!, ...ids[1]!]),
      processEventsAsBatch(api, [...ids[2]!, ...ids[3]!]),
    ]);
    expect(results).toEqual([{ batched: true }, { batched: true }]);
    const { rows } = await db.pool.query(
      `SELECT count(*)::int AS sales, sum(c.amount_cents)::int AS commissions, sum(c.deducted_cents)::int AS deducted,
              (SELECT count(*)::int FROM refunds r JOIN sales x ON x.id = r.sale_id WHERE x.program_id = $1) AS refunds,
              (SELECT sum(pending_cents)::int FROM commission_ledger WHERE program_id = $1) AS ledger_pending
         FROM sales s JOIN commissions c ON c.sale_id = s.id WHERE s.program_id = $1`,
      [shop.programId],
    );
    expect(rows[0]).toEqual({ sales: 4, commissions: 4 * 980, deducted: 4 * 200, refunds: 4, ledger_pending: 4 * 980 - 4 * 200 });
    expect(await rolledUp(db.pool, shop.programId)).toEqual(await recountRollups(db.pool, shop.programId));
  });

  it('two payments naming one checkout in one batch: the second finds the first one\'s sale in the batch, and the batch commits', async () => {
    const { shop, vars } = await newRun({});
    const ids = await deliverAll(shop, vars, [
      { fixture: 'checkout.session.completed.payment' },
      // The same session under another event id (a second delivery Stripe made of it).
      { fixture: 'checkout.session.completed.payment', change: (e) => (e.id = `${e.id}_again`) },
    ]);
    expect(await processEventsAsBatch(api, ids)).toEqual({ batched: true });
    const { rows } = await db.pool.query('SELECT status, reason, sale_id FROM webhook_events WHERE id = ANY ($1::bigint[]) ORDER BY id', [ids]);
    expect(rows).toEqual([
      { status: 'processed', reason: null, sale_id: expect.any(Number) },
      { status: 'processed', reason: 'sale already recorded', sale_id: rows[0].sale_id },
    ]);
    expect(await count(db.pool, 'SELECT id FROM sales WHERE program_id = $1', [shop.programId])).toBe(1);
  });
});

/** A worker's handler whose log lines are kept (the batch says which events went at once). */
function loggedDeps() {
  const lines: Record<string, any>[] = [];
  const logger = pino({ level: 'info' }, new Writable({ write: (chunk, _encoding, done) => (lines.push(JSON.parse(String(chunk))), done()) }));
  return { deps: { ...deps(), logger }, lines };
}

/** Buyers of one program: a click each, the first `withLead` with a lead too. */
async function buyers(shop: SeededProgram, run: string, total: number, withLead: number) {
  const list: Record<string, string | number>[] = [];
  for (let i = 0; i < total; i++) {
    const clickId = await trackClick(api, shop.affiliateUrl);
    const buyerRun = `${run}_b${i}`;
    const vars = { run: buyerRun, click_id: clickId, customer_key: `user_${buyerRun}`, program_id: shop.programId, email: `buyer_${buyerRun}@example.com` };
    if (i < withLead) expect((await api.request('POST', '/api/v1/track/lead', { body: { click_id: clickId, customer_key: vars.customer_key, email: vars.email } })).status).toBe(200);
    list.push(vars);
  }
  return list;
}

/** The rows a program's events wrote, beyond money: tracking events and hourly counts by kind, and the rollups against a recount. */
async function programRows(programId: number, run: string) {
  const { rows: events } = await db.pool.query('SELECT kind, count(*)::int AS n FROM tracking_events WHERE program_id = $1 GROUP BY kind ORDER BY kind', [programId]);
  const { rows: counted } = await db.pool.query('SELECT kind, sum(events)::int AS n FROM tracking_hourly_counts WHERE program_id = $1 GROUP BY kind ORDER BY kind', [programId]);
  const { rows: outcomes } = await db.pool.query(
    'SELECT type, status, reason, attribution_step FROM webhook_events WHERE program_id = $1 ORDER BY event_key',
    [programId],
  );
  // Each payment names its own sale (the transaction its object is) and that sale's commission.
  const { rows: misnamed } = await db.pool.query(
    `SELECT w.id FROM webhook_events w JOIN sales s ON s.id = w.sale_id
       LEFT JOIN commissions c ON c.id = (w.result ->> 'commission_id')::bigint
      WHERE w.program_id = $1 AND w.result ->> 'commission_id' IS NOT NULL AND (NOT s.processor_event_id = ANY (w.object_ids) OR c.sale_id IS DISTINCT FROM s.id)`,
    [programId],
  );
  expect(misnamed).toEqual([]);
  expect(await rolledUp(db.pool, programId)).toEqual(await recountRollups(db.pool, programId));
  return { money: await moneyState(programId, run), events, counted, outcomes };
}

describe('a batch\'s independent payments attributed at once', () => {
  it('seven buyers\' payments go at once and a refund after them in the batch\'s order: the rows are those of one event at a time', async () => {
    const states = [];
    for (const mode of ['at once', 'one at a time'] as const) {
      const { shop, run } = await newRun({});
      const list = await buyers(shop, run, 7, 3);
      const ids: number[] = [];
      for (const vars of list) ids.push(...(await deliverAll(shop, vars, [{ fixture: 'checkout.session.completed.payment' }])));
      ids.push(...(await deliverAll(shop, list[0]!, [{ fixture: 'charge.refunded.partial-legacy', at: 10 }])));
      if (mode === 'at once') {
        const { deps: logged, lines } = loggedDeps();
        expect(await handleProcessorEventBatch(logged, ids.map((inboxId) => ({ inboxId, jobId: `once-${inboxId}` })))).toEqual([]);
        const processed = lines.filter((line) => line.msg === 'processor event processed');
        expect(processed.map((line) => line.together)).toEqual([7, 7, 7, 7, 7, 7, 7, undefined]);
      } else {
        await processInOrder(ids);
      }
      states.push(await programRows(shop.programId, run));
    }
    expect(states[0]!.money.sales).toHaveLength(7);
    expect(states[0]!.money.sales.filter((sale: any) => sale.refunded_total_cents > 0)).toHaveLength(1);
    expect(states[0]).toEqual(states[1]);
  });

  it('payments attributed at once wake what waited for them: a refund delivered before its sale is retried now, a renewal waiting for its customer is queued again', async () => {
    const { shop, run } = await newRun({});
    const list = await buyers(shop, run, 3, 0);
    const [refundId] = await deliverAll(shop, list[1]!, [{ fixture: 'charge.refunded.full', at: 10 }]);
    const [renewalId] = await deliverAll(shop, list[2]!, [{ fixture: 'invoice.paid.renewal', at: 30 * DAY }]);
    const jobOf = async (inboxId: number) =>
      (await db.pool.query("SELECT id, state, start_after > now() AS later FROM pgboss.job WHERE name = 'processor-events' AND data ->> 'inboxId' = $1 ORDER BY created_on DESC LIMIT 1", [String(inboxId)])).rows[0];
    const job = await jobOf(refundId!);
    await expect(handleProcessorEvent(deps(), refundId!, job.id)).rejects.toThrow('the sale this refers to is not recorded yet');
    await api.queue!.fail('processor-events', job.id, { message: 'waiting' });
    expect(await handleProcessorEvent(deps(), renewalId!)).toMatchObject({ status: 'ignored', waitingFor: { id: `cus_${list[2]!.run}` } });
    expect(await jobOf(refundId!)).toMatchObject({ state: 'retry', later: true });

    const ids: number[] = [];
    for (const vars of list) ids.push(...(await deliverAll(shop, vars, [{ fixture: 'checkout.session.completed.payment' }])));
    const { deps: logged, lines } = loggedDeps();
    expect(await handleProcessorEventBatch(logged, ids.map((inboxId) => ({ inboxId, jobId: `wake-${inboxId}` })))).toEqual([]);
    expect(lines.filter((line) => line.msg === 'processor event processed').map((line) => line.together)).toEqual([3, 3, 3]);
    expect(lines.find((line) => line.msg.startsWith('queued events that were waiting'))?.woken).toBe(1);
    expect(await jobOf(refundId!)).toMatchObject({ state: 'retry', later: false });
    expect((await db.pool.query('SELECT status FROM webhook_events WHERE id = $1', [renewalId])).rows[0].status).toBe('queued');
    expect(await count(db.pool, 'SELECT 1 FROM event_waiters WHERE inbox_id = $1', [refundId])).toBe(0);
  });

  it('two batches, each with payments at once and their refunds after, committed side by side: every refund once, the ledger balances to the cent', async () => {
    const { shop, run } = await newRun({});
    const list = await buyers(shop, run, 4, 4);
    const refund: Step[] = [{ fixture: 'charge.refunded.partial-legacy', at: 10 }];
    const checkout: Step[] = [{ fixture: 'checkout.session.completed.payment' }];
    // Each batch: two buyers' checkouts (at once), then their refunds (in order).
    const batches = await Promise.all(
      [list.slice(0, 2), list.slice(2)].map(async (pair) => [
        ...(await deliverAll(shop, pair[0]!, checkout)), ...(await deliverAll(shop, pair[1]!, checkout)),
        ...(await deliverAll(shop, pair[0]!, refund)), ...(await deliverAll(shop, pair[1]!, refund)),
      ]),
    );
    const logged = batches.map(() => loggedDeps());
    const left = await Promise.all(batches.map((ids, b) => handleProcessorEventBatch(logged[b]!.deps, ids.map((inboxId) => ({ inboxId, jobId: `pair-${inboxId}` })))));
    expect(left).toEqual([[], []]);
    for (const { lines } of logged) {
      expect(lines.filter((line) => line.msg === 'processor event processed').map((line) => line.together)).toEqual([2, 2, undefined, undefined]);
    }
    const { rows } = await db.pool.query(
      `SELECT count(*)::int AS sales, sum(c.amount_cents)::int AS commissions, sum(c.deducted_cents)::int AS deducted,
              (SELECT count(*)::int FROM refunds r JOIN sales x ON x.id = r.sale_id WHERE x.program_id = $1) AS refunds,
              (SELECT sum(pending_cents)::int FROM commission_ledger WHERE program_id = $1) AS ledger_pending
         FROM sales s JOIN commissions c ON c.sale_id = s.id WHERE s.program_id = $1`,
      [shop.programId],
    );
    expect(rows[0]).toEqual({ sales: 4, commissions: 4 * 980, deducted: 4 * 200, refunds: 4, ledger_pending: 4 * 980 - 4 * 200 });
    expect(await rolledUp(db.pool, shop.programId)).toEqual(await recountRollups(db.pool, shop.programId));
  });

  it('two payments that reach one customer by different ids are not left at once: the batch falls back to one at a time, with the same rows', async () => {
    const states = [];
    for (const mode of ['as a batch', 'one at a time'] as const) {
      const { shop, run, vars } = await newRun({});
      // The lead's click and key on one payment (with another email), and only the lead's email on the other.
      const ids = await deliverAll(shop, vars, [
        { fixture: 'checkout.session.completed.payment', change: (e) => (e.data.object.customer_details.email = `other_${run}@example.com`) },
        {
          fixture: 'checkout.session.completed.payment',
          change: (e) => {
            e.id = `${e.id}_by_email`;
            e.data.object.id = `${e.data.object.id}_by_email`;
            e.data.object.payment_intent = `${e.data.object.payment_intent}_by_email`;
            e.data.object.customer = `${e.data.object.customer}_by_email`;
            e.data.object.metadata = {};
          },
        },
      ]);
      if (mode === 'as a batch') {
        const { deps: logged, lines } = loggedDeps();
        const left = await handleProcessorEventBatch(logged, ids.map((inboxId) => ({ inboxId, jobId: `same-${inboxId}` })));
        expect(left).toHaveLength(2);
        expect(lines.find((line) => line.msg.startsWith('batch rolled back'))?.reason).toMatch(/^events attributed at once: two events reached customer \d+$/);
      }
      await processInOrder(ids);
      states.push(await programRows(shop.programId, run));
    }
    expect(states[0]!.money.sales.map((sale: any) => sale.attribution_step)).toEqual(['click_id', 'email']);
    expect(states[0]).toEqual(states[1]);
  });
});

describe('a worker session after its batches', () => {
  it('keeps nothing of them: the batch\'s temporary tables are emptied by each commit, never grown batch after batch', async () => {
    // One connection: the session whose temporary tables are looked at is the one that ran the batches.
    const session = createPool(db.url, { max: 1 });
    try {
      const { shop, vars } = await newRun({});
      for (const round of [1, 2]) {
        const clickId = await trackClick(api, shop.affiliateUrl);
        const run = `${vars.run}_s${round}`;
        const ids = await deliverAll(shop, { ...vars, run, click_id: clickId, customer_key: `user_${run}` }, [
          { fixture: 'checkout.session.completed.payment' },
          { fixture: 'charge.refunded.partial-legacy', at: 10 },
        ]);
        expect(await handleProcessorEventBatch({ ...deps(), pool: session }, ids.map((inboxId) => ({ inboxId, jobId: `s-${inboxId}` })))).toEqual([]);
      }
      const { rows } = await session.query(
        `SELECT to_regclass('pg_temp.batch_rollup_rows') IS NOT NULL AS kept_rows, pg_relation_size('pg_temp.batch_rollup_rows') AS rows_bytes,
                pg_relation_size('pg_temp.batch_rollup_facts') AS facts_bytes`,
      );
      expect(rows[0]).toEqual({ kept_rows: true, rows_bytes: 0, facts_bytes: 0 });
      expect(await rolledUp(db.pool, shop.programId)).toEqual(await recountRollups(db.pool, shop.programId));
    } finally {
      await session.end();
    }
  });
});

describe('single events', () => {
  it('a refund delivered before its sale is retried as soon as the sale is recorded, not at its next back-off', async () => {
    const { shop, vars } = await newRun({});
    const [refundId, checkoutId] = await deliverAll(shop, vars, [
      { fixture: 'charge.refunded.full', at: 10 },
      { fixture: 'checkout.session.completed.payment' },
    ]);
    const jobOf = async (inboxId: number) =>
      (await db.pool.query("SELECT id, state, start_after > now() AS later FROM pgboss.job WHERE name = 'processor-events' AND data ->> 'inboxId' = $1", [String(inboxId)])).rows[0];
    // As a worker runs it: the attempt fails waiting for the sale, and pg-boss schedules the retry.
    const job = await jobOf(refundId!);
    await expect(handleProcessorEvent(deps(), refundId!, job.id)).rejects.toThrow('the sale this refers to is not recorded yet');
    await api.queue!.fail('processor-events', job.id, { message: 'waiting' });
    expect(await jobOf(refundId!)).toMatchObject({ state: 'retry', later: true });
    const waiters = async () => (await db.pool.query('SELECT wait_key, retry_job FROM event_waiters WHERE inbox_id = $1', [refundId])).rows;
    expect(await waiters()).toContainEqual({ wait_key: `pi_${vars.run}_payment`, retry_job: job.id });
    // The sale: its statement moves the waiting refund's retry to now.
    expect(await handleProcessorEvent(deps(), checkoutId!)).toMatchObject({ status: 'processed', attributionStep: 'click_id' });
    expect(await jobOf(refundId!)).toMatchObject({ state: 'retry', later: false });
    expect(await handleProcessorEvent(deps(), refundId!, job.id)).toMatchObject({ status: 'processed' });
    expect(await waiters()).toEqual([]);
  });

  for (const last of ['the link', 'the invoice'] as const) {
    it(`a refund of a payment its invoice does not name is retried as soon as its sale is findable, ${last} coming last`, async () => {
      const { shop, vars } = await newRun({ commission_type: 'recurring_percent', commission_rate: 10 });
      const [refundId, invoiceId, linkId] = await deliverAll(shop, vars, [
        { fixture: 'charge.refunded.invoice', at: 10 },
        { fixture: 'invoice.payment_succeeded.first-unexpanded' },
        { fixture: 'invoice_payment.paid', at: 1 },
      ]);
      const jobOf = async (inboxId: number) =>
        (await db.pool.query("SELECT id, state, start_after > now() AS later FROM pgboss.job WHERE name = 'processor-events' AND data ->> 'inboxId' = $1", [String(inboxId)])).rows[0];
      const job = await jobOf(refundId!);
      await expect(handleProcessorEvent(deps(), refundId!, job.id)).rejects.toThrow('the sale this refers to is not recorded yet');
      await api.queue!.fail('processor-events', job.id, { message: 'waiting' });
      // The invoice names no payment: only its link makes the refund's payment lead to it.
      const [first, second] = last === 'the link' ? [invoiceId!, linkId!] : [linkId!, invoiceId!];
      expect(await handleProcessorEvent(deps(), first)).toMatchObject({ status: 'processed' });
      expect(await jobOf(refundId!)).toMatchObject({ state: 'retry', later: true });
      expect(await handleProcessorEvent(deps(), second)).toMatchObject({ status: 'processed' });
      expect(await jobOf(refundId!)).toMatchObject({ state: 'retry', later: false });
      expect(await handleProcessorEvent(deps(), refundId!, job.id)).toMatchObject({ status: 'processed' });
      expect((await db.pool.query('SELECT * FROM event_waiters WHERE inbox_id = $1', [refundId])).rows).toEqual([]);
    });
  }

  it('D2: a refund that fails afterwards gives its deduction back (counted cumulatively or by id)', async () => {
    const { shop, run, vars } = await newRun({ commission_type: 'recurring_percent', commission_rate: 10 });
    const ids = await deliverAll(shop, vars, [
      { fixture: 'invoice.payment_succeeded.first-unexpanded' },
      { fixture: 'invoice_payment.paid', at: 1 },
      { fixture: 'charge.refunded.invoice', at: 10 },
      { fixture: 'charge.refund.updated.failed', at: 20 },
    ]);
    await processInOrder(ids);
    const after = await moneyState(shop.programId, run);
    expect(after.sales).toEqual([expect.objectContaining({ commission: 200, status: 'pending', refunded_total_cents: 0, deducted_cents: 0 })]);
    expect(after.netRefunded).toBe(0);
    // Redelivered under a new event id (Stripe's retry of a different delivery): nothing more.
    const again = await deliverAll(shop, vars, [{ fixture: 'charge.refund.updated.failed', at: 20, change: (e) => (e.id = `${e.id}_again`) }]);
    await processInOrder(again);
    expect((await moneyState(shop.programId, run)).sales).toEqual(after.sales);

    // Counted by its id (legacy embedded list), then failed: that row is reverted.
    const legacy = await newRun({});
    await processInOrder(
      await deliverAll(legacy.shop, legacy.vars, [
        { fixture: 'checkout.session.completed.payment' },
        { fixture: 'charge.refunded.partial-legacy', at: 10 },
        { fixture: 'charge.refund.updated.failed', at: 20, change: (e) => Object.assign(e.data.object, { id: `re_${legacy.run}_1`, amount: 1000, payment_intent: `pi_${legacy.run}_payment` }) },
      ]),
    );
    expect((await moneyState(legacy.shop.programId, legacy.run)).sales).toEqual([
      expect.objectContaining({ commission: 980, status: 'pending', refunded_total_cents: 0, deducted_cents: 0 }),
    ]);
  });

  it('D6: a subscription checkout binds the customer but leaves a provisional lead to the payment', async () => {
    const { shop, run, vars } = await newRun({ lead_auth: 'server_required' });
    await processInOrder(await deliverAll(shop, vars, [{ fixture: 'checkout.session.completed.subscription' }]));
    expect((await moneyState(shop.programId, run)).customers).toEqual([{ status: 'lead', provisional_lead: true, processor_customer_id: 'cus_RUN' }]);
    await processInOrder(await deliverAll(shop, vars, [{ fixture: 'invoice.payment_succeeded.first', at: 5 }]));
    expect((await moneyState(shop.programId, run)).customers).toEqual([{ status: 'customer', provisional_lead: false, processor_customer_id: 'cus_RUN' }]);
  });

  it('D8: a checkout whose client_reference_id matches nobody is an unreferred sale: ignored at once, not retried', async () => {
    const { shop, run, vars } = await newRun({}, { lead: false });
    const [id] = await deliverAll(shop, vars, [
      {
        fixture: 'checkout.session.completed.guest',
        change: (e) => Object.assign(e.data.object, { client_reference_id: `order_ref_${run}`, customer_details: { email: `stranger_${run}@example.com` } }),
      },
    ]);
    const update = await handleProcessorEvent(deps(), id!);
    expect(update).toMatchObject({ status: 'ignored', reason: 'no affiliate attribution: client_reference_id matches no customer (an unreferred sale)' });
    const { rows } = await db.pool.query('SELECT status, attempts FROM webhook_events WHERE id = $1', [id]);
    expect(rows[0]).toEqual({ status: 'ignored', attempts: 0 });
  });

  it('D5: a Connect event before its account is bound waits, and is processed once the account is bound', async () => {
    const { shop, run, vars } = await newRun({});
    const event = await fixture('checkout.session.completed.connect', { ...vars, account_id: `acct_${run}` });
    const reply = await deliver(api, '/api/v1/webhooks/stripe', event, { secret: CONNECT_SECRET });
    expect(reply.body).toMatchObject({ status: 'ignored' });
    const waiting = await db.pool.query('SELECT program_id, reason, waiting_for FROM webhook_events WHERE id = $1', [reply.body.id]);
    expect(waiting.rows[0]).toEqual({ program_id: null, reason: `no program is connected to account acct_${run} yet; processed when one is`, waiting_for: `acct_${run}` });
    expect(await wakeWaitingEvents(db.pool, processorEventEnqueuer(api.queue!))).not.toContain(reply.body.id);

    await api.request('PATCH', `/api/v1/admin/programs/${shop.programId}/stripe`, { body: { account_id: `acct_${run}` }, headers: adminHeaders });
    expect(await wakeWaitingEvents(db.pool, processorEventEnqueuer(api.queue!))).toContain(reply.body.id);
    expect(await handleProcessorEvent(deps(), reply.body.id)).toMatchObject({ status: 'processed', attributionStep: 'click_id' });
    expect((await moneyState(shop.programId, run)).sales).toEqual([expect.objectContaining({ processor_event_id: 'cs_RUN_connect', commission: 980 })]);
  });

  it('D5: an old Connect event whose wait ran out is routed to the bound program when replayed', async () => {
    const { shop, run, vars } = await newRun({});
    const event = await fixture('checkout.session.completed.connect', { ...vars, account_id: `acct_${run}` });
    const reply = await deliver(api, '/api/v1/webhooks/stripe', event, { secret: CONNECT_SECRET });
    await db.pool.query(`UPDATE webhook_events SET wait_until = now() - interval '1 second' WHERE id = $1`, [reply.body.id]);
    await wakeWaitingEvents(db.pool, processorEventEnqueuer(api.queue!));
    await api.request('PATCH', `/api/v1/admin/programs/${shop.programId}/stripe`, { body: { account_id: `acct_${run}` }, headers: adminHeaders });
    expect(await wakeWaitingEvents(db.pool, processorEventEnqueuer(api.queue!))).not.toContain(reply.body.id);
    const replay = await api.request('POST', `/api/v1/admin/webhook-events/${reply.body.id}/replay`, { headers: adminHeaders });
    expect(replay.body.data).toMatchObject({ status: 'queued', program_id: shop.programId });
    expect(await handleProcessorEvent(deps(), reply.body.id)).toMatchObject({ status: 'processed' });
  });

  it('metadata of the peer service (affitor_click_id, affitor_customer_key) attributes like ours', async () => {
    const { shop, run, vars } = await newRun({});
    const [byClick] = await deliverAll(shop, vars, [
      { fixture: 'checkout.session.completed.payment', change: (e) => (e.data.object.metadata = { affitor_click_id: vars.click_id }) },
    ]);
    expect(await handleProcessorEvent(deps(), byClick!)).toMatchObject({ status: 'processed', attributionStep: 'click_id' });
    const [byKey] = await deliverAll(shop, vars, [
      {
        fixture: 'checkout.session.completed.guest',
        change: (e) => Object.assign(e.data.object, { metadata: { affitor_customer_key: vars.customer_key }, customer_details: { email: `other_${run}@example.com` } }),
      },
    ]);
    expect(await handleProcessorEvent(deps(), byKey!)).toMatchObject({ status: 'processed', attributionStep: 'customer_key' });
  });

  it('D7: replaying a processed event keeps the attribution step it recorded', async () => {
    const { shop, vars } = await newRun({});
    const [id] = await deliverAll(shop, vars, [{ fixture: 'checkout.session.completed.payment' }]);
    await handleProcessorEvent(deps(), id!);
    const replay = await api.request('POST', `/api/v1/admin/webhook-events/${id}/replay`, { headers: adminHeaders });
    expect(replay.status).toBe(200);
    await handleProcessorEvent(deps(), id!);
    const { rows } = await db.pool.query('SELECT status, reason, attribution_step, sale_id FROM webhook_events WHERE id = $1', [id]);
    expect(rows[0]).toMatchObject({ status: 'processed', reason: 'sale already recorded', attribution_step: 'click_id', sale_id: expect.any(Number) });
  });
  it('the sale and the event\'s outcome commit together: an outcome that cannot be written leaves no sale, and the retry records it once', async () => {
    const { shop, run, vars } = await newRun({});
    const [id] = await deliverAll(shop, vars, [{ fixture: 'checkout.session.completed.payment' }]);
    // The inbox row refuses its outcome once (as a lost connection or a full disk would).
    await db.pool.query(`CREATE FUNCTION refuse_outcome_${id}() RETURNS trigger LANGUAGE plpgsql AS $$
                           BEGIN IF NEW.id = ${id} AND NEW.status = 'processed' THEN RAISE EXCEPTION 'outcome refused'; END IF; RETURN NEW; END $$`);
    await db.pool.query(`CREATE TRIGGER refuse_outcome_${id} BEFORE UPDATE ON webhook_events FOR EACH ROW EXECUTE FUNCTION refuse_outcome_${id}()`);
    try {
      await expect(handleProcessorEvent(deps(), id!)).rejects.toThrow('outcome refused');
      expect((await moneyState(shop.programId, run)).sales).toEqual([]);
      const { rows } = await db.pool.query('SELECT status, attempts, sale_id FROM webhook_events WHERE id = $1', [id]);
      expect(rows[0]).toEqual({ status: 'retrying', attempts: 1, sale_id: null });
    } finally {
      await db.pool.query(`DROP TRIGGER refuse_outcome_${id} ON webhook_events; DROP FUNCTION refuse_outcome_${id}()`);
    }
    expect(await handleProcessorEvent(deps(), id!)).toMatchObject({ status: 'processed', attributionStep: 'click_id' });
    expect((await moneyState(shop.programId, run)).sales).toEqual([expect.objectContaining({ processor_event_id: 'cs_RUN_payment', commission: 980 })]);
  });
});
