import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { tenureMonth } from './attribution.js';
import {
  BILLING_INTERVALS,
  type RewardFacts,
  type RewardRule,
  type RewardRuleSet,
  decideReward,
  decidingRule,
  ruleMatches,
  ruleSetProblems,
  rewardWords,
  tierOf,
} from './rewards.js';

const DAY = 86_400_000;
const start = new Date('2026-01-15T10:00:00Z');
const facts = (over: Partial<RewardFacts> = {}): RewardFacts => ({
  event: 'sale', amountCents: 10_000, currency: 'USD', occurredAt: start, products: ['prod_pro'], prices: ['price_pro_year'], interval: 'year',
  country: 'DE', firstPaidAt: null, paymentNumber: 1, partnerTier: null, ...over,
});
const rule = (over: Partial<RewardRule> & Pick<RewardRule, 'id'>): RewardRule => ({
  name: over.id, event: 'sale', when: {}, duration: { kind: 'lifetime' }, steps: [{ throughMonth: null, amount: { type: 'percent', rate: '10' } }], ...over,
});
const NO_USAGE = { customer: 0, partnerMonth: 0, programMonth: 0 };

describe('reward rules', () => {
  const annual = rule({ id: 'annual', name: 'Annual plans', when: { intervals: ['year'] }, duration: { kind: 'months', months: 3 }, steps: [{ throughMonth: null, amount: { type: 'percent', rate: '30' } }] });
  const set: RewardRuleSet = { version: 3, rules: [annual, rule({ id: 'eu', when: { countries: ['DE', 'FR'] } })], defaults: { sale: rule({ id: 'default', steps: [{ throughMonth: null, amount: { type: 'percent', rate: '20' } }] }) } };

  it('the first rule that matches decides, else the default; each commission says why in words', () => {
    const first = decideReward(set, facts(), NO_USAGE);
    expect(first).toMatchObject({ pays: true, ruleIndex: 0, cents: 3_000, month: 1 });
    const second = facts({ firstPaidAt: start, occurredAt: new Date(start.getTime() + 40 * DAY), paymentNumber: 2 });
    expect(rewardWords(decideReward(set, second, NO_USAGE), second, { group: 'Creators' })).toBe("30 % — group Creators, rule 'Annual plans' (interval year), month 2 of 3");
    const monthly = facts({ interval: 'month', country: 'US' });
    expect(decideReward(set, monthly, NO_USAGE)).toMatchObject({ pays: true, ruleIndex: null, cents: 2_000 });
    expect(rewardWords(decideReward(set, monthly, NO_USAGE), monthly)).toBe('20 % — default');
    // Month 4 of a 3-month rule: nothing, and not the next rule either (the first match decides).
    const late = facts({ firstPaidAt: start, occurredAt: new Date('2026-04-15T10:00:00Z'), paymentNumber: 4 });
    expect(decideReward(set, late, NO_USAGE)).toMatchObject({ pays: false, ruleIndex: 0, reason: 'duration_ended' });
    expect(rewardWords(decideReward(set, late, NO_USAGE), late)).toBe("Nothing — rule 'Annual plans' (interval year): past the rule's duration");
  });

  it('staggered: 30 % for months 1–3, then 20 % to month 12, then nothing; N payments; first sale only', () => {
    const staggered = rule({ id: 'stag', duration: { kind: 'months', months: 12 }, steps: [{ throughMonth: 3, amount: { type: 'percent', rate: '30' } }, { throughMonth: 12, amount: { type: 'percent', rate: '20' } }] });
    const s: RewardRuleSet = { version: 1, rules: [staggered], defaults: {} };
    const at = (iso: string, n: number) => decideReward(s, facts({ firstPaidAt: start, occurredAt: new Date(iso), paymentNumber: n }), NO_USAGE);
    expect([at('2026-02-14T10:00:00Z', 2), at('2026-04-14T10:00:00Z', 4), at('2026-04-15T10:00:00Z', 4), at('2027-01-15T09:59:59Z', 13), at('2027-01-15T10:00:00Z', 13)]
      .map((d) => (d.pays ? d.cents : d.reason))).toEqual([3_000, 3_000, 2_000, 2_000, 'duration_ended']);
    const three = rule({ id: 'three', duration: { kind: 'payments', payments: 3 } });
    const pays = (n: number) => decideReward({ version: 1, rules: [three], defaults: {} }, facts({ paymentNumber: n, firstPaidAt: n > 1 ? start : null }), NO_USAGE);
    expect([1, 3, 4].map((n) => pays(n).pays)).toEqual([true, true, false]);
    const once = rule({ id: 'once', duration: { kind: 'first_sale' } });
    expect(decideReward({ version: 1, rules: [once], defaults: {} }, facts({ paymentNumber: 2, firstPaidAt: start }), NO_USAGE)).toMatchObject({ pays: false, reason: 'not_first_sale' });
  });

  it('flat rewards for clicks and leads; amounts in each currency’s own unit', () => {
    const s: RewardRuleSet = { version: 1, rules: [rule({ id: 'lead', event: 'lead', steps: [{ throughMonth: null, amount: { type: 'flat', rate: '2.5' } }] })], defaults: {} };
    expect(decideReward(s, facts({ event: 'lead', amountCents: 0 }), NO_USAGE)).toMatchObject({ pays: true, cents: 250 });
    expect(decideReward(s, facts({ event: 'lead', amountCents: 0, currency: 'JPY' }), NO_USAGE)).toMatchObject({ pays: true, cents: 3 });
    expect(decideReward(s, facts({ event: 'sale' }), NO_USAGE)).toMatchObject({ pays: false, reason: 'no_rule' });
  });

  it('every event is decided by exactly one rule: the first that matches, else the default (any rules, any facts)', () => {
    const condition = fc.record({
      intervals: fc.option(fc.subarray([...BILLING_INTERVALS], { minLength: 1 }), { nil: undefined }),
      countries: fc.option(fc.subarray(['DE', 'FR', 'US'], { minLength: 1 }), { nil: undefined }),
      customer: fc.option(fc.constantFrom('new' as const, 'existing' as const), { nil: undefined }),
      tiers: fc.option(fc.subarray(['gold', 'silver'], { minLength: 1 }), { nil: undefined }),
      minAmount: fc.option(fc.integer({ min: 0, max: 20_000 }).map((n) => ({ USD: n })), { nil: undefined }),
    });
    const rules = fc.array(fc.tuple(fc.constantFrom('click' as const, 'lead' as const, 'sale' as const), condition), { maxLength: 6 })
      .map((list) => list.map(([event, when], i) => rule({ id: `r${i}`, event, when, steps: [{ throughMonth: null, amount: { type: 'flat', rate: '1' } }] })));
    const event = fc.record({
      event: fc.constantFrom('click' as const, 'lead' as const, 'sale' as const),
      interval: fc.option(fc.constantFrom(...BILLING_INTERVALS), { nil: null }),
      country: fc.option(fc.constantFrom('DE', 'FR', 'US', 'JP'), { nil: null }),
      paymentNumber: fc.integer({ min: 1, max: 5 }),
      partnerTier: fc.option(fc.constantFrom('gold', 'silver', 'bronze'), { nil: null }),
      amountCents: fc.integer({ min: 1, max: 20_000 }),
    });
    fc.assert(fc.property(rules, fc.boolean(), event, (list, withDefault, e) => {
      const s: RewardRuleSet = { version: 1, rules: list, defaults: withDefault ? { [e.event]: rule({ id: 'default', event: e.event }) } : {} };
      const f = facts(e);
      const decided = decidingRule(s, f);
      const matching = list.map((r, i) => (ruleMatches(r, f) ? i : -1)).filter((i) => i >= 0);
      if (matching.length) expect(decided?.index).toBe(matching[0]);
      else expect(decided).toEqual(withDefault ? { rule: s.defaults[e.event], index: null } : null);
    }));
  });

  it('caps are never exceeded: per customer, per partner per month, and the monthly budget, whatever the sales', () => {
    fc.assert(fc.property(
      fc.record({ perCustomer: fc.integer({ min: 0, max: 5_000 }), perPartnerMonth: fc.integer({ min: 0, max: 8_000 }), budget: fc.integer({ min: 0, max: 12_000 }) }),
      fc.array(fc.record({ amount: fc.integer({ min: 1, max: 50_000 }), customer: fc.integer({ min: 0, max: 3 }) }), { maxLength: 30 }),
      (caps, sales) => {
        const capped = rule({ id: 'capped', steps: [{ throughMonth: null, amount: { type: 'percent', rate: '25' } }], caps: { perCustomer: { USD: caps.perCustomer }, perPartnerMonth: { USD: caps.perPartnerMonth } } });
        const s: RewardRuleSet = { version: 1, rules: [capped], defaults: {}, monthlyBudget: { USD: caps.budget } };
        const perCustomer = new Map<number, number>();
        let partner = 0;
        for (const sale of sales) {
          const decision = decideReward(s, facts({ amountCents: sale.amount }), { customer: perCustomer.get(sale.customer) ?? 0, partnerMonth: partner, programMonth: partner });
          const cents = decision.pays ? decision.cents : 0;
          expect(cents).toBeLessThanOrEqual(Math.round(sale.amount / 4));
          perCustomer.set(sale.customer, (perCustomer.get(sale.customer) ?? 0) + cents);
          partner += cents;
        }
        for (const paid of perCustomer.values()) expect(paid).toBeLessThanOrEqual(caps.perCustomer);
        expect(partner).toBeLessThanOrEqual(Math.min(caps.perPartnerMonth, caps.budget));
      },
    ));
  });

  it("a month of the tenure is the program's recurring rule's month: past N months exactly when at or after N calendar months", () => {
    fc.assert(fc.property(fc.date({ min: new Date('2020-01-01'), max: new Date('2030-01-01'), noInvalidDate: true }), fc.integer({ min: 0, max: 800 * DAY }), fc.integer({ min: 1, max: 24 }), (from, offset, months) => {
      const at = new Date(from.getTime() + offset);
      const end = new Date(from);
      end.setUTCMonth(end.getUTCMonth() + months);
      expect(tenureMonth(from, at) > months).toBe(at.getTime() >= end.getTime());
    }));
    expect([tenureMonth(start, start), tenureMonth(start, new Date('2026-02-15T09:59:59Z')), tenureMonth(start, new Date('2026-02-15T10:00:00Z'))]).toEqual([1, 1, 2]);
  });

  it('a rule set that cannot be published says why; tiers are the highest reached', () => {
    expect(ruleSetProblems(set)).toEqual([]);
    expect(ruleSetProblems({ version: 1, rules: [
      rule({ id: 'a', steps: [{ throughMonth: 6, amount: { type: 'percent', rate: '30' } }, { throughMonth: 3, amount: { type: 'percent', rate: '120' } }] }),
      rule({ id: 'a', event: 'click', currency: 'USD', steps: [{ throughMonth: null, amount: { type: 'percent', rate: '5' } }] }),
    ], defaults: { lead: rule({ id: 'd', event: 'lead', currency: 'EUR', when: { countries: ['DE'] }, steps: [{ throughMonth: null, amount: { type: 'flat', rate: '1' } }] }) } })).toEqual([
      "Rule 'a': its steps must end in later and later months.",
      "Rule 'a': a percentage is at most 100.",
      "Rule 'a': its id a is used twice.",
      "Rule 'a': a click has no amount to take a percentage of; give a flat amount.",
      'The default for leads takes no conditions: it pays what no rule matched.',
    ]);
    const tiers = [{ name: 'silver', minCustomers: 5 }, { name: 'gold', minCustomers: 10, minRevenue: { USD: 100_000, EUR: 90_000 } }];
    expect([
      tierOf(tiers, { customers: 3, revenue: {} }),
      tierOf(tiers, { customers: 12, revenue: { USD: 50_000 } }),
      tierOf(tiers, { customers: 12, revenue: { EUR: 95_000 } }),
    ]).toEqual([null, 'silver', 'gold']);
  });
});
