// A payout's statement shows what was paid: each line is the amount fixed when the payout was made,
// so a refund that lands after the payout never changes the statement (docs/partners.md).
import { describe, expect, it } from 'vitest';
import type { ManagementDeps } from '../src/app/programs/management.js';
import { OPERATOR } from '../src/app/accounts/scope.js';
import { partnerStatementCsv } from '../src/app/money/payout-statements.js';
import * as payoutConfig from '../src/app/money/payout-settings.js';
import * as commissionLifecycle from '../src/app/money/commission-lifecycle.js';
import * as payoutRuns from '../src/app/money/payout-runs.js';
import { type TestApi, type TestDatabase, seedProgram } from './support/harness.js';
import { useSeededApi } from './support/seeded-api.js';
import { apiRefund, apiSale } from './support/money.js';

let db: TestDatabase;
let api: TestApi;
const clock = new Date(Date.now() + 60_000);
const deps = (): ManagementDeps => ({ pool: db.pool, secretBox: null, now: () => clock });

useSeededApi({ env: { AFFIX_SECRET_KEY: 'payout-statement-test-key-0123' }, options: { queueUrl: 'own' } }, (t) => ({ db, api } = t));

describe('payout statement', () => {
  it('lists each commission at the amount paid, and the lines sum to the payout after a later refund', async () => {
    const shop = await seedProgram(api, { commission_rate: 10 });
    const email = `statement-${shop.partnerId}@example.com`;
    await db.pool.query(`UPDATE partners SET email = $1, invited_at = now(), status = 'approved' WHERE id = $2`, [email, shop.partnerId]);
    await payoutConfig.updatePayoutSettings(deps(), OPERATOR, shop.programId, { hold_days: 0, payout_minimums_cents: { USD: 1_000 } });
    const first = await apiSale(api, shop, 50_000); // 5000
    const second = await apiSale(api, shop, 30_000); // 3000
    await commissionLifecycle.approveDueCommissions(deps());
    const run = await payoutRuns.runPayouts(deps(), OPERATOR, shop.programId);
    expect(run.payouts.map((p) => p.amountCents)).toEqual([8000]);
    const payoutId = run.payouts[0]!.id;
    await payoutRuns.markPayoutPaid(deps(), OPERATOR, shop.programId, payoutId, { reference: 'BANK-1' });

    // Half of the first sale refunded after it was paid: 2500 clawed back later, not from this payout.
    await apiRefund(api, shop, first.transactionId, 25_000);

    const csv = await partnerStatementCsv({ ...deps(), brandAccountId: null }, email, shop.partnerId, payoutId);
    const rows = csv.trim().split('\r\n').map((line) => line.split(','));
    const line = (commissionId: number | null) => rows.find((r) => r[0] === String(commissionId));
    expect(line(first.commissionId)?.[4]).toBe('50.00');
    expect(line(second.commissionId)?.[4]).toBe('30.00');
    expect(rows.find((r) => r[0] === 'clawbacks_settled')).toBeUndefined();
    expect(rows.find((r) => r[0] === 'total')?.[4]).toBe('80.00');
  });
});
