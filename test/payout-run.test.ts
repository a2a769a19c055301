// Paying and approving (issue 43): a payout run pays only partners with payout details (the
// others stay owed, are answered and can be reminded through the mail queue); approving needs
// no reason; "past its hold" selects exactly the commissions whose hold is over.
import { describe, expect, it } from 'vitest';
import { type ManagementDeps } from '../src/app/programs/management.js';
import { OPERATOR } from '../src/app/accounts/scope.js';
import * as payoutConfig from '../src/app/money/payout-settings.js';
import * as commissionLifecycle from '../src/app/money/commission-lifecycle.js';
import * as payoutRuns from '../src/app/money/payout-runs.js';
import { type TestApi, type TestDatabase, addPartnerLink, adminHeaders, seedProgram } from './support/harness.js';
import { useSeededApi } from './support/seeded-api.js';
import { apiSale } from './support/money.js';

let db: TestDatabase;
let api: TestApi;
const DAY = 86_400_000;
let clock = new Date();
const deps = (): ManagementDeps => ({ pool: db.pool, secretBox: null, now: () => clock });
const reminderDeps = () => ({ ...deps(), mailLinks: { publicUrl: 'https://affix.example' } });

useSeededApi({ env: { AFFIX_SECRET_KEY: 'payout-run-test-secret-key-0123' } }, (t) => ({ db, api } = t));

/** A partner with an email and (or without) payout details, and their link's URL. */
async function partner(programId: number, name: string, details: { payout_method: string; payout_reference: string } | null) {
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

describe('a payout run pays only partners with payout details', () => {
  it('pays the one with details; the others stay owed, are answered, and get one reminder a day', async () => {
    const shop = await seedProgram(api, { commission_rate: 10 });
    await payoutConfig.updatePayoutSettings(deps(), OPERATOR, shop.programId, { hold_days: 0 });
    const ana = await partner(shop.programId, 'Ana', { payout_method: 'paypal', payout_reference: 'ana@paypal.example' });
    const ben = await partner(shop.programId, 'Ben', null);
    const cleo = await partner(shop.programId, 'Cleo', null);
    clock = new Date(Date.now() + 60_000);
    await apiSale(api, { ...shop, affiliateUrl: ana.affiliateUrl }, 50_000);
    await apiSale(api, { ...shop, affiliateUrl: ben.affiliateUrl }, 30_000);
    await apiSale(api, { ...shop, affiliateUrl: cleo.affiliateUrl }, 20_000, { currency: 'EUR' });
    await commissionLifecycle.approveDueCommissions(deps());

    const run = await payoutRuns.runPayouts(deps(), OPERATOR, shop.programId);
    expect(run.payouts.map((p) => [p.partnerId, p.currency, p.amountCents])).toEqual([[ana.partnerId, 'USD', 5000]]);
    expect(run.missingPayoutDetails.map((w) => [w.partnerName, w.currency, w.amountCents]).sort()).toEqual([
      ['Ben', 'USD', 3000],
      ['Cleo', 'EUR', 2000],
    ]);
    // The PayPal file holds every payout of the batch: no partner was paid to their sign-in email.
    const paypal = (await payoutRuns.exportPayouts(deps(), OPERATOR, shop.programId, run.batchId, 'paypal')).trim().split('\r\n');
    expect(paypal.slice(1).map((line) => line.split(',')[0])).toEqual(['ana@paypal.example']);
    const generic = (await payoutRuns.exportPayouts(deps(), OPERATOR, shop.programId, run.batchId, 'generic')).trim().split('\r\n');
    expect(generic).toHaveLength(2);

    // Still owed, not in a payout.
    const balances = await payoutRuns.balances(deps(), OPERATOR, shop.programId);
    const owed = (id: number) => balances.filter((b) => b.partnerId === id).map((b) => [b.currency, b.approvedCents, b.inPayoutCents]);
    expect(owed(ben.partnerId)).toEqual([['USD', 3000, 0]]);
    expect(owed(cleo.partnerId)).toEqual([['EUR', 2000, 0]]);
    expect(payoutRuns.partnersMissingDetails(balances).map((m) => m.partnerName).sort()).toEqual(['Ben', 'Cleo']);

    // The API answers the same (one use case): nothing else to pay, and why.
    const again = await api.request('POST', `/api/v1/admin/programs/${shop.programId}/payouts/run`, { headers: adminHeaders });
    expect(again.status).toBe(409);
    expect(again.body.error.message).toBe('Nothing to pay: all 2 partners owed at or above the minimum have no payout details yet (€20.00 and $30.00); remind them to add them');

    // Reminders go through the mail queue, one per partner a day.
    expect(await payoutRuns.remindPayoutDetails(reminderDeps(), OPERATOR, shop.programId, { partner_ids: [ben.partnerId] })).toEqual({ reminded: 1, partners: 1 });
    expect(await payoutRuns.remindPayoutDetails(reminderDeps(), OPERATOR, shop.programId, {})).toEqual({ reminded: 1, partners: 2 });
    expect(await payoutRuns.remindPayoutDetails(reminderDeps(), OPERATOR, shop.programId, {})).toEqual({ reminded: 0, partners: 2 });
    const mails = await db.pool.query("SELECT to_email, subject, body FROM mail_outbox WHERE program_id = $1 AND kind = 'payout_details_reminder' ORDER BY to_email", [shop.programId]);
    expect(mails.rows.map((m) => m.to_email)).toEqual(['ben@partner.example', 'cleo@partner.example']);
    expect(mails.rows[0].body).toContain(`owes you $30.00`);
    expect(mails.rows[0].body).toContain(`https://affix.example/portal/programs/${ben.partnerId}#payout-details`);
    await expect(payoutRuns.remindPayoutDetails(reminderDeps(), OPERATOR, shop.programId, { partner_ids: [ana.partnerId] })).rejects.toMatchObject({ status: 409 });

    // Ben adds his details: the next run pays him, Cleo still waits.
    await payoutConfig.setPayoutDetails(deps(), OPERATOR, shop.programId, ben.partnerId, { payout_method: 'wise', payout_reference: 'ben@wise.example' });
    const next = await payoutRuns.runPayouts(deps(), OPERATOR, shop.programId);
    expect(next.payouts.map((p) => [p.partnerId, p.amountCents])).toEqual([[ben.partnerId, 3000]]);
    expect(next.missingPayoutDetails.map((w) => w.partnerName)).toEqual(['Cleo']);
    const wise = (await payoutRuns.exportPayouts(deps(), OPERATOR, shop.programId, next.batchId, 'wise')).trim().split('\r\n');
    expect(wise).toHaveLength(2);
  });
});

describe('approving', () => {
  it('approves with one call and no reason (a reason given is kept); past its hold selects only those whose hold is over', async () => {
    const shop = await seedProgram(api, { commission_rate: 10 });
    const other = await addPartnerLink(api, shop.programId);
    await payoutConfig.updatePayoutSettings(deps(), OPERATOR, shop.programId, { hold_days: 30 });
    const now = Date.now();
    const made = async (_daysAgo: number, url = shop.affiliateUrl, currency = 'USD') =>
      (await apiSale(api, { ...shop, affiliateUrl: url }, 10_000, { currency })).commissionId!;
    const old1 = await made(40);
    const old2 = await made(35, `https://shop.example.com/?aff=${other.shortLink}`, 'EUR');
    const fresh = await made(1);
    const fresh2 = await made(2);
    // Commissions are made when their sale is recorded: backdate them as a sale 40 days old would be.
    for (const [id, days] of [[old1, 40], [old2, 35], [fresh, 1], [fresh2, 2]] as const) {
      await db.pool.query('UPDATE commissions SET created_at = $2 WHERE id = $1', [id, new Date(now - days * DAY)]);
    }
    clock = new Date(now);

    // One call, no reason.
    const approved = await commissionLifecycle.approveCommission(deps(), OPERATOR, shop.programId, fresh, {});
    expect(approved.state).toBe('approved');
    const withReason = await commissionLifecycle.approveCommission(deps(), OPERATOR, shop.programId, fresh2, { reason: 'checked with the customer' });
    expect(withReason.state).toBe('approved');
    const reasons = await db.pool.query("SELECT commission_id, reason FROM commission_ledger WHERE kind = 'approved' AND commission_id = ANY ($1::bigint[]) ORDER BY commission_id", [[fresh, fresh2]]);
    expect(reasons.rows.map((r) => [Number(r.commission_id), r.reason])).toEqual([[fresh, null], [fresh2, 'checked with the customer']]);
    // Release and reject still need one.
    await expect(commissionLifecycle.commissionBulk(deps(), OPERATOR, shop.programId, { action: 'release', commission_ids: [old1] })).rejects.toMatchObject({ status: 400 });

    // The count and sum first, then the same selection approved.
    const fresh3 = await made(3);
    await db.pool.query('UPDATE commissions SET created_at = $2 WHERE id = $1', [fresh3, new Date(now - 3 * DAY)]);
    const preview = await commissionLifecycle.approvalPreview(deps(), OPERATOR, shop.programId, { filter: {} });
    expect(preview.map((p) => [p.currency, p.count, p.cents, p.pastHoldCount, p.pastHoldCents])).toEqual([
      ['EUR', 1, 1000, 1, 1000],
      ['USD', 2, 2000, 1, 1000],
    ]);
    const selected = await commissionLifecycle.approvalPreview(deps(), OPERATOR, shop.programId, { commission_ids: [old1, fresh3] });
    expect(selected.map((p) => [p.currency, p.count, p.pastHoldCount])).toEqual([['USD', 2, 1]]);
    // Ticked ones, keeping holds: only the one past its hold.
    expect(await commissionLifecycle.pastHoldOf(deps(), OPERATOR, shop.programId, [old1, fresh3])).toEqual([old1]);
    const byPartner = await commissionLifecycle.approvalPreview(deps(), OPERATOR, shop.programId, { filter: { partner_id: other.partnerId } });
    expect(byPartner.map((p) => [p.currency, p.count])).toEqual([['EUR', 1]]);

    const report = await commissionLifecycle.commissionBulk(deps(), OPERATOR, shop.programId, { action: 'approve', filter: { past_hold: true } });
    expect(report.changed).toBe(2);
    const stages = await db.pool.query('SELECT id, stage FROM commissions WHERE id = ANY ($1::bigint[]) ORDER BY id', [[old1, old2, fresh3]]);
    expect(Object.fromEntries(stages.rows.map((r) => [Number(r.id), r.stage]))).toEqual({ [old1]: 'approved', [old2]: 'approved', [fresh3]: 'pending' });
  });
});
