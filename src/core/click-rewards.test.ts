// Click and lead rewards (docs/rewards.md "Leads and clicks"): a click day pays its clicks × the
// rule's flat amount, never more than any cap leaves; the days paid are the ended ones after the
// set was published; the words say what was counted.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type PublishedRuleSet, clickDayFacts, clickDaysToPay, decideUnderRules, inRuleCurrency, leadRewardFacts } from './commission-rewards.js';
import { ruleWords } from './reward-rule-words.js';
import { type RewardRule, decideReward, rewardWords, ruleSetProblems } from './rewards.js';

const flat = (rate: string) => [{ throughMonth: null, amount: { type: 'flat' as const, rate } }];
const clickRule = (rate: string, perPartnerMonth?: number): RewardRule => ({
  id: 'per-click', name: 'Per click', event: 'click', currency: 'USD', when: {}, duration: { kind: 'lifetime' }, steps: flat(rate), ...(perPartnerMonth === undefined ? {} : { caps: { perPartnerMonth: { USD: perPartnerMonth } } }),
});
const published = (rules: RewardRule[], monthlyBudget?: number): PublishedRuleSet => ({
  id: 7, version: 2, groupId: null, groupName: null, document: { rules, defaults: {}, ...(monthlyBudget === undefined ? {} : { monthlyBudget: { USD: monthlyBudget } }) },
});

describe('click days', () => {
  it("a day's clicks × the amount, never more than any cap leaves (any count, rate, caps and usage)", () => {
    fc.assert(fc.property(
      fc.integer({ min: 1, max: 1_000_000 }), fc.integer({ min: 0, max: 1_000 }),
      fc.option(fc.integer({ min: 0, max: 100_000 }), { nil: undefined }), fc.option(fc.integer({ min: 0, max: 100_000 }), { nil: undefined }),
      fc.integer({ min: 0, max: 100_000 }), fc.integer({ min: 0, max: 100_000 }),
      (clicks, rateCents, cap, budget, usedByPartner, usedByProgram) => {
        const rate = (rateCents / 100).toFixed(2);
        const set = published([clickRule(rate, cap)], budget);
        const facts = clickDayFacts('2026-11-26', clicks, set.document, null);
        const usage = { customer: 0, partnerMonth: usedByPartner, programMonth: usedByProgram };
        const full = clicks * rateCents;
        const left = Math.min(full, cap === undefined ? Infinity : Math.max(0, cap - usedByPartner), budget === undefined ? Infinity : Math.max(0, budget - usedByProgram));
        const outcome = decideUnderRules(set, facts, usage);
        expect(outcome.pays ? outcome.cents : 0).toBe(left);
        if (outcome.pays) expect(outcome.explanation.rewardMonth?.toISOString().slice(0, 10)).toBe('2026-11-01');
      },
    ));
  });

  it('a day pays round(rate × clicks) computed exactly, once, for any rate with up to 4 decimals (0.005 × 1000 = 5.00; 0.004 × 1000 = 4.00), never more than any cap leaves', () => {
    fc.assert(fc.property(
      fc.bigInt({ min: 0n, max: 10_000_000_000n }), fc.integer({ min: 1, max: 1_000_000 }),
      fc.option(fc.integer({ min: 0, max: 10_000_000 }), { nil: undefined }), fc.integer({ min: 0, max: 10_000_000 }),
      (scaled, clicks, cap, used) => {
        const whole = scaled / 10_000n;
        const fraction = (scaled % 10_000n).toString().padStart(4, '0').replace(/0+$/, '');
        const rate = fraction ? `${whole}.${fraction}` : `${whole}`;
        const set = published([clickRule(rate, cap)]);
        // Exact: rate × 10^4 × clicks × 100 cents / 10^4, rounded half up once.
        const exact = Number((scaled * 100n * BigInt(clicks) + 5_000n) / 10_000n);
        const left = Math.min(exact, cap === undefined ? Infinity : Math.max(0, cap - used));
        const outcome = decideUnderRules(set, clickDayFacts('2026-11-26', clicks, set.document, null), { customer: 0, partnerMonth: used, programMonth: 0 });
        expect(outcome.pays ? outcome.cents : 0).toBe(left);
      },
    ));
    const set = published([clickRule('0.005')]);
    const day = (clicks: number) => decideUnderRules(set, clickDayFacts('2026-11-26', clicks, set.document, null), { customer: 0, partnerMonth: 0, programMonth: 0 });
    expect(day(1000)).toMatchObject({ pays: true, cents: 500, explanation: { words: "0.005 USD × 1000 clicks on 2026-11-26 — rule 'Per click'" } });
    expect(day(1)).toMatchObject({ pays: true, cents: 1 });
    expect(decideUnderRules(published([clickRule('0.004')]), clickDayFacts('2026-11-26', 1000, set.document, null), { customer: 0, partnerMonth: 0, programMonth: 0 })).toMatchObject({ pays: true, cents: 400 });
  });

  it('a flat lead or click amount is at most 1,000,000', () => {
    expect(ruleSetProblems({ version: 0, rules: [clickRule('1000000.0001')], defaults: {} })).toEqual(["Rule 'Per click': a click pays at most 1,000,000."]);
    expect(ruleSetProblems({ version: 0, rules: [clickRule('1000000')], defaults: {} })).toEqual([]);
  });

  it('says what it counted', () => {
    const set = published([clickRule('0.10', 500)]);
    const facts = clickDayFacts('2026-11-26', 80, set.document, null);
    const decision = decideReward({ version: 2, ...set.document }, facts, { customer: 0, partnerMonth: 0, programMonth: 0 });
    expect(decision).toMatchObject({ pays: true, cents: 500, cappedBy: 'per_partner_month' });
    expect(rewardWords(decision, facts)).toBe("$0.10 × 80 clicks on 2026-11-26 — rule 'Per click', limited by the partner's monthly cap");
    const one = clickDayFacts('2026-11-27', 1, set.document, null);
    expect(rewardWords(decideReward({ version: 2, ...set.document }, one, { customer: 0, partnerMonth: 0, programMonth: 0 }), one)).toBe("$0.10 × 1 click on 2026-11-27 — rule 'Per click'");
  });

  it('the days paid: ended, after the first whole day the set was in force, at most the look-back', () => {
    const at = (iso: string) => new Date(iso);
    expect(clickDaysToPay(at('2026-11-24T12:00:00Z'), at('2026-11-28T00:30:00Z'), 14)).toEqual(['2026-11-25', '2026-11-26', '2026-11-27']);
    expect(clickDaysToPay(at('2026-11-25T00:00:00Z'), at('2026-11-27T23:59:59Z'), 14)).toEqual(['2026-11-25', '2026-11-26']);
    expect(clickDaysToPay(at('2026-11-27T08:00:00Z'), at('2026-11-27T23:00:00Z'), 14)).toEqual([]);
    expect(clickDaysToPay(at('2026-01-01T00:00:00Z'), at('2026-11-28T01:00:00Z'), 3)).toEqual(['2026-11-25', '2026-11-26', '2026-11-27']);
  });
});

describe('leads', () => {
  it('a lead pays the flat amount once; its words name no tenure', () => {
    const lead: RewardRule = { id: 'signups', name: 'Signups', event: 'lead', currency: 'USD', when: {}, duration: { kind: 'first_sale' }, steps: flat('5') };
    const set = published([lead]);
    const outcome = decideUnderRules(set, leadRewardFacts(new Date('2026-11-26T10:00:00Z'), set.document, null), { customer: 0, partnerMonth: 0, programMonth: 0 });
    expect(outcome).toMatchObject({ pays: true, cents: 500, explanation: { words: "$5.00 — rule 'Signups'", ruleId: 'signups', ruleSetId: 7, ruleSetVersion: 2 } });
  });

  it('a click or lead rule takes only the tier, one step, and no per-customer cap', () => {
    const rule: RewardRule = { id: 'x', name: 'Signups', event: 'lead', currency: 'USD', when: { countries: ['DE'], products: ['p'], tiers: ['gold'] }, duration: { kind: 'lifetime' }, steps: [...flat('5'), ...flat('5')], caps: { perCustomer: { USD: 100 } } };
    expect(ruleSetProblems({ version: 0, rules: [{ ...rule, steps: [{ throughMonth: 3, amount: { type: 'flat', rate: '5' } }, { throughMonth: null, amount: { type: 'flat', rate: '1' } }] }], defaults: {} })).toEqual([
      "Rule 'Signups': a lead carries no countries, products; a lead rule's only condition is the partner's tier.",
      "Rule 'Signups': a lead pays one amount; give it one step.",
      "Rule 'Signups': a lead has no customer's sales to cap; cap it per partner per month or by the monthly budget.",
    ]);
    expect(ruleSetProblems({ version: 0, rules: [{ ...rule, when: { tiers: ['gold'] }, steps: flat('5'), caps: { perPartnerMonth: { USD: 100 } } }], defaults: {} })).toEqual([]);
  });
});

describe('the currency of a lead or click rule', () => {
  const lead = (over: Partial<RewardRule> = {}): RewardRule => ({ id: 'signups', name: 'Signups', event: 'lead', currency: 'EUR', when: {}, duration: { kind: 'lifetime' }, steps: flat('5'), ...over });

  it('is required on a lead or click rule, refused on a sale rule, and one the program takes', () => {
    const { currency: _, ...bare } = lead();
    expect(ruleSetProblems({ version: 0, rules: [bare, { ...bare, id: 'c', name: 'Clicks', event: 'click' }], defaults: {} })).toEqual([
      "Rule 'Signups': give the currency a lead reward is paid in.",
      "Rule 'Clicks': give the currency a click reward is paid in.",
    ]);
    expect(ruleSetProblems({ version: 0, rules: [{ ...lead(), id: 's', name: 'Sales', event: 'sale', steps: [{ throughMonth: null, amount: { type: 'percent', rate: '10' } }] }], defaults: {} })).toEqual([
      "Rule 'Sales': a sale pays in the sale's own currency; a sale rule names none.",
    ]);
    expect(ruleSetProblems({ version: 0, rules: [lead({ currency: 'GBP' })], defaults: {} }, { acceptAllCurrencies: false })).toEqual([
      "Rule 'Signups': the program takes USD, EUR and VND only; accept all currencies to pay in GBP.",
    ]);
    expect(ruleSetProblems({ version: 0, rules: [lead({ currency: 'GBP' })], defaults: {} }, { acceptAllCurrencies: true })).toEqual([]);
  });

  it("pays in the deciding rule's currency, its caps read in it; the rule list says \"5.00 EUR per lead\"", () => {
    const set: PublishedRuleSet = { id: 7, version: 2, groupId: null, groupName: null, document: { rules: [lead({ when: { tiers: ['gold'] }, currency: 'VND', id: 'gold', name: 'Gold' }), lead({ caps: { perPartnerMonth: { EUR: 800, USD: 100 } } })], defaults: {}, tiers: [{ name: 'gold', minCustomers: 10 }] } };
    const facts = inRuleCurrency(set, leadRewardFacts(new Date('2026-11-26T10:00:00Z'), set.document, { customers: 0, revenue: {} }))!;
    expect(facts.currency).toBe('EUR');
    expect(decideUnderRules(set, facts, { customer: 0, partnerMonth: 500, programMonth: 0 })).toMatchObject({ pays: true, cents: 300, explanation: { words: "€5.00 — rule 'Signups', limited by the partner's monthly cap" } });
    const gold = inRuleCurrency(set, leadRewardFacts(new Date('2026-11-26T10:00:00Z'), set.document, { customers: 12, revenue: {} }))!;
    expect(gold.currency).toBe('VND');
    expect(decideUnderRules(set, gold, { customer: 0, partnerMonth: 0, programMonth: 0 })).toMatchObject({ pays: true, cents: 5 });
    expect(ruleWords(lead()).pays).toBe('5.00 EUR per lead');
    expect(ruleWords(lead({ event: 'click', steps: flat('0.005') })).pays).toBe('0.005 EUR per click');
  });
});
