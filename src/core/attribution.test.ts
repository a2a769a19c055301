import { describe, expect, it } from 'vitest';
import { checkAttributionWindow, clickStillAttributable, commissionEligibility } from './attribution.js';

const day = 86_400_000;
const t0 = new Date('2026-01-01T00:00:00Z');
const at = (days: number) => new Date(t0.getTime() + days * day);

describe('checkAttributionWindow', () => {
  const base = { clickedAt: t0, leadAt: null, convertedAt: null, windowDays: 30 };
  it('measures from signup when there is one', () => {
    expect(checkAttributionWindow({ ...base, leadAt: at(10), paymentAt: at(90) })).toEqual({ ok: true });
    expect(checkAttributionWindow({ ...base, leadAt: at(31), paymentAt: at(32) })).toEqual({ ok: false, clickAgeDays: 31, windowDays: 30 });
  });
  it('measures from the payment when there was no signup', () => {
    expect(checkAttributionWindow({ ...base, paymentAt: at(30) })).toEqual({ ok: true });
    expect(checkAttributionWindow({ ...base, paymentAt: at(45.5) })).toEqual({ ok: false, clickAgeDays: 45, windowDays: 30 });
  });
  it('is not re-checked once the customer converted', () => {
    expect(checkAttributionWindow({ ...base, paymentAt: at(400), convertedAt: at(5) })).toEqual({ ok: true });
  });
});

describe('clickStillAttributable', () => {
  it('holds through the last day of the window', () => {
    expect(clickStillAttributable(t0, 60, at(60))).toBe(true);
    expect(clickStillAttributable(t0, 60, at(60.01))).toBe(false);
  });
});

describe('commissionEligibility', () => {
  const none = { firstSaleAt: null, firstOneOffAt: null, firstSaleCommissioned: false };
  const base = { isRecurring: false, history: none, occurredAt: at(0), recurringDurationMonths: null };
  it('percent and fixed pay on the first sale by occurred_at only, never on a renewal', () => {
    for (const type of ['percent', 'fixed'] as const) {
      expect(commissionEligibility({ ...base, type })).toEqual({ eligible: true });
      const earlier = { firstSaleAt: at(-30), firstOneOffAt: at(-30), firstSaleCommissioned: true };
      expect(commissionEligibility({ ...base, type, history: earlier })).toEqual({ eligible: false, reason: 'not_first_sale' });
      expect(commissionEligibility({ ...base, type, isRecurring: true })).toEqual({ eligible: false, reason: 'not_first_sale' });
      // A renewal processed first (later occurred_at, no commission) does not take the first sale's place.
      const renewalFirst = { firstSaleAt: at(30), firstOneOffAt: null, firstSaleCommissioned: false };
      expect(commissionEligibility({ ...base, type, history: renewalFirst })).toEqual({ eligible: true });
      // A later one-off already paid: one first-sale commission per customer.
      const laterPaid = { firstSaleAt: at(5), firstOneOffAt: at(5), firstSaleCommissioned: true };
      expect(commissionEligibility({ ...base, type, history: laterPaid })).toEqual({ eligible: false, reason: 'not_first_sale' });
    }
  });
  it('recurring types pay on renewals, within duration_months of the first sale by occurred_at', () => {
    for (const type of ['recurring_percent', 'recurring_fixed'] as const) {
      const long = { firstSaleAt: at(-300), firstOneOffAt: at(-300), firstSaleCommissioned: true };
      expect(commissionEligibility({ ...base, type, isRecurring: true, history: long })).toEqual({ eligible: true });
      const first = { firstSaleAt: new Date('2026-01-15T00:00:00Z'), firstOneOffAt: null, firstSaleCommissioned: true };
      const limited = { ...base, type, isRecurring: true, recurringDurationMonths: 3, history: first };
      expect(commissionEligibility({ ...limited, occurredAt: new Date('2026-04-14T23:59:59Z') })).toEqual({ eligible: true });
      expect(commissionEligibility({ ...limited, occurredAt: new Date('2026-04-15T00:00:00Z') })).toEqual({
        eligible: false,
        reason: 'duration_ended',
      });
      // The first sale processed after a renewal still starts the duration.
      const renewalSeen = { firstSaleAt: new Date('2026-05-15T00:00:00Z'), firstOneOffAt: null, firstSaleCommissioned: false };
      expect(commissionEligibility({ ...limited, history: renewalSeen, occurredAt: new Date('2026-01-15T00:00:00Z') })).toEqual({ eligible: true });
    }
  });
});
