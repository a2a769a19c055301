// Issue item 5: a commission moved to an earlier first sale is stored with stage and status both
// `pending`; every answer, export and webhook payload must carry its one state (`moved`) and no
// field may claim it is pending.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ADMIN_TOKEN, type SeededProgram, type TestApi, type TestDatabase, adminHeaders, bearer, createTestDatabase, startTestApi } from './support/harness.js';
import { signedInVisitor } from './support/dashboard-visitor.js';
import { apiRefund, apiSale } from './support/money.js';
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

/** Paths of every key named `stage` or `status` in the value: a commission's surfaces carry neither. */
function rawStateKeys(value: unknown, path = ''): string[] {
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([k, v]) => [...(k === 'stage' || k === 'status' ? [`${path}.${k}`] : []), ...rawStateKeys(v, `${path}.${k}`)]);
}

/** One CSV line's fields (quoted fields may hold commas). */
const csvLine = (line: string) => [...line.matchAll(/("(?:[^"]|"")*"|[^,]*)(?:,|$)/g)].map((m) => m[1]!.replace(/^"|"$/g, '').replaceAll('""', '"')).slice(0, -1);

describe('every surface carries the one state of the view', () => {
  it('moved, pending, held then released or rejected, approved, reversed: API answers, CLI, MCP, activity export, event detail and webhook payloads agree with commission_states', async () => {
    const { shop, vars, run } = await seedStripeCustomer(api, { commission_type: 'percent', commission_rate: 20 });
    await db.pool.query(
      `INSERT INTO webhook_endpoints (program_id, url, event_types, secret_sealed)
       VALUES ($1, 'https://hooks.example.test/every-state', '{commission.created,commission.approved,commission.released,commission.rejected,commission.reversed,refund.applied}', 'sealed')`,
      [shop.programId],
    );
    const payment = (name: string, cents: number) => (e: any) => Object.assign(e.data.object, { id: `cs_${run}_${name}`, amount_total: cents, payment_intent: `pi_${run}_${name}` });
    const steps: Step[] = [
      { fixture: 'checkout.session.completed.payment', at: 2 * DAY - 3600, change: (e) => { payment('big', 9000)(e); e.id = `evt_${run}_big`; } },
      { fixture: 'checkout.session.completed.payment', at: 0, change: (e) => { payment('small', 1000)(e); e.id = `evt_${run}_small`; } },
    ];
    const inboxIds = await deliverSteps(api, shop as SeededProgram, vars, steps);
    await processEventsInOrder(api, inboxIds);
    const other = await apiSale(api, shop, 5000);

    const admin = (method: string, path: string, body?: unknown) => api.request(method, `/api/v1/admin/programs/${shop.programId}${path}`, { body, headers: adminHeaders });
    const password = 'every state password 1';
    expect((await api.request('PATCH', `/api/v1/admin/accounts/${shop.accountId}`, { body: { password }, headers: adminHeaders })).status).toBe(200);
    const email = (await db.pool.query('SELECT email FROM accounts WHERE id = $1', [shop.accountId])).rows[0].email;
    const dashboard = await signedInVisitor(api.url, email, password);
    const mcp = new Client({ name: 'affix-test', version: '1.0.0' });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(`${api.url}/mcp`), { requestInit: { headers: bearer(shop.apiKey) } }));
    const cli = async (...args: string[]) =>
      JSON.parse((await promisify(execFile)(process.execPath, ['bin/affix.mjs', 'admin', ...args], { env: { ...process.env, AFFIX_ADMIN_TOKEN: ADMIN_TOKEN, AFFIX_API_URL: api.url } })).stdout);

    /** The view's word for each commission of the program, by its sale's transaction id. */
    const viewStates = async () =>
      new Map<string, { id: number; state: string }>(
        (await db.pool.query('SELECT cs.id, cs.state, s.processor_event_id AS txn FROM commission_states cs JOIN sales s ON s.id = cs.sale_id WHERE cs.program_id = $1', [shop.programId])).rows.map((r) => [r.txn, { id: Number(r.id), state: r.state }]),
      );

    /** Every surface that shows a commission, read now, against the view. */
    async function everySurfaceAgrees(step: string) {
      const view = await viewStates();
      const byId = new Map([...view.values()].map((v) => [v.id, v.state]));
      // The admin API's list, and filtered by each state it holds.
      const list = await admin('GET', '/commissions');
      expect(rawStateKeys(list.body.data), `${step}: admin list`).toEqual([]);
      for (const row of list.body.data.rows) expect(row.state, `${step}: admin row ${row.id}`).toBe(byId.get(row.id));
      for (const state of new Set(byId.values())) {
        const filtered = await admin('GET', `/commissions?state=${state}`);
        expect(filtered.body.data.state).toBe(state);
        expect(rawStateKeys(filtered.body.data), `${step}: admin list of ${state}`).toEqual([]);
        expect(filtered.body.data.rows.map((r: any) => r.id).sort(), `${step}: filtered by ${state}`).toEqual([...byId].filter(([, s]) => s === state).map(([id]) => id).sort());
      }
      // The CLI prints the API's answer.
      const printed = await cli('payouts', 'commissions', '--program', String(shop.programId));
      expect(rawStateKeys(printed), `${step}: CLI`).toEqual([]);
      expect(new Map(printed.rows.map((r: any) => [r.id, r.state])), `${step}: CLI states`).toEqual(byId);
      for (const [txn, { state }] of view) {
        // The assistant's explanation of the sale.
        const told = await mcp.callTool({ name: 'explain_sale', arguments: { transaction_id: txn } });
        const explanation = JSON.parse((told.content as Array<{ text: string }>)[0]!.text);
        expect(explanation.commission_state, `${step}: MCP ${txn}`).toBe(state);
        expect(rawStateKeys(explanation), `${step}: MCP ${txn}`).toEqual([]);
      }
      // The activity export, from before the Stripe payments happened (40 days ago: Activity goes by a sale's own time).
      const csv = await dashboard.get(`/dashboard/programs/${shop.programId}/activity.csv?from=${new Date(Date.now() - 60 * DAY * 1000).toISOString().slice(0, 10)}`);
      expect(csv.status).toBe(200);
      const [header, ...lines] = csv.text.trim().split('\r\n').map(csvLine);
      expect(header!.filter((c) => /stage|status/.test(c)), `${step}: CSV columns`).toEqual([]);
      const exported = new Map(lines.map((l) => Object.fromEntries(header!.map((h, i) => [h, l[i]]))).filter((r) => r.kind === 'sale').map((r) => [r.transaction_id, r.commission_state]));
      for (const [txn, { state }] of view) expect(exported.get(txn), `${step}: CSV ${txn}`).toBe(state);
      // Support's view of the Stripe events: the commission of each event's sale.
      for (const inboxId of inboxIds) {
        const detail = (await api.request('GET', `/api/v1/admin/webhook-events/${inboxId}`, { headers: adminHeaders })).body.data;
        expect(detail.commission_state, `${step}: event ${inboxId}`).toBe(view.get(detail.stripe_event_id === `evt_${run}_big` ? `cs_${run}_big` : `cs_${run}_small`)!.state);
      }
    }

    const view = await viewStates();
    const big = view.get(`cs_${run}_big`)!;
    const small = view.get(`cs_${run}_small`)!;
    const api3 = view.get(other.transactionId)!;
    expect([big.state, small.state, api3.state]).toEqual(['moved', 'pending', 'pending']);
    await everySurfaceAgrees('moved');

    // A manager's answers carry the same row: a held commission released, held again and rejected.
    const hold = () => db.pool.query(`UPDATE commissions SET stage = 'held', hold_reasons = '{self_referral}' WHERE id = $1`, [api3.id]);
    await hold();
    const released = await admin('POST', `/commissions/${api3.id}/release`, { reason: 'checked' });
    expect(released.status).toBe(200);
    expect(rawStateKeys(released.body.data)).toEqual([]);
    expect(released.body.data.state).toBe('pending');
    await hold();
    const rejected = await admin('POST', `/commissions/${api3.id}/reject`, { reason: 'fraud' });
    expect(rejected.body.data.state).toBe('rejected');
    expect(rawStateKeys(rejected.body.data)).toEqual([]);
    const approved = await admin('POST', `/commissions/${small.id}/approve`, { reason: 'early' });
    expect(approved.body.data.state).toBe('approved');
    expect(rawStateKeys(approved.body.data)).toEqual([]);
    await everySurfaceAgrees('approved');

    // The approved commission's sale refunded whole: reversed.
    expect((await apiRefund(api, shop, `cs_${run}_small`)).body).toMatchObject({ status: 'reversed' });
    expect((await viewStates()).get(`cs_${run}_small`)!.state).toBe('reversed');
    await everySurfaceAgrees('reversed');

    // Each webhook payload: the commission's state when it was sent, never a stored stage or status.
    const { rows } = await db.pool.query(`SELECT type, data FROM webhook_messages WHERE program_id = $1 ORDER BY created_at, id`, [shop.programId]);
    for (const r of rows) expect(rawStateKeys(r.data), `${r.type} ${JSON.stringify(r.data)}`).toEqual([]);
    // (Messages of one transaction share their time: compared as a set.)
    const byText = (a: unknown[], b: unknown[]) => JSON.stringify(a).localeCompare(JSON.stringify(b));
    const told = rows.filter((r) => r.type.startsWith('commission.')).map((r) => [r.type, Number(r.data.commission_id), r.data.state]).sort(byText);
    expect(told).toEqual(([
      ['commission.created', big.id, 'pending'],
      ['commission.reversed', big.id, 'moved'],
      ['commission.created', small.id, 'pending'],
      ['commission.created', api3.id, 'pending'],
      ['commission.released', api3.id, 'pending'],
      ['commission.rejected', api3.id, 'rejected'],
      ['commission.approved', small.id, 'approved'],
      ['commission.reversed', small.id, 'reversed'],
    ] as unknown[][]).sort(byText));
    expect(rows.find((r) => r.type === 'refund.applied')?.data).toMatchObject({ commission_id: small.id, refund_status: 'reversed' });
    await mcp.close();
  }, 120_000);
});
