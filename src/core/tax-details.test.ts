import { describe, expect, it } from 'vitest';
import { linesByTaxDetails, maskedTin, parseTin } from './tax-details.js';

describe('parseTin', () => {
  it('takes 9 digits with or without the dashes of their kind, and refuses numbers that cannot be', () => {
    expect(parseTin('ssn', '123-45-6789')).toEqual({ digits: '123456789' });
    expect(parseTin('ssn', '123456789')).toEqual({ digits: '123456789' });
    expect(parseTin('ein', '12-3456789')).toEqual({ digits: '123456789' });
    expect(parseTin('ssn', '12-3456789')).toEqual({ problem: 'An SSN is written 123-45-6789.' });
    expect(parseTin('ssn', '1234-5678')).toEqual({ problem: 'An SSN has 9 digits, like 123-45-6789.' });
    for (const ssn of ['000-12-3456', '666-12-3456', '900-12-3456', '123-00-4567', '123-45-0000']) expect(parseTin('ssn', ssn)).toEqual({ problem: 'This is not a valid SSN: check the digits.' });
    expect(parseTin('ein', '07-1234567')).toEqual({ problem: 'This is not a valid EIN: its first two digits are not a prefix the IRS assigns.' });
  });

  it('is shown by its last 4 digits only', () => {
    expect(maskedTin('ssn', '6789')).toBe('•••-••-6789');
    expect(maskedTin('ein', '6789')).toBe('••-•••6789');
  });
});

describe('linesByTaxDetails', () => {
  const rule = { required: true, thresholds: { USD: 60_000 } };
  const paid = (cents: number) => () => cents;
  it('holds a line that brings the year to the threshold or more, per currency, for a partner without tax details', () => {
    const line = { partnerId: 1, currency: 'USD' as const, amountCents: 10_000 };
    expect(linesByTaxDetails([line], rule, paid(49_999), () => false).held).toEqual([]);
    expect(linesByTaxDetails([line], rule, paid(50_000), () => false).held).toEqual([{ ...line, paidThisYearCents: 50_000, thresholdCents: 60_000 }]);
    // With tax details, not required, or a currency without a threshold: paid.
    expect(linesByTaxDetails([line], rule, paid(90_000), () => true).held).toEqual([]);
    expect(linesByTaxDetails([line], { ...rule, required: false }, paid(90_000), () => false).held).toEqual([]);
    expect(linesByTaxDetails([{ ...line, currency: 'EUR' }], rule, paid(90_000), () => false).held).toEqual([]);
  });
});
