// The workers' view of the intake's pace (src/core/intake-rate.ts): above the threshold, the
// fetchers beyond the first wait; a second after the burst, all fetch again.
import { describe, expect, it } from 'vitest';
import { IntakeRate, intakeBusy, readWake, wakePayload } from '../src/core/intake-rate.js';

describe('IntakeRate', () => {
  it('counts the events of the last second only', () => {
    const rate = new IntakeRate();
    rate.add(100, 10_000);
    rate.add(150, 10_450);
    rate.add(50, 10_990);
    expect(rate.perSecond(10_999)).toBe(300);
    // 10_000's slot has left the window at 11_000; the others at 11_400 and 11_900.
    expect(rate.perSecond(11_050)).toBe(200);
    expect(rate.perSecond(11_450)).toBe(50);
    expect(rate.perSecond(12_000)).toBe(0);
  });

  it('forgets everything after a long quiet spell, and counts anew', () => {
    const rate = new IntakeRate();
    rate.add(500, 1_000);
    rate.add(7, 60_000);
    expect(rate.perSecond(60_010)).toBe(7);
  });

  it('is busy only above the threshold, and never with 0', () => {
    const rate = new IntakeRate();
    rate.add(300, 5_000);
    expect(intakeBusy(rate, 300, 5_100)).toBe(false);
    rate.add(1, 5_200);
    expect(intakeBusy(rate, 300, 5_300)).toBe(true);
    expect(intakeBusy(rate, 0, 5_300)).toBe(false);
    expect(intakeBusy(rate, 300, 6_300)).toBe(false);
  });

  it("reads a wake-up's counts: new events and deliveries; one without a count stands for one new event", () => {
    expect(readWake('32')).toEqual({ newEvents: 32, received: 32 });
    expect(readWake('0 32')).toEqual({ newEvents: 0, received: 32 });
    expect(readWake('3 32')).toEqual({ newEvents: 3, received: 32 });
    expect(readWake('')).toEqual({ newEvents: 1, received: 1 });
    expect(readWake(undefined)).toEqual({ newEvents: 1, received: 1 });
    expect(readWake('x')).toEqual({ newEvents: 1, received: 1 });
    expect(readWake('0')).toEqual({ newEvents: 1, received: 1 });
    // Fewer deliveries than new events cannot be: read as the new events alone.
    expect(readWake('5 2')).toEqual({ newEvents: 5, received: 5 });
    expect(readWake('-1 4')).toEqual({ newEvents: 1, received: 1 });
    for (const wake of [{ newEvents: 32, received: 32 }, { newEvents: 0, received: 32 }, { newEvents: 3, received: 7 }]) expect(readWake(wakePayload(wake))).toEqual(wake);
  });
});
