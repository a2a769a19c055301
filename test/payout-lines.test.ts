// A payout's lines as the partner's portal shows them (docs/payouts.md, "Statements"): each
// commission it paid and each clawback it netted, summing to the payout to the cent through
// refunds after payment and a canceled payout; the method and where it went as the run recorded
// them, masked; amounts in the payout's currency (JPY without decimals).
import { describe, expect, it } from 'vitest';
import type { ManagementDeps } from '../src/app/programs/management.js';
import { OPERATOR } from '../src/app/accounts/scope.js';
import { partnerPayout } from '../src/app/money/payout-statements.js';
import * as payoutConfig from '../src/app/money/payout-settings.js';
import * as commissionLifecycle from '../src/app/money/commission-lifecycle.js';
import * as payoutRuns from '../src/app/money/payout-runs.js';
import { maskedPayTo } from '../src/core/payout-statements.js';
import { statementPage } from '../src/http/portal/payout-pages.js';
import { type TestApi, type TestDatabase, seedProgram } from './support/harness.js';
import { useSeededApi } from './support/seeded-api.js';
import { apiRefund, apiSale } from './support/money.js';

let db: TestDatabase;
let api: TestApi;
const clock = new Date(Date.now() + 60_000);
const deps = (): ManagementDeps => ({ pool: db.pool, secretBox: null, now: () => clock });

useSeededApi({ env: { AFFIX_SECRET_KEY: 'payout-lines-test-key-0123456789' }, options: { queueUrl: 'own' } }, (t) => ({ db, api } = t));

/** A program whose partner signs in to the portal with `email`, paid at once (no hold, a low minimum). */
async function portalProgram(email: string, program: Record<string, unknown> = {}) {
  const shop = await seedProgram(api, { commission_rate: 10, ...program });
  // The email is the person's (their profile's, copied to the partner row).
  await db.pool.query('UPDATE partner_profiles SET email = $1 WHERE id = (SELECT profile_id FROM partners WHERE id = $2)', [email, shop.partnerId]);
  await db.pool.query(`UPDATE partners SET invited_at = now(), status = 'approved' WHERE id = $1`, [shop.partnerId]);
  await payoutConfig.updatePayoutSettings(deps(), OPERATOR, shop.programId, { hold_days: 0, payout_minimums_cents: { USD: 100, JPY: 100 } });
  return shop;
}
const runAndPay = async (programId: number, reference: string) => {
  await commissionLifecycle.approveDueCommissions(deps());
  const run = await payoutRuns.runPayouts(deps(), OPERATOR, programId);
  for (const p of run.payouts) await payoutRuns.markPayoutPaid(deps(), OPERATOR, programId, p.id, { reference });
  return run.payouts;
};

describe("a payout's lines", () => {
  it('sum to the payout to the cent: commissions at what was paid, clawbacks netted, through a cancel', async () => {
    const email = 'lines@partner.example';
    const shop = await portalProgram(email);
    const first = await apiSale(api, shop, 49_999); // 5000
    await apiSale(api, shop, 12_345); // 1235 (half up)
    const [paid] = await runAndPay(shop.programId, 'BANK-1');
    // After payment: a third of the first sale refunded, then a chargeback of the rest: both clawbacks.
    await apiRefund(api, shop, first.transactionId, 16_666);
    await apiRefund(api, shop, first.transactionId, undefined, 'chargeback');
    await apiSale(api, shop, 80_000); // 8000
    // A run canceled: what it claimed (the new commission and both clawbacks) is payable again.
    await commissionLifecycle.approveDueCommissions(deps());
    const canceled = (await payoutRuns.runPayouts(deps(), OPERATOR, shop.programId)).payouts[0]!;
    await payoutRuns.cancelPayout(deps(), OPERATOR, shop.programId, canceled.id);
    await apiSale(api, shop, 1_001); // 100
    const [netted] = await runAndPay(shop.programId, 'BANK-2');

    for (const payout of [paid!, netted!]) {
      const view = await partnerPayout({ ...deps(), brandAccountId: null }, email, shop.partnerId, payout.id);
      expect(view.total, `payout ${payout.id}`).toBe(payout.amountCents);
      expect(view.total).toBe(view.payout.amountCents);
    }
    const later = await partnerPayout({ ...deps(), brandAccountId: null }, email, shop.partnerId, netted!.id);
    expect(later.lines.map((l) => [l.kind, l.amountCents])).toEqual([['commission', 8000], ['commission', 100], ['clawback', -1667], ['clawback', -3333]]);
    expect(netted!.amountCents).toBe(8000 + 100 - 5000);
    // The canceled payout is nobody's statement.
    await expect(partnerPayout({ ...deps(), brandAccountId: null }, email, shop.partnerId, canceled.id)).rejects.toMatchObject({ status: 404, message: 'Payout not found' });
  });

  it('shows the method and where the payout went as the run recorded them, masked, even after the partner changes them', async () => {
    const email = 'recorded@partner.example';
    const shop = await portalProgram(email);
    await payoutConfig.setPayoutDetails(deps(), OPERATOR, shop.programId, shop.partnerId, { payout_method: 'bank_transfer', payout_reference: 'DE89 3704 0044 0532 0130 00' });
    await apiSale(api, shop, 20_000);
    const [payout] = await runAndPay(shop.programId, 'SEPA-77');
    await payoutConfig.setPayoutDetails(deps(), OPERATOR, shop.programId, shop.partnerId, { payout_method: 'paypal', payout_reference: 'new@paypal.example' });
    const view = await partnerPayout({ ...deps(), brandAccountId: null }, email, shop.partnerId, payout!.id);
    expect({ method: view.payout.payoutMethod, payTo: view.payTo, reference: view.payout.reference }).toEqual({ method: 'bank_transfer', payTo: '•••• 3000', reference: 'SEPA-77' });
    expect([maskedPayTo('ana@paypal.example'), maskedPayTo('acct_1PqRsTuVwXyZ'), maskedPayTo('1234'), maskedPayTo(null)]).toEqual(['a•••@paypal.example', '•••• wXyZ', '••••', '']);
  });

  it('writes amounts in the payout currency: yen without decimals', async () => {
    const email = 'yen@partner.example';
    const shop = await portalProgram(email, { accept_all_currencies: true });
    await apiSale(api, shop, 50_000, { currency: 'JPY' }); // ¥50,000: ¥5,000
    const [payout] = await runAndPay(shop.programId, 'JP-1');
    const view = await partnerPayout({ ...deps(), brandAccountId: null }, email, shop.partnerId, payout!.id);
    const text = statementPage(view, `/portal/programs/${shop.partnerId}`).value.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ');
    expect(text).toContain('Total (JPY) ¥5,000 ');
    expect(text).toContain('¥50,000 ¥5,000');
    expect(text).not.toContain('¥5,000.00');
  });
});
