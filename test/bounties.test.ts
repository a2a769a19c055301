// Bounties (issue 46 item 5, docs/rewards.md "Bounties"): commissions without a sale that follow
// the normal hold, approval, payout and failed-payout paths. Performance bounties are awarded once
// per partner and month however often (or concurrently) the evaluation runs, counted as recorded
// or net of refunds; submission bounties are approved (a commission) or rejected with a reason;
// another brand's bounty or submission is a 404.
import { describe, expect, it } from 'vitest';
import { type ManagementDeps } from '../src/app/programs/management.js';
import { OPERATOR } from '../src/app/accounts/scope.js';
import * as bountyCases from '../src/app/money/bounties.js';
import * as payoutRuns from '../src/app/money/payout-runs.js';
import * as payoutConfig from '../src/app/money/payout-settings.js';
import * as commissionLifecycle from '../src/app/money/commission-lifecycle.js';
import { failPayout } from '../src/app/money/failed-payouts.js';
import { programPayout } from '../src/app/money/payout-statements.js';
import { runBountyCheck } from '../src/jobs/bounty-jobs.js';
import { partnerStats } from '../src/db/reads/assistant-insights.js';
import { type SeededProgram, type TestApi, type TestDatabase, adminHeaders, seedProgram } from './support/harness.js';
import { useSeededApi } from './support/seeded-api.js';
import { apiRefund, apiSale } from './support/money.js';

let db: TestDatabase;
let api: TestApi;
let clock = new Date('2026-03-01T00:00:00Z');
const deps = (): ManagementDeps => ({ pool: db.pool, secretBox: null, now: () => clock });
const quiet = { info: () => {}, warn: () => {}, error: () => {} } as never;

useSeededApi({ env: { AFFIX_SECRET_KEY: 'bounties-test-secret-key-0123456' }, options: { queueUrl: 'own' } }, (t) => ({ db, api } = t));

const admin = async (method: string, path: string, body?: unknown) => api.request(method, `/api/v1/admin${path}`, { body, headers: adminHeaders });

/** A program with hold 0 and its seeded partner (paid by bank transfer) plus `more` partners, each with a link. */
async function shopWithPartners(more: string[]) {
  const shop = await seedProgram(api, { commission_rate: 10 });
  await payoutConfig.updatePayoutSettings(deps(), OPERATOR, shop.programId, { hold_days: 0, payout_minimums_cents: {} });
  const partners: Record<string, { id: number; url: string }> = { seeded: { id: shop.partnerId, url: shop.affiliateUrl } };
  for (const name of more) {
    const made = (await admin('POST', `/programs/${shop.programId}/partners`, { name, email: `${name.toLowerCase()}-${shop.programId}@partner.example` })).body.data;
    await admin('PATCH', `/programs/${shop.programId}/partners/${made.id}/payout-details`, { payout_method: 'paypal', payout_reference: `${name}@paypal.example` });
    const code = `${name.toLowerCase()}-${shop.programId}`;
    await admin('POST', `/programs/${shop.programId}/links`, { partner_id: made.id, short_link: code });
    partners[name] = { id: made.id, url: `https://shop.example.com/?aff=${code}` };
  }
  return { shop, partners };
}

/** The sales paid at `at` (the API takes only the last 30 days of the real clock: the test's months are set here). */
const paidAt = (saleIds: number[], at: string) => db.pool.query('UPDATE sales SET occurred_at = $2 WHERE id = ANY ($1::bigint[])', [saleIds, new Date(at)]);

/** `n` new customers' sales for a partner, paid on `day` (each customer its own). */
async function newCustomers(shop: SeededProgram, url: string, n: number, day: string, cents = 5_000) {
  const sales = [];
  for (let i = 0; i < n; i++) sales.push(await apiSale(api, { ...shop, affiliateUrl: url }, cents));
  await paidAt(sales.map((s) => s.saleId), `${day}T10:00:00Z`);
  return sales;
}

const bountyCommissions = async (programId: number) =>
  (await db.pool.query(
    `SELECT c.id, c.partner_id, c.amount_cents, c.currency, c.sale_id, c.reward_words, a.period::text AS period, a.measured
       FROM commissions c JOIN bounty_awards a ON a.id = c.bounty_award_id WHERE c.program_id = $1 ORDER BY c.id`,
    [programId],
  )).rows.map((r) => ({ ...r, id: Number(r.id), partner_id: Number(r.partner_id), amount_cents: Number(r.amount_cents), measured: r.measured === null ? null : Number(r.measured) }));

const performance = (over: Record<string, unknown> = {}) => ({
  kind: 'performance', name: 'Ten new customers in March', reward_cents: 10_000, currency: 'USD', metric: 'new_customers', threshold: 10, refund_rule: 'as_recorded', ...over,
});

describe('performance bounties', () => {
  it('a partner reaching 10 new customers in a month gets exactly one award, however often or concurrently the job runs; 9 get nothing', async () => {
    clock = new Date('2026-03-01T00:00:00Z');
    const { shop, partners } = await shopWithPartners(['Ana', 'Ben']);
    const bounty = await bountyCases.createBounty(deps(), OPERATOR, shop.programId, performance());
    const endpoint = await admin('POST', `/programs/${shop.programId}/webhook-endpoints`, { url: 'https://hooks.example.com/affix', event_types: ['commission.created'] });
    expect(endpoint.status).toBe(201);
    await newCustomers(shop, partners.Ana!.url, 10, '2026-03-05');
    await newCustomers(shop, partners.Ben!.url, 9, '2026-03-06');
    // A customer of Ben's who first paid in February is not new in March.
    const old = await apiSale(api, { ...shop, affiliateUrl: partners.Ben!.url }, 5_000, { customerKey: `old-${shop.programId}` });
    const repeat = await apiSale(api, { ...shop, affiliateUrl: partners.Ben!.url }, 5_000, { customerKey: `old-${shop.programId}`, clickId: old.clickId });
    await paidAt([old.saleId], '2026-02-10T10:00:00Z');
    await paidAt([repeat.saleId], '2026-03-10T10:00:00Z');

    clock = new Date('2026-03-20T12:00:00Z');
    const jobDeps = { ...deps(), logger: quiet };
    const runs = await Promise.all([runBountyCheck(jobDeps, { programId: shop.programId }), runBountyCheck(jobDeps, { programId: shop.programId }), runBountyCheck(jobDeps, {})]);
    expect(runs.reduce((a, b) => a + b, 0)).toBe(1);
    expect(await runBountyCheck(jobDeps, { programId: shop.programId })).toBe(0);

    const made = await bountyCommissions(shop.programId);
    expect(made).toEqual([
      { id: made[0]!.id, partner_id: partners.Ana!.id, amount_cents: 10_000, currency: 'USD', sale_id: null, reward_words: "Bounty 'Ten new customers in March' — 100.00 USD", period: '2026-03-01', measured: 10 },
    ]);
    // In the ledger, as any commission: created pending.
    const ledger = (await db.pool.query('SELECT kind, pending_cents::int AS pending FROM commission_ledger WHERE commission_id = $1', [made[0]!.id])).rows;
    expect(ledger).toEqual([{ kind: 'created', pending: 10_000 }]);
    // The brand's endpoints hear commission.created, marked as a bounty's.
    const events = (await db.pool.query("SELECT data FROM webhook_messages WHERE program_id = $1 AND type = 'commission.created' AND data ? 'bounty'", [shop.programId])).rows;
    expect(events).toHaveLength(1);
    expect(events[0].data).toMatchObject({ commission_id: made[0]!.id, sale_id: null, partner_id: partners.Ana!.id, amount_cents: 10_000, currency: 'USD', bounty: { id: bounty.id, kind: 'performance', name: 'Ten new customers in March', period: '2026-03-01', measured: 10 }, state: 'pending' });
    // Ana is mailed once; the award is audited.
    const mails = (await db.pool.query("SELECT to_email, subject FROM mail_outbox WHERE program_id = $1 AND kind = 'bounty_awarded'", [shop.programId])).rows;
    expect(mails).toHaveLength(1);
    expect(mails[0].subject).toContain('you earned $100.00');
    const audits = (await db.pool.query("SELECT count(*)::int AS n FROM audit_log WHERE program_id = $1 AND action = 'bounty.award'", [shop.programId])).rows[0].n;
    expect(audits).toBe(1);
    // The assistant (MCP partner_stats): the bounty in Ana's commission, not in her sales or revenue.
    const stats = (await partnerStats(db.pool, shop.programId, new Date(0))).find((r) => Number(r.partner_id) === partners.Ana!.id);
    expect([stats.sales, stats.by_currency]).toEqual([10, [{ currency: 'USD', sales: 10, revenue_cents: '50000', commission_cents: '15000' }]]);

    // The normal paths: approved after the hold, paid by a run, owed again when the payout fails
    // (a day after the real clock: the sales' commissions were made on it).
    clock = new Date(Date.now() + 86_400_000);
    await commissionLifecycle.approveDueCommissions(deps());
    const run = await payoutRuns.runPayouts(deps(), OPERATOR, shop.programId);
    const anaPayout = run.payouts.find((p) => p.partnerId === partners.Ana!.id)!;
    // 10 sales × 5.00 × 10 % = 50.00 in commissions, and the bounty's 100.00.
    expect(anaPayout.amountCents).toBe(5_000 + 10_000);
    await payoutRuns.markPayoutPaid(deps(), OPERATOR, shop.programId, anaPayout.id, { reference: 'PAID-ANA' });
    const state = async () => (await db.pool.query('SELECT state FROM commission_states WHERE id = $1', [made[0]!.id])).rows[0].state;
    expect(await state()).toBe('paid');
    await failPayout(deps(), OPERATOR, shop.programId, anaPayout.id, { reason: 'Bank returned it' });
    expect(await state()).toBe('approved');
    // Its numbered statement keeps every line it paid, the bounty's (no sale) too, summing to the payout.
    const reversed = await programPayout(deps(), OPERATOR, shop.programId, anaPayout.id);
    expect(reversed.lines).toHaveLength(11);
    expect(reversed.total).toBe(15_000);
    // Each line keeps its words (the bounty's says what it paid for).
    expect(reversed.lines.filter((l) => l.kind === 'commission' && l.words?.startsWith('Bounty')).map((l) => l.kind === 'commission' && l.words)).toEqual(["Bounty 'Ten new customers in March' — 100.00 USD"]);
    const balance = (await payoutRuns.balances(deps(), OPERATOR, shop.programId)).find((b) => b.partnerId === partners.Ana!.id)!;
    expect([balance.approvedCents, balance.paidCents]).toEqual([15_000, 0]);
    const again = await payoutRuns.runPayouts(deps(), OPERATOR, shop.programId);
    expect(again.payouts.find((p) => p.partnerId === partners.Ana!.id)!.amountCents).toBe(15_000);
  });

  it('revenue in a currency, counted net of refunds: nothing while the month is open; at its close, only who is still over', async () => {
    clock = new Date('2026-03-01T00:00:00Z');
    const { shop, partners } = await shopWithPartners(['Cleo', 'Dan']);
    await bountyCases.createBounty(deps(), OPERATOR, shop.programId, performance({ name: '500 EUR in March', reward_cents: 5_000, currency: 'EUR', metric: 'revenue', metric_currency: 'EUR', threshold: 50_000, refund_rule: 'net_of_refunds' }));
    // Cleo: 600.00 EUR, then 150.00 refunded → 450.00 net. Dan: 520.00 EUR, 20.00 refunded → 500.00 net. USD sales do not count.
    const cleo = await newCustomers(shop, partners.Cleo!.url, 3, '2026-03-03', 20_000).then(async (s) => s);
    const dan = await newCustomers(shop, partners.Dan!.url, 2, '2026-03-04', 26_000);
    await newCustomers(shop, partners.Cleo!.url, 1, '2026-03-05', 90_000);
    await db.pool.query("UPDATE sales SET currency = 'EUR' WHERE id = ANY ($1::bigint[])", [[...cleo, ...dan].map((s) => s.saleId)]);
    await db.pool.query("UPDATE commissions SET currency = 'EUR' WHERE sale_id = ANY ($1::bigint[])", [[...cleo, ...dan].map((s) => s.saleId)]);
    await apiRefund(api, shop, cleo[0]!.transactionId, 15_000);
    await apiRefund(api, shop, dan[0]!.transactionId, 2_000);

    const jobDeps = { ...deps(), logger: quiet };
    clock = new Date('2026-03-31T23:59:00Z');
    expect(await runBountyCheck(jobDeps, { programId: shop.programId })).toBe(0);
    clock = new Date('2026-04-01T00:05:00Z');
    expect(await runBountyCheck(jobDeps, { programId: shop.programId })).toBe(1);
    expect(await runBountyCheck(jobDeps, { programId: shop.programId })).toBe(0);
    const made = await bountyCommissions(shop.programId);
    expect(made.map((m) => [m.partner_id, m.amount_cents, m.currency, m.period, m.measured, m.reward_words])).toEqual([
      [partners.Dan!.id, 5_000, 'EUR', '2026-03-01', 50_000, "Bounty '500 EUR in March' — 50.00 EUR"],
    ]);
  });

  it('as recorded: a refund after the award does not take it back, and new customers refunded in full still count', async () => {
    clock = new Date('2026-05-01T00:00:00Z');
    const { shop, partners } = await shopWithPartners(['Eve']);
    await bountyCases.createBounty(deps(), OPERATOR, shop.programId, performance({ name: 'Three in May', threshold: 3 }));
    const sales = await newCustomers(shop, partners.Eve!.url, 3, '2026-05-02');
    await apiRefund(api, shop, sales[0]!.transactionId);
    clock = new Date('2026-05-03T00:00:00Z');
    expect(await runBountyCheck({ ...deps(), logger: quiet }, { programId: shop.programId })).toBe(1);
  });
});

describe('submission bounties', () => {
  it('submit → approve → a commission that the run pays; a failed payout returns it to owed; once-only refuses a second submission', async () => {
    clock = new Date('2026-06-01T00:00:00Z');
    const { shop, partners } = await shopWithPartners(['Fay']);
    const created = await admin('POST', `/programs/${shop.programId}/bounties`, { kind: 'submission', name: 'Review video', description: 'A video review of the product on your channel', reward_cents: 5_000, currency: 'EUR' });
    expect(created.status).toBe(201);
    const bountyId = created.body.data.id as number;
    const partner = { programId: shop.programId, partnerId: partners.Fay!.id };
    const submissionId = await bountyCases.submitToBounty(deps(), partner, bountyId, { content: 'https://video.example/fay-review' });
    await expect(bountyCases.submitToBounty(deps(), partner, bountyId, { content: 'again' })).rejects.toMatchObject({ status: 409, message: 'You already submitted to this bounty' });

    const listed = await admin('GET', `/programs/${shop.programId}/bounty-submissions?status=pending`);
    expect(listed.body.data).toMatchObject([{ id: submissionId, bounty_id: bountyId, partner_id: partners.Fay!.id, content: 'https://video.example/fay-review', status: 'pending' }]);
    const approved = await admin('POST', `/programs/${shop.programId}/bounty-submissions/${submissionId}/approve`);
    expect(approved.status).toBe(200);
    expect(approved.body.data).toMatchObject({ status: 'approved', commission_id: expect.any(Number) });
    const twice = await admin('POST', `/programs/${shop.programId}/bounty-submissions/${submissionId}/approve`);
    expect(twice.status).toBe(409);
    const commissionId = approved.body.data.commission_id as number;
    const commission = (await admin('GET', `/programs/${shop.programId}/commissions`)).body.data.rows.find((c: { id: number }) => c.id === commissionId);
    expect(commission).toMatchObject({ sale_id: null, transaction_id: null, bounty_award_id: expect.any(Number), earned_cents: 5_000, currency: 'EUR', state: 'pending', reward_words: "Bounty 'Review video' — 50.00 EUR" });
    expect((await db.pool.query("SELECT count(*)::int AS n FROM mail_outbox WHERE program_id = $1 AND kind = 'bounty_approved'", [shop.programId])).rows[0].n).toBe(1);

    // The API made it on the real clock: approved and paid a day after that.
    clock = new Date(Date.now() + 86_400_000);
    await commissionLifecycle.approveDueCommissions(deps());
    const run = await payoutRuns.runPayouts(deps(), OPERATOR, shop.programId);
    const payout = run.payouts.find((p) => p.partnerId === partners.Fay!.id)!;
    expect([payout.amountCents, payout.currency]).toEqual([5_000, 'EUR']);
    await payoutRuns.markPayoutPaid(deps(), OPERATOR, shop.programId, payout.id, { reference: 'PAID-FAY' });
    await failPayout(deps(), OPERATOR, shop.programId, payout.id, { reason: 'PayPal returned it' });
    const state = (await db.pool.query('SELECT state FROM commission_states WHERE id = $1', [commissionId])).rows[0].state;
    expect(state).toBe('approved');
    const next = await payoutRuns.runPayouts(deps(), OPERATOR, shop.programId);
    expect(next.payouts.find((p) => p.partnerId === partners.Fay!.id)!.amountCents).toBe(5_000);
  });

  it('reject needs a reason, which the partner is mailed; audited', async () => {
    clock = new Date('2026-06-01T00:00:00Z');
    const { shop, partners } = await shopWithPartners(['Gus']);
    const bountyId = (await admin('POST', `/programs/${shop.programId}/bounties`, { kind: 'submission', name: 'Blog post', reward_cents: 2_000, currency: 'USD', once_only: false })).body.data.id;
    const id = await bountyCases.submitToBounty(deps(), { programId: shop.programId, partnerId: partners.Gus!.id }, bountyId, { content: 'https://blog.example/post' });
    // Not once-only: a second one is taken.
    await bountyCases.submitToBounty(deps(), { programId: shop.programId, partnerId: partners.Gus!.id }, bountyId, { content: 'https://blog.example/post-2' });
    const bare = await admin('POST', `/programs/${shop.programId}/bounty-submissions/${id}/reject`, {});
    expect([bare.status, bare.body.error.message]).toEqual([400, 'reason: Give a reason: the partner reads it.']);
    const rejected = await admin('POST', `/programs/${shop.programId}/bounty-submissions/${id}/reject`, { reason: 'The post does not link to the shop' });
    expect(rejected.body.data).toMatchObject({ status: 'rejected', reason: 'The post does not link to the shop', commission_id: null });
    const mail = (await db.pool.query("SELECT body FROM mail_outbox WHERE program_id = $1 AND kind = 'bounty_rejected'", [shop.programId])).rows;
    expect(mail).toHaveLength(1);
    expect(mail[0].body).toContain('The post does not link to the shop');
    expect((await db.pool.query("SELECT count(*)::int AS n FROM audit_log WHERE program_id = $1 AND action = 'bounty_submission.reject'", [shop.programId])).rows[0].n).toBe(1);
    expect(await bountyCommissions(shop.programId)).toEqual([]);
    // A banned partner's submission cannot be approved (nothing earned under a ban).
    const second = (await admin('GET', `/programs/${shop.programId}/bounty-submissions?status=pending`)).body.data[0].id;
    await admin('POST', `/programs/${shop.programId}/partners/${partners.Gus!.id}/ban`, { reason: 'spam' });
    const refused = await admin('POST', `/programs/${shop.programId}/bounty-submissions/${second}/approve`);
    expect([refused.status, refused.body.error.message]).toEqual([409, 'This partner is not an approved partner of the program: reject the submission instead']);
    expect(await bountyCommissions(shop.programId)).toEqual([]);
  });
});

describe('bounties across brands', () => {
  it("another brand's bounty or submission is a 404 under this program", async () => {
    clock = new Date('2026-06-01T00:00:00Z');
    const mine = await shopWithPartners([]);
    const theirs = await shopWithPartners([]);
    const bountyId = (await admin('POST', `/programs/${theirs.shop.programId}/bounties`, { kind: 'submission', name: 'Theirs', reward_cents: 2_000, currency: 'USD' })).body.data.id;
    const submissionId = await bountyCases.submitToBounty(deps(), { programId: theirs.shop.programId, partnerId: theirs.shop.partnerId }, bountyId, { content: 'x' });
    const P = `/programs/${mine.shop.programId}`;
    expect((await admin('POST', `${P}/bounties/${bountyId}/archive`)).status).toBe(404);
    expect((await admin('POST', `${P}/bounty-submissions/${submissionId}/approve`)).status).toBe(404);
    expect((await admin('POST', `${P}/bounty-submissions/${submissionId}/reject`, { reason: 'no' })).status).toBe(404);
    expect((await admin('GET', `${P}/bounties`)).body.data).toEqual([]);
    expect((await admin('GET', `${P}/bounty-submissions`)).body.data).toEqual([]);
    // A partner of this program cannot submit to the other brand's bounty.
    await expect(bountyCases.submitToBounty(deps(), { programId: mine.shop.programId, partnerId: mine.shop.partnerId }, bountyId, { content: 'x' })).rejects.toMatchObject({ status: 404 });
    await expect(bountyCases.submitToBounty(deps(), { programId: theirs.shop.programId, partnerId: mine.shop.partnerId }, bountyId, { content: 'x' })).rejects.toMatchObject({ status: 404 });
    expect((await db.pool.query('SELECT status FROM bounty_submissions WHERE id = $1', [submissionId])).rows[0].status).toBe('pending');
  });
});
