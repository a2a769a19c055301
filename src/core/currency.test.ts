// The currency rule, the ISO 4217 digits table, money in each currency's own unit, and Stripe's units.
import { describe, expect, it } from 'vitest';
import { acceptedCurrency, minorUnitDigits, toCurrency } from './currency.js';
import { ISO_4217_MINOR_UNITS } from './iso-4217.js';
import { computeCommissionCents, formatMoney, majorUnits, parseMajorUnits } from './money.js';
import { fromStripeAmount, stripeDigits, toStripeAmount } from './stripe/amounts.js';

describe('the ISO 4217 table', () => {
  it('holds ISO digits, not CLDR display digits', () => {
    expect([minorUnitDigits('USD'), minorUnitDigits('JPY'), minorUnitDigits('KWD'), minorUnitDigits('VND'), minorUnitDigits('CLF')]).toEqual([2, 0, 3, 0, 4]);
    // Where Intl (CLDR) says otherwise, ISO wins: IDR and HUF have two digits, ISK and UGX none.
    expect([minorUnitDigits('IDR'), minorUnitDigits('HUF'), minorUnitDigits('ISK'), minorUnitDigits('UGX'), minorUnitDigits('MGA')]).toEqual([2, 2, 0, 0, 2]);
    expect(['BHD', 'IQD', 'JOD', 'KWD', 'LYD', 'OMR', 'TND'].every((code) => ISO_4217_MINOR_UNITS[code] === 3)).toBe(true);
    expect(Object.keys(ISO_4217_MINOR_UNITS).every((code) => /^[A-Z]{3}$/.test(code))).toBe(true);
    expect(Object.keys(ISO_4217_MINOR_UNITS).length).toBeGreaterThan(150);
  });

  it('toCurrency takes table codes in any case, nothing else', () => {
    expect([toCurrency('gbp'), toCurrency(' JPY '), toCurrency('XYZ'), toCurrency('XAU'), toCurrency('US'), toCurrency(12), toCurrency('constructor')]).toEqual(['GBP', 'JPY', null, null, null, null, null]);
  });
});

describe('acceptedCurrency: one rule for the API and every processor', () => {
  const contract = { acceptAllCurrencies: false };
  const all = { acceptAllCurrencies: true };
  it('missing means USD; the contract three always', () => {
    expect([acceptedCurrency(undefined, contract), acceptedCurrency('', contract), acceptedCurrency('eur', contract), acceptedCurrency('VND', contract)]).toEqual(['USD', 'USD', 'EUR', 'VND']);
  });
  it('others are the 422 with the code as sent, unless the program takes every currency', () => {
    expect(() => acceptedCurrency('gbp', contract)).toThrow(expect.objectContaining({ status: 422, message: 'currency gbp is not supported', init: expect.objectContaining({ code: 'unsupported_currency' }) }));
    expect(acceptedCurrency('gbp', all)).toBe('GBP');
    expect(acceptedCurrency('KWD', all)).toBe('KWD');
    expect(() => acceptedCurrency('XYZ', all)).toThrow('currency XYZ is not supported');
  });
});

describe('money in its own minor unit', () => {
  it('reads and writes amounts with the currency digits', () => {
    expect([majorUnits(4999, 'GBP'), majorUnits(5000, 'JPY'), majorUnits(12345, 'KWD'), majorUnits(-5, 'KWD'), majorUnits(123456, 'CLF')]).toEqual(['49.99', '5000', '12.345', '-0.005', '12.3456']);
    expect([parseMajorUnits('49.99', 'GBP'), parseMajorUnits('5,000', 'JPY'), parseMajorUnits('12.345', 'KWD'), parseMajorUnits('12.3', 'KWD')]).toEqual([4999, 5000, 12345, 12300]);
    expect([parseMajorUnits('50.5', 'JPY'), parseMajorUnits('1.2345', 'KWD'), parseMajorUnits('1.001', 'GBP')]).toEqual([null, null, null]);
    expect([formatMoney(4999, 'GBP'), formatMoney(5000, 'JPY'), formatMoney(12345, 'KWD'), formatMoney(150000, 'IDR')]).toEqual(['£49.99', '¥5,000', 'KWD\u00a012.345', 'IDR\u00a01,500.00']);
  });
  it('a fixed reward of 10 is 10 of the major unit in the minor unit of each currency', () => {
    const fixed = (amountCents: number, currency: 'GBP' | 'JPY' | 'KWD') => computeCommissionCents({ type: 'fixed', rate: '10', amountCents, currency });
    expect([fixed(4999, 'GBP'), fixed(5000, 'JPY'), fixed(12345, 'KWD')]).toEqual([1000, 10, 10000]);
  });
});

describe("Stripe's units", () => {
  it('zero-decimal, three-decimal and the special cases', () => {
    expect(['JPY', 'KRW', 'KWD', 'ISK', 'UGX', 'HUF', 'TWD', 'GBP'].map(stripeDigits)).toEqual([0, 0, 3, 2, 2, 2, 2, 2]);
  });
  it('amounts become ISO minor units', () => {
    expect([fromStripeAmount(5000, 'jpy'), fromStripeAmount(12340, 'kwd'), fromStripeAmount(4999, 'gbp'), fromStripeAmount(150000, 'huf')]).toEqual([5000, 12340, 4999, 150000]);
    expect([fromStripeAmount(500000, 'isk'), fromStripeAmount(700, 'ugx'), fromStripeAmount(500, 'mga')]).toEqual([5000, 7, 50000]);
    expect(fromStripeAmount(123, 'xyz')).toBe(123);
    expect(() => fromStripeAmount(550, 'isk')).toThrow(expect.objectContaining({ status: 400 }));
  });
  it('ISO minor units become Stripe amounts, the inverse, or why Stripe cannot take them', () => {
    expect(['ISK', 'UGX', 'MGA', 'JPY', 'USD', 'HUF', 'KWD'].map((code) => toStripeAmount(5000, code))).toEqual(
      [500000, 500000, 50, 5000, 5000, 5000, 5000].map((amount) => ({ amount })),
    );
    for (const [minor, code] of [[5000, 'ISK'], [50000, 'MGA'], [12340, 'KWD'], [4999, 'GBP']] as const) {
      expect(fromStripeAmount((toStripeAmount(minor, code) as { amount: number }).amount, code)).toBe(minor);
    }
    expect(toStripeAmount(50050, 'MGA')).toEqual({ problem: 'Stripe counts MGA in whole units; 50050 minor units is not a whole number of MGA' });
    expect(toStripeAmount(1235, 'KWD')).toEqual({ problem: 'Stripe takes KWD amounts only in multiples of 10 thousandths; 1235 would have to be rounded' });
    expect(toStripeAmount(100, 'XYZ')).toHaveProperty('problem');
  });
});

describe('withdrawn codes', () => {
  it('are never taken for a sale, but rows that carry one are still shown in its unit', () => {
    expect([toCurrency('HRK'), toCurrency('SLL')]).toEqual([null, null]);
    expect([minorUnitDigits('HRK'), minorUnitDigits('BYR')]).toEqual([2, 0]);
    expect(majorUnits(12345, 'HRK' as never)).toBe('123.45');
    expect(() => minorUnitDigits('XYZ')).toThrow();
  });
});
