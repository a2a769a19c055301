// npm run bench:growth [clicks] [samples] [-- --wait-for FILE]
// Do tracking, readiness and the pages stay flat as history grows? On a throwaway embedded
// PostgreSQL (or DATABASE_URL): p50/p99 of click, lead, sale and readiness through the service (its
// own process), and of every dashboard and portal page beside its 100 ms target, before and after
// seeding the program with `clicks` clicks (default 10 M, spread over a year) and proportionate
// leads (10 %) and sales (1 %) by generate_series. `--wait-for FILE` holds the measurement after
// seeding until FILE exists: the seed takes most of an hour, the figures want a quiet machine.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { sha256 } from '../src/core/secrets.js';
import { compactHourlyCounts } from '../src/db/tracking/hourly-counts.js';
import { compactPageRollups } from '../src/db/reads/page-rollups.js';
import { ADMIN_TOKEN, benchMain, fmt, percentile, runConcurrent, startBench } from './lib/bench-kit.js';

const waitAt = process.argv.indexOf('--wait-for');
const waitFor = waitAt > 0 ? process.argv[waitAt + 1] : undefined;
const positional = process.argv.slice(2).filter((_, i, all) => all[i] !== '--wait-for' && all[i - 1] !== '--wait-for');
const clicks = Number(positional[0] ?? 10_000_000);
const samples = Number(positional[1] ?? 300);
const BATCH = 500_000;

await benchMain(async (cleanup) => {
  const { client, sql, program } = await startBench(cleanup, { sockets: 8, webhookSecret: 'whsec_bench_growth' });
  const link = (await sql.query('SELECT id, program_id, partner_id FROM referral_links WHERE short_link = $1', [program.shortLink])).rows[0];
  const { accountId } = (await sql.query('SELECT account_id AS "accountId" FROM programs WHERE id = $1', [program.programId])).rows[0];
  // Sales and readiness are limited per key (spec §8): a new key every 25 requests keeps the limiter out of the figures.
  const keys: string[] = [];
  for (let k = 0; k < Math.ceil((samples * 4 * 3) / 25) + 1; k++) {
    keys.push((await client.request('POST', `/api/v1/admin/programs/${program.programId}/keys`, undefined, { Authorization: `Bearer ${ADMIN_TOKEN}` })).body.data.api_key);
  }
  let used = 0;
  const authOf = () => ({ Authorization: `Bearer ${keys[Math.floor(used++ / 25) % keys.length]}` });
  let round = 0;

  /** `samples` of each, one at a time (latency, not throughput). */
  async function measure(label: string) {
    round += 1;
    const timed = async (fn: (i: number) => Promise<{ status: number; ms: number; body: any }>, what: string, expected = 200) => {
      const replies = await runConcurrent(samples, 1, fn);
      const bad = replies.find((r) => r.status !== expected);
      if (bad) throw new Error(`${what}: ${bad.status} ${JSON.stringify(bad.body)}`);
      return replies;
    };
    const clickReplies = await timed(() => client.request('POST', '/api/v1/track/click', { affiliate_url: `https://bench.example/?aff=${program.shortLink}` }), 'click');
    const leadReplies = await timed((i) => client.request('POST', '/api/v1/track/lead', { click_id: clickReplies[i]!.body.click_id, customer_key: `g${round}_${i}` }, authOf()), 'lead');
    const saleReplies = await timed((i) => client.request('POST', '/api/v1/track/sale', { transaction_id: `g${round}_${i}`, amount_cents: 4900, customer_key: `g${round}_${i}` }, authOf()), 'sale');
    // An unknown customer key (answered 400 no_attribution): the "used in another program?" look-up runs too.
    const orphanReplies = await timed((i) => client.request('POST', '/api/v1/track/sale', { transaction_id: `g${round}_orphan_${i}`, amount_cents: 4900, customer_key: `nobody_${round}_${i}` }, authOf()), 'unattributed sale', 400);
    const readinessReplies = await timed(() => client.request('GET', '/api/v1/programs/me/readiness', undefined, authOf()), 'readiness');
    const row = (name: string, replies: { ms: number }[]) => `  ${name.padEnd(18)} p50 ${fmt(percentile(replies.map((r) => r.ms), 50), 1).padStart(6)} ms   p99 ${fmt(percentile(replies.map((r) => r.ms), 99), 1).padStart(6)} ms`;
    console.log(`${label}:`);
    for (const [name, replies] of [['click', clickReplies], ['lead', leadReplies], ['sale', saleReplies], ['unattributed sale', orphanReplies], ['readiness', readinessReplies]] as const) {
      console.log(row(name, replies));
    }
    return readinessReplies;
  }

  // A manager's dashboard session and the partner's portal session, made as the sign-ins make them
  // (a random token, its digest stored): the pages are timed as people open them.
  const dashboardToken = randomBytes(32).toString('base64url');
  await sql.query('INSERT INTO dashboard_sessions (token_hash, account_id, expires_at) VALUES ($1, $2, now() + interval \'1 day\')', [sha256(dashboardToken), accountId]);
  await sql.query("UPDATE partners SET email = 'bench-partner@example.com', invited_at = now(), status = 'approved' WHERE id = $1", [link.partner_id]);
  const portalToken = randomBytes(32).toString('base64url');
  await sql.query("INSERT INTO partner_sessions (token_hash, email, expires_at) VALUES ($1, 'bench-partner@example.com', now() + interval '1 day')", [sha256(portalToken)]);
  const base = `/dashboard/programs/${program.programId}`;
  const day = (offset: number) => new Date(Date.now() - offset * 86_400_000).toISOString().slice(0, 10);
  const PAGES: [string, string, string][] = [
    ['overview (14 days)', base, `affix_dashboard=${dashboardToken}`],
    ['overview (90 days)', `${base}?from=${day(89)}&to=${day(0)}`, `affix_dashboard=${dashboardToken}`],
    ['set-up', `${base}/setup`, `affix_dashboard=${dashboardToken}`],
    ['partners', `${base}/partners`, `affix_dashboard=${dashboardToken}`],
    ['partner', `${base}/partners/${link.partner_id}`, `affix_dashboard=${dashboardToken}`],
    ['links', `${base}/links`, `affix_dashboard=${dashboardToken}`],
    ['activity', `${base}/activity`, `affix_dashboard=${dashboardToken}`],
    ['payouts', `${base}/payouts`, `affix_dashboard=${dashboardToken}`],
    ['portal', '/portal', `affix_portal=${portalToken}`],
    ['portal program', `/portal/programs/${link.partner_id}`, `affix_portal=${portalToken}`],
    ['portal referrals', `/portal/programs/${link.partner_id}/referrals`, `affix_portal=${portalToken}`],
  ];
  const PAGE_TARGET_MS = 100;

  /** Each dashboard and portal page, one at a time: its p50 and p99 beside the target. */
  async function measurePages(samples: number) {
    for (const [name, path, cookie] of PAGES) {
      // One look first, as for the tracking calls: the figures are of a page people come back to.
      await client.request('GET', path, undefined, { Cookie: cookie, Accept: 'text/html' });
      const replies = await runConcurrent(samples, 1, () => client.request('GET', path, undefined, { Cookie: cookie, Accept: 'text/html' }));
      const bad = replies.find((r) => r.status !== 200);
      if (bad) throw new Error(`${name}: ${bad.status}`);
      const p99 = percentile(replies.map((r) => r.ms), 99);
      console.log(`  page ${name.padEnd(20)} p50 ${fmt(percentile(replies.map((r) => r.ms), 50), 1).padStart(7)} ms   p99 ${fmt(p99, 1).padStart(7)} ms   target < ${PAGE_TARGET_MS} ms: ${p99 < PAGE_TARGET_MS ? 'met' : 'NOT met'}`);
    }
  }

  await measure('warm-up');
  await measure(`before (empty program)`);
  await measurePages(5);
  const started = performance.now();
  let lastEventId = Number((await sql.query('SELECT coalesce(max(id), 0) AS id FROM tracking_events')).rows[0].id);
  for (let from = 1; from <= clicks; from += BATCH) {
    const to = Math.min(clicks, from + BATCH - 1);
    const at = `now() - ((g % 365) * interval '1 day') - ((g % 86400) * interval '1 second')`;
    await sql.query(
      `INSERT INTO clicks (click_id, program_id, link_id, partner_id, attributed_click_id, affiliate_url, created_at)
       SELECT 'clk_seed_' || g, $1, $2, $3, 'clk_seed_' || g, 'https://bench.example/?aff=seed', ${at} FROM generate_series($4::bigint, $5::bigint) g`,
      [link.program_id, link.id, link.partner_id, from, to],
    );
    await sql.query(
      `INSERT INTO tracking_events (program_id, kind, click_id, created_at)
       SELECT $1, 'click', 'clk_seed_' || g, ${at} FROM generate_series($2::bigint, $3::bigint) g`,
      [link.program_id, from, to],
    );
    // Every tenth click became a lead; every hundredth a sale.
    await sql.query(
      `WITH c AS (
         INSERT INTO customers (program_id, customer_key, status, click_id, clicked_at, link_id, partner_id, lead_at)
         SELECT $1, 'seed_' || g, 'lead', 'clk_seed_' || g, ${at}, $2, $3, ${at} FROM generate_series($4::bigint, $5::bigint) g WHERE g % 10 = 0
         RETURNING id, click_id, lead_at)
       INSERT INTO tracking_events (program_id, kind, customer_id, click_id, created_at) SELECT $1, 'lead', id, click_id, lead_at FROM c`,
      [link.program_id, link.id, link.partner_id, from, to],
    );
    await sql.query(
      `WITH s AS (
         INSERT INTO sales (program_id, account_id, customer_id, partner_id, processor_event_id, amount_cents, currency, occurred_at, attribution_step, created_at)
         SELECT $1, $2, c.id, $3, 'seed_sale_' || c.id, 4900, 'USD', c.lead_at, 'customer_key', c.lead_at
           FROM customers c WHERE c.program_id = $1 AND c.customer_key IN (SELECT 'seed_' || g FROM generate_series($4::bigint, $5::bigint) g WHERE g % 100 = 0)
         RETURNING id, customer_id, created_at, occurred_at)
       INSERT INTO tracking_events (program_id, kind, customer_id, sale_id, created_at, sale_occurred_at) SELECT $1, 'sale', customer_id, id, created_at, occurred_at FROM s`,
      [link.program_id, accountId, link.partner_id, from, to],
    );
    // Each sale's commission (20 %), and its ledger entry; every other one approved.
    await sql.query(
      `WITH c AS (
         INSERT INTO commissions (sale_id, program_id, partner_id, amount_cents, currency, stage, created_at)
         SELECT s.id, s.program_id, s.partner_id, 980, s.currency, CASE WHEN s.id % 2 = 0 THEN 'approved' ELSE 'pending' END, s.created_at
           FROM sales s WHERE s.program_id = $1 AND NOT EXISTS (SELECT 1 FROM commissions x WHERE x.sale_id = s.id)
         RETURNING id, program_id, partner_id, currency, amount_cents, stage, created_at)
       INSERT INTO commission_ledger (program_id, partner_id, commission_id, currency, kind, pending_cents, approved_cents, created_at)
       SELECT program_id, partner_id, id, currency, 'created', CASE WHEN stage = 'pending' THEN amount_cents ELSE 0 END,
              CASE WHEN stage = 'approved' THEN amount_cents ELSE 0 END, created_at FROM c`,
      [link.program_id],
    );
    // The hourly counters the service keeps as it records (migration 0011), for the seeded events.
    await sql.query(
      `INSERT INTO tracking_hourly_counts (program_id, hour, kind, shard, events)
       SELECT program_id, date_bin('1 hour', created_at, timestamptz '2000-01-01 00:00:00+00'), kind, (id % 64)::smallint, count(*)
         FROM tracking_events WHERE program_id = $1 AND id > $2 GROUP BY 1, 2, 3, 4
       ON CONFLICT (program_id, hour, kind, shard) DO UPDATE SET events = tracking_hourly_counts.events + EXCLUDED.events`,
      [link.program_id, lastEventId],
    );
    lastEventId = Number((await sql.query('SELECT coalesce(max(id), 0) AS id FROM tracking_events')).rows[0].id);
    console.log(`  seeded ${to.toLocaleString('en')} clicks (${fmt((performance.now() - started) / 1000)} s)`);
  }
  // What the workers do every hour (src/jobs/index.ts): past hours' shards folded into one row each.
  await compactHourlyCounts(sql, new Date());
  // The pages' rollups (migration 0028) were kept by the database as the seed was written; the same upkeep folds their shards.
  while ((await compactPageRollups(sql)) > 0);
  await sql.query('VACUUM ANALYZE');
  if (waitFor) {
    console.log(`seeded; measuring once ${waitFor} exists`);
    while (!existsSync(waitFor)) await new Promise((resolve) => setTimeout(resolve, 5_000));
  }
  const sizes = (await sql.query(
    `SELECT (SELECT count(*) FROM clicks WHERE program_id = $1) AS clicks, (SELECT count(*) FROM customers WHERE program_id = $1) AS customers,
            (SELECT count(*) FROM sales WHERE program_id = $1) AS sales, (SELECT count(*) FROM tracking_events WHERE program_id = $1) AS events,
            (SELECT count(*) FROM commissions WHERE program_id = $1) AS commissions`,
    [link.program_id],
  )).rows[0];
  await measure(`after (${Number(sizes.clicks).toLocaleString('en')} clicks, ${Number(sizes.customers).toLocaleString('en')} customers, ${Number(sizes.sales).toLocaleString('en')} sales, ${Number(sizes.commissions).toLocaleString('en')} commissions, ${Number(sizes.events).toLocaleString('en')} tracking events)`);
  await measurePages(Math.min(samples, 100));
  console.log(`target: readiness p99 < 20 ms with 10 M clicks; every read flat in table size; every page p99 < ${PAGE_TARGET_MS} ms`);
});
