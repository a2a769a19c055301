// A primary failover under load (docs/database-pooler.md): Debian's PostgreSQL 15, a primary and
// a synchronous standby behind an endpoint; webhooks of the three processors arriving, workers
// killed; the primary is killed, the standby promoted and the endpoint switched. Each event is
// delivered until its first 2xx only: every acknowledged event must be in the inbox, once, and
// processed once, with its sale and commission exact.
import { expect, it } from 'vitest';
import { formatReport, runChaos } from '../scripts/lib/chaos.js';
import { hasReplicationServers } from '../scripts/lib/replicated-postgres.js';
import { expectNothingLostOrDoubled } from './support/chaos.js';

if (!hasReplicationServers()) console.warn("[failover] Debian's PostgreSQL 15 is not installed (scripts/install-test-servers.sh): the failover test is skipped");

it.skipIf(!hasReplicationServers())('loses no acknowledged webhook when the primary fails over to its synchronous standby', async () => {
  const report = await runChaos({ events: 40, workerKills: 3, killEveryMs: 3_000, apiKills: 0, databaseRestarts: 1, inFlight: 8, failover: true });
  console.log(`[failover]\n${formatReport(report)}`);
  expect(report.failover).toBeDefined();
  expect(report.deliveries).toBe(report.events);
  expectNothingLostOrDoubled(report);
  expect(Number.isFinite(report.failover!.serveAgainMs)).toBe(true);
}, 300_000);
