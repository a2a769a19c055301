import { describe, expect, it } from 'vitest';
import { disputeEffect } from './disputes.js';

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
