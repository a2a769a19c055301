// What every chaos run must show, whatever was done to it.
import { expect } from 'vitest';
import type { ChaosReport } from '../../scripts/lib/chaos.js';

export function expectNothingLostOrDoubled(report: ChaosReport): void {
  expect(report.lostEvents).toEqual([]);
  expect(report.duplicatedEvents).toEqual([]);
  expect(report.notProcessed).toEqual([]);
  expect(report.lostSales).toEqual([]);
  expect(report.duplicatedSales).toEqual([]);
  expect(report.wrongMoney).toEqual([]);
  expect(report.stuckJobs).toBe(0);
  expect(report.longestRecoveryMs).toBeLessThan(60_000);
}
