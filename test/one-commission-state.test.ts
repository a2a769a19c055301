// Issue item 5: a commission moved to an earlier first sale is stored with stage and status both
// `pending`; every answer, export and webhook payload must carry its one state (`moved`) and no
// field may claim it is pending.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SeededProgram, type TestApi, type TestDatabase, adminHeaders, createTestDatabase, startTestApi } from './support/harness.js';
import { apiRefund } from './support/money.js';
import { type Step, deliverSteps, processEventsInOrder, seedStripeCustomer } from './support/stripe.js';

let db: TestDatabase;
let api: TestApi;
const DAY = 86_400;

beforeAll(async () => {
  db = await createTestDatabase();
  api = await startTestApi(db.pool, { AFFIX_SECRET_KEY: 'one-commission-state-key-0123456789' }, { queueUrl: db.url });
});
afterAll(async () => {
  await api.close();
  await db.drop();
});

/** No field anywhere in the value says `pending`. */
function pendingFields(value: unknown, path = ''): string[] {
  if (value === 'pending') return [path];
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([k, v]) => pendingFields(v, `${path}.${k}`));
}

describe('a moved commission says moved on every surface', () => {
  it('admin API rows, the refund webhook payload: state moved, nothing pending', async () => {
    const { shop, vars, run } = await seedStripeCustomer(api, { commission_type: 'percent', commission_rate: 20 });
    const payment = (name: string, cents: number) => (e: any) => Object.assign(e.data.object, { id: `cs_${run}_${name}`, amount_total: cents, payment_intent: `pi_${run}_${name}` });
    const steps: Step[] = [
      { fixture: 'checkout.session.completed.payment', at: 2 * DAY - 3600, change: (e) => { payment('big', 9000)(e); e.id = `evt_${run}_big`; } },
      { fixture: 'checkout.session.completed.payment', at: 0, change: (e) => { payment('small', 1000)(e); e.id = `evt_${run}_small`; } },
    ];
    await processEventsInOrder(api, await deliverSteps(api, shop as SeededProgram, vars, steps));
    await db.pool.query(`INSERT INTO webhook_endpoints (program_id, url, event_types, secret_sealed) VALUES ($1, 'https://hooks.example.test/one-state', '{refund.applied,commission.reversed}', 'sealed')`, [shop.programId]);

    // The API's commission rows: the moved one carries state moved and no stage or status beside it.
    const reply = await api.request('GET', `/api/v1/admin/programs/${shop.programId}/commissions`, { headers: adminHeaders });
    expect(reply.status).toBe(200);
    const moved = reply.body.data.rows.find((r: any) => r.transaction_id === `cs_${run}_big`);
    expect(moved).toMatchObject({ state: 'moved', earned_cents: 0, amount_cents: 1800, deducted_cents: 1800 });
    expect(pendingFields(moved)).toEqual([]);
    // Filtered by its state it is there too.
    const byState = await api.request('GET', `/api/v1/admin/programs/${shop.programId}/commissions?stage=moved`, { headers: adminHeaders });
    expect(byState.body.data.rows.map((r: any) => [r.transaction_id, r.state])).toEqual([[`cs_${run}_big`, 'moved']]);
    expect(pendingFields(byState.body.data.rows)).toEqual([]);

    // A refund of the moved sale finds no commission to change; a refund of the earlier sale
    // names its outcome for what it is (the refund's), not as a commission status.
    expect((await apiRefund(api, shop, `cs_${run}_big`, 4500)).body).toMatchObject({ status: 'no_commission' });
    const refunded = await apiRefund(api, shop, `cs_${run}_small`, 500);
    expect(refunded.body).toMatchObject({ status: 'refunded' });
    const { rows } = await db.pool.query(`SELECT type, data FROM webhook_messages WHERE program_id = $1 ORDER BY created_at, id`, [shop.programId]);
    const refund = rows.find((r) => r.type === 'refund.applied');
    expect(refund?.data).toMatchObject({ transaction_id: `cs_${run}_small`, refund_status: 'refunded' });
    expect(refund?.data).not.toHaveProperty('commission_status');
    for (const r of rows) expect(pendingFields(r.data)).toEqual([]);
  });
});
