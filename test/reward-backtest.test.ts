// The reward-rule backtest (issue 46 item 4, docs/rewards.md): what the draft would have paid for
// stored sales beside what their commissions earned, recounted here from the rows; nothing
// written; and a draft equal to the published set changes nothing (a property).
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { type TestApi, type TestDatabase, adminHeaders, bearer, seedProgram, trackClick } from './support/harness.js';
import { useSeededApi } from './support/seeded-api.js';
import { uid } from './support/money.js';

let db: TestDatabase;
let api: TestApi;

useSeededApi({ env: { AFFIX_SECRET_KEY: 'reward-backtest-test-key-0123456789ab' } }, (t) => ({ db, api } = t));
beforeAll(async () => {
  api.clock.now = new Date('2026-06-01T09:00:00Z');
});

const admin = (method: string, path: string, body?: unknown) => api.request(method, `/api/v1/admin${path}`, { body, headers: adminHeaders });
async function must(method: string, path: string, body?: unknown) {
  const reply = await admin(method, path, body);
  if (reply.status >= 300) throw new Error(`${method} ${path}: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.data;
}

/** A shop with `n` partners, each with a link. */
async function shopWithPartners(n: number) {
  const shop = await seedProgram(api);
  const partners = [{ id: shop.partnerId, affiliateUrl: shop.affiliateUrl }];
  for (let i = 1; i < n; i++) {
    const partner = await must('POST', `/programs/${shop.programId}/partners`, { name: uid('p') });
    const code = uid('l').replace(/[^a-z0-9]/gi, '').slice(-12);
    await must('POST', `/programs/${shop.programId}/links`, { partner_id: partner.id, short_link: code });
    partners.push({ id: partner.id, affiliateUrl: `https://shop.example.com/pricing?aff=${code}` });
  }
  return { shop, partners };
}

/** A sale a minute after the last one (the app's clock), by a fresh click on the partner's link. */
async function sale(apiKey: string, affiliateUrl: string, body: Record<string, unknown>) {
  api.clock.now = new Date(api.clock.now.getTime() + 60_000);
  const clickId = await trackClick(api, affiliateUrl);
  const reply = await api.request('POST', '/api/v1/track/sale', { body: { transaction_id: uid('txn'), click_id: clickId, ...body }, headers: bearer(apiKey) });
  if (reply.status !== 200) throw new Error(`sale: ${reply.status} ${JSON.stringify(reply.body)}`);
}

const percent = (rate: string) => ({ throughMonth: null, amount: { type: 'percent', rate } });
const published = {
  rules: [{ id: 'annual', name: 'Annual plans', event: 'sale', when: { intervals: ['year'] }, duration: { kind: 'months', months: 3 }, steps: [percent('30')] }],
  defaults: { sale: { id: 'default', name: 'Default', event: 'sale', when: {}, duration: { kind: 'lifetime' }, steps: [percent('10')] } },
};
const draft = {
  rules: [
    { id: 'annual', name: 'Annual plans', event: 'sale', when: { intervals: ['year'] }, duration: { kind: 'months', months: 3 }, steps: [percent('40')] },
    { id: 'germany', name: 'Germany', event: 'sale', when: { countries: ['DE'] }, duration: { kind: 'lifetime' }, steps: [{ throughMonth: null, amount: { type: 'flat', rate: '5' } }] },
  ],
  defaults: published.defaults,
};

/** What moves when something is written: row counts, and the ledger's every row. */
async function footprint() {
  const { rows } = await api.pool.query(`
    SELECT (SELECT count(*) FROM sales)::int AS sales, (SELECT count(*) FROM commissions)::int AS commissions,
           (SELECT count(*) FROM reward_rule_sets)::int AS rule_sets, (SELECT count(*) FROM audit_log)::int AS audit,
           (SELECT md5(coalesce(string_agg(l::text, ',' ORDER BY l.id), '')) FROM commission_ledger l) AS ledger,
           (SELECT md5(coalesce(string_agg(c::text, ',' ORDER BY c.id), '')) FROM commissions c) AS commission_rows`);
  return rows[0];
}

describe('POST /admin/programs/{id}/reward-rules/backtest', () => {
  it("recounts what the draft would have paid beside what was paid, per currency, partner and rule, and writes nothing", async () => {
    const { shop, partners } = await shopWithPartners(3);
    await must('PUT', `/programs/${shop.programId}/reward-rules/draft`, { rule_set: published });
    await must('POST', `/programs/${shop.programId}/reward-rules/publish`, {});
    const start = new Date(api.clock.now);
    for (let i = 0; i < 12; i++) {
      const p = i % 3;
      await sale(shop.apiKey, partners[p]!.affiliateUrl, {
        amount_cents: (i + 1) * 1_000, currency: i % 2 ? 'EUR' : 'USD', customer_key: `${shop.programId}_${p}_${i % 2}`,
        interval: i % 3 === 0 ? 'year' : 'month', country: i % 4 === 0 ? 'de' : 'us',
      });
    }
    await must('PUT', `/programs/${shop.programId}/reward-rules/draft`, { rule_set: draft });
    const before = await footprint();
    const reply = await admin('POST', `/programs/${shop.programId}/reward-rules/backtest`, { from: start.toISOString(), to: api.clock.now.toISOString() });
    expect(reply.status).toBe(200);
    const result = reply.body.data;
    expect(await footprint()).toEqual(before);

    // The recount, from the rows: every sale is in tenure month 1 (minutes apart).
    const { rows } = await api.pool.query(
      `SELECT s.id, s.partner_id, s.amount_cents, s.currency, s.billing_interval, s.buyer_country, coalesce(c.amount_cents, 0)::int AS actual, c.rule_id
         FROM sales s LEFT JOIN commissions c ON c.sale_id = s.id WHERE s.program_id = $1 ORDER BY s.occurred_at, s.id`,
      [shop.programId],
    );
    expect(rows).toHaveLength(12);
    expect(new Set(rows.map((r) => r.currency))).toEqual(new Set(['USD', 'EUR']));
    const recount = rows.map((r) => {
      const [rule, cents] = r.billing_interval === 'year' ? ['annual', Number(r.amount_cents) * 0.4] : r.buyer_country === 'DE' ? ['germany', 500] : ['default', Number(r.amount_cents) * 0.1];
      return { ...r, draft: cents, draftRule: rule };
    });
    const sum = (list: typeof recount, pick: (r: (typeof recount)[number]) => number) => list.reduce((a, r) => a + pick(r), 0);
    const group = <K extends string>(key: (r: (typeof recount)[number]) => K) => {
      const out = new Map<K, typeof recount>();
      for (const r of recount) out.set(key(r), [...(out.get(key(r)) ?? []), r]);
      return [...out.entries()];
    };
    expect(result.sales).toBe(12);
    expect(result.totals).toEqual(
      group((r) => r.currency).sort(([a], [b]) => a.localeCompare(b)).map(([currency, list]) => ({
        currency, sales: list.length, actual_cents: sum(list, (r) => r.actual), draft_cents: sum(list, (r) => r.draft), difference_cents: sum(list, (r) => r.draft - r.actual),
      })),
    );
    expect(result.partners).toHaveLength(6);
    for (const [key, list] of group((r) => `${r.partner_id}:${r.currency}`)) {
      const row = result.partners.find((p: any) => `${p.partner_id}:${p.currency}` === key);
      expect(row).toMatchObject({ sales: list.length, actual_cents: sum(list, (r) => r.actual), draft_cents: sum(list, (r) => r.draft) });
    }
    for (const [key, list] of group((r) => `${r.draftRule}:${r.currency}`)) {
      const row = result.rules.find((p: any) => `${p.rule_id}:${p.currency}` === key);
      expect(row).toMatchObject({ sales: list.length, draft_cents: sum(list, (r) => r.draft), actual_cents: sum(list, (r) => r.actual) });
    }
    const changed = recount.filter((r) => r.draft !== r.actual || (r.draft > 0 ? r.draftRule : null) !== (r.actual > 0 ? r.rule_id : null));
    expect(changed.length).toBeGreaterThan(0);
    expect(changed.length).toBeLessThan(12);
    expect(result.changes.count).toBe(changed.length);
    expect(result.changes.first.map((c: any) => [Number(c.sale_id), c.actual_cents, c.draft_cents, c.draft_rule_id])).toEqual(
      changed.map((r) => [Number(r.id), r.actual, r.draft, r.draftRule]),
    );

    // Without a period: the last 90 days up to now.
    const defaults = await must('POST', `/programs/${shop.programId}/reward-rules/backtest`, {});
    expect(defaults.to).toBe(api.clock.now.toISOString());
    expect(defaults.from).toBe(new Date(api.clock.now.getTime() - 90 * 86_400_000).toISOString());
    expect(defaults.sales).toBe(12);
  });

  it('refuses a program without a draft, and a period that ends before it starts', async () => {
    const shop = await seedProgram(api);
    const none = await admin('POST', `/programs/${shop.programId}/reward-rules/backtest`, {});
    expect(none.status).toBe(404);
    expect(none.body.error.message).toBe('No draft rule set to backtest: PUT one first');
    const backwards = await admin('POST', `/programs/${shop.programId}/reward-rules/backtest`, { from: '2026-05-02T00:00:00Z', to: '2026-05-01T00:00:00Z' });
    expect(backwards.status).toBe(400);
  });
});

// ---- with the draft equal to the published set, nothing changes ---------------------------------

const ruleArb = (id: string) =>
  fc.record({
    id: fc.constant(id),
    name: fc.constant(`Rule ${id}`),
    event: fc.constant('sale'),
    when: fc.record({ intervals: fc.subarray(['month', 'year'] as const), countries: fc.subarray(['DE', 'US'] as const), tiers: fc.subarray(['gold']) }, { requiredKeys: [] }),
    duration: fc.oneof(fc.constant({ kind: 'lifetime' }), fc.constant({ kind: 'first_sale' }), fc.record({ kind: fc.constant('payments'), payments: fc.integer({ min: 1, max: 3 }) })),
    steps: fc.integer({ min: 0, max: 50 }).map((rate) => [percent(String(rate))]),
    caps: fc.record({ perCustomer: fc.record({ USD: fc.integer({ min: 100, max: 3_000 }) }), perPartnerMonth: fc.record({ EUR: fc.integer({ min: 100, max: 3_000 }) }) }, { requiredKeys: [] }),
  });
const ruleSetArb = fc.record({
  rules: fc.tuple(ruleArb('a'), ruleArb('b')).chain(([a, b]) => fc.subarray([a, b])),
  defaults: fc.option(ruleArb('fallback').map((r) => ({ ...r, when: {} })), { nil: undefined }).map((sale) => (sale ? { sale } : {})),
  monthlyBudget: fc.option(fc.record({ USD: fc.integer({ min: 500, max: 6_000 }) }), { nil: undefined }),
  tiers: fc.constant([{ name: 'gold', minCustomers: 2 }]),
});
const salesArb = fc.array(
  fc.record({ partner: fc.integer({ min: 0, max: 1 }), customer: fc.integer({ min: 0, max: 2 }), amount: fc.integer({ min: 100, max: 20_000 }), eur: fc.boolean(), year: fc.boolean(), de: fc.boolean() }),
  { minLength: 1, maxLength: 8 },
);

describe('a draft equal to the published set', () => {
  it('shows no change: the backtest decides as the live path did (tenure, tiers, caps in order)', async () => {
    await fc.assert(
      fc.asyncProperty(ruleSetArb, salesArb, async (ruleSet, sales) => {
        const { shop, partners } = await shopWithPartners(2);
        await must('PUT', `/programs/${shop.programId}/reward-rules/draft`, { rule_set: ruleSet });
        await must('POST', `/programs/${shop.programId}/reward-rules/publish`, {});
        const start = new Date(api.clock.now);
        for (const s of sales) {
          // A customer keeps their currency (caps count per currency, a customer buys in one).
          await sale(shop.apiKey, partners[s.partner]!.affiliateUrl, {
            amount_cents: s.amount, currency: s.customer === 2 ? 'EUR' : 'USD', customer_key: `${shop.programId}_${s.partner}_${s.customer}`,
            interval: s.year ? 'year' : 'month', country: s.de ? 'DE' : 'US',
          });
        }
        const result = await must('POST', `/programs/${shop.programId}/reward-rules/backtest`, { from: start.toISOString(), to: api.clock.now.toISOString() });
        expect(result.sales).toBe(sales.length);
        expect(result.changes).toEqual({ count: 0, first: [] });
        for (const row of result.totals) expect(row.difference_cents).toBe(0);
      }),
      { numRuns: 10 },
    );
  }, 120_000);
});
