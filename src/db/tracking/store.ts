// The core's Store over a pg pool.
import type { ApiKeyRecord, ClickPath, ReadinessFacts, Store, TrackingTx } from '../../core/ports.js';
import { PgClickPath } from './click-path.js';
import { hourOf } from './hourly-counts.js';
import { type Pool, withTransaction } from '../infra/pool.js';
import { prepared } from '../infra/prepared.js';
import { PgTrackingTx } from './tracking-tx.js';

/** The first whole hour after the readiness window's start ($2). */
const EDGE = `(${hourOf('$2::timestamptz')} + interval '1 hour')`;

export class PgStore implements Store {
  private readonly clicks: PgClickPath;

  /** `linkCacheMs`: how long the click path reuses a link it read (0, the default: never). */
  constructor(readonly pool: Pool, options: { linkCacheMs?: number } = {}) {
    this.clicks = new PgClickPath(pool, { ttlMs: options.linkCacheMs ?? 0 });
  }

  transaction<T>(fn: (tx: TrackingTx) => Promise<T>): Promise<T> {
    return withTransaction(this.pool, (client) => fn(new PgTrackingTx(client)));
  }

  clickPath(): ClickPath {
    return this.clicks;
  }

  async findApiKeyByHash(keyHash: Buffer): Promise<ApiKeyRecord | null> {
    const { rows } = await this.pool.query(prepared(
      `SELECT k.id, k.program_id, k.rotation_marked_at, k.rotate_by, k.revoked_at, a.suspended
         FROM api_keys k JOIN programs p ON p.id = k.program_id JOIN accounts a ON a.id = p.account_id
        WHERE k.key_hash = $1`,
      [keyHash],
    ));
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
    // Real traffic only (test events are counted nowhere here: migration 0051's partial index).
    // Flat in the history's size: "ever" is the first event of each kind and the last event the
    // index's end. The last 24 hours: whole hours from the hourly counters, and the events of
    // the first, partial hour counted by index (an hour's worth at most).
    const since = new Date(now.getTime() - 86_400_000);
    const { rows } = await this.pool.query(
      // The edge is the first whole hour after the window's (exclusive) start, written inline: an
      // expression the planner can bound an index range with (a CTE's value made it scan every
      // counter row of every program).
      `WITH last_day AS (
              SELECT kind, sum(events) AS n FROM tracking_hourly_counts WHERE program_id = $1 AND hour >= ${EDGE} GROUP BY kind
              UNION ALL
              -- Per kind, so each count is a range of the (program_id, kind, created_at) index.
              SELECT k.kind, (SELECT count(*) FROM tracking_events t
                               WHERE t.program_id = $1 AND t.kind = k.kind AND NOT t.test AND t.created_at > $2 AND t.created_at < ${EDGE})
                FROM (VALUES ('click'), ('lead'), ('sale')) AS k (kind))
       SELECT
         (SELECT count(*) FROM api_keys k
           WHERE k.program_id = $1 AND k.revoked_at IS NULL AND (k.rotate_by IS NULL OR k.rotate_by > $3)) AS active_keys,
         -- The test link (migration 0051) is no partner's working link.
         (SELECT count(*) FROM referral_links l JOIN partners p ON p.id = l.partner_id
           WHERE l.program_id = $1 AND l.enabled AND NOT p.test) AS active_links,
         (SELECT cardinality(allowed_origins) FROM programs WHERE id = $1) AS allowed_origins,
         -- The tracker's last refusal (migration 0051), while its origin is still not listed.
         (SELECT jsonb_build_object('origin', r.origin, 'at', r.refused_at) FROM refused_origins r JOIN programs p ON p.id = r.program_id
           WHERE r.program_id = $1 AND NOT p.allowed_origins @> ARRAY[r.origin]) AS refused_origin,
         -- "Ever" as the first event of the kind: one row at the start of the (program_id, kind,
         -- created_at) index. An EXISTS let the planner walk the table instead, betting that a
         -- kind common in the statistics turns up within a few rows (it does not when a program's
         -- leads or sales came after a million clicks: 90 ms a page at 10 M events). Only real
         -- traffic ticks a step (test events prove the wiring, and say so where they are sent):
         -- the partial index (migration 0051) starts at the first real event of the kind.
         (SELECT min(created_at) FROM tracking_events WHERE program_id = $1 AND kind = 'click' AND NOT test) IS NOT NULL AS click_seen,
         (SELECT min(created_at) FROM tracking_events WHERE program_id = $1 AND kind = 'lead' AND NOT test) IS NOT NULL AS lead_seen,
         (SELECT min(created_at) FROM tracking_events WHERE program_id = $1 AND kind = 'sale' AND NOT test) IS NOT NULL AS sale_seen,
         -- The last recorded, per kind on the (program_id, kind, created_at) index (there is no index of the program's events by recorded time alone, migration 0058).
         greatest((SELECT max(created_at) FROM tracking_events WHERE program_id = $1 AND kind = 'click'),
                  (SELECT max(created_at) FROM tracking_events WHERE program_id = $1 AND kind = 'lead'),
                  (SELECT max(created_at) FROM tracking_events WHERE program_id = $1 AND kind = 'sale')) AS last_event_at,
         (SELECT coalesce(sum(n), 0) FROM last_day WHERE kind = 'click')::int AS clicks_24h,
         (SELECT coalesce(sum(n), 0) FROM last_day WHERE kind = 'lead')::int AS leads_24h,
         (SELECT coalesce(sum(n), 0) FROM last_day WHERE kind = 'sale')::int AS sales_24h`,
      [programId, since, now],
    );
    const row = rows[0];
    return {
      activeKeys: row.active_keys,
      activeLinks: row.active_links,
      allowedOrigins: row.allowed_origins ?? 0,
      refusedOrigin: row.refused_origin ? { origin: row.refused_origin.origin, at: new Date(row.refused_origin.at) } : null,
      clickSeen: row.click_seen,
      leadSeen: row.lead_seen,
      saleSeen: row.sale_seen,
      lastEventAt: row.last_event_at,
      clicks24h: row.clicks_24h,
      leads24h: row.leads_24h,
      sales24h: row.sales_24h,
    };
  }
}
