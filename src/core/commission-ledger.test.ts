import { describe, expect, it } from 'vitest';
import { type CommissionPosition, approvalRefusal, movedAwayChange, payableBalances, payoutLines, releaseClaim } from './commission-ledger.js';

const position = (over: Partial<CommissionPosition> = {}): CommissionPosition => ({
  stage: 'pending', status: 'pending', payoutId: null, amountCents: 1000, deductedCents: 0, createdAt: new Date('2026-01-01T00:00:00Z'), autoApprove: true, test: false, ...over,
});

describe('movedAwayChange: the first-sale commission moved to an earlier sale leaves the balance', () => {
  it('unclaimed: its net leaves the bucket it sits in', () => {
    expect(movedAwayChange(position({ deductedCents: 200 }))).toMatchObject({ ledger: { kind: 'moved', pendingCents: -800, approvedCents: 0 }, clawbackCents: null });
    expect(movedAwayChange(position({ stage: 'held' }))).toMatchObject({ ledger: { kind: 'moved', pendingCents: -1000 } });
    expect(movedAwayChange(position({ stage: 'approved' }))).toMatchObject({ ledger: { kind: 'moved', approvedCents: -1000, pendingCents: 0 } });
  });
  it('claimed by a payout or paid: a clawback the next payout nets', () => {
    expect(movedAwayChange(position({ stage: 'approved', payoutId: 7 }))).toEqual({ ledger: expect.objectContaining({ kind: 'clawed_back', approvedCents: -1000 }), clawbackCents: -1000 });
    expect(movedAwayChange(position({ stage: 'paid', payoutId: 7 }))).toMatchObject({ clawbackCents: -1000 });
  });
  it('nothing to move: rejected, or already fully refunded', () => {
    expect(movedAwayChange(position({ stage: 'rejected' }))).toBeNull();
    expect(movedAwayChange(position({ deductedCents: 1000 }))).toBeNull();
  });
});

describe('releaseClaim: cancelling a payout releases exactly what it claimed', () => {
  it('drops clawbacks not netted yet and credits back, per commission, what another payout netted', () => {
    expect(
      releaseClaim([
        { id: 1, commissionId: 10, amountCents: -500, nettedByPayoutId: 2 },
        { id: 2, commissionId: 10, amountCents: -100, nettedByPayoutId: null },
        { id: 3, commissionId: 11, amountCents: -300, nettedByPayoutId: 2 },
        { id: 4, commissionId: 11, amountCents: 300, nettedByPayoutId: 3 },
      ]),
    ).toEqual({ drop: [2], credits: [{ commissionId: 10, amountCents: 500 }] });
    expect(releaseClaim([])).toEqual({ drop: [], credits: [] });
  });
});

describe('payout lines: minimums per currency', () => {
  it('a balance is paid when it reaches its own currency\'s minimum; a currency not named has none', () => {
    const balances = payableBalances([
      { kind: 'commission', id: 1, partnerId: 1, currency: 'USD', cents: 6000 },
      { kind: 'commission', id: 2, partnerId: 1, currency: 'VND', cents: 250_000 },
      { kind: 'commission', id: 3, partnerId: 2, currency: 'EUR', cents: 10 },
      { kind: 'commission', id: 4, partnerId: 2, currency: 'USD', cents: 5000 },
      { kind: 'clawback', id: 5, partnerId: 2, currency: 'USD', cents: -1000 },
    ]);
    expect(payoutLines(balances, () => ({ USD: 5000, VND: 1_000_000 }))).toEqual([
      { partnerId: 1, currency: 'USD', amountCents: 6000 },
      { partnerId: 2, currency: 'EUR', amountCents: 10 },
    ]);
  });

  it("each partner's own minimums (their group's) decide their lines", () => {
    const balances = payableBalances([
      { kind: 'commission', id: 1, partnerId: 1, currency: 'USD', cents: 3000 },
      { kind: 'commission', id: 2, partnerId: 2, currency: 'USD', cents: 3000 },
    ]);
    const minimums = new Map([[1, { USD: 2000 }], [2, { USD: 5000 }]]);
    expect(payoutLines(balances, (partnerId) => minimums.get(partnerId) ?? {})).toEqual([{ partnerId: 1, currency: 'USD', amountCents: 3000 }]);
  });
});

describe('approvalRefusal', () => {
  it('a test-mode commission is never approved, by hand or by the schedule', () => {
    expect(approvalRefusal(position({ test: true }), 0, new Date('2027-01-01'), true)).toBe('test_mode');
    expect(approvalRefusal(position({ test: true }), 0, new Date('2027-01-01'), false)).toBe('test_mode');
    expect(approvalRefusal(position(), 0, new Date('2027-01-01'), false)).toBeNull();
  });
});
