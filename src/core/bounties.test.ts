import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type PerformanceTerms, awardDecision, awardsDue, bountyWords, periodOf, periodsToEvaluate } from './bounties.js';

const terms = (over: Partial<PerformanceTerms> = {}): PerformanceTerms => ({ metric: 'new_customers', metricCurrency: null, threshold: 10, refundRule: 'as_recorded', ...over });
const MARCH = periodOf(new Date('2026-03-17T12:00:00Z'));

describe('bounty periods', () => {
  it('are calendar months in UTC', () => {
    expect(MARCH.key).toBe('2026-03-01');
    expect(MARCH.start.toISOString()).toBe('2026-03-01T00:00:00.000Z');
    expect(MARCH.end.toISOString()).toBe('2026-04-01T00:00:00.000Z');
    expect(periodOf(new Date('2026-03-31T23:59:59.999Z')).key).toBe('2026-03-01');
    expect(periodOf(new Date('2026-04-01T00:00:00Z')).key).toBe('2026-04-01');
    expect(periodsToEvaluate(new Date('2026-01-05T00:00:00Z')).map((p) => p.key)).toEqual(['2025-12-01', '2026-01-01']);
  });

  it('say what they pay in words', () => {
    expect(bountyWords('Ten new customers in March', 10_000, 'USD')).toBe("Bounty 'Ten new customers in March' — 100.00 USD");
  });
});

describe('bounty awards (property)', () => {
  const measure = fc.record({ recorded: fc.nat(40), refunds: fc.nat(40) }).map(({ recorded, refunds }) => ({ recorded, net: Math.max(0, recorded - refunds) }));
  const rule = fc.constantFrom('as_recorded' as const, 'net_of_refunds' as const);
  const instant = fc.integer({ min: MARCH.start.getTime() - 86_400_000, max: MARCH.end.getTime() + 40 * 86_400_000 }).map((t) => new Date(t));

  it('awards iff the threshold is reached by the chosen counting rule (net: only once the month is over)', () => {
    fc.assert(
      fc.property(rule, fc.integer({ min: 1, max: 30 }), measure, instant, (refundRule, threshold, m, now) => {
        const decision = awardDecision(terms({ refundRule, threshold }), MARCH, now, m, false);
        const expected = refundRule === 'as_recorded' ? m.recorded >= threshold : now >= MARCH.end && m.net >= threshold;
        expect(decision.award).toBe(expected);
        if (decision.award) expect(decision.measured).toBe(refundRule === 'as_recorded' ? m.recorded : m.net);
      }),
    );
  });

  it('never awards a partner twice for a period, however many evaluations run and in what order', () => {
    const partnerMeasure = fc.record({ partnerId: fc.integer({ min: 1, max: 5 }), recorded: fc.nat(20), net: fc.nat(20) });
    fc.assert(
      fc.property(rule, fc.integer({ min: 1, max: 15 }), fc.array(fc.tuple(fc.array(partnerMeasure, { maxLength: 8 }), instant), { maxLength: 12 }), (refundRule, threshold, runs) => {
        const awarded = new Set<number>();
        const made: number[] = [];
        for (const [measures, now] of runs) {
          for (const a of awardsDue(terms({ refundRule, threshold }), MARCH, now, measures, awarded)) {
            made.push(a.partnerId);
            awarded.add(a.partnerId);
          }
        }
        expect(new Set(made).size).toBe(made.length);
      }),
    );
  });
});
