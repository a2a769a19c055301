import { describe, expect, it } from 'vitest';
import { changeInWords, presetOf, presetPeriod, previousPeriod } from './periods.js';

const now = new Date('2026-11-24T15:30:00Z');

describe('periods', () => {
  it('presets end today (inclusive) and start where their words say', () => {
    expect(presetPeriod('7d', now)).toEqual({ from: new Date('2026-11-18T00:00:00Z'), to: new Date('2026-11-25T00:00:00Z') });
    expect(presetPeriod('month', now).from).toEqual(new Date('2026-11-01T00:00:00Z'));
    expect(presetPeriod('year', now).from).toEqual(new Date('2026-01-01T00:00:00Z'));
    expect(presetOf(presetPeriod('90d', now), now)).toBe('90d');
    expect(presetOf({ from: new Date('2026-11-02T00:00:00Z'), to: new Date('2026-11-25T00:00:00Z') }, now)).toBeNull();
  });

  it('the previous period is as long and ends where this one starts', () => {
    expect(previousPeriod(presetPeriod('30d', now))).toEqual({ from: new Date('2026-09-26T00:00:00Z'), to: new Date('2026-10-26T00:00:00Z') });
  });

  it('says the change in words', () => {
    expect([changeInWords(12, 10), changeInWords(5, 10), changeInWords(3, 0), changeInWords(0, 0), changeInWords(7, 7), changeInWords(1001, 1000)]).toEqual(['+20%', '−50%', 'new', '', 'no change', '+<1%']);
  });
});
