import { describe, expect, it } from 'vitest';
import { countedChargebackCents, disputeEffect, refundedTotalCents } from './disputes.js';

describe('disputeEffect: only money the processor takes back changes a commission', () => {
  it('an inquiry changes nothing, opened or closed', () => {
    for (const status of ['warning_needs_response', 'warning_under_review', 'warning_closed']) {
      expect(disputeEffect('created', status).effect).toBe('none');
      expect(disputeEffect('closed', status).effect).toBe('none');
    }
  });
  it('a dispute that withdraws funds deducts; lost keeps (or makes) the deduction; won gives it back', () => {
    expect(disputeEffect('created', 'needs_response').effect).toBe('deduct');
    expect(disputeEffect('created', 'under_review').effect).toBe('deduct');
    expect(disputeEffect('funds_withdrawn', 'needs_response').effect).toBe('deduct');
    expect(disputeEffect('closed', 'lost').effect).toBe('deduct');
    expect(disputeEffect('closed', 'won').effect).toBe('restore');
    expect(disputeEffect('funds_reinstated', 'won').effect).toBe('restore');
  });
  it('a dispute closed by a refund leaves the money to the refund (never deducted twice)', () => {
    expect(disputeEffect('closed', 'charge_refunded').effect).toBe('restore');
  });
});

describe('countedChargebackCents: chargebacks count what stands, within what other refunds left', () => {
  it.each([
    [2900, 0, 0, 2900],
    [2900, 0, 2000, 900],
    [2900, 1000, 2000, 900],
    [2900, 2900, 2000, 0],
    [1000, 400, 0, 600],
    [400, 1000, 0, 0],
    [500, 0, 3000, 0],
  ])('taken %i, given back %i, other refunds %i of 2900: %i', (taken, givenBack, other, counted) => {
    expect(countedChargebackCents(taken, givenBack, 2900, other)).toBe(counted);
  });
});

describe('refundedTotalCents: refunds by their own amounts, chargebacks only what refunds leave', () => {
  it.each([
    // refunds, standing chargebacks of a 2900 sale: total
    [0, 2900, 2900],
    [1000, 2900, 2900],
    [1000, 0, 1000],
    [2000, 1900, 2900],
    [2000, 500, 2500],
    [2900, 2900, 2900],
    [0, 0, 0],
    [-100, 500, 500],
  ])('refunds %i, chargebacks %i of 2900: %i', (refunds, chargebacks, total) => {
    expect(refundedTotalCents(2900, refunds, chargebacks)).toBe(total);
  });

  it('a chargeback reversed after a refund leaves the refund counted, in any order of the three', () => {
    // chargeback 2900, refund 1000, chargeback reversed: what stands at each step
    expect([refundedTotalCents(2900, 0, 2900), refundedTotalCents(2900, 1000, 2900), refundedTotalCents(2900, 1000, 0)]).toEqual([2900, 2900, 1000]);
  });
});
