// Reward rules wired into commissions (issue 46 items 1-3, docs/rewards.md): what a sale carries,
// rule sets per program and group (draft, publish, versions), tiers, caps under concurrent sales,
// and the words every commission keeps.
import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { sha256 } from '../src/core/secrets.js';
import { signedInVisitor } from './support/dashboard-visitor.js';
import { type SeededProgram, type TestApi, type TestDatabase, adminHeaders, bearer, seedProgram, trackClick } from './support/harness.js';
import { useSeededApi } from './support/seeded-api.js';
import { uid } from './support/money.js';

let db: TestDatabase;
let api: TestApi;

useSeededApi({ env: { AFFIX_SECRET_KEY: 'reward-rules-test-key-0123456789abcdef' }, options: { queueUrl: 'own' } }, (t) => ({ db, api } = t));

const admin = (method: string, path: string, body?: unknown) => api.request(method, `/api/v1/admin${path}`, { body, headers: adminHeaders });
async function must(method: string, path: string, body?: unknown) {
  const reply = await admin(method, path, body);
  if (reply.status >= 300) throw new Error(`${method} ${path}: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.data;
}

/** A sale through the tracking API by a fresh click on the program's link (or the given customer's). */
async function sale(program: { apiKey: string; affiliateUrl: string }, amountCents: number, extra: Record<string, unknown> = {}, customerKey = uid('c')) {
  const clickId = await trackClick(api, program.affiliateUrl);
  const transactionId = uid('txn');
  const reply = await api.request('POST', '/api/v1/track/sale', {
    body: { transaction_id: transactionId, amount_cents: amountCents, currency: 'USD', click_id: clickId, customer_key: customerKey, ...extra },
    headers: bearer(program.apiKey),
  });
  return { reply, transactionId };
}

async function commissionOf(transactionId: string) {
  const { rows } = await api.pool.query(
    `SELECT c.id, c.amount_cents, c.rule_set_id, c.rule_id, c.reward_words, s.commission_reason
       FROM sales s LEFT JOIN commissions c ON c.sale_id = s.id WHERE s.processor_event_id = $1`,
    [transactionId],
  );
  return rows[0];
}

const percent = (rate: string) => ({ throughMonth: null, amount: { type: 'percent', rate } });
const annualRules = {
  rules: [{ id: 'annual', name: 'Annual plans', event: 'sale', when: { intervals: ['year'] }, duration: { kind: 'months', months: 3 }, steps: [percent('30')] }],
  defaults: { sale: { id: 'default', name: 'Default', event: 'sale', when: {}, duration: { kind: 'lifetime' }, steps: [percent('10')] } },
};

describe('what a sale carries', () => {
  let shop: SeededProgram;
  beforeAll(async () => {
    shop = await seedProgram(api);
  });

  it('POST /track/sale stores product_id, price_id, interval and country on the sale', async () => {
    const { reply, transactionId } = await sale(shop, 5_000, { product_id: 'prod_pro', price_id: 'price_pro_year', interval: 'year', country: 'de' });
    expect(reply.status).toBe(200);
    const { rows } = await api.pool.query('SELECT product_ids, price_ids, billing_interval, buyer_country FROM sales WHERE processor_event_id = $1', [transactionId]);
    expect(rows[0]).toEqual({ product_ids: ['prod_pro'], price_ids: ['price_pro_year'], billing_interval: 'year', buyer_country: 'DE' });
  });

  it('the server SDK\'s subscription_interval names the interval when interval is not given', async () => {
    const { transactionId } = await sale(shop, 5_000, { subscription_interval: 'annual' });
    const { rows } = await api.pool.query('SELECT billing_interval, buyer_country FROM sales WHERE processor_event_id = $1', [transactionId]);
    expect(rows[0]).toEqual({ billing_interval: 'year', buyer_country: null });
  });

  it.each([
    [{ country: 'Germany' }, 'country must be an ISO 3166-1 alpha-2 code such as DE'],
    [{ interval: 'monthly' }, 'interval must be day, week, month, year or one_time'],
    [{ product_id: 7 }, 'product_id must be a string'],
  ])('refuses %j', async (extra, message) => {
    const { reply } = await sale(shop, 5_000, extra);
    expect(reply.status).toBe(400);
    expect(reply.body.error.message).toBe(message);
  });
});

describe('rule sets: draft, publish, versions', () => {
  let shop: SeededProgram;
  beforeAll(async () => {
    shop = await seedProgram(api, { commission_rate: 20 });
  });

  it('without a published set the program pays by its commission type, and says so', async () => {
    await must('PUT', `/programs/${shop.programId}/reward-rules/draft`, { rule_set: annualRules });
    const { transactionId } = await sale(shop, 10_000, { interval: 'year' });
    expect(await commissionOf(transactionId)).toMatchObject({ amount_cents: 2000, rule_set_id: null, rule_id: null, reward_words: '20 % — program terms, first paid sale' });
  });

  it('a published set pays by its first matching rule, else its default; each commission keeps the version, the rule and why', async () => {
    const published = await must('POST', `/programs/${shop.programId}/reward-rules/publish`, {});
    expect(published).toMatchObject({ version: 1, status: 'published', group_id: null });
    const annual = await sale(shop, 10_000, { interval: 'year', country: 'DE' });
    expect(await commissionOf(annual.transactionId)).toMatchObject({
      amount_cents: 3000, rule_set_id: published.id, rule_id: 'annual', reward_words: "30 % — rule 'Annual plans' (interval year), month 1 of 3",
    });
    const monthly = await sale(shop, 10_000, { interval: 'month' });
    expect(await commissionOf(monthly.transactionId)).toMatchObject({ amount_cents: 1000, rule_id: 'default', reward_words: '10 % — default' });
    const audit = await api.pool.query("SELECT action, object_id FROM audit_log WHERE program_id = $1 AND action = 'reward_rules.published'", [shop.programId]);
    expect(audit.rows).toEqual([{ action: 'reward_rules.published', object_id: String(published.id) }]);
  });

  it('changing the rules never changes commissions already made; a published version never changes', async () => {
    const before = await sale(shop, 10_000, { interval: 'year' });
    const made = await commissionOf(before.transactionId);
    await must('PUT', `/programs/${shop.programId}/reward-rules/draft`, { rule_set: { ...annualRules, rules: [{ ...annualRules.rules[0], steps: [percent('50')] }] } });
    const v2 = await must('POST', `/programs/${shop.programId}/reward-rules/publish`, {});
    expect(v2.version).toBe(2);
    expect(await commissionOf(before.transactionId)).toEqual(made);
    const after = await sale(shop, 10_000, { interval: 'year' });
    expect(await commissionOf(after.transactionId)).toMatchObject({ amount_cents: 5000, rule_set_id: v2.id, reward_words: "50 % — rule 'Annual plans' (interval year), month 1 of 3" });
    await expect(api.pool.query("UPDATE reward_rule_sets SET rules = '{}' WHERE id = $1", [v2.id])).rejects.toThrow('a published rule set version never changes');
    const listed = await must('GET', `/programs/${shop.programId}/reward-rules`);
    expect(listed.map((r: any) => [r.version, r.status])).toEqual([[2, 'published'], [1, 'published'], [0, 'draft']]);
  });

  it('refuses a rule set that cannot be published, saying why', async () => {
    const bad = { rules: [{ id: 'x', name: 'Too much', event: 'sale', when: {}, duration: { kind: 'lifetime' }, steps: [percent('120')] }], defaults: {} };
    const other = await seedProgram(api);
    const draft = await must('PUT', `/programs/${other.programId}/reward-rules/draft`, { rule_set: bad });
    expect(draft.problems).toEqual(["Rule 'Too much': a percentage is at most 100."]);
    const reply = await admin('POST', `/programs/${other.programId}/reward-rules/publish`, {});
    expect(reply.status).toBe(400);
    expect(reply.body.error.message).toBe("Rule 'Too much': a percentage is at most 100.");
    const shape = await admin('PUT', `/programs/${other.programId}/reward-rules/draft`, { rule_set: { rules: [{ id: 'y', name: 'y', event: 'sale', when: { countries: ['Germany'] }, duration: { kind: 'lifetime' }, steps: [percent('5')] }] } });
    expect(shape.status).toBe(400);
  });

  it('a group\'s set pays its partners, and says which group', async () => {
    const group = await must('POST', `/programs/${shop.programId}/groups`, { name: 'Creators', slug: 'creators', commission_type: 'percent', commission_rate: 15, hold_days: 0 });
    const partner = await must('POST', `/programs/${shop.programId}/partners`, { name: uid('p'), group_id: group.id });
    const code = `g${Date.now().toString(36)}`;
    await must('POST', `/programs/${shop.programId}/links`, { partner_id: partner.id, short_link: code });
    const creator = { apiKey: shop.apiKey, affiliateUrl: `https://shop.example.com/pricing?aff=${code}` };
    // The group has no set of its own yet: the program's pays.
    const first = await sale(creator, 10_000, { interval: 'year' });
    expect((await commissionOf(first.transactionId)).rule_id).toBe('annual');
    await must('PUT', `/programs/${shop.programId}/reward-rules/draft`, {
      group_id: group.id,
      rule_set: { rules: [], defaults: { sale: { id: 'creators', name: 'Creators', event: 'sale', when: {}, duration: { kind: 'months', months: 12 }, steps: [percent('25')] } } },
    });
    await must('POST', `/programs/${shop.programId}/reward-rules/publish`, { group_id: group.id });
    const second = await sale(creator, 10_000, { interval: 'year' });
    expect(await commissionOf(second.transactionId)).toMatchObject({ amount_cents: 2500, rule_id: 'creators', reward_words: '25 % — group Creators, default, month 1 of 12' });
  });
});

describe('tiers and caps', () => {
  it('a partner\'s tier, from their customers over the trailing window, picks the rule', async () => {
    const shop = await seedProgram(api);
    await must('PUT', `/programs/${shop.programId}/reward-rules/draft`, {
      rule_set: {
        tiers: [{ name: 'Silver', minCustomers: 0 }, { name: 'Gold', minCustomers: 2 }],
        tierWindowDays: 30,
        rules: [{ id: 'gold', name: 'Gold partners', event: 'sale', when: { tiers: ['Gold'] }, duration: { kind: 'lifetime' }, steps: [percent('40')] }],
        defaults: { sale: { id: 'default', name: 'Default', event: 'sale', when: {}, duration: { kind: 'lifetime' }, steps: [percent('10')] } },
      },
    });
    await must('POST', `/programs/${shop.programId}/reward-rules/publish`, {});
    const words = [];
    for (let i = 0; i < 3; i++) words.push((await commissionOf((await sale(shop, 10_000)).transactionId)).reward_words);
    expect(words).toEqual(['10 % — default', '10 % — default', "40 % — rule 'Gold partners' (tier Gold)"]);
  });

  it('a program\'s monthly budget is never exceeded, even by many sales at once', async () => {
    const shop = await seedProgram(api);
    await must('PUT', `/programs/${shop.programId}/reward-rules/draft`, {
      rule_set: { rules: [], monthlyBudget: { USD: 5_000 }, defaults: { sale: { id: 'default', name: 'Default', event: 'sale', when: {}, duration: { kind: 'lifetime' }, steps: [percent('20')] } } },
    });
    await must('POST', `/programs/${shop.programId}/reward-rules/publish`, {});
    const replies = await Promise.all(Array.from({ length: 12 }, () => sale(shop, 10_000)));
    expect(replies.map((r) => r.reply.status)).toEqual(Array(12).fill(200));
    const { rows } = await api.pool.query('SELECT coalesce(sum(amount_cents), 0)::int AS total, count(*)::int AS n FROM commissions WHERE program_id = $1', [shop.programId]);
    expect(rows[0]).toEqual({ total: 5_000, n: 3 });
    const reasons = await api.pool.query('SELECT commission_reason, count(*)::int AS n FROM sales WHERE program_id = $1 GROUP BY 1 ORDER BY 1', [shop.programId]);
    expect(reasons.rows).toEqual([{ commission_reason: 'cap_reached', n: 9 }, { commission_reason: null, n: 3 }]);
    const limited = await api.pool.query("SELECT reward_words FROM commissions WHERE program_id = $1 AND amount_cents = 1000", [shop.programId]);
    expect(limited.rows).toEqual([{ reward_words: "20 % — default, limited by the program's monthly budget" }]);
  });

  it('a partner\'s monthly cap and a customer\'s cap bound what a rule pays', async () => {
    const shop = await seedProgram(api);
    await must('PUT', `/programs/${shop.programId}/reward-rules/draft`, {
      rule_set: { rules: [], defaults: { sale: { id: 'default', name: 'Default', event: 'sale', when: {}, duration: { kind: 'lifetime' }, steps: [percent('50')], caps: { perCustomer: { USD: 7_000 }, perPartnerMonth: { USD: 12_000 } } } } },
    });
    await must('POST', `/programs/${shop.programId}/reward-rules/publish`, {});
    const customer = uid('loyal');
    const paid = [];
    for (let i = 0; i < 3; i++) paid.push((await commissionOf((await sale(shop, 10_000, {}, customer)).transactionId))?.amount_cents ?? null);
    expect(paid).toEqual([5000, 2000, null]);
    const others = await Promise.all(Array.from({ length: 6 }, () => sale(shop, 10_000)));
    const amounts = await Promise.all(others.map(async (o) => Number((await commissionOf(o.transactionId))?.amount_cents ?? 0)));
    expect(amounts.reduce((a, b) => a + b, 0)).toBe(12_000 - 7_000);
  });
});

describe('every commission explains itself over webhooks', () => {
  it('commission.created carries reward: words, rule set and rule (a field added, none renamed)', async () => {
    const shop = await seedProgram(api);
    await must('POST', `/programs/${shop.programId}/webhook-endpoints`, { url: 'https://hooks.example.com/affix', event_types: ['commission.created'] });
    const { transactionId } = await sale(shop, 10_000);
    const { rows } = await api.pool.query("SELECT data FROM webhook_messages WHERE program_id = $1 AND type = 'commission.created'", [shop.programId]);
    expect(rows[0].data).toMatchObject({ transaction_id: transactionId, amount_cents: 2_000, terms: { source: 'program' }, reward: { words: '20 % — program terms, first paid sale', rule_set_id: null, rule_set_version: null, rule_id: null } });
  });
});

describe('every commission explains itself on every surface', () => {
  it('the dashboard\'s commission rows, the admin API, the portal\'s referrals page and its commissions.csv show the words', async () => {
    const shop = await seedProgram(api, { commission_rate: 20 });
    await must('PUT', `/programs/${shop.programId}/reward-rules/draft`, { rule_set: annualRules });
    await must('POST', `/programs/${shop.programId}/reward-rules/publish`, {});
    const email = `${uid('ana')}@partners.example`;
    await must('PATCH', `/programs/${shop.programId}/partners/${shop.partnerId}`, { email });
    await api.pool.query('UPDATE partners SET invited_at = now() WHERE id = $1', [shop.partnerId]);
    await sale(shop, 10_000, { interval: 'year' });
    const words = "30 % — rule 'Annual plans' (interval year), month 1 of 3";
    const escaped = words.replace(/'/g, '&#39;');

    const listed = await must('GET', `/programs/${shop.programId}/commissions`);
    expect(listed.rows[0]).toMatchObject({ reward_words: words });

    await must('PATCH', `/accounts/${shop.accountId}`, { password: 'reward rules owner password 1' });
    const owner = (await api.pool.query('SELECT email FROM accounts WHERE id = $1', [shop.accountId])).rows[0].email;
    const dashboard = await signedInVisitor(api.url, owner, 'reward rules owner password 1');
    for (const path of [`/dashboard/programs/${shop.programId}/payouts?stage=pending`, `/dashboard/programs/${shop.programId}/partners/${shop.partnerId}`]) {
      const page = await dashboard.get(path);
      expect(page.status, path).toBe(200);
      expect(page.text, path).toContain(escaped);
    }
    // The partner's page says what pays them now: the rule set, not the commission type.
    const partnerPage = (await dashboard.get(`/dashboard/programs/${shop.programId}/partners/${shop.partnerId}`)).text;
    expect(partnerPage).toContain("Paid on: <strong>reward rules</strong> (the rule set of the program, version 1; each commission says which rule), approved after 30 days.");

    const token = randomBytes(24).toString('base64url');
    await api.pool.query("INSERT INTO partner_sessions (token_hash, email, expires_at) VALUES ($1, lower($2), now() + interval '1 hour')", [sha256(token), email]);
    const portal = async (path: string) => {
      const response = await fetch(`${api.url}${path}`, { headers: { cookie: `affix_portal=${token}` }, redirect: 'manual' });
      return { status: response.status, text: await response.text() };
    };
    const page = await portal(`/portal/programs/${shop.partnerId}/referrals`);
    expect(page.status).toBe(200);
    expect(page.text).toContain(escaped);
    const csv = await portal(`/portal/programs/${shop.partnerId}/commissions.csv`);
    expect(csv.text.split('\n')[0]).toMatch(/,why\r?$/);
    expect(csv.text).toContain(words);
  });
});
