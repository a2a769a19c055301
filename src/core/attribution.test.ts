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

describe('commissionEligibility: the first paid sale rule', () => {
  const sale = (days: number, transactionId = `in_${days}`) => ({ occurredAt: at(days), transactionId });
  const holding = (days: number, commissionId: number | null = 7, transactionId = `in_${days}`) => ({ firstSale: { ...sale(days, transactionId), saleId: 70, commissionId } });
  const base = { history: { firstSale: null }, sale: sale(0), recurringDurationMonths: null };

  it('percent and fixed pay on the customer\'s first paid sale, whatever billing_reason or isRecurring said (a trial\'s first paid invoice)', () => {
    for (const type of ['percent', 'fixed'] as const) {
      // The eligibility input has no "is recurring" at all: a subscription_cycle invoice after a trial is the first sale.
      expect(commissionEligibility({ ...base, type })).toEqual({ eligible: true, moveFrom: null });
      expect(commissionEligibility({ ...base, type, history: holding(-30) })).toEqual({ eligible: false, reason: 'not_first_sale' });
    }
  });

  it('an earlier sale processed later takes the first-sale commission from the later one', () => {
    const later = holding(1);
    expect(commissionEligibility({ ...base, type: 'percent', sale: sale(-1), history: later })).toEqual({ eligible: true, moveFrom: later.firstSale });
    // The later sale had no commission to give (no partner, failed): the earlier one simply earns.
    expect(commissionEligibility({ ...base, type: 'fixed', sale: sale(-1), history: holding(1, null) })).toEqual({ eligible: true, moveFrom: null });
  });

  it('two sales paid in the same second are ordered by transaction id, so every processing order agrees', () => {
    expect(commissionEligibility({ ...base, type: 'percent', sale: sale(0, 'in_a'), history: holding(0, 7, 'in_b') })).toMatchObject({ eligible: true });
    expect(commissionEligibility({ ...base, type: 'percent', sale: sale(0, 'in_b'), history: holding(0, 7, 'in_a') })).toEqual({ eligible: false, reason: 'not_first_sale' });
  });

  it('recurring types pay on every paid sale within duration_months of the first paid sale', () => {
    for (const type of ['recurring_percent', 'recurring_fixed'] as const) {
      expect(commissionEligibility({ ...base, type, history: holding(-300) })).toEqual({ eligible: true, moveFrom: null });
      const first = { firstSale: { occurredAt: new Date('2026-01-15T00:00:00Z'), transactionId: 'in_first', saleId: 1, commissionId: 1 } };
      const limited = { ...base, type, recurringDurationMonths: 3, history: first };
      expect(commissionEligibility({ ...limited, sale: { occurredAt: new Date('2026-04-14T23:59:59Z'), transactionId: 'in_x' } })).toEqual({ eligible: true, moveFrom: null });
      expect(commissionEligibility({ ...limited, sale: { occurredAt: new Date('2026-04-15T00:00:00Z'), transactionId: 'in_x' } })).toEqual({
        eligible: false,
        reason: 'duration_ended',
      });
      // The first paid sale processed after a renewal still starts the duration.
      const renewalSeen = { firstSale: { occurredAt: new Date('2026-05-15T00:00:00Z'), transactionId: 'in_r', saleId: 2, commissionId: 2 } };
      expect(commissionEligibility({ ...limited, history: renewalSeen, sale: { occurredAt: new Date('2026-01-15T00:00:00Z'), transactionId: 'in_f' } })).toEqual({
        eligible: true,
        moveFrom: null,
      });
    }
  });
});
