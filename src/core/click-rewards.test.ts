// Click and lead rewards (docs/rewards.md "Leads and clicks"): a click day pays its clicks × the
// rule's flat amount, never more than any cap leaves; the days paid are the ended ones after the
// set was published; the words say what was counted.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type PublishedRuleSet, clickDayFacts, clickDaysToPay, decideUnderRules, leadRewardFacts } from './commission-rewards.js';
import { type RewardRule, decideReward, rewardWords, ruleSetProblems } from './rewards.js';

const flat = (rate: string) => [{ throughMonth: null, amount: { type: 'flat' as const, rate } }];
const clickRule = (rate: string, perPartnerMonth?: number): RewardRule => ({
  id: 'per-click', name: 'Per click', event: 'click', when: {}, duration: { kind: 'lifetime' }, steps: flat(rate), ...(perPartnerMonth === undefined ? {} : { caps: { perPartnerMonth: { USD: perPartnerMonth } } }),
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
    const lead: RewardRule = { id: 'signups', name: 'Signups', event: 'lead', when: {}, duration: { kind: 'first_sale' }, steps: flat('5') };
    const set = published([lead]);
    const outcome = decideUnderRules(set, leadRewardFacts(new Date('2026-11-26T10:00:00Z'), set.document, null), { customer: 0, partnerMonth: 0, programMonth: 0 });
    expect(outcome).toMatchObject({ pays: true, cents: 500, explanation: { words: "$5.00 — rule 'Signups'", ruleId: 'signups', ruleSetId: 7, ruleSetVersion: 2 } });
  });

  it('a click or lead rule takes only the tier, one step, and no per-customer cap', () => {
    const rule: RewardRule = { id: 'x', name: 'Signups', event: 'lead', when: { countries: ['DE'], products: ['p'], tiers: ['gold'] }, duration: { kind: 'lifetime' }, steps: [...flat('5'), ...flat('5')], caps: { perCustomer: { USD: 100 } } };
    expect(ruleSetProblems({ version: 0, rules: [{ ...rule, steps: [{ throughMonth: 3, amount: { type: 'flat', rate: '5' } }, { throughMonth: null, amount: { type: 'flat', rate: '1' } }] }], defaults: {} })).toEqual([
      "Rule 'Signups': a lead carries no countries, products; a lead rule's only condition is the partner's tier.",
      "Rule 'Signups': a lead pays one amount; give it one step.",
      "Rule 'Signups': a lead has no customer's sales to cap; cap it per partner per month or by the monthly budget.",
    ]);
    expect(ruleSetProblems({ version: 0, rules: [{ ...rule, when: { tiers: ['gold'] }, steps: flat('5'), caps: { perPartnerMonth: { USD: 100 } } }], defaults: {} })).toEqual([]);
  });
});
