// Bounties (docs/rewards.md "Bounties"): a reward paid without a sale. A performance bounty pays a
// partner who reaches a threshold in a calendar month (UTC), counted from recorded sales, once
// per partner and month; a submission bounty pays a partner whose submission the brand approves.
// The decisions here are pure: the job counts, this decides, a unique key makes it once.
import type { Currency } from './types.js';
import { majorUnits } from './money.js';

export const BOUNTY_KINDS = ['performance', 'submission'] as const;
export type BountyKind = (typeof BOUNTY_KINDS)[number];

/** What a performance bounty counts per partner per month: new paying customers, or sale revenue in one currency. */
export const BOUNTY_METRICS = ['new_customers', 'revenue'] as const;
export type BountyMetric = (typeof BOUNTY_METRICS)[number];

/**
 * How refunds count: `as_recorded` counts sales as they were recorded (the award is made as soon
 * as the threshold is reached; a later refund does not take it back); `net_of_refunds` counts
 * what is left after refunds at the period's end (decided only once the month is over).
 */
export const REFUND_RULES = ['as_recorded', 'net_of_refunds'] as const;
export type RefundRule = (typeof REFUND_RULES)[number];

export interface PerformanceTerms {
  metric: BountyMetric;
  /** Revenue's currency (null for new customers). */
  metricCurrency: Currency | null;
  /** Customers, or revenue in the metric currency's minor unit. */
  threshold: number;
  refundRule: RefundRule;
}

/** A calendar month in UTC: [start, end), named by its first day ("2026-03-01"). */
export interface Period {
  start: Date;
  end: Date;
  key: string;
}

export function periodOf(at: Date): Period {
  const start = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1));
  const end = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1));
  return { start, end, key: start.toISOString().slice(0, 10) };
}

/** The month before `at`'s. */
export const previousPeriod = (at: Date): Period => periodOf(new Date(periodOf(at).start.getTime() - 1));

/**
 * The months an evaluation at `now` looks at: the current one (as recorded: awarded as soon as
 * reached), and the one before it (a sale recorded late for it; and net-of-refunds bounties,
 * which are decided only once their month is over).
 */
export const periodsToEvaluate = (now: Date): Period[] => [previousPeriod(now), periodOf(now)];

/** A partner's count for one month: as recorded, and net of the refunds known now. */
export interface PartnerMeasure {
  partnerId: number;
  recorded: number;
  net: number;
}

export type MeasureRefusal = 'below_threshold' | 'period_open' | 'already_awarded';

/**
 * Whether a partner earns the bounty for the period, and what they reached: as recorded, when
 * the recorded count reaches the threshold (at any time); net of refunds, when the period is
 * over and the net count reaches it. Never when an award for the period exists.
 */
export function awardDecision(
  terms: PerformanceTerms,
  period: Pick<Period, 'end'>,
  now: Date,
  measure: Pick<PartnerMeasure, 'recorded' | 'net'>,
  alreadyAwarded: boolean,
): { award: true; measured: number } | { award: false; reason: MeasureRefusal } {
  if (alreadyAwarded) return { award: false, reason: 'already_awarded' };
  if (terms.refundRule === 'net_of_refunds') {
    if (now.getTime() < period.end.getTime()) return { award: false, reason: 'period_open' };
    return measure.net >= terms.threshold ? { award: true, measured: measure.net } : { award: false, reason: 'below_threshold' };
  }
  return measure.recorded >= terms.threshold ? { award: true, measured: measure.recorded } : { award: false, reason: 'below_threshold' };
}

/** The partners of `measures` who earn the bounty now (each once), with what they reached. */
export function awardsDue(terms: PerformanceTerms, period: Pick<Period, 'end'>, now: Date, measures: PartnerMeasure[], awarded: ReadonlySet<number>): Array<{ partnerId: number; measured: number }> {
  const due: Array<{ partnerId: number; measured: number }> = [];
  const seen = new Set(awarded);
  for (const m of measures) {
    const decision = awardDecision(terms, period, now, m, seen.has(m.partnerId));
    if (decision.award) {
      seen.add(m.partnerId);
      due.push({ partnerId: m.partnerId, measured: decision.measured });
    }
  }
  return due;
}

/** Whether a performance bounty's evaluation at `now` can still award anything for `period`. */
export const periodStillOpenToAwards = (terms: Pick<PerformanceTerms, 'refundRule'>, period: Period, now: Date): boolean =>
  terms.refundRule === 'as_recorded' || now.getTime() >= period.end.getTime();

/** "Bounty 'Ten new customers in March' — 100.00 USD": every surface shows the commission so. */
export const bountyWords = (name: string, rewardCents: number, currency: Currency): string => `Bounty '${name}' — ${majorUnits(rewardCents, currency)} ${currency}`;

/** The performance terms in words: "10 new customers in a calendar month (UTC), net of refunds at the month's end". */
export function performanceWords(terms: PerformanceTerms): string {
  const what = terms.metric === 'new_customers' ? `${terms.threshold} new ${terms.threshold === 1 ? 'customer' : 'customers'}` : `${majorUnits(terms.threshold, terms.metricCurrency!)} ${terms.metricCurrency} in sales`;
  return `${what} in a calendar month (UTC), ${terms.refundRule === 'as_recorded' ? 'counting sales as recorded' : "net of refunds at the month's end"}`;
}
