// Lead and click rewards (issue 46 item 2, docs/rewards.md "Leads and clicks"): a published lead
// rule pays a commission for each lead a partner brings, in the lead's transaction, once per lead,
// under the partner's monthly cap; a click rule pays once per partner and ended UTC day, the
// day's counted clicks × its amount, by a job on an injected clock that never pays a day twice
// (rerun or concurrent) nor a day still running. The commissions follow the normal approval and
// payout paths and show their words on the portal; a banned partner, or another program's, earns nothing.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { OPERATOR } from '../src/app/accounts/scope.js';
import type { ManagementDeps } from '../src/app/programs/management.js';
import * as commissionLifecycle from '../src/app/money/commission-lifecycle.js';
import * as payoutConfig from '../src/app/money/payout-settings.js';
import * as payoutRuns from '../src/app/money/payout-runs.js';
import * as ruleSets from '../src/app/money/reward-rules.js';
import { programPayout } from '../src/app/money/payout-statements.js';
import { failPayout } from '../src/app/money/failed-payouts.js';
import { runClickRewards } from '../src/jobs/click-reward-jobs.js';
import * as clickReads from '../src/db/money/click-rewards.js';
import { sha256 } from '../src/core/secrets.js';
import { type SeededProgram, type TestApi, type TestDatabase, adminHeaders, bearer, seedProgram, trackClick } from './support/harness.js';
import { useSeededApi } from './support/seeded-api.js';
import { uid } from './support/money.js';

let db: TestDatabase;
let api: TestApi;
let clock = new Date();
const deps = (): ManagementDeps => ({ pool: db.pool, secretBox: null, now: () => clock });
const jobDeps = () => ({ ...deps(), logger: { info: () => {}, warn: () => {}, error: () => {} } as never });

useSeededApi({ env: { AFFIX_SECRET_KEY: 'lead-click-rewards-test-key-0123456789' }, options: { queueUrl: 'own' } }, (t) => ({ db, api } = t));

const admin = async (method: string, path: string, body?: unknown) => {
  const reply = await api.request(method, `/api/v1/admin${path}`, { body, headers: adminHeaders });
  if (reply.status >= 300) throw new Error(`${method} ${path}: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.data;
};

const DAY = 86_400_000;
const utcDay = (at: Date) => at.toISOString().slice(0, 10);

const flat = (rate: string) => ({ throughMonth: null, amount: { type: 'flat', rate } });
const leadAndClickRules = {
  rules: [
    { id: 'signups', name: 'Signups', event: 'lead', currency: 'USD', when: {}, duration: { kind: 'lifetime' }, steps: [flat('5')], caps: { perPartnerMonth: { USD: 1_200 } } },
    { id: 'per-click', name: 'Per click', event: 'click', currency: 'USD', when: {}, duration: { kind: 'lifetime' }, steps: [flat('0.10')], caps: { perPartnerMonth: { USD: 500 } } },
  ],
  defaults: {},
};

/** Another program's own paying set (1.00 a lead, 0.02 a click), published at `at`: its partners are paid by it, never by the shop's. */
async function publishOtherRules(programId: number, at: Date) {
  const own = {
    rules: [
      { id: 'other-signups', name: 'Other signups', event: 'lead', currency: 'USD', when: {}, duration: { kind: 'lifetime' }, steps: [flat('1')] },
      { id: 'other-clicks', name: 'Other clicks', event: 'click', currency: 'USD', when: {}, duration: { kind: 'lifetime' }, steps: [flat('0.02')] },
    ],
    defaults: {},
  };
  await admin('PUT', `/programs/${programId}/reward-rules/draft`, { rule_set: own });
  const before = clock;
  clock = at;
  await ruleSets.publishDraft(deps(), OPERATOR, programId, {});
  clock = before;
}

/** A program with hold 0, the lead and click rules published (on the clock given), and partners with a link each. */
async function shopWithRules(names: string[], publishedAt: Date, program: Record<string, unknown> = {}) {
  const shop = await seedProgram(api, { commission_rate: 10, ...program });
  await payoutConfig.updatePayoutSettings(deps(), OPERATOR, shop.programId, { hold_days: 0, payout_minimums_cents: {} });
  await admin('PUT', `/programs/${shop.programId}/reward-rules/draft`, { rule_set: leadAndClickRules });
  clock = publishedAt;
  await ruleSets.publishDraft(deps(), OPERATOR, shop.programId, {});
  const partners: Record<string, { id: number; url: string; linkId: number }> = {};
  for (const name of names) partners[name] = await partnerOf(shop, name);
  return { shop, partners };
}

async function partnerOf(shop: SeededProgram, name: string) {
  const made = await admin('POST', `/programs/${shop.programId}/partners`, { name, email: `${name.toLowerCase()}-${shop.programId}@partner.example` });
  await admin('PATCH', `/programs/${shop.programId}/partners/${made.id}/payout-details`, { payout_method: 'paypal', payout_reference: `${name}@paypal.example` });
  const code = `${name.toLowerCase()}-${shop.programId}`;
  const link = await admin('POST', `/programs/${shop.programId}/links`, { partner_id: made.id, short_link: code });
  return { id: made.id as number, url: `https://shop.example.com/?aff=${code}`, linkId: link.id as number };
}

/** A lead through the tracking API (server mode), by a fresh click on the partner's link. */
async function lead(shop: SeededProgram, url: string, customerKey = uid('lead')) {
  const clickId = await trackClick(api, url);
  const reply = await api.request('POST', '/api/v1/track/lead', { body: { click_id: clickId, customer_key: customerKey }, headers: bearer(shop.apiKey) });
  return { reply, clickId, customerKey };
}

/** `n` clicks on a partner's link made at `at` (the rollups count them on that UTC day, as the click path's would be). */
async function clicksAt(shop: SeededProgram, partner: { id: number; linkId: number; url: string }, n: number, at: Date) {
  await db.pool.query(
    `INSERT INTO clicks (click_id, program_id, link_id, partner_id, attributed_click_id, affiliate_url, created_at)
     SELECT x.id, $1, $2, $3, x.id, $4, $5 FROM (SELECT 'clk_' || md5(random()::text || g) AS id FROM generate_series(1, $6) g) x`,
    [shop.programId, partner.linkId, partner.id, partner.url, at, n],
  );
}

const commissionsOf = async (programId: number) =>
  (await db.pool.query(
    `SELECT c.partner_id, c.amount_cents, c.currency, c.sale_id, c.lead_customer_id, d.day::text AS day, d.clicks, c.rule_id, c.reward_words, cs.state
       FROM commissions c JOIN commission_states cs ON cs.id = c.id LEFT JOIN click_reward_days d ON d.id = c.click_reward_day_id
      WHERE c.program_id = $1 ORDER BY c.id`,
    [programId],
  )).rows.map((r) => ({ ...r, partner_id: Number(r.partner_id), amount_cents: Number(r.amount_cents), lead_customer_id: r.lead_customer_id === null ? null : Number(r.lead_customer_id), clicks: r.clicks === null ? null : Number(r.clicks) }));

describe('lead rewards', () => {
  it("each lead of a partner pays the lead rule once, with its words, until the monthly cap; a banned partner earns nothing, another program's partner only by their own program's rules", async () => {
    const { shop, partners } = await shopWithRules(['Ana', 'Bo'], new Date(Date.now() - 3 * DAY));
    const other = await seedProgram(api, { commission_rate: 10 });
    await publishOtherRules(other.programId, new Date(Date.now() - 3 * DAY));
    const endpoint = await api.request('POST', `/api/v1/admin/programs/${shop.programId}/webhook-endpoints`, { body: { url: 'https://hooks.example.com/affix', event_types: ['commission.created'] }, headers: adminHeaders });
    expect(endpoint.status).toBe(201);

    const first = await lead(shop, partners.Ana!.url);
    expect(first.reply.status).toBe(200);
    const made = await commissionsOf(shop.programId);
    const customerId = Number((await db.pool.query('SELECT id FROM customers WHERE program_id = $1 AND customer_key = $2', [shop.programId, first.customerKey])).rows[0].id);
    expect(made).toEqual([
      { partner_id: partners.Ana!.id, amount_cents: 500, currency: 'USD', sale_id: null, lead_customer_id: customerId, day: null, clicks: null, rule_id: 'signups', reward_words: "$5.00 — rule 'Signups'", state: 'pending' },
    ]);
    // In the ledger as any commission, and told to the brand as a lead's.
    expect((await db.pool.query('SELECT kind, pending_cents::int AS pending FROM commission_ledger c JOIN commissions m ON m.id = c.commission_id WHERE m.lead_customer_id = $1', [customerId])).rows).toEqual([{ kind: 'created', pending: 500 }]);
    const events = (await db.pool.query("SELECT data FROM webhook_messages WHERE program_id = $1 AND type = 'commission.created' AND data ? 'lead'", [shop.programId])).rows;
    expect(events).toHaveLength(1);
    expect(events[0].data).toMatchObject({ sale_id: null, partner_id: partners.Ana!.id, amount_cents: 500, currency: 'USD', lead: { customer_id: customerId, customer_key: first.customerKey }, reward: { words: "$5.00 — rule 'Signups'", rule_id: 'signups' }, state: 'pending' });

    // The same lead again: refused as before, and still one commission.
    const again = await api.request('POST', '/api/v1/track/lead', { body: { click_id: first.clickId, customer_key: first.customerKey }, headers: bearer(shop.apiKey) });
    expect(again.status).toBe(400);
    expect(await commissionsOf(shop.programId)).toHaveLength(1);

    // 12.00 a month: 5.00, 5.00, then the 2.00 left, then nothing.
    await lead(shop, partners.Ana!.url);
    await lead(shop, partners.Ana!.url);
    await lead(shop, partners.Ana!.url);
    const capped = (await commissionsOf(shop.programId)).map((c) => [c.amount_cents, c.reward_words]);
    expect(capped).toEqual([
      [500, "$5.00 — rule 'Signups'"],
      [500, "$5.00 — rule 'Signups'"],
      [200, "$5.00 — rule 'Signups', limited by the partner's monthly cap"],
    ]);
    expect((await db.pool.query('SELECT count(*)::int AS n FROM customers WHERE program_id = $1 AND status = $2', [shop.programId, 'lead'])).rows[0].n).toBe(4);

    // A banned partner's lead is recorded and pays nothing; another program's partner's lead is paid by that program's rules alone.
    // (A ban turns the partner's links off: the visitor clicked before it.)
    const boClick = await trackClick(api, partners.Bo!.url);
    await api.request('POST', `/api/v1/admin/programs/${shop.programId}/partners/${partners.Bo!.id}/ban`, { body: { reason: 'spam' }, headers: adminHeaders });
    const boLead = await api.request('POST', '/api/v1/track/lead', { body: { click_id: boClick, customer_key: uid('lead') }, headers: bearer(shop.apiKey) });
    expect(boLead.status).toBe(200);
    expect((await lead(other, other.affiliateUrl)).reply.status).toBe(200);
    expect((await commissionsOf(shop.programId)).filter((c) => c.partner_id === partners.Bo!.id)).toEqual([]);
    expect((await commissionsOf(other.programId)).map((c) => [c.partner_id, c.amount_cents, c.rule_id])).toEqual([[other.partnerId, 100, 'other-signups']]);
    expect((await commissionsOf(shop.programId)).filter((c) => c.partner_id === other.partnerId)).toEqual([]);
  });
});

describe('leads at once', () => {
  it('eight leads of one partner recorded at once take the monthly cap exactly: 5.00 + 5.00 + 2.00, the ledger equal to the commissions to the cent', async () => {
    const { shop, partners } = await shopWithRules(['Cam'], new Date(Date.now() - 3 * DAY));
    const replies = await Promise.all(Array.from({ length: 8 }, () => lead(shop, partners.Cam!.url)));
    expect(replies.map((r) => r.reply.status)).toEqual([200, 200, 200, 200, 200, 200, 200, 200]);
    const made = await commissionsOf(shop.programId);
    expect(made.map((c) => c.amount_cents).sort((a, b) => b - a)).toEqual([500, 500, 200]);
    expect(made.filter((c) => c.amount_cents === 200).map((c) => c.reward_words)).toEqual(["$5.00 — rule 'Signups', limited by the partner's monthly cap"]);
    const ledger = (await db.pool.query('SELECT coalesce(sum(l.pending_cents), 0)::int AS pending FROM commission_ledger l JOIN commissions c ON c.id = l.commission_id WHERE c.program_id = $1', [shop.programId])).rows[0].pending;
    expect(ledger).toBe(1_200);
  });
});

describe('which leads pay', () => {
  it('a provisional browser lead pays when the server settles it, once; a partner on their own terms earns nothing for leads', async () => {
    const { shop, partners } = await shopWithRules(['Flo', 'Gil'], new Date(Date.now() - DAY), { lead_auth: 'server_required', allowed_origins: ['https://strict.example.com'] });
    const clickId = await trackClick(api, partners.Flo!.url);
    const customerKey = uid('lead');
    const browser = await api.request('POST', '/api/v1/track/lead', { body: { click_id: clickId, customer_key: customerKey }, headers: { Origin: 'https://strict.example.com' } });
    expect(browser.body).toMatchObject({ success: true, provisional: true });
    expect(await commissionsOf(shop.programId)).toEqual([]);
    const server = await api.request('POST', '/api/v1/track/lead', { body: { customer_key: customerKey }, headers: bearer(shop.apiKey) });
    expect(server.status).toBe(200);
    expect((await commissionsOf(shop.programId)).map((c) => [c.partner_id, c.amount_cents, c.reward_words])).toEqual([[partners.Flo!.id, 500, "$5.00 — rule 'Signups'"]]);
    const again = await api.request('POST', '/api/v1/track/lead', { body: { customer_key: customerKey }, headers: bearer(shop.apiKey) });
    expect(again.status).toBe(400);
    expect(await commissionsOf(shop.programId)).toHaveLength(1);

    // Own terms (an override): the commission type pays their sales; their leads pay nothing.
    await admin('PUT', `/programs/${shop.programId}/partners/${partners.Gil!.id}/override`, { commission_type: 'percent', commission_rate: 15, source: 'contract 2026-11' });
    expect((await lead(shop, partners.Gil!.url)).reply.status).toBe(200);
    expect(await commissionsOf(shop.programId)).toHaveLength(1);
  });
});

describe('a lead whose reward fails', () => {
  it('is recorded (200, its lead.created told), its reward rolled back, as a sale whose commission fails is kept', async () => {
    const { shop, partners } = await shopWithRules(['Kit'], new Date(Date.now() - DAY));
    await admin('POST', `/programs/${shop.programId}/webhook-endpoints`, { url: 'https://hooks.example.com/affix', event_types: ['lead.created', 'commission.created'] });
    // The commission's insert fails (for this program's leads only, while the test runs).
    await db.pool.query(`CREATE FUNCTION refuse_lead_commission() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.lead_customer_id IS NOT NULL AND NEW.program_id = ${shop.programId} THEN RAISE EXCEPTION 'refused for the test'; END IF; RETURN NEW; END $$`);
    await db.pool.query('CREATE TRIGGER refuse_lead_commission BEFORE INSERT ON commissions FOR EACH ROW EXECUTE FUNCTION refuse_lead_commission()');
    try {
      const { reply, customerKey } = await lead(shop, partners.Kit!.url);
      expect([reply.status, reply.body]).toEqual([200, { success: true, message: 'Lead tracked successfully' }]);
      expect((await db.pool.query('SELECT status FROM customers WHERE program_id = $1 AND customer_key = $2', [shop.programId, customerKey])).rows).toEqual([{ status: 'lead' }]);
      expect(await commissionsOf(shop.programId)).toEqual([]);
      const told = (await db.pool.query('SELECT type FROM webhook_messages WHERE program_id = $1 ORDER BY id', [shop.programId])).rows.map((r) => r.type);
      expect(told).toEqual(['lead.created']);
    } finally {
      await db.pool.query('DROP TRIGGER refuse_lead_commission ON commissions; DROP FUNCTION refuse_lead_commission()');
    }
    // Without the failure the next lead pays as usual.
    await lead(shop, partners.Kit!.url);
    expect((await commissionsOf(shop.programId)).map((c) => c.amount_cents)).toEqual([500]);
  });
});

describe('browser leads', () => {
  it("a lead recorded from the browser pays nothing under the default lead_auth (its Origin header is its only check); the server's lead of another customer pays", async () => {
    const { shop, partners } = await shopWithRules(['Jo'], new Date(Date.now() - DAY), { allowed_origins: ['https://open.example.com'] });
    const clickId = await trackClick(api, partners.Jo!.url);
    const customerKey = uid('lead');
    const browser = await api.request('POST', '/api/v1/track/lead', { body: { click_id: clickId, customer_key: customerKey }, headers: { Origin: 'https://open.example.com' } });
    expect(browser.status).toBe(200);
    expect(browser.body.provisional).toBeUndefined();
    expect(await commissionsOf(shop.programId)).toEqual([]);
    // The same lead from the server is refused (the lead API's rule) and still pays nothing.
    const again = await api.request('POST', '/api/v1/track/lead', { body: { customer_key: customerKey }, headers: bearer(shop.apiKey) });
    expect(again.status).toBe(400);
    expect(await commissionsOf(shop.programId)).toEqual([]);
    expect((await lead(shop, partners.Jo!.url)).reply.status).toBe(200);
    expect((await commissionsOf(shop.programId)).map((c) => c.amount_cents)).toEqual([500]);
  });
});

describe('the currency a lead or click rule pays in', () => {
  it("a EUR lead rule pays in EUR, under its EUR monthly cap; a rule without a currency cannot be published", async () => {
    const shop = await seedProgram(api, { commission_rate: 10 });
    await payoutConfig.updatePayoutSettings(deps(), OPERATOR, shop.programId, { hold_days: 0, payout_minimums_cents: {} });
    const euroLeads = { id: 'eu-signups', name: 'EU signups', event: 'lead', currency: 'EUR', when: {}, duration: { kind: 'lifetime' }, steps: [flat('5')], caps: { perPartnerMonth: { EUR: 800 } } };
    const { currency: _, ...noCurrency } = euroLeads;
    const draft = await admin('PUT', `/programs/${shop.programId}/reward-rules/draft`, { rule_set: { rules: [noCurrency], defaults: {} } });
    expect(draft.problems).toEqual(["Rule 'EU signups': give the currency a lead reward is paid in."]);
    await admin('PUT', `/programs/${shop.programId}/reward-rules/draft`, { rule_set: { rules: [euroLeads], defaults: {} } });
    clock = new Date(Date.now() - DAY);
    await ruleSets.publishDraft(deps(), OPERATOR, shop.programId, {});
    await lead(shop, shop.affiliateUrl);
    await lead(shop, shop.affiliateUrl);
    expect((await commissionsOf(shop.programId)).map((c) => [c.amount_cents, c.currency, c.reward_words])).toEqual([
      [500, 'EUR', "€5.00 — rule 'EU signups'"],
      [300, 'EUR', "€5.00 — rule 'EU signups', limited by the partner's monthly cap"],
    ]);
  });
});

describe('which conditions a lead or click rule takes', () => {
  it('only the tier: the draft names the problem and publishing refuses it', async () => {
    const shop = await seedProgram(api);
    const rule = { id: 'de-clicks', name: 'German clicks', event: 'click', currency: 'USD', when: { countries: ['DE'] }, duration: { kind: 'lifetime' }, steps: [flat('0.10')] };
    const draft = await admin('PUT', `/programs/${shop.programId}/reward-rules/draft`, { rule_set: { rules: [rule], defaults: {} } });
    expect(draft.problems).toEqual(["Rule 'German clicks': a click carries no countries; a click rule's only condition is the partner's tier."]);
    const refused = await api.request('POST', `/api/v1/admin/programs/${shop.programId}/reward-rules/publish`, { body: {}, headers: adminHeaders });
    expect(refused.status).toBe(400);
  });
});

describe('click rewards', () => {
  it('pays each ended UTC day once per partner (count × amount, capped), never a running day, however often or concurrently the job runs; then approved, paid and on the portal', async () => {
    // Fixed days (never the real clock's: a run across UTC midnight would move them).
    const d0 = new Date('2026-11-10T00:00:00Z');
    const [d1, d2, d3] = [new Date(d0.getTime() - DAY), new Date(d0.getTime() - 2 * DAY), new Date(d0.getTime() - 3 * DAY)];
    // Published at noon three days ago: that day's clicks are before it (not paid), the two days after are.
    const { shop, partners } = await shopWithRules(['Cy', 'Dee', 'Eli'], new Date(d3.getTime() + 12 * 3_600_000));
    const other = await seedProgram(api, { commission_rate: 10 });
    await publishOtherRules(other.programId, new Date(d3.getTime() + 12 * 3_600_000));
    const otherPartner = { id: other.partnerId, linkId: other.linkId, url: other.affiliateUrl };
    await clicksAt(shop, partners.Cy!, 6, new Date(d3.getTime() + 13 * 3_600_000));
    await clicksAt(shop, partners.Cy!, 3, new Date(d2.getTime() + 9 * 3_600_000));
    await clicksAt(shop, partners.Cy!, 4, new Date(d1.getTime() + 23 * 3_600_000));
    // Dee: 80 clicks in a day would be 8.00; the monthly cap is 5.00.
    await clicksAt(shop, partners.Dee!, 80, new Date(d1.getTime() + 3_600_000));
    await clicksAt(shop, partners.Eli!, 5, new Date(d1.getTime() + 3_600_000));
    await clicksAt(other, otherPartner, 7, new Date(d1.getTime() + 3_600_000));
    // Today's clicks (the day still running at the first runs).
    await clicksAt(shop, partners.Cy!, 2, new Date(d0.getTime() + 9 * 3_600_000));
    await api.request('POST', `/api/v1/admin/programs/${shop.programId}/partners/${partners.Eli!.id}/ban`, { body: { reason: 'click farm' }, headers: adminHeaders });
    await admin('POST', `/programs/${shop.programId}/webhook-endpoints`, { url: 'https://hooks.example.com/affix', event_types: ['commission.created'] });

    // Mid-day today: yesterday and the day before have ended; today has not.
    clock = new Date(d0.getTime() + 12 * 3_600_000);
    const shopRun = () => runClickRewards(jobDeps(), { programId: shop.programId });
    const runs = await Promise.all([shopRun(), shopRun(), shopRun()]);
    expect(runs.reduce((a, b) => a + b, 0)).toBe(3);
    // The shop's runs decided nothing of the other program (whose own set pays clicks too).
    expect((await db.pool.query('SELECT count(*)::int AS n FROM click_reward_days WHERE program_id = $1', [other.programId])).rows[0].n).toBe(0);
    // A run over every program pays the other program's day by its own rule, and nothing of the shop's again.
    expect(await Promise.all([runClickRewards(jobDeps(), {}), runClickRewards(jobDeps(), {})]).then((r) => r[0]! + r[1]!)).toBe(1);
    expect(await runClickRewards(jobDeps(), {})).toBe(0);
    const words = (n: number, day: Date, capped = '') => `$0.10 × ${n} clicks on ${utcDay(day)} — rule 'Per click'${capped}`;
    // The same month's cap counts Cy's days together only if they share a month; 0.70 is under it either way.
    const paid = (await commissionsOf(shop.programId)).map((c) => [c.partner_id, c.day, c.clicks, c.amount_cents, c.rule_id, c.reward_words]);
    expect(paid).toEqual([
      [partners.Cy!.id, utcDay(d2), 3, 30, 'per-click', words(3, d2)],
      [partners.Cy!.id, utcDay(d1), 4, 40, 'per-click', words(4, d1)],
      [partners.Dee!.id, utcDay(d1), 80, 500, 'per-click', words(80, d1, ", limited by the partner's monthly cap")],
    ]);
    expect((await commissionsOf(other.programId)).map((c) => [c.partner_id, c.day, c.clicks, c.amount_cents, c.rule_id])).toEqual([[other.partnerId, utcDay(d1), 7, 14, 'other-clicks']]);
    expect(paid.filter((c) => c[0] === other.partnerId)).toEqual([]);
    const events = (await db.pool.query("SELECT data FROM webhook_messages WHERE program_id = $1 AND type = 'commission.created' AND data ? 'clicks'", [shop.programId])).rows;
    expect(events.map((e) => e.data.clicks)).toEqual([
      { day: utcDay(d2), count: 3, click_reward_day_id: expect.any(Number) },
      { day: utcDay(d1), count: 4, click_reward_day_id: expect.any(Number) },
      { day: utcDay(d1), count: 80, click_reward_day_id: expect.any(Number) },
    ]);
    expect(events[0].data).toMatchObject({ sale_id: null, transaction_id: null, amount_cents: 30, currency: 'USD', reward: { words: words(3, d2), rule_id: 'per-click' }, state: 'pending' });
    // The admin API names the source.
    const listed = (await admin('GET', `/programs/${shop.programId}/commissions`)).rows;
    expect(listed.filter((c: { click_reward_day_id: number | null }) => c.click_reward_day_id !== null)).toHaveLength(3);

    // Once today has ended, today's two clicks are paid, and nothing else again.
    clock = new Date(d0.getTime() + DAY + 15 * 60_000);
    expect(await runClickRewards(jobDeps(), { programId: shop.programId })).toBe(1);
    const todays = (await commissionsOf(shop.programId)).at(-1)!;
    expect([todays.partner_id, todays.day, todays.clicks, todays.amount_cents]).toEqual([partners.Cy!.id, utcDay(d0), 2, 20]);
    expect(await runClickRewards(jobDeps(), { programId: shop.programId })).toBe(0);

    // The normal paths: approved (hold 0), paid by a run, shown on the partner's portal with the words.
    clock = new Date(Date.now() + DAY);
    await commissionLifecycle.approveDueCommissions(deps());
    const run = await payoutRuns.runPayouts(deps(), OPERATOR, shop.programId);
    const cyPayout = run.payouts.find((p) => p.partnerId === partners.Cy!.id)!;
    expect([cyPayout.amountCents, cyPayout.currency]).toEqual([90, 'USD']);
    await payoutRuns.markPayoutPaid(deps(), OPERATOR, shop.programId, cyPayout.id, { reference: 'PAID-CY' });
    expect((await commissionsOf(shop.programId)).filter((c) => c.partner_id === partners.Cy!.id).map((c) => c.state)).toEqual(['paid', 'paid', 'paid']);
    // Its statement: each day's line says what it paid for, on the day it was for.
    const statement = await programPayout(deps(), OPERATOR, shop.programId, cyPayout.id);
    const lines = [
      ['commission', utcDay(d2), 30, words(3, d2)],
      ['commission', utcDay(d1), 40, words(4, d1)],
      ['commission', utcDay(d0), 20, words(2, d0)],
    ];
    expect(statement.lines.map((l) => [l.kind, utcDay(l.saleDate), l.amountCents, l.kind === 'commission' ? l.words : null])).toEqual(lines);
    // A payout that fails after it was paid keeps its statement's lines: the same days and words.
    await failPayout(deps(), OPERATOR, shop.programId, cyPayout.id, { reason: 'Bank returned it' });
    const reversed = await programPayout(deps(), OPERATOR, shop.programId, cyPayout.id);
    expect(reversed.lines.map((l) => [l.kind, utcDay(l.saleDate), l.amountCents, l.kind === 'commission' ? l.words : null])).toEqual(lines);

    const email = `cy-${shop.programId}@partner.example`;
    await db.pool.query('UPDATE partners SET invited_at = now() WHERE id = $1', [partners.Cy!.id]);
    const token = randomBytes(24).toString('base64url');
    await db.pool.query("INSERT INTO partner_sessions (token_hash, email, expires_at) VALUES ($1, lower($2), now() + interval '1 hour')", [sha256(token), email]);
    const portal = async (path: string) => (await fetch(`${api.url}${path}`, { headers: { cookie: `affix_portal=${token}` }, redirect: 'manual' }).then(async (r) => ({ status: r.status, text: await r.text() })));
    const page = await portal(`/portal/programs/${partners.Cy!.id}/referrals`);
    expect(page.status).toBe(200);
    expect(page.text).toContain(words(4, d1).replace(/'/g, '&#39;'));
    expect(page.text).toContain('Clicks (no sale)');
    const csv = await portal(`/portal/programs/${partners.Cy!.id}/commissions.csv`);
    expect(csv.text).toContain(words(3, d2));
  });
});

describe('a click day is decided once', () => {
  // Fixed days (never the real clock's): published on 2026-10-01, clicks on 10-05 and 10-06.
  const [d1, d2, d3] = ['2026-10-05', '2026-10-06', '2026-10-07'].map((d) => new Date(`${d}T00:00:00Z`)) as [Date, Date, Date];
  const hour = (day: Date, h: number) => new Date(day.getTime() + h * 3_600_000);
  const daysOf = async (programId: number, partnerId: number) =>
    (await db.pool.query('SELECT day::text AS day, clicks::int, rule_id, words FROM click_reward_days WHERE program_id = $1 AND partner_id = $2 ORDER BY day', [programId, partnerId])).rows;

  it('a day a group paying no clicks (or a ban) left unpaid stays unpaid after a move to a paying group (or the ban is lifted); the next day pays', async () => {
    const { shop, partners } = await shopWithRules(['Hal', 'Ivy'], new Date('2026-10-01T12:00:00Z'));
    const quiet = await admin('POST', `/programs/${shop.programId}/groups`, { name: 'Quiet', slug: 'quiet', commission_type: 'percent', commission_rate: 10, hold_days: 0 });
    await admin('PUT', `/programs/${shop.programId}/reward-rules/draft`, { group_id: quiet.id, rule_set: { rules: [leadAndClickRules.rules[0]], defaults: {} } });
    await ruleSets.publishDraft(deps(), OPERATOR, shop.programId, { group_id: quiet.id });
    await db.pool.query('UPDATE partners SET group_id = $2 WHERE id = $1', [partners.Hal!.id, quiet.id]);
    await api.request('POST', `/api/v1/admin/programs/${shop.programId}/partners/${partners.Ivy!.id}/ban`, { body: { reason: 'spam' }, headers: adminHeaders });
    await clicksAt(shop, partners.Hal!, 10, hour(d1, 9));
    await clicksAt(shop, partners.Ivy!, 7, hour(d1, 9));

    clock = hour(d2, 1);
    expect(await runClickRewards(jobDeps(), { programId: shop.programId })).toBe(0);
    // Hal moves to the program's terms (which pay clicks); Ivy's ban is lifted.
    await db.pool.query('UPDATE partners SET group_id = NULL WHERE id = $1', [partners.Hal!.id]);
    const lifted = await api.request('POST', `/api/v1/admin/programs/${shop.programId}/partners/${partners.Ivy!.id}/unban`, { body: {}, headers: adminHeaders });
    expect(lifted.status).toBeLessThan(300);
    await clicksAt(shop, partners.Hal!, 3, hour(d2, 9));
    await clicksAt(shop, partners.Ivy!, 2, hour(d2, 9));

    clock = hour(d3, 1);
    expect(await runClickRewards(jobDeps(), { programId: shop.programId })).toBe(2);
    const paid = (await commissionsOf(shop.programId)).map((c) => [c.partner_id, c.day, c.amount_cents]);
    expect(paid).toEqual([[partners.Hal!.id, '2026-10-06', 30], [partners.Ivy!.id, '2026-10-06', 20]]);
    expect(await daysOf(shop.programId, partners.Hal!.id)).toEqual([
      { day: '2026-10-05', clicks: 10, rule_id: null, words: 'Nothing — 10 clicks on 2026-10-05: group Quiet: no click rule was in force' },
      { day: '2026-10-06', clicks: 3, rule_id: 'per-click', words: "$0.10 × 3 clicks on 2026-10-06 — rule 'Per click'" },
    ]);
    expect((await daysOf(shop.programId, partners.Ivy!.id))[0]).toEqual({ day: '2026-10-05', clicks: 7, rule_id: null, words: 'Nothing — 7 clicks on 2026-10-05: the partner was banned, not approved' });
    // Later runs decide nothing again.
    clock = hour(d3, 5);
    expect(await runClickRewards(jobDeps(), { programId: shop.programId })).toBe(0);
  });

  it('a program whose click rule was replaced longer ago than the look-back is not visited', async () => {
    const { shop } = await shopWithRules([], new Date('2026-09-01T12:00:00Z'));
    await admin('PUT', `/programs/${shop.programId}/reward-rules/draft`, { rule_set: { rules: [leadAndClickRules.rules[0]], defaults: {} } });
    clock = new Date('2026-09-10T00:00:00Z');
    await ruleSets.publishDraft(deps(), OPERATOR, shop.programId, {});
    expect(await clickReads.programsWithClickRules(db.pool, new Date('2026-09-05T00:00:00Z'))).toContain(shop.programId);
    expect(await clickReads.programsWithClickRules(db.pool, new Date('2026-09-11T00:00:00Z'))).not.toContain(shop.programId);
  });
});
