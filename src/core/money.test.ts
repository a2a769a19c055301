import { describe, expect, it } from 'vitest';
import { type RefundKind, type RefundState, applyRefund, commissionAtRefundedTotal, computeCommissionCents, parseMajorUnits, parseRate } from './money.js';

describe('parseRate', () => {
  it('scales decimals to four places', () => {
    expect(parseRate('20')).toBe(200000n);
    expect(parseRate('12.5')).toBe(125000n);
    expect(parseRate('0.0001')).toBe(1n);
  });
  it('refuses more than four decimals or garbage', () => {
    expect(() => parseRate('1.00001')).toThrow();
    expect(() => parseRate('-1')).toThrow();
    expect(() => parseRate('1e3')).toThrow();
  });
});

describe('computeCommissionCents', () => {
  const percent = (rate: string, amountCents: number) =>
    computeCommissionCents({ type: 'percent', rate, amountCents, currency: 'USD' });

  it('percent of the amount, rounded half up to a cent', () => {
    expect(percent('20', 4900)).toBe(980);
    expect(percent('12.5', 1001)).toBe(125); // 125.125
    expect(percent('10', 5)).toBe(1); // 0.5 rounds up
    expect(percent('10', 4)).toBe(0); // 0.4 rounds down
    expect(percent('33.3333', 1)).toBe(0);
    expect(percent('50', 1)).toBe(1); // 1 cent sale, half rounds up
  });

  it('recurring_percent uses the same arithmetic', () => {
    expect(computeCommissionCents({ type: 'recurring_percent', rate: '30', amountCents: 2999, currency: 'EUR' })).toBe(900);
  });

  it('fixed is an amount in the major unit of the sale currency, capped at the sale', () => {
    expect(computeCommissionCents({ type: 'fixed', rate: '10', amountCents: 4900, currency: 'USD' })).toBe(1000);
    expect(computeCommissionCents({ type: 'fixed', rate: '2.555', amountCents: 4900, currency: 'EUR' })).toBe(256);
    expect(computeCommissionCents({ type: 'recurring_fixed', rate: '5000', amountCents: 100000, currency: 'VND' })).toBe(5000);
    expect(computeCommissionCents({ type: 'fixed', rate: '10', amountCents: 500, currency: 'USD' })).toBe(500);
  });

  it('stays exact for amounts far beyond float-safe products', () => {
    expect(percent('33.3333', 9_000_000_000_000)).toBe(2_999_997_000_000);
  });
});

describe('applyRefund', () => {
  const fresh = (sale: number, commission: number): RefundState => ({
    saleAmountCents: sale,
    commissionAmountCents: commission,
    refundedTotalCents: 0,
    refundsCents: 0,
    deductedCents: 0,
    status: 'pending',
  });
  const next = (state: RefundState, requested: number | undefined, kind: RefundKind = 'refund'): RefundState => {
    const outcome = applyRefund(state, requested, kind);
    if (outcome.kind !== 'applied') throw new Error('expected applied');
    const refundsCents = state.refundsCents + (kind === 'refund' ? outcome.refundCents : 0);
    return { ...state, refundedTotalCents: outcome.refundedTotalCents, refundsCents, deductedCents: outcome.deductedCents, status: outcome.status };
  };

  it('amount omitted or 0 refunds the remainder and reverses', () => {
    for (const requested of [undefined, 0]) {
      const outcome = applyRefund(fresh(4900, 980), requested);
      expect(outcome).toEqual({ kind: 'applied', refundCents: 4900, refundedTotalCents: 4900, deductionCents: 980, deductedCents: 980, status: 'reversed' });
    }
  });

  it('partial refund reduces the commission proportionally', () => {
    expect(applyRefund(fresh(4900, 980), 1000)).toEqual({
      kind: 'applied', refundCents: 1000, refundedTotalCents: 1000, deductionCents: 200, deductedCents: 200, status: 'refunded',
    });
  });

  it('never refunds more than is left', () => {
    const state = next(fresh(1000, 200), 900);
    const outcome = applyRefund(state, 5000);
    expect(outcome).toMatchObject({ refundCents: 100, refundedTotalCents: 1000, status: 'reversed', deductedCents: 200 });
  });

  it('nothing left: skipped', () => {
    const state = next(fresh(1000, 200), undefined);
    expect(applyRefund(state, 10)).toEqual({ kind: 'skipped' });
  });

  it('many odd partial refunds sum exactly to the sale and the commission', () => {
    let state = fresh(1001, 333);
    let refunded = 0;
    let deducted = 0;
    for (const part of [1, 7, 13, 100, 333, 2, 500, 45]) {
      const outcome = applyRefund(state, part);
      if (outcome.kind !== 'applied') throw new Error('expected applied');
      refunded += outcome.refundCents;
      deducted += outcome.deductionCents;
      state = next(state, part);
    }
    expect(refunded).toBe(1001);
    expect(deducted).toBe(333);
    expect(state.status).toBe('reversed');
  });

  it('a refund while chargebacks cover the whole sale is counted by its own amount; the total stays at the sale', () => {
    const chargedBack = next(fresh(2900, 580), 2900, 'chargeback');
    expect(chargedBack).toMatchObject({ refundedTotalCents: 2900, deductedCents: 580, status: 'reversed' });
    expect(applyRefund(chargedBack, 1000)).toEqual({ kind: 'applied', refundCents: 1000, refundedTotalCents: 2900, deductionCents: 0, deductedCents: 580, status: 'reversed' });
    // Refunds themselves never pass the sale: only what other refunds left is counted.
    const refunded = next(chargedBack, 1000);
    expect(applyRefund(refunded, 5000)).toMatchObject({ refundCents: 1900, refundedTotalCents: 2900, deductionCents: 0 });
    expect(applyRefund(next(refunded, undefined), 1)).toEqual({ kind: 'skipped' });
    // A chargeback counts only what is not refunded yet.
    expect(applyRefund(refunded, 100, 'chargeback')).toEqual({ kind: 'skipped' });
  });

  it('the commission follows its running total both ways, exactly to the total\'s share', () => {
    const chargedBack = { ...fresh(2900, 580), refundedTotalCents: 2900, refundsCents: 1000, deductedCents: 580, status: 'reversed' as const };
    expect(commissionAtRefundedTotal(chargedBack, 1000)).toEqual({ refundedTotalCents: 1000, deductedCents: 200, restoredCents: 380, status: 'refunded' });
    expect(commissionAtRefundedTotal(chargedBack, 0)).toEqual({ refundedTotalCents: 0, deductedCents: 0, restoredCents: 580, status: 'pending' });
    expect(commissionAtRefundedTotal(fresh(2900, 580), 2900)).toEqual({ refundedTotalCents: 2900, deductedCents: 580, restoredCents: 0, status: 'reversed' });
  });

  it('a one-cent sale', () => {
    expect(applyRefund(fresh(1, 1), 1)).toMatchObject({ refundCents: 1, deductionCents: 1, status: 'reversed' });
    expect(applyRefund(fresh(1, 0), undefined)).toMatchObject({ refundCents: 1, deductionCents: 0, status: 'reversed' });
  });
});

describe('parseMajorUnits: amounts typed in the currency\'s own units', () => {
  it('reads whole and decimal amounts, with thousands separators, per currency', () => {
    expect(parseMajorUnits('50', 'USD')).toBe(5000);
    expect(parseMajorUnits('50.5', 'EUR')).toBe(5050);
    expect(parseMajorUnits('1,000.00', 'USD')).toBe(100000);
    expect(parseMajorUnits('500000', 'VND')).toBe(500000);
    for (const bad of ['50.001', '-5', 'ten', '', '5.0.0']) expect(parseMajorUnits(bad, 'USD')).toBeNull();
    expect(parseMajorUnits('1.5', 'VND')).toBeNull();
  });
});

describe('formatMoney', () => {
  it('reads like money in each currency: symbol, separators, no decimals for VND, exact at any size', async () => {
    const { formatMoney } = await import('./money.js');
    expect(formatMoney(123456, 'USD')).toBe('$1,234.56');
    expect(formatMoney('-150', 'EUR')).toBe('-€1.50');
    expect(formatMoney(250000, 'VND')).toBe('₫250,000');
    expect(formatMoney('100000000000000001', 'USD')).toBe('$1,000,000,000,000,000.01');
    expect(formatMoney(0, 'USD')).toBe('$0.00');
  });
});
