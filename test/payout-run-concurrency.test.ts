// Two payout runs at the same moment while some partners owed money have no payout details
// (issue 43): one batch pays each partner with details once per currency, the others stay owed
// (in no payout), and the ledger, the balances the pages read and the payouts agree to the cent.
import { describe, expect, it } from 'vitest';
import { type ManagementDeps } from '../src/app/programs/management.js';
import { OPERATOR } from '../src/app/accounts/scope.js';
import * as payoutRuns from '../src/app/money/payout-runs.js';
import * as payoutConfig from '../src/app/money/payout-settings.js';
import * as commissionLifecycle from '../src/app/money/commission-lifecycle.js';
import { type TestApi, type TestDatabase, adminHeaders, seedProgram } from './support/harness.js';
import { useSeededApi } from './support/seeded-api.js';
import { apiSale } from './support/money.js';

let db: TestDatabase;
let api: TestApi;
let clock = new Date();
const deps = (): ManagementDeps => ({ pool: db.pool, secretBox: null, now: () => clock });

useSeededApi({ env: { AFFIX_SECRET_KEY: 'payout-race-test-secret-key-0123' } }, (t) => ({ db, api } = t));

type Details = { payout_method: string; payout_reference: string } | null;

/** A partner with (or without) payout details, and their link's URL. */
async function partner(programId: number, name: string, details: Details) {
  const must = async (method: string, path: string, body?: unknown) => {
    const reply = await api.request(method, `/api/v1/admin/programs/${programId}${path}`, { body, headers: adminHeaders });
    if (reply.status >= 300) throw new Error(`${path}: ${reply.status} ${JSON.stringify(reply.body)}`);
    return reply.body.data;
  };
  const made = await must('POST', '/partners', { name, email: `${name.toLowerCase()}@partner.example` });
  const code = `${name.toLowerCase()}-${programId}`;
  await must('POST', '/links', { partner_id: made.id, short_link: code });
  if (details) await must('PATCH', `/partners/${made.id}/payout-details`, details);
  return { partnerId: made.id as number, affiliateUrl: `https://shop.example.com/?aff=${code}` };
}

const key = (partnerId: number, currency: string) => `${partnerId} ${currency}`;

/** Per partner and currency: the approved commissions' total (no refunds here: what each earned). */
async function approvedTotals(programId: number): Promise<Map<string, number>> {
  const { rows } = await db.pool.query(
    `SELECT partner_id, currency, sum(amount_cents)::bigint AS cents FROM commissions WHERE program_id = $1 AND stage IN ('approved', 'paid') GROUP BY 1, 2`,
    [programId],
  );
  return new Map(rows.map((r) => [key(Number(r.partner_id), r.currency), Number(r.cents)]));
}

/** The ledger's own sums per partner and currency equal what balances() reports (the pages' figures). */
async function expectLedgerMatchesBalances(programId: number) {
  const { rows } = await db.pool.query(
    `SELECT partner_id, currency, sum(pending_cents)::bigint AS pending, sum(approved_cents)::bigint AS approved, sum(paid_cents)::bigint AS paid
       FROM commission_ledger WHERE program_id = $1 GROUP BY 1, 2 ORDER BY 1, 2`,
    [programId],
  );
  const reported = await payoutRuns.balances(deps(), OPERATOR, programId);
  const ledger = rows.map((r) => [Number(r.partner_id), r.currency, Number(r.pending), Number(r.approved), Number(r.paid)]);
  expect(reported.map((b) => [b.partnerId, b.currency, b.pendingCents, b.approvedCents, b.paidCents]).sort()).toEqual(ledger.sort());
  return reported;
}

describe('two payout runs at once, some partners without payout details', () => {
  it('one batch pays each partner with details once per currency; the others stay owed; the ledger balances to the cent', async () => {
    const shop = await seedProgram(api, { commission_rate: 10 });
    await payoutConfig.updatePayoutSettings(deps(), OPERATOR, shop.programId, { hold_days: 0, payout_minimums_cents: {} });
    const ana = await partner(shop.programId, 'Ana', { payout_method: 'paypal', payout_reference: 'ana@paypal.example' });
    const ben = await partner(shop.programId, 'Ben', { payout_method: 'bank_transfer', payout_reference: 'DE89 3704 0044 0532 0130 00' });
    const cleo = await partner(shop.programId, 'Cleo', null);
    const dev = await partner(shop.programId, 'Dev', { payout_method: 'wise', payout_reference: 'dev@wise.example' });
    // Dev removed his details: owed, and nowhere to pay him.
    await payoutConfig.setPayoutDetails(deps(), OPERATOR, shop.programId, dev.partnerId, { payout_method: null });
    const withDetails = [ana.partnerId, ben.partnerId];
    const without = [cleo.partnerId, dev.partnerId];

    clock = new Date(Date.now() + 60_000);
    for (const [who, cents, currency] of [
      [ana, 50_000, 'USD'], [ana, 12_345, 'USD'], [ana, 30_000, 'EUR'],
      [ben, 20_000, 'USD'], [ben, 7_777, 'EUR'],
      [cleo, 40_000, 'USD'], [cleo, 10_000, 'EUR'],
      [dev, 9_999, 'USD'], [dev, 15_000, 'EUR'],
    ] as const) await apiSale(api, { ...shop, affiliateUrl: who.affiliateUrl }, cents, { currency });
    await commissionLifecycle.approveDueCommissions(deps());
    const earned = await approvedTotals(shop.programId);
    expect(earned.size).toBe(8);

    // The dashboard's "Run payouts" twice at the same moment (two managers, or a double click).
    const results = await Promise.allSettled([payoutRuns.runPayouts(deps(), OPERATOR, shop.programId), payoutRuns.runPayouts(deps(), OPERATOR, shop.programId)]);
    const ran = results.filter((r) => r.status === 'fulfilled');
    const refused = results.filter((r) => r.status === 'rejected');
    expect(ran).toHaveLength(1);
    // The other found only partners without details left: refused, nothing written.
    expect(refused.map((r) => (r as PromiseRejectedResult).reason)).toMatchObject([{ status: 409, init: { code: 'missing_payout_details' } }]);
    const run = (ran[0] as PromiseFulfilledResult<Awaited<ReturnType<typeof payoutRuns.runPayouts>>>).value;
    expect(run.missingPayoutDetails.map((w) => key(w.partnerId, w.currency)).sort()).toEqual(without.flatMap((id) => [key(id, 'EUR'), key(id, 'USD')]).sort());

    // Exactly one payout per partner with details and currency, for what they earned; none for the others.
    const { rows: made } = await db.pool.query('SELECT batch_id, partner_id, currency, amount_cents, status FROM payouts WHERE program_id = $1', [shop.programId]);
    expect(new Set(made.map((p) => Number(p.batch_id)))).toEqual(new Set([run.batchId]));
    expect(made.map((p) => key(Number(p.partner_id), p.currency)).sort()).toEqual(withDetails.flatMap((id) => [key(id, 'EUR'), key(id, 'USD')]).sort());
    for (const p of made) expect(Number(p.amount_cents), key(Number(p.partner_id), p.currency)).toBe(earned.get(key(Number(p.partner_id), p.currency)));
    const claimed = await db.pool.query('SELECT partner_id, count(*)::int AS n FROM commissions WHERE program_id = $1 AND payout_id IS NOT NULL GROUP BY 1', [shop.programId]);
    expect(claimed.rows.map((r) => Number(r.partner_id)).sort()).toEqual([...withDetails].sort());

    // Still owed, in no payout: the partners without details; the others owe nothing outside their payout.
    let reported = await expectLedgerMatchesBalances(shop.programId);
    for (const b of reported) {
      const total = earned.get(key(b.partnerId, b.currency))!;
      const paying = withDetails.includes(b.partnerId);
      expect([b.approvedCents, b.inPayoutCents, b.paidCents], key(b.partnerId, b.currency)).toEqual([total, paying ? total : 0, 0]);
    }
    expect(payoutRuns.partnersMissingDetails(reported).map((m) => m.partnerId).sort()).toEqual([...without].sort());

    // Paid: paid + owed = approved total, per partner and currency, to the cent.
    for (const p of run.payouts) await payoutRuns.markPayoutPaid(deps(), OPERATOR, shop.programId, p.id, { reference: `PAID-${p.id}` });
    reported = await expectLedgerMatchesBalances(shop.programId);
    expect(reported).toHaveLength(8);
    for (const b of reported) {
      const total = earned.get(key(b.partnerId, b.currency))!;
      const owed = b.approvedCents - b.inPayoutCents;
      expect(b.paidCents + owed, key(b.partnerId, b.currency)).toBe(total);
      expect(b.paidCents, key(b.partnerId, b.currency)).toBe(withDetails.includes(b.partnerId) ? total : 0);
    }
  });
});
