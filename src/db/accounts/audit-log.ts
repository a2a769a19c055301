// The audit log: entries appended in the caller's transaction (the change and its record stand
// or fall together), and read per account or program with filters, newest first, by keyset.
import type { Actor, AuditEntry } from '../../core/audit.js';
import type { Pool, PoolClient } from '../infra/pool.js';

type Queryable = Pool | PoolClient;

/** Appends the entries in one statement; each names its program (the account follows from it) or the account. */
export async function appendAudit(client: Queryable, actor: Actor, entries: AuditEntry[], accountId: number | null = null): Promise<void> {
  if (entries.length === 0) return;
  await client.query(
    `INSERT INTO audit_log (account_id, program_id, actor_type, actor_id, actor_label, action, object_type, object_id, changes, ip)
     SELECT coalesce((SELECT account_id FROM programs WHERE id = e.program_id), $1), e.program_id, $2, $3, $4, e.action, e.object_type, e.object_id, e.changes, $5::inet
       FROM unnest($6::bigint[], $7::text[], $8::text[], $9::text[], $10::jsonb[]) AS e (program_id, action, object_type, object_id, changes)`,
    [
      accountId, actor.type, actor.id, actor.label, actor.ip,
      entries.map((e) => e.programId), entries.map((e) => e.action), entries.map((e) => e.objectType),
      entries.map((e) => (e.objectId === null ? null : String(e.objectId))), entries.map((e) => JSON.stringify(e.changes ?? {})),
    ],
  );
}

export interface AuditFilter {
  accountId: number | null;
  programId?: number | null;
  actorType?: string | null;
  objectType?: string | null;
  action?: string | null;
  beforeId?: number | null;
  /** With a program: the account's own entries too (its team, its programs being made). */
  withAccount?: boolean;
  limit: number;
}

export interface AuditRow {
  id: number;
  program_id: number | null;
  actor_type: string;
  actor_id: string | null;
  actor_label: string | null;
  action: string;
  object_type: string;
  object_id: string | null;
  changes: Record<string, { from: unknown; to: unknown }>;
  ip: string | null;
  created_at: Date;
}

export async function listAudit(db: Queryable, filter: AuditFilter): Promise<AuditRow[]> {
  const { rows } = await db.query(
    `SELECT id, program_id, actor_type, actor_id, actor_label, action, object_type, object_id, changes, host(ip) AS ip, created_at FROM audit_log
      WHERE ($1::bigint IS NULL OR account_id = $1) AND ($2::bigint IS NULL OR program_id = $2 OR ($8 AND program_id IS NULL AND account_id = $1))
        AND ($3::text IS NULL OR actor_type = $3)
        AND ($4::text IS NULL OR object_type = $4) AND ($5::text IS NULL OR action = $5) AND ($6::bigint IS NULL OR id < $6)
      ORDER BY id DESC LIMIT $7`,
    [filter.accountId, filter.programId ?? null, filter.actorType ?? null, filter.objectType ?? null, filter.action ?? null, filter.beforeId ?? null, filter.limit, filter.withAccount ?? false],
  );
  return rows.map((r) => ({ ...r, id: Number(r.id), program_id: r.program_id === null ? null : Number(r.program_id) }));
}
