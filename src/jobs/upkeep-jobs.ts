// Periodic upkeep, on pg-boss's clock like every periodic job (docs/operations.md, "Periodic work"):
// each run is a job on a singleton queue, so one instance does it at a time whatever runs, and a
// missed run (no worker up) happens at the next tick. Each step is idempotent and fails alone.
import type PgBoss from 'pg-boss';
import { forgetOldSignInPlaces } from '../app/accounts/access.js';
import { compactHourlyCounts } from '../db/tracking/hourly-counts.js';
import { compactPageRollups } from '../db/reads/page-rollups.js';
import { ensureClickPartitions } from '../db/infra/partitions.js';
import type { Pool } from '../db/infra/pool.js';
import { pruneRateLimitCounters } from '../db/infra/rate-limit.js';
import { purgeExpiredPayloads } from '../db/inbox/payload-retention.js';
import type { Logger } from '../platform/logger.js';
import { HOURLY_UPKEEP_QUEUE, HOUSEKEEPING_QUEUE } from '../core/queue-names.js';

export interface UpkeepDeps {
  pool: Pool;
  logger: Logger;
  now: () => Date;
  webhookRetentionDays: number;
}

/** Every minute: ended rate-limit windows, sign-in places no longer recent, webhook payloads past their retention. */
export async function housekeeping(deps: UpkeepDeps): Promise<void> {
  const now = deps.now();
  await pruneRateLimitCounters(deps.pool, now).catch((error) => deps.logger.warn({ err: error }, 'pruning rate-limit counters failed'));
  await forgetOldSignInPlaces(deps.pool, now).catch((error) => deps.logger.warn({ err: error }, 'pruning sign-in places failed'));
  await purgeExpiredPayloads(deps.pool, deps.webhookRetentionDays)
    .then((purged) => purged && deps.logger.info({ purged }, 'purged webhook payloads past their retention'))
    .catch((error) => deps.logger.warn({ err: error }, 'purging webhook payloads failed'));
}

/** Every hour: monthly click partitions made ahead, past hours' counter shards folded, the pages' rollup shards folded. */
export async function hourlyUpkeep(deps: UpkeepDeps): Promise<void> {
  const now = deps.now();
  await ensureClickPartitions(deps.pool, now)
    .then((created) => created.length && deps.logger.info({ created }, 'click partitions created'))
    .catch((error) => deps.logger.warn({ err: error }, 'creating click partitions failed; retried within the hour'));
  await compactHourlyCounts(deps.pool, now).catch((error) => deps.logger.warn({ err: error }, 'folding hourly counters failed; retried within the hour'));
  await compactPageRollups(deps.pool).catch((error) => deps.logger.warn({ err: error }, 'folding page rollups failed; retried within the hour'));
}

export async function startUpkeepJobs(boss: PgBoss, deps: UpkeepDeps): Promise<void> {
  await boss.work(HOUSEKEEPING_QUEUE, () => housekeeping(deps));
  await boss.work(HOURLY_UPKEEP_QUEUE, () => hourlyUpkeep(deps));
}
