// The pages' rollups (migration 0028) always equal a count made from the recorded rows
// themselves: after clicks, leads (a provisional one settled), sales in two currencies, a test
// sale, refunds, approvals, a payout run and a payment; after the upkeep folds the shards; while
// clicks arrive during the folding; and when rebuilt from history by the migration's backfill.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ManagementDeps } from '../src/app/programs/management.js';
import { OPERATOR } from '../src/app/accounts/scope.js';
import * as payoutConfig from '../src/app/money/payout-settings.js';
import * as commissionLifecycle from '../src/app/money/commission-lifecycle.js';
import * as payoutRuns from '../src/app/money/payout-runs.js';
import { MIGRATIONS_DIR } from '../src/db/infra/migrate.js';
import { compactPageRollups } from '../src/db/reads/page-rollups.js';
import { type TestApi, type TestDatabase, addPartnerLink, bearer, createTestDatabase, seedProgram, startTestApi, trackClick } from './support/harness.js';
import { apiRefund, apiSale, uid } from './support/money.js';
import { recountRollups, rolledUp } from './support/rollups.js';

let db: TestDatabase;
let api: TestApi;
let clock = new Date();
const deps = (): ManagementDeps => ({ pool: db.pool, secretBox: null, now: () => clock });

beforeAll(async () => {
  db = await createTestDatabase();
  api = await startTestApi(db.pool, { AFFIX_SECRET_KEY: 'page-rollups-test-key-0123456789' }, { queueUrl: db.url });
});
afterAll(async () => {
  await api.close();
  await db.drop();
});

const recount = (programId: number) => recountRollups(db.pool, programId);
const rolled = (programId: number) => rolledUp(db.pool, programId);

/** Two partners: clicks, leads (one provisional, then settled by the server), buyers in USD and EUR, a repeat buyer, a test sale, refunds, approvals, a run, a payment. */
async function busyProgram() {
  const shop = await seedProgram(api, { commission_rate: 20, lead_auth: 'server_required' });
  await payoutConfig.updatePayoutSettings(deps(), OPERATOR, shop.programId, { hold_days: 0, payout_minimums_cents: {} });
  const other = await addPartnerLink(api, shop.programId);
  const otherUrl = `https://shop.example.com/?aff=${other.shortLink}`;
  for (let i = 0; i < 5; i++) await trackClick(api, otherUrl);
  // A browser lead is provisional under server_required; the server's lead settles it (not a second lead).
  const leadClick = await trackClick(api, shop.affiliateUrl);
  const key = uid('lead');
  expect((await api.request('POST', '/api/v1/track/lead', { body: { click_id: leadClick, customer_key: key } })).status).toBe(200);
  expect((await api.request('POST', '/api/v1/track/lead', { body: { click_id: leadClick, customer_key: key }, headers: bearer(shop.apiKey) })).status).toBe(200);
  const repeat = await apiSale(api, shop, 4900, { customerKey: key, clickId: leadClick });
  await apiSale(api, shop, 2900, { customerKey: key, clickId: leadClick, isRecurring: true });
  const euro = await apiSale(api, { apiKey: shop.apiKey, affiliateUrl: otherUrl }, 10_000, { currency: 'EUR', occurredAt: new Date(Date.now() - 3 * 86_400_000) });
  await apiSale(api, shop, 1500);
  const testSale = await api.request('POST', '/api/v1/track/sale', {
    body: { transaction_id: uid('t'), amount_cents: 700, click_id: await trackClick(api, shop.affiliateUrl), customer_key: uid('c'), additional_data: { test_mode: true } },
    headers: bearer(shop.apiKey),
  });
  expect(testSale.status).toBe(200);
  expect(testSale.body.test_mode ?? (await api.pool.query('SELECT test FROM sales WHERE id = $1', [testSale.body.sale_id])).rows[0].test).toBe(true);
  await apiRefund(api, shop, euro.transactionId, 2500);
  clock = new Date(Date.now() + 60_000);
  await commissionLifecycle.approveDueCommissions(deps());
  await apiRefund(api, shop, repeat.transactionId);
  const run = await payoutRuns.runPayouts(deps(), OPERATOR, shop.programId);
  await payoutRuns.markPayoutPaid(deps(), OPERATOR, shop.programId, run.payouts[0]!.id, { reference: 'p-1' });
  return shop;
}

describe('the pages read rollups equal to a count of the rows themselves', () => {
  it('after every kind of recording, after folding, and when rebuilt from history', async () => {
    const shop = await busyProgram();
    const truth = await recount(shop.programId);
    const measures = new Set(truth.map((row) => row.measure));
    // The program exercised every measure the pages read.
    for (const measure of ['clicks', 'leads', 'converted', 'buyers', 'sales', 'revenue', 'earned:paid', 'commissions:reversed', 'commissions:paid', 'ledger_paid']) expect(measures).toContain(measure);
    expect(truth.find((row) => row.partner_id === -1 && row.measure === 'leads')?.value).toBe(1);
    expect(truth.filter((row) => row.partner_id === -1 && row.measure === 'buyers').reduce((n, row) => n + row.value, 0)).toBe(3);
    expect(await rolled(shop.programId)).toEqual(truth);

    const folded = await compactPageRollups(db.pool);
    expect(folded).toBeGreaterThan(0);
    expect((await db.pool.query('SELECT count(*)::int AS n FROM page_rollups WHERE program_id = $1 AND shard >= 0', [shop.programId])).rows[0].n).toBe(0);
    expect(await rolled(shop.programId)).toEqual(truth);

    // The migration's backfill, run on the recorded history alone, makes the same rollups.
    const migration = await readFile(join(MIGRATIONS_DIR, '0028_page_rollups.sql'), 'utf8');
    const backfill = migration.slice(migration.indexOf('-- What was recorded before this migration'));
    await db.pool.query('DELETE FROM page_rollups');
    await db.pool.query(backfill);
    expect(await rolled(shop.programId)).toEqual(truth);
  });

  it('a payout run racing refunds and the upkeep: the rollups still equal the rows, and the ledger buckets balance to the cent', async () => {
    const shop = await seedProgram(api, { commission_rate: 20 });
    await payoutConfig.updatePayoutSettings(deps(), OPERATOR, shop.programId, { hold_days: 0, payout_minimums_cents: {} });
    const sold = [];
    for (let i = 0; i < 6; i++) sold.push(await apiSale(api, shop, 1000 + i * 100));
    clock = new Date(Date.now() + 60_000);
    await commissionLifecycle.approveDueCommissions(deps());
    const [run] = await Promise.all([
      payoutRuns.runPayouts(deps(), OPERATOR, shop.programId),
      ...sold.slice(0, 4).map((sale) => apiRefund(api, shop, sale.transactionId, 500)),
      compactPageRollups(db.pool),
    ]);
    expect(run.payouts.length).toBe(1);
    expect(await rolled(shop.programId)).toEqual(await recount(shop.programId));
    const ledger = (await db.pool.query(
      'SELECT sum(pending_cents)::int AS pending, sum(approved_cents)::int AS approved, sum(paid_cents)::int AS paid FROM commission_ledger WHERE program_id = $1', [shop.programId],
    )).rows[0];
    const buckets = (await db.pool.query(
      `SELECT sum(value) FILTER (WHERE measure = 'ledger_pending')::int AS pending, sum(value) FILTER (WHERE measure = 'ledger_approved')::int AS approved,
              coalesce(sum(value) FILTER (WHERE measure = 'ledger_paid'), 0)::int AS paid
         FROM page_rollups WHERE program_id = $1 AND partner_id = -1`, [shop.programId],
    )).rows[0];
    expect(buckets).toEqual(ledger);
    // What the partner is owed is what the commissions still earn: 20 % of 7500, less 20 % of the 2000 refunded.
    expect(ledger.pending + ledger.approved + ledger.paid).toBe(1500 - 400);
  });

  it('clicks recorded while the upkeep folds are all counted, and neither waits on the other', async () => {
    const shop = await seedProgram(api);
    let folding = true;
    const folder = (async () => {
      let rounds = 0;
      while (folding) {
        await compactPageRollups(db.pool);
        rounds += 1;
      }
      return rounds;
    })();
    const clicks = await Promise.all(Array.from({ length: 200 }, () => api.request('POST', '/api/v1/track/click', { body: { affiliate_url: shop.affiliateUrl } })));
    folding = false;
    expect(await folder).toBeGreaterThan(0);
    expect(clicks.map((reply) => reply.status)).toEqual(Array(200).fill(200));
    await compactPageRollups(db.pool);
    const total = (await db.pool.query("SELECT sum(value)::int AS n FROM page_rollups WHERE program_id = $1 AND partner_id = -1 AND measure = 'clicks'", [shop.programId])).rows[0].n;
    expect(total).toBe(200);
    expect(await rolled(shop.programId)).toEqual(await recount(shop.programId));
    // A deleted program takes its rollups with it.
    await db.pool.query('DELETE FROM programs WHERE id = $1', [shop.programId]);
    expect((await db.pool.query('SELECT count(*)::int AS n FROM page_rollups WHERE program_id = $1', [shop.programId])).rows[0].n).toBe(0);
  });
});
