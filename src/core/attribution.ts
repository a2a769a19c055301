// Attribution rules of spec §3: the attribution window and which sales earn a commission.
import type { CommissionType } from './types.js';

const DAY_MS = 86_400_000;

export interface WindowInput {
  clickedAt: Date | null;
  leadAt: Date | null;
  paymentAt: Date;
  convertedAt: Date | null;
  windowDays: number;
}

export type WindowVerdict = { ok: true } | { ok: false; clickAgeDays: number; windowDays: number };

/**
 * A click older than the window relative to signup (or to the payment when there was no
 * signup) is not attributed. Once the customer has converted, later payments are not re-checked.
 */
export function checkAttributionWindow({ clickedAt, leadAt, paymentAt, convertedAt, windowDays }: WindowInput): WindowVerdict {
  if (convertedAt || !clickedAt) return { ok: true };
  const reference = leadAt ?? paymentAt;
  const ageMs = reference.getTime() - clickedAt.getTime();
  if (ageMs <= windowDays * DAY_MS) return { ok: true };
  return { ok: false, clickAgeDays: Math.floor(ageMs / DAY_MS), windowDays };
}

/** Whether a click is still inside the window at `now` (first-click keeps it until then). */
export function clickStillAttributable(clickedAt: Date, windowDays: number, now: Date): boolean {
  return now.getTime() - clickedAt.getTime() <= windowDays * DAY_MS;
}

/** A sale of the customer, as the first-sale rule compares them. */
export interface SaleKey {
  occurredAt: Date;
  transactionId: string;
}

/** The customer's earliest other paid sale and the commission it holds, if any. */
export interface FirstSale extends SaleKey {
  saleId: number;
  /** Its commission, unless it has none or it already moved. */
  commissionId: number | null;
}

/** What the customer's other (non-test) sales say, whatever order they were recorded in. */
export interface SaleHistory {
  /** The earliest other paid sale by occurred_at (ties: the smaller transaction id). */
  firstSale: FirstSale | null;
}

/** The history of a customer without any sale (one created by the transaction recording its first). */
export const NO_SALES: SaleHistory = { firstSale: null };

export interface CommissionEligibilityInput {
  type: CommissionType;
  history: SaleHistory;
  sale: SaleKey;
  recurringDurationMonths: number | null;
}

/** Why a recorded sale carries no commission (stored on the sale, shown everywhere it is). */
export type CommissionReason = 'not_first_sale' | 'duration_ended' | 'test_mode' | 'no_partner' | 'commission_failed' | 'no_reward_rule' | 'cap_reached';

export type CommissionEligibility =
  | {
      eligible: true;
      /** A later sale holds the first-sale commission: it moves to this one (docs/architecture.md, "Commission types"). */
      moveFrom: FirstSale | null;
    }
  | { eligible: false; reason: Extract<CommissionReason, 'not_first_sale' | 'duration_ended'> };

/** Sales are ordered by when they were paid, then by transaction id: every processing order agrees. */
export const isEarlier = (a: SaleKey, b: SaleKey): boolean =>
  a.occurredAt.getTime() < b.occurredAt.getTime() || (a.occurredAt.getTime() === b.occurredAt.getTime() && a.transactionId < b.transactionId);

/**
 * The first paid sale rule. percent / fixed pay once per customer, on its first paid sale by
 * occurred_at, whatever the processor's billing_reason or the API's isRecurring say (a trial's
 * first paid invoice is a "subscription_cycle"); $0 invoices never become sales. When an
 * earlier sale arrives after the one holding the commission, the commission moves to it.
 * recurring_* pay on every paid sale, for `recurringDurationMonths` after the first paid sale when set.
 */
export function commissionEligibility(input: CommissionEligibilityInput): CommissionEligibility {
  const { history, sale } = input;
  const first = history.firstSale;
  const isFirst = first === null || isEarlier(sale, first);
  const recurringType = input.type === 'recurring_percent' || input.type === 'recurring_fixed';
  if (!recurringType) {
    if (!isFirst) return { eligible: false, reason: 'not_first_sale' };
    return { eligible: true, moveFrom: first?.commissionId ? first : null };
  }
  if (input.recurringDurationMonths) {
    const start = isFirst ? sale.occurredAt : first.occurredAt;
    if (tenureMonth(start, sale.occurredAt) > input.recurringDurationMonths) return { eligible: false, reason: 'duration_ended' };
  }
  return { eligible: true, moveFrom: null };
}

const monthsAfter = (start: Date, months: number) => {
  const at = new Date(start);
  at.setUTCMonth(at.getUTCMonth() + months);
  return at;
};

/**
 * Which month of a customer's tenure (from their first paid sale at `start`) the instant `at` is
 * in: 1 until one calendar month after the start (UTC), then 2, and so on. "For N months" means
 * months 1 to N, for the program's recurring types and for reward rules alike.
 */
export function tenureMonth(start: Date, at: Date): number {
  const apart = (at.getUTCFullYear() - start.getUTCFullYear()) * 12 + (at.getUTCMonth() - start.getUTCMonth());
  let whole = Math.max(0, apart - 1);
  while (at.getTime() >= monthsAfter(start, whole + 1).getTime()) whole += 1;
  while (whole > 0 && at.getTime() < monthsAfter(start, whole).getTime()) whole -= 1;
  return whole + 1;
}
