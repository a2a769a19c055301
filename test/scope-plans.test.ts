// Every read scoped by account, program or partner is served by an index on its scope: beside a
// brand with 100,000 partners (and a row per partner in every shared table), the lists, exports
// and portal pages of a small brand never scan a table all brands share. The statements are the
// ones the routes really send (recorded on the app's pool) with their values, explained; and a
// brand of 100,000 partners downloads its partners.csv whole.
import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApi, type TestDatabase, adminHeaders, bearer, createTestDatabase, startTestApi } from './support/harness.js';
import { largeTables, recordStatements, scansOfLargeTables } from './support/query-plans.js';
import { type SeededBrand, seedBrand } from './support/scope-seed.js';
import { type Pool, createPool } from '../src/db/infra/pool.js';
import { sha256 } from '../src/core/secrets.js';
import { PROGRAM_SECTIONS } from '../src/app/programs/dashboard-pages.js';
import { firstLinksOf } from '../src/db/partners/approval-links.js';
import { partnerStats, programOverview, readOnly, recentEvents, saleExplanation } from '../src/db/reads/assistant-insights.js';
import { approvedPartnersOfGroup, codeMapped, discountForLink, partnerDiscountState, partnersWithCodesOf } from '../src/db/partners/discounts.js';
import { endpointForIntake } from '../src/db/inbox/processor-endpoints.js';
import * as rewardReads from '../src/db/money/reward-rules.js';
import * as bountyReads from '../src/db/money/bounties.js';
import * as clickReads from '../src/db/money/click-rewards.js';
import { backtestSales, draftOf } from '../src/db/money/backtest-sales.js';

// SCOPE_PLANS_ROWS: fewer rows while working on this file; the test as it runs in CI uses 100,000.
const BIG = Number(process.env.SCOPE_PLANS_ROWS ?? 100_000);

let db: TestDatabase;
let appPool: Pool;
let api: TestApi;
let recorder: ReturnType<typeof recordStatements>;
let big: SeededBrand;
let small: SeededBrand;

/** A signed-in cookie for a brand's dashboard or a partner's portal (the session row as sign-in writes it). */
async function dashboardCookie(accountId: number) {
  const token = randomBytes(24).toString('base64url');
  await db.pool.query("INSERT INTO dashboard_sessions (token_hash, account_id, expires_at) VALUES ($1, $2, now() + interval '1 hour')", [sha256(token), accountId]);
  return `affix_dashboard=${token}`;
}
async function portalCookie(email: string) {
  const token = randomBytes(24).toString('base64url');
  await db.pool.query("INSERT INTO partner_sessions (token_hash, email, expires_at) VALUES ($1, $2, now() + interval '1 hour')", [sha256(token), email]);
  return `affix_portal=${token}`;
}

async function get(path: string, headers: Record<string, string>) {
  const reply = await recorder.during(`GET ${path}`, async () => {
    const response = await fetch(`${api.url}${path}`, { headers, redirect: 'manual' });
    return { status: response.status, text: await response.text(), headers: response.headers };
  });
  return reply;
}

beforeAll(async () => {
  db = await createTestDatabase();
  // The other brand first: its 100,000 rows sit in every shared table; then the small brand's 20.
  const seeding = createPool(db.url, { max: 2, statementTimeoutMs: 120_000 });
  big = await seedBrand(seeding, `big${randomBytes(3).toString('hex')}`, BIG);
  small = await seedBrand(seeding, `small${randomBytes(3).toString('hex')}`, 20);
  // Partners' Stripe Express accounts (issue 47): one per enrollment of both brands.
  await seeding.query(
    `INSERT INTO partner_stripe_accounts (partner_id, program_id, stripe_account_id, country, currently_due)
     SELECT id, program_id, 'acct_' || id, 'DE', '{external_account}' FROM partners WHERE program_id = ANY ($1::bigint[])`,
    [[big.programId, small.programId]],
  );
  // Tax details required (issue 47, item 4): the Payouts page and the missing list read what each partner was paid this year.
  await seeding.query('UPDATE programs SET tax_details_required = true WHERE id = ANY ($1::bigint[])', [[big.programId, small.programId]]);
  // Payouts paid through PayPal (issue 47, item 2): a provider item per payout of both brands, and their credentials.
  await seeding.query(
    `INSERT INTO provider_payout_items (payout_id, program_id, provider, outcome, provider_item_id, provider_status, updated_at)
     SELECT id, program_id, 'paypal', 'paid', 'ITEM' || id, 'SUCCESS', now() FROM payouts WHERE program_id = ANY ($1::bigint[])`,
    [[big.programId, small.programId]],
  );
  await seeding.query(
    `INSERT INTO payout_provider_accounts (program_id, provider, client_id, secret_sealed, secret_last4)
     SELECT id, 'paypal', 'client-id-' || id, 'v1.x.y.z', 'abcd' FROM programs WHERE id = ANY ($1::bigint[])`,
    [[big.programId, small.programId]],
  );
  // Bounties (issue 46 item 5): each brand a submission bounty and a performance bounty; every partner a submission and an award.
  for (const programId of [big.programId, small.programId]) {
    await seeding.query(
      `WITH made AS (
         INSERT INTO bounties (program_id, kind, name, reward_cents, currency, metric, threshold, refund_rule)
         VALUES ($1, 'submission', 'Review video', 5000, 'USD', NULL, NULL, NULL), ($1, 'performance', 'Ten in January', 10000, 'USD', 'new_customers', 10, 'as_recorded')
         RETURNING id, kind
       ), submitted AS (
         INSERT INTO bounty_submissions (program_id, bounty_id, partner_id, content, once_only)
         SELECT $1, m.id, pa.id, 'https://video.example/' || pa.id, true FROM made m, partners pa WHERE m.kind = 'submission' AND pa.program_id = $1
       )
       INSERT INTO bounty_awards (program_id, bounty_id, partner_id, period, measured)
       SELECT $1, m.id, pa.id, DATE '2026-01-01', 10 FROM made m, partners pa WHERE m.kind = 'performance' AND pa.program_id = $1`,
      [programId],
    );
  }
  // Every partner's person gave invoice and tax details and shared them with their enrollment: the
  // brand's reads of them (statement copy, tax export, the threshold hold) join the shares.
  await seeding.query(
    `INSERT INTO partner_detail_shares (partner_id, email, shared_at) SELECT id, lower(email), now() FROM partners WHERE program_id = ANY ($1::bigint[]) AND email IS NOT NULL`,
    [[big.programId, small.programId]],
  );
  await seeding.query(`INSERT INTO partner_invoice_details (email, name, address, country, tax_id, updated_at) SELECT email, 'Invoice ' || partner_id, 'Street 1', 'DE', '', now() FROM partner_detail_shares ON CONFLICT DO NOTHING`);
  await seeding.query(
    `INSERT INTO partner_tax_details (email, legal_name, country, address, us_person, foreign_name, foreign_citizenship, foreign_signed_on, foreign_signature, updated_at)
     SELECT email, 'Tax ' || partner_id, 'DE', 'Street 1', false, 'Tax ' || partner_id, 'DE', '2026-01-01', 'Tax ' || partner_id, now() FROM partner_detail_shares ON CONFLICT DO NOTHING`,
  );
  await seeding.query('ANALYZE');
  await seeding.end();
  appPool = createPool(db.url, { max: 5, applicationName: 'affix-test' });
  recorder = recordStatements(appPool);
  api = await startTestApi(appPool, { AFFIX_SECRET_KEY: 'scope-plans-test-secret-key-0123', STRIPE_SECRET_KEY: 'sk_test_scope_plans' });
}, 300_000);

afterAll(async () => {
  await api?.close();
  await appPool?.end();
  await db?.drop();
});

describe('reads scoped by account, program or partner', () => {
  it("the small brand's lists, exports and portal pages never scan a table the 100,000-partner brand shares", async () => {
    const p = `/api/v1/admin/programs/${small.programId}`;
    // Discounts (issue 46, item 6): the small brand's group gives one, its partner has a code in it.
    const group = await api.request('POST', `${p}/groups`, { body: { name: 'Creators', slug: 'creators', commission_type: 'percent', commission_rate: 20, hold_days: 30 }, headers: adminHeaders });
    await db.pool.query('UPDATE partners SET group_id = $2 WHERE id = $1', [small.partnerId, group.body.data.id]);
    const discountId = Number((await db.pool.query("INSERT INTO group_discounts (program_id, group_id, processor, kind, percent_bp, duration) VALUES ($1, $2, 'stripe', 'percent', 2000, 'once') RETURNING id", [small.programId, group.body.data.id])).rows[0].id);
    await db.pool.query("INSERT INTO promo_codes (program_id, partner_id, code, stripe_promotion_code_id, group_discount_id) VALUES ($1, $2, 'SMALLDISC', 'promo_smalldisc', $3)", [small.programId, small.partnerId, discountId]);
    const linkCode = (await db.pool.query('SELECT short_link FROM referral_links WHERE id = $1', [small.linkId])).rows[0].short_link;
    const lookup = await get(`/api/v1/discount?program_id=${small.programId}&code=${encodeURIComponent(linkCode)}`, {});
    expect(lookup.status).toBe(200);
    expect(JSON.parse(lookup.text).data).toEqual({ code: 'SMALLDISC', description: '20 % off the first payment' });
    // The discount job's reads for one partner.
    await recorder.during('discount job', async () => {
      await partnerDiscountState(appPool, small.programId, small.partnerId);
      await codeMapped(appPool, small.programId, 'SMALLDISC2');
      await approvedPartnersOfGroup(appPool, small.programId, group.body.data.id);
      await partnersWithCodesOf(appPool, small.programId, discountId);
      await discountForLink(appPool, small.programId, linkCode);
    });
    const adminPaths = [
      `${p}/discounts`,
      p,
      `${p}/keys`,
      `${p}/partners`,
      `${p}/partners?q=partner`,
      `${p}/partners?q=${encodeURIComponent(small.partnerEmail)}`,
      `${p}/partners?status=approved&sort=name`,
      `${p}/partners?tag=seeded&sort=revenue`,
      `${p}/partners?sort=clicks&direction=asc`,
      `${p}/partners.csv`,
      `${p}/partners/${small.partnerId}`,
      `${p}/groups`,
      `${p}/applications`,
      `${p}/applications.csv`,
      `${p}/application-settings`,
      `${p}/domains`,
      `${p}/balances`,
      `${p}/commissions`,
      `${p}/commissions?state=paid`,
      `${p}/payout-settings`,
      `${p}/payouts`,
      `${p}/payout-batches/${small.batchId}/export?format=generic`,
      `${p}/tax-settings`,
      `${p}/tax-details/missing`,
      `${p}/tax-export?year=${new Date().getUTCFullYear()}`,
      `${p}/promo-codes`,
      `${p}/reward-rules`,
      `${p}/bounties`,
      `${p}/bounty-submissions`,
      `${p}/bounty-submissions?status=pending`,
      `${p}/webhook-endpoints`,
      `${p}/webhook-endpoints/${small.endpointId}/deliveries`,
      `/api/v1/admin/webhook-events?program_id=${small.programId}`,
      `/api/v1/admin/audit-log?program_id=${small.programId}`,
      `/api/v1/admin/audit-log?account_id=${small.accountId}`,
      `/api/v1/admin/audit-log.csv?program_id=${small.programId}`,
    ];
    for (const path of adminPaths) expect((await get(path, adminHeaders)).status, path).toBe(200);

    // The CLI: the account's programs (a signed-in CLI token), a program's status (its API key).
    const cliToken = randomBytes(24).toString('base64url');
    await db.pool.query("INSERT INTO cli_tokens (token_hash, account_id, expires_at) VALUES ($1, $2, now() + interval '1 hour')", [sha256(cliToken), small.accountId]);
    expect((await get('/api/v1/cli/programs', bearer(cliToken))).status).toBe(200);
    const key = await api.request('POST', `${p}/keys`, { headers: adminHeaders });
    expect((await get(`/api/v1/cli/status?program_id=${small.programId}`, bearer(key.body.data.api_key))).status).toBe(200);

    const brand = { cookie: await dashboardCookie(small.accountId) };
    const d = `/dashboard/programs/${small.programId}`;
    const dashboardPaths = [
      '/dashboard',
      '/dashboard/team',
      '/dashboard/account',
      ...PROGRAM_SECTIONS.map((section) => (section === 'overview' ? d : `${d}/${section}`)),
      `${d}/activity?partner_id=${small.partnerId}`,
      `${d}/payouts?stage=pending&partner=${small.partnerId}&from=2020-01-01&to=2030-12-31`,
      `${d}/payouts?stage=approved`,
      `${d}/partners?q=partner&status=approved`,
      `${d}/partners/${small.partnerId}`,
      `${d}/activity.csv`,
      `${d}/partners.csv`,
      `${d}/audit.csv`,
      `${d}/applications.csv`,
      `${d}/payouts/batches/${small.batchId}/export.csv?format=generic`,
      `${d}/payouts/statement-details`,
      `${d}/payouts/${small.payoutId}/statement`,
      `${d}/payouts/${small.payoutId}/statement.csv`,
      `${d}/payouts/tax`,
      `${d}/payouts/tax/${new Date().getUTCFullYear()}/export.csv`,
      `${d}/settings/mail-previews`,
      `${d}/settings/mail-previews/referral-qr.png`,
      `${d}/rewards`,
      `${d}/rewards/rule?key=new`,
      `${d}/payouts/bounties`,
    ];
    for (const path of dashboardPaths) expect((await get(path, brand)).status, path).toBe(200);

    const partner = { cookie: await portalCookie(small.partnerEmail) };
    const portalPaths = [
      '/portal',
      `/portal/programs/${small.partnerId}`,
      `/portal/programs/${small.partnerId}/links/${small.linkId}/qr.svg`,
      `/portal/programs/${small.partnerId}/payouts/${small.payoutId}/statement.csv`,
      `/portal/programs/${small.partnerId}/referrals`,
      `/portal/programs/${small.partnerId}/referrals?customers_before=${Number.MAX_SAFE_INTEGER}&commissions_before=${Number.MAX_SAFE_INTEGER}`,
      `/portal/programs/${small.partnerId}/referrals.csv`,
      `/portal/programs/${small.partnerId}/commissions.csv`,
      `/portal/programs/${small.partnerId}/sub-ids.csv`,
      `/portal/programs/${small.partnerId}/payouts/${small.payoutId}`,
      `/portal/programs/${small.partnerId}/payouts/${small.payoutId}/statement`,
      '/portal/invoice-details',
      '/portal/tax-details',
      `/portal/programs/${small.partnerId}/stripe`,
      `/portal/programs/${small.partnerId}/bounties`,
    ];
    for (const path of portalPaths) expect((await get(path, partner)).status, path).toBe(200);
    // The same portal on the brand's own host (the host lookup, the portal scoped to the brand's
    // account) and its links host's redirect.
    await db.pool.query("INSERT INTO program_domains (host, program_id, kind) VALUES ('partners.small.test', $1, 'portal'), ('go.small.test', $1, 'links')", [small.programId]);
    const onHost = (host: string, path: string) =>
      recorder.during(`GET ${host}${path}`, () => new Promise<number>((resolve, reject) => {
        request({ host: '127.0.0.1', port: new URL(api.url).port, path, headers: { host, cookie: partner.cookie } }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode!));
        }).on('error', reject).end();
      }));
    for (const path of portalPaths.slice(0, 2)) expect(await onHost('partners.small.test', path), path).toBe(200);
    const code = (await db.pool.query('SELECT short_link FROM referral_links WHERE id = $1', [small.linkId])).rows[0].short_link;
    expect(await onHost('go.small.test', `/${code}`)).toBe(302);

    // The brand's public pages (issue 44, item 1): its application page and its logo, read by program id.
    const logoHash = 'ab'.repeat(32);
    await db.pool.query("UPDATE programs SET slug = 'small-brand', applications_open = true, logo_sha256 = $2 WHERE id = $1", [small.programId, logoHash]);
    await db.pool.query("INSERT INTO program_logos (program_id, content_type, bytes, sha256) VALUES ($1, 'image/png', '\\x89504e470d0a1a0a', $2)", [small.programId, logoHash]);
    for (const path of ['/apply/small-brand', `/brand-logos/${small.programId}/${logoHash}`]) expect((await get(path, {})).status, path).toBe(200);

    // The approval mail's link (read in the approval's transaction, issue 44 item 4).
    await recorder.during('approval mail links', () => firstLinksOf(appPool, small.programId, [small.partnerId]));

    // The assistant's (MCP) reads.
    const since = new Date(Date.now() - 30 * 86_400_000);
    await recorder.during('mcp get_program', () => readOnly(appPool, (c) => programOverview(c, small.programId)));
    await recorder.during('mcp recent_events', () => readOnly(appPool, (c) => recentEvents(c, small.programId, 'sale', 20)));
    await recorder.during('mcp partner_stats', () => readOnly(appPool, (c) => partnerStats(c, small.programId, since)));
    await recorder.during('mcp explain_sale', () => readOnly(appPool, (c) => saleExplanation(c, small.programId, small.transactionId)));
    // The bounty evaluation's reads for one program and month (src/app/money/bounties.ts).
    await recorder.during('bounty evaluation', async () => {
      for (const bounty of await bountyReads.livePerformanceBounties(appPool, small.programId)) {
        await bountyReads.measurePartners(appPool, bounty, new Date('2026-01-01T00:00:00Z'), new Date('2026-02-01T00:00:00Z'));
        await bountyReads.awardedPartners(appPool, small.programId, bounty.id, '2026-01-01');
      }
      await bountyReads.bountiesForPartner(appPool, small.programId, small.partnerId);
      await bountyReads.partnerSubmissions(appPool, small.programId, small.partnerId);
    });
    // The webhook intake's read of the program's endpoint at each processor (src/app/inbox/webhook-intake.ts).
    for (const processor of ['stripe', 'paddle', 'lemonsqueezy'] as const) await recorder.during(`intake endpoint ${processor}`, () => endpointForIntake(appPool, small.programId, processor));

    // What deciding a sale under reward rules reads (docs/rewards.md): the published set, the
    // customer's earlier sales, the partner's tier figures, what the caps used.
    const { rows: [sold] } = await db.pool.query('SELECT customer_id, occurred_at FROM sales WHERE processor_event_id = $1', [small.transactionId]);
    const client = await appPool.connect();
    try {
      await recorder.during('reward rules', async () => {
        await rewardReads.rewardTerms(client, small.programId, null);
        await rewardReads.rewardHistory(client, Number(sold.customer_id), new Date(), 'txn_next');
        await rewardReads.partnerFigures(client, small.programId, small.partnerId, new Date(Date.now() - 90 * 86_400_000), new Date());
        await rewardReads.rewardUsage(client, { programId: small.programId, partnerId: small.partnerId, customerId: Number(sold.customer_id), currency: 'USD', month: new Date(Date.UTC(2026, 10, 1)) });
      });
      // The click rewards job for one program (docs/rewards.md "Leads and clicks"): when its click
      // rules began, its partners' undecided ended days from the rollups, a partner's terms, the set
      // in force at a day's start, and what the caps used (no customer).
      await recorder.during('click rewards', async () => {
        await clickReads.clickRulesSince(client, small.programId);
        await clickReads.undecidedClickDays(client, small.programId, '2026-01-01', '2026-01-14');
        await clickReads.partnerTermsIn(client, small.programId, small.partnerId);
        await rewardReads.rewardTerms(client, small.programId, null, new Date('2026-01-02T00:00:00Z'));
        await rewardReads.rewardUsage(client, { programId: small.programId, partnerId: small.partnerId, customerId: null, currency: 'USD', month: new Date(Date.UTC(2026, 0, 1)) });
      });
      // The backtest (issue 46 item 4): the draft, then the period's sales a page at a time, each
      // with its customer's earlier sales and its commission (two pages: the cursor's read too).
      await recorder.during('reward backtest', async () => {
        await draftOf(client, small.programId, null);
        const range = { programId: small.programId, groupId: null, readFrom: new Date(Date.now() - 400 * 86_400_000), from: new Date(Date.now() - 365 * 86_400_000), to: new Date() };
        for await (const sale of backtestSales(client, range, 1)) expect(sale.saleId).toBeGreaterThan(0);
      });
    } finally {
      client.release();
    }

    const large = await largeTables(db.pool, BIG / 2);
    // The shared tables the seed filled (a guard against a seed that quietly stopped filling one).
    for (const table of ['partners', 'partner_profiles', 'referral_links', 'customers', 'clicks_default', 'sales', 'tracking_events', 'commissions', 'commission_ledger', 'clawbacks', 'payouts',
      'partner_applications', 'promo_codes', 'partner_sanctions', 'audit_log', 'account_members', 'api_keys', 'webhook_endpoints', 'webhook_messages', 'webhook_deliveries',
      'webhook_attempts', 'webhook_events', 'page_rollups', 'partner_stripe_accounts', 'statement_numbers', 'bounty_submissions', 'bounty_awards',
      'partner_detail_shares', 'partner_invoice_details', 'partner_tax_details']) expect(large, table).toContain(table);
    const { explained, offending } = await scansOfLargeTables(db.pool, recorder.sent, large);
    expect(explained).toBeGreaterThan(60);
    expect(offending, `reads that scan a table every brand shares:\n${offending.join('\n')}`).toEqual([]);
  }, 120_000);
});

describe('exports stream', () => {
  /** The download whole: status, whether it was sent as it was made (no length known up front), its lines. */
  async function download(path: string, headers: Record<string, string>) {
    const response = await fetch(`${api.url}${path}`, { headers, redirect: 'manual' });
    const text = await response.text();
    return { status: response.status, length: response.headers.get('content-length'), type: response.headers.get('content-type'), lines: text.split('\r\n') };
  }

  it('a brand of 100,000 partners downloads its partners.csv whole (200, every partner with their code), from the admin API and the dashboard', async () => {
    const owner = { cookie: await dashboardCookie(big.accountId) };
    for (const [path, headers] of [
      [`/api/v1/admin/programs/${big.programId}/partners.csv`, adminHeaders],
      [`/dashboard/programs/${big.programId}/partners.csv`, owner],
    ] as const) {
      const csv = await download(path, headers);
      expect(csv.status, path).toBe(200);
      expect(csv.type).toMatch(/^text\/csv/);
      expect(csv.length, 'streamed: no Content-Length').toBeNull();
      expect(csv.lines.length).toBe(1 + BIG + 1); // the header, a line per partner, and the last line's end
      expect(csv.lines[0]).toBe('partner_id,name,email,status,group,tags,referral_codes,created_at');
      const first = csv.lines[1]!.split(',');
      expect(first.slice(0, 7)).toEqual([String(big.partnerId), 'Partner 1', big.partnerEmail, 'approved', '', 'seeded', `${big.partnerEmail.split('-')[0]}-${big.partnerId}`]);
      expect(csv.lines[BIG]!.split(',')[0]).toBe(String(big.partnerId + BIG - 1));
      expect(csv.lines[BIG + 1]).toBe('');
    }
  }, 120_000);

  it("the same brand's activity, audit log and payout batch download whole: a line per event, per entry, per payout", async () => {
    const owner = { cookie: await dashboardCookie(big.accountId) };
    const activity = await download(`/dashboard/programs/${big.programId}/activity.csv`, owner);
    expect(activity.status).toBe(200);
    expect(activity.length).toBeNull();
    expect(activity.lines.length).toBe(1 + BIG + 1);
    expect(new Set(activity.lines.slice(1, -1).map((line) => line.split(',')[1]))).toEqual(new Set(['sale']));
    const audit = await download(`/api/v1/admin/audit-log.csv?program_id=${big.programId}`, adminHeaders);
    expect(audit.status).toBe(200);
    expect(audit.length).toBeNull();
    expect(audit.lines.length).toBe(1 + BIG + 1);
    const batch = await download(`/api/v1/admin/programs/${big.programId}/payout-batches/${big.batchId}/export?format=generic`, adminHeaders);
    expect(batch.status).toBe(200);
    expect(batch.length).toBeNull();
    expect(batch.lines.length).toBe(1 + BIG + 1);
    expect(batch.lines[BIG]!.split(',').slice(0, 3)).toEqual([String(big.payoutId), String(big.batchId), String(big.partnerId)]); // newest first: the first partner's payout last
  }, 180_000);
});
