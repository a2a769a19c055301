// The core's Store over a pg pool.
import type { ApiKeyRecord, ReadinessFacts, Store, TrackingTx } from '../core/ports.js';
import { type Pool, withTransaction } from './pool.js';
import { PgTrackingTx } from './tracking-tx.js';

export class PgStore implements Store {
  constructor(readonly pool: Pool) {}

  transaction<T>(fn: (tx: TrackingTx) => Promise<T>): Promise<T> {
    return withTransaction(this.pool, (client) => fn(new PgTrackingTx(client)));
  }

  async findApiKeyByHash(keyHash: Buffer): Promise<ApiKeyRecord | null> {
    const { rows } = await this.pool.query(
      `SELECT k.id, k.program_id, k.rotation_marked_at, k.rotate_by, k.revoked_at, a.suspended
         FROM api_keys k JOIN programs p ON p.id = k.program_id JOIN accounts a ON a.id = p.account_id
        WHERE k.key_hash = $1`,
      [keyHash],
    );
    const row = rows[0];
    return row
      ? {
          keyId: row.id,
          programId: row.program_id,
          rotationMarkedAt: row.rotation_marked_at,
          rotateBy: row.rotate_by,
          revokedAt: row.revoked_at,
          accountSuspended: row.suspended,
        }
      : null;
  }

  async readinessFacts(programId: number, now: Date): Promise<ReadinessFacts> {
    // One pass over the program's tracking events for all the counts.
    const { rows } = await this.pool.query(
      `SELECT
         (SELECT count(*) FROM api_keys k
           WHERE k.program_id = $1 AND k.revoked_at IS NULL AND (k.rotate_by IS NULL OR k.rotate_by > $3)) AS active_keys,
         (SELECT count(*) FROM referral_links l JOIN partners p ON p.id = l.partner_id
           WHERE l.program_id = $1 AND l.enabled) AS active_links,
         (SELECT cardinality(allowed_origins) FROM programs WHERE id = $1) AS allowed_origins,
         e.*
         FROM (SELECT count(*) FILTER (WHERE kind = 'click') AS clicks_ever,
                      count(*) FILTER (WHERE kind = 'lead') AS leads_ever,
                      count(*) FILTER (WHERE kind = 'sale') AS sales_ever,
                      max(created_at) AS last_event_at,
                      count(*) FILTER (WHERE kind = 'click' AND created_at > $2) AS clicks_24h,
                      count(*) FILTER (WHERE kind = 'lead' AND created_at > $2) AS leads_24h,
                      count(*) FILTER (WHERE kind = 'sale' AND created_at > $2) AS sales_24h
                 FROM tracking_events WHERE program_id = $1) e`,
      [programId, new Date(now.getTime() - 86_400_000), now],
    );
    const row = rows[0];
    return {
      activeKeys: row.active_keys,
      activeLinks: row.active_links,
      allowedOrigins: row.allowed_origins ?? 0,
      clicksEver: row.clicks_ever,
      leadsEver: row.leads_ever,
      salesEver: row.sales_ever,
      lastEventAt: row.last_event_at,
      clicks24h: row.clicks_24h,
      leads24h: row.leads_24h,
      sales24h: row.sales_24h,
    };
  }
}
