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

export interface CommissionEligibilityInput {
  type: CommissionType;
  /** The sale says it is a renewal (is_recurring / subscription cycle). */
  isRecurring: boolean;
  /** When the customer's first commissionable sale happened, if any earlier one exists. */
  firstSaleAt: Date | null;
  occurredAt: Date;
  recurringDurationMonths: number | null;
}

export type CommissionEligibility = { eligible: true } | { eligible: false; reason: 'not_first_sale' | 'recurring_period_over' };

/**
 * percent / fixed pay on the customer's first sale only; a renewal (is_recurring, or any later
 * sale of the same customer) earns nothing. recurring_* pay on every sale, for
 * `recurringDurationMonths` after the first sale when that is set.
 */
export function commissionEligibility(input: CommissionEligibilityInput): CommissionEligibility {
  const isRenewal = input.isRecurring || input.firstSaleAt !== null;
  const recurringType = input.type === 'recurring_percent' || input.type === 'recurring_fixed';
  if (!recurringType) return isRenewal ? { eligible: false, reason: 'not_first_sale' } : { eligible: true };
  if (input.firstSaleAt && input.recurringDurationMonths) {
    const end = new Date(input.firstSaleAt);
    end.setUTCMonth(end.getUTCMonth() + input.recurringDurationMonths);
    if (input.occurredAt.getTime() >= end.getTime()) return { eligible: false, reason: 'recurring_period_over' };
  }
  return { eligible: true };
}
