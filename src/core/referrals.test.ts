import { describe, expect, it } from 'vitest';
import { ownLinkCodeProblem } from './link-codes.js';
import { availableOn, maskedCustomer, referralStatus } from './referrals.js';

describe('what a partner sees of a customer', () => {
  it('masks an email to its first character and domain, any other id to its ends, and says when there is none', () => {
    expect(maskedCustomer('jane.doe@Example.COM')).toBe('j***@example.com');
    expect(maskedCustomer('ü@mail.example')).toBe('ü***@mail.example');
    expect(maskedCustomer('user_8812')).toBe('u***12');
    expect(maskedCustomer('abc')).toBe('***');
    expect(maskedCustomer('@handle')).toBe('@***le');
    expect(maskedCustomer(null)).toBe('no id given');
    expect(maskedCustomer('  ')).toBe('no id given');
  });

  it('lead, customer, or refunded once every sale is', () => {
    expect(referralStatus({ status: 'lead', sales: 0, refundedSales: 0 })).toBe('lead');
    expect(referralStatus({ status: 'customer', sales: 2, refundedSales: 1 })).toBe('customer');
    expect(referralStatus({ status: 'customer', sales: 2, refundedSales: 2 })).toBe('refunded');
    expect(referralStatus({ status: 'customer', sales: 0, refundedSales: 0 })).toBe('customer');
  });

  it('a commission is available when its hold ends; one never to be paid has no day', () => {
    const createdAt = new Date('2026-11-01T10:00:00Z');
    expect(availableOn({ state: 'pending', createdAt, holdDays: 30 })).toEqual(new Date('2026-12-01T10:00:00Z'));
    expect(availableOn({ state: 'paid', createdAt, holdDays: 0 })).toEqual(createdAt);
    for (const state of ['rejected', 'reversed', 'moved', 'test'] as const) expect(availableOn({ state, createdAt, holdDays: 30 })).toBeNull();
  });

  it('own link codes: format, then reserved words in any case', () => {
    expect(ownLinkCodeProblem('jane-2026')).toBeNull();
    expect(ownLinkCodeProblem('ab')).toMatch(/^Link code must be/);
    expect(ownLinkCodeProblem('WWW')).toMatch(/^This code is reserved/);
    expect(ownLinkCodeProblem('Affix_deals')).toMatch(/^This code is reserved/);
    expect(ownLinkCodeProblem('testing')).toBeNull();
  });
});
