// A smaller chaos run than `npm run chaos`, on every test run: 60 events delivered 2-3 times,
// shuffled, while workers are SIGKILLed, the API once, and PostgreSQL restarts once.
import { expect, it } from 'vitest';
import { formatReport, runChaos } from '../scripts/lib/chaos.js';
import { expectNothingLostOrDoubled } from './support/chaos.js';

it('loses and doubles nothing while processes are killed and the database restarts', async () => {
  const report = await runChaos({ events: 60, workerKills: 5, killEveryMs: 3_000, apiKills: 1, databaseRestarts: 1, inFlight: 16 });
  console.log(`[chaos]\n${formatReport(report)}`);
  expect(report.workerKills).toBe(5);
  // Paddle's and Lemon Squeezy's events ride the same chaos as Stripe's.
  expect(report.byProcessor.paddle).toBeGreaterThan(5);
  expect(report.byProcessor.lemonsqueezy).toBeGreaterThan(5);
  expect(report.apiKills).toBe(1);
  expect(report.databaseRestarts).toBe(1);
  expectNothingLostOrDoubled(report);
}, 300_000);
