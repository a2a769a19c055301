// Fraud holds: each signal holds the sale's commission (the sale itself is recorded); a manager
// releases or rejects it with a reason, both in the ledger and told to the brand's endpoints.
import { beforeAll, describe, expect, it } from 'vitest';
import { OPERATOR } from '../src/app/accounts/scope.js';
import * as payoutConfig from '../src/app/money/payout-settings.js';
import * as commissionLifecycle from '../src/app/money/commission-lifecycle.js';
import * as payoutRuns from '../src/app/money/payout-runs.js';
import { type SeededProgram, type TestApi, type TestDatabase, adminHeaders, bearer, seedProgram } from './support/harness.js';
import { useSeededApi } from './support/seeded-api.js';

let db: TestDatabase;
let api: TestApi;
let n = 0;
const uid = (prefix: string) => `${prefix}_${++n}_${Date.now()}`;
const deps = () => ({ pool: db.pool, secretBox: null, now: () => api.clock.now });

useSeededApi({ env: { AFFIX_SECRET_KEY: 'fraud-holds-test-key-0123456789', AFFIX_WEBHOOK_ALLOW_PRIVATE: 'true' }, options: { queueUrl: 'own' } }, (t) => ({ db, api } = t));

async function partnerWithLink(program: SeededProgram, email: string | null) {
  const partner = await api.request('POST', `/api/v1/admin/programs/${program.programId}/partners`, { body: { name: uid('p'), email }, headers: adminHeaders });
  const code = uid('link').replaceAll('_', '-');
  await api.request('POST', `/api/v1/admin/programs/${program.programId}/links`, { body: { partner_id: partner.body.data.id, short_link: code }, headers: adminHeaders });
  return { partnerId: partner.body.data.id as number, url: `https://shop.example.com/?aff=${code}` };
}

const later = (seconds: number) => {
  api.clock.now = new Date(api.clock.now.getTime() + seconds * 1000);
};

/** click (from `clickIp`) -> lead (customer_ip, email) -> sale; returns the commission's stage and reasons. */
async function journey(program: SeededProgram, url: string, options: { clickIp: string; leadIp?: string; email?: string; secondsToSignup?: number }) {
  const click = await api.request('POST', '/api/v1/track/click', { body: { affiliate_url: url }, headers: { 'X-Forwarded-For': options.clickIp } });
  expect(click.status).toBe(200);
  later(options.secondsToSignup ?? 120);
  const customerKey = uid('c');
  const lead = await api.request('POST', '/api/v1/track/lead', {
    body: { click_id: click.body.click_id, customer_key: customerKey, email: options.email, customer_ip: options.leadIp },
    headers: bearer(program.apiKey),
  });
  expect(lead.status).toBe(200);
  const sale = await api.request('POST', '/api/v1/track/sale', { body: { transaction_id: uid('t'), amount_cents: 10_000, customer_key: customerKey }, headers: bearer(program.apiKey) });
  expect(sale.status).toBe(200); // tracking is never blocked
  const { rows } = await db.pool.query('SELECT id, stage, hold_reasons FROM commissions WHERE id = $1', [sale.body.commission_id]);
  return { commissionId: Number(rows[0].id), stage: rows[0].stage as string, reasons: rows[0].hold_reasons as string[] | null };
}

describe('fraud signals hold the commission', () => {
  let shop: SeededProgram;
  beforeAll(async () => {
    shop = await seedProgram(api);
  });

  it('self-referral: the partner’s email is the customer’s (compared by hash, any case)', async () => {
    const ana = await partnerWithLink(shop, 'ana@partner.example');
    expect(await journey(shop, ana.url, { clickIp: '203.0.113.10', email: 'Ana@Partner.example ' })).toMatchObject({ stage: 'held', reasons: ['self_referral'] });
    expect(await journey(shop, ana.url, { clickIp: '203.0.113.11', email: 'someone.else@example.com' })).toMatchObject({ stage: 'pending', reasons: null });
  });

  it('click-to-signup faster than the program’s threshold from the click’s IP', async () => {
    const bob = await partnerWithLink(shop, null);
    expect(await journey(shop, bob.url, { clickIp: '203.0.113.20', leadIp: '203.0.113.20', secondsToSignup: 3 })).toMatchObject({ stage: 'held', reasons: ['fast_signup_same_ip'] });
    expect(await journey(shop, bob.url, { clickIp: '203.0.113.21', leadIp: '203.0.113.21', secondsToSignup: 30 })).toMatchObject({ stage: 'pending' });
    expect(await journey(shop, bob.url, { clickIp: '203.0.113.22', leadIp: '198.51.100.1', secondsToSignup: 3 })).toMatchObject({ stage: 'pending' });
    await payoutConfig.updatePayoutSettings(deps(), OPERATOR, shop.programId, { hold_days: 30, payout_minimums_cents: {}, fraud_min_signup_seconds: 60 });
    expect(await journey(shop, bob.url, { clickIp: '203.0.113.23', leadIp: '203.0.113.23', secondsToSignup: 30 })).toMatchObject({ stage: 'held', reasons: ['fast_signup_same_ip'] });
  });

  it('many leads from one IP within the window: the ones past the limit are held', async () => {
    const program = await seedProgram(api);
    const carol = await partnerWithLink(program, null);
    const stages: string[] = [];
    for (let i = 0; i < 7; i++) stages.push((await journey(program, carol.url, { clickIp: `192.0.2.${i + 1}`, leadIp: '198.51.100.77', secondsToSignup: 60 })).stage);
    expect(stages).toEqual(['pending', 'pending', 'pending', 'pending', 'pending', 'held', 'held']);
    later(2 * 3600); // outside the 60-minute window the IP is clean again
    expect(await journey(program, carol.url, { clickIp: '192.0.2.99', leadIp: '198.51.100.77', secondsToSignup: 60 })).toMatchObject({ stage: 'pending' });
  });

  it('a customer referred by another partner first', async () => {
    const program = await seedProgram(api);
    const first = await partnerWithLink(program, null);
    const second = await partnerWithLink(program, null);
    expect(await journey(program, first.url, { clickIp: '192.0.2.50', email: 'dana@example.com' })).toMatchObject({ stage: 'pending' });
    expect(await journey(program, second.url, { clickIp: '192.0.2.51', email: 'dana@example.com' })).toMatchObject({ stage: 'held', reasons: ['referred_by_another_partner'] });
    expect(await journey(program, first.url, { clickIp: '192.0.2.52', email: 'dana@example.com' })).toMatchObject({ stage: 'pending' });
  });
});

describe('review', () => {
  it('held never approves on its own; released it is pending, rejected it is never owed; both in the ledger and told to the brand', async () => {
    const program = await seedProgram(api);
    await api.request('POST', `/api/v1/admin/programs/${program.programId}/webhook-endpoints`, {
      body: { url: 'http://127.0.0.1:9/nowhere', event_types: ['commission.created', 'commission.released', 'commission.rejected'] },
      headers: adminHeaders,
    });
    const eve = await partnerWithLink(program, 'eve@partner.example');
    const held = [
      await journey(program, eve.url, { clickIp: '192.0.2.60', email: 'eve@partner.example' }),
      await journey(program, eve.url, { clickIp: '192.0.2.61', email: 'eve@partner.example' }),
    ];
    expect(held.map((h) => h.stage)).toEqual(['held', 'held']);
    const future = { ...deps(), now: () => new Date(api.clock.now.getTime() + 90 * 86_400_000) };
    await commissionLifecycle.approveDueCommissions(future);
    await expect(commissionLifecycle.approveCommission(deps(), OPERATOR, program.programId, held[0]!.commissionId, { reason: 'x' })).rejects.toMatchObject({ status: 409, message: 'This commission is held for review: release it first' });
    expect((await db.pool.query('SELECT stage FROM commissions WHERE id = $1', [held[0]!.commissionId])).rows[0].stage).toBe('held');

    await commissionLifecycle.releaseCommission(deps(), OPERATOR, program.programId, held[0]!.commissionId, { reason: 'Eve bought a gift for a friend' });
    await commissionLifecycle.rejectCommission(deps(), OPERATOR, program.programId, held[1]!.commissionId, { reason: 'Eve bought for herself' });
    await expect(commissionLifecycle.rejectCommission(deps(), OPERATOR, program.programId, held[1]!.commissionId, { reason: 'again' })).rejects.toMatchObject({ status: 409 });
    await commissionLifecycle.approveDueCommissions(future);
    const stages = await db.pool.query('SELECT id, stage FROM commissions WHERE id = ANY ($1) ORDER BY id', [held.map((h) => h.commissionId)]);
    expect(stages.rows.map((r) => r.stage)).toEqual(['approved', 'rejected']);
    const ledger = await db.pool.query(
      `SELECT commission_id, kind, pending_cents, reason FROM commission_ledger WHERE commission_id = ANY ($1) AND kind IN ('released', 'rejected') ORDER BY id`,
      [held.map((h) => h.commissionId)],
    );
    expect(ledger.rows).toEqual([
      { commission_id: held[0]!.commissionId, kind: 'released', pending_cents: 0, reason: 'Eve bought a gift for a friend' },
      { commission_id: held[1]!.commissionId, kind: 'rejected', pending_cents: -2000, reason: 'Eve bought for herself' },
    ]);
    const balance = (await payoutRuns.balances(deps(), OPERATOR, program.programId)).find((b) => b.partnerId === eve.partnerId)!;
    expect(balance).toMatchObject({ pendingCents: 0, approvedCents: 2000 });
    const told = await db.pool.query(`SELECT type, data->'hold_reasons' AS reasons FROM webhook_messages WHERE program_id = $1 ORDER BY created_at`, [program.programId]);
    expect(told.rows.map((r) => r.type)).toEqual(['commission.created', 'commission.created', 'commission.released', 'commission.rejected']);
    expect(told.rows[2].reasons).toEqual(['self_referral']);
  });
});
