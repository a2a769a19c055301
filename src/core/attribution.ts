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

/** What the customer's other (non-test) sales say, whatever order they were recorded in. */
export interface SaleHistory {
  /** Earliest occurred_at of any other sale (start of a recurring duration). */
  firstSaleAt: Date | null;
  /** Earliest occurred_at of another sale that is not a renewal. */
  firstOneOffAt: Date | null;
  /** Another sale already holds the customer's first-sale commission. */
  firstSaleCommissioned: boolean;
}

/** The history of a customer without any sale (one created by the transaction recording its first). */
export const NO_SALES: SaleHistory = { firstSaleAt: null, firstOneOffAt: null, firstSaleCommissioned: false };

export interface CommissionEligibilityInput {
  type: CommissionType;
  /** The sale says it is a renewal (is_recurring / subscription cycle). */
  isRecurring: boolean;
  history: SaleHistory;
  occurredAt: Date;
  recurringDurationMonths: number | null;
}

/** Why a recorded sale carries no commission (stored on the sale, shown everywhere it is). */
export type CommissionReason = 'not_first_sale' | 'duration_ended' | 'test_mode' | 'no_partner' | 'commission_failed';

export type CommissionEligibility = { eligible: true } | { eligible: false; reason: Extract<CommissionReason, 'not_first_sale' | 'duration_ended'> };

/**
 * percent / fixed pay on the customer's first sale by occurred_at, never on a renewal: a
 * renewal processed before its first invoice leaves the first invoice its commission. One
 * first-sale commission per customer, whichever one-off sale was processed first.
 * recurring_* pay on every sale, for `recurringDurationMonths` after the first sale when set.
 */
export function commissionEligibility(input: CommissionEligibilityInput): CommissionEligibility {
  const { history, occurredAt } = input;
  const recurringType = input.type === 'recurring_percent' || input.type === 'recurring_fixed';
  if (!recurringType) {
    const earlierOneOff = history.firstOneOffAt !== null && history.firstOneOffAt.getTime() <= occurredAt.getTime();
    const first = !input.isRecurring && !earlierOneOff && !history.firstSaleCommissioned;
    return first ? { eligible: true } : { eligible: false, reason: 'not_first_sale' };
  }
  if (input.recurringDurationMonths) {
    const start = history.firstSaleAt && history.firstSaleAt.getTime() < occurredAt.getTime() ? history.firstSaleAt : occurredAt;
    const end = new Date(start);
    end.setUTCMonth(end.getUTCMonth() + input.recurringDurationMonths);
    if (occurredAt.getTime() >= end.getTime()) return { eligible: false, reason: 'duration_ended' };
  }
  return { eligible: true };
}
