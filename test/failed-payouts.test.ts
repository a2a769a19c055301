// Failed payouts (issue 47, item 3): a paid payout that came back is marked failed; its
// commissions are owed again, the ledger shows the round trip to the cent, the partner is mailed,
// and the next run pays exactly once, even with two failures or a run at the same moment.
import { describe, expect, it } from 'vitest';
import { type ManagementDeps } from '../src/app/programs/management.js';
import { OPERATOR } from '../src/app/accounts/scope.js';
import * as payoutRuns from '../src/app/money/payout-runs.js';
import * as payoutConfig from '../src/app/money/payout-settings.js';
import * as commissionLifecycle from '../src/app/money/commission-lifecycle.js';
import { failPayout } from '../src/app/money/failed-payouts.js';
import { type TestApi, type TestDatabase, adminHeaders, seedProgram } from './support/harness.js';
import { useSeededApi } from './support/seeded-api.js';
import { apiRefund, apiSale, atTheSameInstant } from './support/money.js';

let db: TestDatabase;
let api: TestApi;
let clock = new Date();
const deps = (): ManagementDeps => ({ pool: db.pool, secretBox: null, now: () => clock });

useSeededApi({ env: { AFFIX_SECRET_KEY: 'failed-payouts-test-secret-key-01' } }, (t) => ({ db, api } = t));

/** A program with hold 0 and one partner paid by PayPal, with `sales` approved; returns the program, partner and commission ids. */
async function owedPartner(name: string, sales: number[]) {
  const shop = await seedProgram(api, { commission_rate: 10 });
  await payoutConfig.updatePayoutSettings(deps(), OPERATOR, shop.programId, { hold_days: 0, payout_minimums_cents: {} });
  const must = async (method: string, path: string, body?: unknown) => {
    const reply = await api.request(method, `/api/v1/admin/programs/${shop.programId}${path}`, { body, headers: adminHeaders });
    if (reply.status >= 300) throw new Error(`${path}: ${reply.status} ${JSON.stringify(reply.body)}`);
    return reply.body.data;
  };
  const email = `${name.toLowerCase()}-${shop.programId}@partner.example`;
  const made = await must('POST', '/partners', { name, email });
  const code = `${name.toLowerCase()}-${shop.programId}`;
  await must('POST', '/links', { partner_id: made.id, short_link: code });
  await must('PATCH', `/partners/${made.id}/payout-details`, { payout_method: 'paypal', payout_reference: `old-${email}` });
  clock = new Date(Date.now() + 60_000);
  const made_sales = [];
  for (const cents of sales) made_sales.push(await apiSale(api, { ...shop, affiliateUrl: `https://shop.example.com/?aff=${code}` }, cents));
  await commissionLifecycle.approveDueCommissions(deps());
  return { shop, programId: shop.programId, partnerId: made.id as number, email, sales: made_sales };
}

async function balanceOf(programId: number, partnerId: number) {
  const { rows } = await db.pool.query(
    'SELECT sum(pending_cents)::bigint AS pending, sum(approved_cents)::bigint AS approved, sum(paid_cents)::bigint AS paid FROM commission_ledger WHERE program_id = $1 AND partner_id = $2',
    [programId, partnerId],
  );
  const reported = (await payoutRuns.balances(deps(), OPERATOR, programId)).find((b) => b.partnerId === partnerId)!;
  // The pages' figures are the ledger's sums.
  expect([reported.approvedCents, reported.paidCents]).toEqual([Number(rows[0].approved), Number(rows[0].paid)]);
  return reported;
}

async function runAndPay(programId: number) {
  const run = await payoutRuns.runPayouts(deps(), OPERATOR, programId);
  for (const p of run.payouts) await payoutRuns.markPayoutPaid(deps(), OPERATOR, programId, p.id, { reference: `PAID-${p.id}` });
  return run.payouts;
}

const ledgerCount = async (programId: number) => Number((await db.pool.query('SELECT count(*) FROM commission_ledger WHERE program_id = $1', [programId])).rows[0].count);

describe('a paid payout that failed', () => {
  it('fail → owed again → fix details → the next run pays exactly once, to the cent (a refund after payment included)', async () => {
    const o = await owedPartner('Ana', [50_000, 12_345, 7_001]);
    const [first] = await runAndPay(o.programId);
    const earned = Number((await db.pool.query('SELECT sum(amount_cents)::bigint AS n FROM commissions WHERE program_id = $1', [o.programId])).rows[0].n);
    expect(first!.amountCents).toBe(earned);
    // A refund after the payment: a clawback owed back, netted in the next payout.
    await apiRefund(api, o.shop, o.sales[1]!.transactionId, 2_345);
    const before = await balanceOf(o.programId, o.partnerId);
    const earnedNow = Number((await db.pool.query('SELECT sum(amount_cents - deducted_cents)::bigint AS n FROM commissions WHERE program_id = $1', [o.programId])).rows[0].n);

    const failed = await failPayout(deps(), OPERATOR, o.programId, first!.id, { reason: 'PayPal returned it: receiver account is closed', providerReference: 'PPITEM-1' });
    expect(failed).toMatchObject({ status: 'failed', failureReason: 'PayPal returned it: receiver account is closed', failureReference: 'PPITEM-1' });
    const after = await balanceOf(o.programId, o.partnerId);
    expect(after.paidCents).toBe(0);
    expect(after.paidCents - before.paidCents).toBe(-first!.amountCents);
    // Owed: exactly what the commissions earn now, in no payout.
    expect([after.approvedCents, after.inPayoutCents]).toEqual([earnedNow, 0]);
    const { rows: commissions } = await db.pool.query('SELECT stage, payout_id FROM commissions WHERE program_id = $1', [o.programId]);
    expect(commissions).toEqual(commissions.map(() => ({ stage: 'approved', payout_id: null })));
    const { rows: entries } = await db.pool.query("SELECT approved_cents, paid_cents FROM commission_ledger WHERE program_id = $1 AND kind = 'payout_failed'", [o.programId]);
    expect(entries.reduce((n, e) => n + Number(e.approved_cents), 0)).toBe(first!.amountCents);

    // Idempotent: again, and again with the same provider reference: nothing changes.
    const count = await ledgerCount(o.programId);
    await failPayout(deps(), OPERATOR, o.programId, first!.id, { reason: 'again', providerReference: 'PPITEM-1' });
    await failPayout(deps(), OPERATOR, o.programId, first!.id, { reason: 'once more' });
    expect(await ledgerCount(o.programId)).toBe(count);
    expect((await db.pool.query('SELECT failure_reason FROM payouts WHERE id = $1', [first!.id])).rows[0].failure_reason).toBe('PayPal returned it: receiver account is closed');

    // The partner fixes their details; the next run pays what is owed, once.
    await payoutConfig.setPayoutDetails(deps(), OPERATOR, o.programId, o.partnerId, { payout_method: 'paypal', payout_reference: `new-${o.email}` });
    const [second] = await runAndPay(o.programId);
    expect(second!.amountCents).toBe(earnedNow);
    expect(second!.payoutReference).toBe(`new-${o.email}`);
    const final = await balanceOf(o.programId, o.partnerId);
    expect([final.approvedCents, final.paidCents]).toEqual([0, earnedNow]);
    await expect(payoutRuns.runPayouts(deps(), OPERATOR, o.programId)).rejects.toMatchObject({ status: 409 });
  });

  it('two failures at once make one round trip', async () => {
    const o = await owedPartner('Ben', [30_000, 20_000]);
    const [paid] = await runAndPay(o.programId);
    const results = await atTheSameInstant(db.url, o.sales[0]!.commissionId!, [
      () => failPayout(deps(), OPERATOR, o.programId, paid!.id, { reason: 'bank returned it', providerReference: 'R-1' }),
      () => failPayout(deps(), OPERATOR, o.programId, paid!.id, { reason: 'bank returned it', providerReference: 'R-1' }),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled']);
    const { rows } = await db.pool.query("SELECT count(*)::int AS n, sum(approved_cents)::bigint AS cents FROM commission_ledger WHERE program_id = $1 AND kind = 'payout_failed'", [o.programId]);
    expect([rows[0].n, Number(rows[0].cents)]).toEqual([2, paid!.amountCents]);
    expect(Number((await db.pool.query("SELECT count(*) FROM mail_outbox WHERE kind = 'payout_failed' AND to_email = $1", [o.email])).rows[0].count)).toBe(1);
    const b = await balanceOf(o.programId, o.partnerId);
    expect([b.approvedCents, b.paidCents]).toEqual([paid!.amountCents, 0]);
  });

  it('a run at the same moment as a failure never pays the commissions twice', async () => {
    const o = await owedPartner('Cleo', [40_000, 10_000]);
    const [paid] = await runAndPay(o.programId);
    await atTheSameInstant<unknown>(db.url, o.sales[0]!.commissionId!, [
      () => payoutRuns.runPayouts(deps(), OPERATOR, o.programId),
      () => failPayout(deps(), OPERATOR, o.programId, paid!.id, { reason: 'returned' }),
    ]);
    // Whatever went first, pay everything open and any run still possible: paid exactly what was earned.
    for (const p of await payoutRuns.listPayouts(deps(), OPERATOR, o.programId)) {
      if (p.status === 'pending') await payoutRuns.markPayoutPaid(deps(), OPERATOR, o.programId, p.id, { reference: `P-${p.id}` });
    }
    await runAndPay(o.programId).catch((e) => expect(e).toMatchObject({ status: 409 }));
    // The first payout failed; exactly one other paid the same commissions again.
    const all = await payoutRuns.listPayouts(deps(), OPERATOR, o.programId);
    expect(all.map((p) => [p.id === paid!.id ? 'first' : 'again', p.status, p.amountCents]).sort()).toEqual([['again', 'paid', 5_000], ['first', 'failed', 5_000]]);
    const b = await balanceOf(o.programId, o.partnerId);
    expect([b.approvedCents, b.paidCents]).toEqual([0, 5_000]);
  });

  it('mails the partner what failed, why, and to check their payout details', async () => {
    const o = await owedPartner('Dev', [25_000]);
    const [paid] = await runAndPay(o.programId);
    await failPayout(deps(), OPERATOR, o.programId, paid!.id, { reason: 'IBAN does not exist' });
    const { rows } = await db.pool.query("SELECT subject, body FROM mail_outbox WHERE kind = 'payout_failed' AND to_email = $1", [o.email]);
    expect(rows).toHaveLength(1);
    expect(rows[0].subject).toContain('your payout of $25.00 failed');
    expect(rows[0].body).toContain('IBAN does not exist');
    expect(rows[0].body).toContain(`/portal/programs/${o.partnerId}#payout-details`);
    expect(rows[0].body).toContain('The money is owed to you again');
  });

  it('the admin API: POST …/payouts/{id}/fail', async () => {
    const o = await owedPartner('Eve', [60_000]);
    const run = await payoutRuns.runPayouts(deps(), OPERATOR, o.programId);
    const id = run.payouts[0]!.id;
    const url = `/api/v1/admin/programs/${o.programId}/payouts/${id}/fail`;
    // Not sent yet: cancel it instead.
    const pending = await api.request('POST', url, { body: { reason: 'x' }, headers: adminHeaders });
    expect(pending.status).toBe(409);
    expect(JSON.stringify(pending.body)).toContain('This payout was not sent yet: cancel it instead of marking it failed');
    await payoutRuns.markPayoutPaid(deps(), OPERATOR, o.programId, id, { reference: 'PAID' });
    const noReason = await api.request('POST', url, { body: {}, headers: adminHeaders });
    expect(noReason.status).toBe(400);
    const reply = await api.request('POST', url, { body: { reason: 'Wise: recipient bank rejected', provider_reference: 'WISE-9' }, headers: adminHeaders });
    expect(reply.status).toBe(200);
    expect(reply.body.data).toMatchObject({ id, status: 'failed', failure_reason: 'Wise: recipient bank rejected', failure_reference: 'WISE-9' });
    const again = await api.request('POST', url, { body: { reason: 'Wise: recipient bank rejected', provider_reference: 'WISE-9' }, headers: adminHeaders });
    expect([again.status, again.body.data.status]).toEqual([200, 'failed']);
    const b = await balanceOf(o.programId, o.partnerId);
    expect([b.approvedCents, b.paidCents]).toEqual([6_000, 0]);
  });
});
