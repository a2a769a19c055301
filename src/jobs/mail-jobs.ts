// Job handlers for mail: the daily commission digest and the managers' daily summary (the mail
// itself is sent from the outbox by the mail senders, src/jobs/mail-sender.ts).
import type PgBoss from 'pg-boss';
import { queueCommissionDigests, queueDailySummaries } from '../app/outbound/mail.js';
import type { Pool } from '../db/infra/pool.js';
import type { Logger } from '../platform/logger.js';
import { DIGEST_QUEUE } from '../core/queue-names.js';

export async function startMailJobs(boss: PgBoss, deps: { pool: Pool; logger: Logger; publicUrl: string; now: () => Date }): Promise<void> {
  await boss.work(DIGEST_QUEUE, async () => {
    const queued = await queueCommissionDigests(deps);
    const summaries = await queueDailySummaries(deps);
    deps.logger.info({ job: 'commission-digests', queued, summaries }, 'commission digests and daily summaries');
  });
}
