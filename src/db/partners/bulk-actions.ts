// Bulk actions run as a job (migration 0038): the row that says what was asked and how far it
// got, and the job of its next chunk, written in the same transaction. An account has at most one
// bulk action under way: another waits (queued, without a job) until the one before it ends.
import type { Actor } from '../../core/audit.js';
import type { PartnerAction } from '../../core/partners.js';
import type { Role } from '../../core/permissions.js';
import { BULK_ACTIONS_QUEUE, JOB_SCHEMA } from '../../core/queue-names.js';
import { insertJobs } from '../infra/job-rows.js';
import type { PartnerFilter } from './list.js';
import type { Pool, PoolClient } from '../infra/pool.js';

type Queryable = Pool | PoolClient;


export type BulkActionState = 'queued' | 'running' | 'done' | 'failed';

export interface BulkActionParameters {
  reason: string | null;
  groupId: number | null;
  reapply: string;
}

export interface NewBulkAction {
  accountId: number;
  programId: number;
  scopeRole: 'operator' | Role;
  actor: Actor;
  action: PartnerAction;
  parameters: BulkActionParameters;
  selection: { partnerIds: number[] } | { filter: PartnerFilter };
  /** The ids given, or the partners the filter matched when asked. */
  expected: number;
}

/** How far a bulk action got: what its job writes as it goes. */
export interface BulkActionProgress {
  state: BulkActionState;
  requested: number;
  changed: number;
  skipped: Record<string, number>;
  linksCreated: number;
  chunksDone: number;
  /** Where the next chunk starts: after this many of the ids given, or after this partner id (a filter). */
  idsDone: number;
  doneUntil: number;
  error: string | null;
  createdAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
}

/** A stored bulk action: what was asked (as NewBulkAction) and how far it got. */
export interface BulkActionRow extends Omit<NewBulkAction, 'selection'>, BulkActionProgress {
  id: number;
  /** 'ids' or the filter; the ids themselves are read a chunk at a time (nextIdsGiven). */
  selection: 'ids' | PartnerFilter;
}

/** The job's data: the bulk action and which of its chunks this job runs (a stale job finds it done). */
export interface BulkActionJob {
  bulkActionId: number;
  chunk: number;
}

const COLUMNS = `id, account_id, program_id, scope_role, actor, action, parameters, partner_ids IS NOT NULL AS by_ids, filter, state, expected, requested,
  changed, skipped, links_created, chunks_done, ids_done, done_until, error, created_at, started_at, finished_at`;

const toRow = (r: any): BulkActionRow => ({
  id: Number(r.id),
  accountId: Number(r.account_id),
  programId: Number(r.program_id),
  scopeRole: r.scope_role,
  actor: r.actor,
  action: r.action,
  parameters: r.parameters,
  selection: r.by_ids ? 'ids' : r.filter,
  state: r.state,
  expected: r.expected,
  requested: r.requested,
  changed: r.changed,
  skipped: r.skipped,
  linksCreated: r.links_created,
  chunksDone: r.chunks_done,
  idsDone: r.ids_done,
  doneUntil: Number(r.done_until),
  error: r.error,
  createdAt: r.created_at,
  startedAt: r.started_at,
  finishedAt: r.finished_at,
});

/** The account's bulk actions start and end one at a time: who starts the next is decided under this lock. */
const lockAccountTurn = (client: PoolClient, accountId: number) =>
  client.query("SELECT pg_advisory_xact_lock(hashtextextended('affix:bulk-actions', $1::bigint))", [accountId]);

const jobOf = (schema: string, from: string, where?: string) =>
  insertJobs({ schema, queue: '$2', data: `jsonb_build_object('bulkActionId', ${from}.id, 'chunk', ${from}.chunks_done)`, from, where });

/**
 * Stores the bulk action; its first job is written with it when the account has no other under
 * way (otherwise it waits its turn: finishAndPassTurn starts it).
 */
export async function insertBulkAction(client: PoolClient, b: NewBulkAction, schema = JOB_SCHEMA): Promise<number> {
  await lockAccountTurn(client, b.accountId);
  const ids = 'partnerIds' in b.selection ? b.selection.partnerIds : null;
  const filter = 'filter' in b.selection ? b.selection.filter : null;
  // The new row is not visible to the statement's own NOT EXISTS: it sees only the others.
  const { rows } = await client.query(
    `WITH made AS (
       INSERT INTO bulk_actions (account_id, program_id, scope_role, actor, action, parameters, partner_ids, filter, expected)
       VALUES ($1, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING id, account_id, chunks_done
     ), job AS (
       ${jobOf(schema, 'made', "NOT EXISTS (SELECT 1 FROM bulk_actions o WHERE o.account_id = made.account_id AND o.state IN ('queued', 'running'))")}
     ) SELECT (SELECT id FROM made) AS id, (SELECT count(*) FROM job)::int AS jobs`,
    [b.accountId, BULK_ACTIONS_QUEUE, b.programId, b.scopeRole, JSON.stringify(b.actor), b.action, JSON.stringify(b.parameters), ids, filter && JSON.stringify(filter), b.expected],
  );
  return Number(rows[0].id);
}

/** The bulk action, locked for its chunk's transaction (a second job of the same one waits, then finds the chunk done). */
export async function lockBulkAction(client: PoolClient, id: number): Promise<BulkActionRow | null> {
  const { rows } = await client.query(`SELECT ${COLUMNS} FROM bulk_actions WHERE id = $1 FOR UPDATE`, [id]);
  return rows[0] ? toRow(rows[0]) : null;
}

/** The next ids of those given (a slice of the stored list, after the ones done). */
export async function nextIdsGiven(client: PoolClient, id: number, idsDone: number, limit: number): Promise<number[]> {
  const { rows } = await client.query('SELECT partner_ids[$2:$3] AS ids FROM bulk_actions WHERE id = $1', [id, idsDone + 1, idsDone + limit]);
  return (rows[0]?.ids ?? []).map(Number);
}

export interface ChunkProgress {
  requested: number;
  changed: number;
  skipped: Record<string, number>;
  linksCreated: number;
  idsDone: number;
  doneUntil: number;
  /** More may follow: the next chunk's job is written. */
  next: boolean;
}

/** A chunk done: its counts added and the next chunk's job written, in the chunk's transaction. */
export async function recordChunk(client: PoolClient, row: BulkActionRow, chunk: ChunkProgress, at: Date, schema = JOB_SCHEMA): Promise<void> {
  const skipped = { ...row.skipped };
  for (const [reason, n] of Object.entries(chunk.skipped)) skipped[reason] = (skipped[reason] ?? 0) + n;
  await client.query(
    `WITH moved AS (
       UPDATE bulk_actions SET state = 'running', started_at = coalesce(started_at, $3), requested = requested + $4, changed = changed + $5,
              skipped = $6, links_created = links_created + $7, ids_done = $10, done_until = $8, chunks_done = chunks_done + 1
        WHERE id = $1 RETURNING id, chunks_done
     ), job AS (${jobOf(schema, 'moved', '$9')})
     SELECT count(*) FROM job`,
    [row.id, BULK_ACTIONS_QUEUE, at, chunk.requested, chunk.changed, JSON.stringify(skipped), chunk.linksCreated, chunk.doneUntil, chunk.next, chunk.idsDone],
  );
}

/** The bulk action ended (done, or failed with why); the account's next waiting one gets its first job. */
export async function finishAndPassTurn(client: PoolClient, row: BulkActionRow, end: { state: 'done' } | { state: 'failed'; error: string }, at: Date, schema = JOB_SCHEMA): Promise<void> {
  await lockAccountTurn(client, row.accountId);
  const ended = await client.query(
    `UPDATE bulk_actions SET state = $2, error = $3, started_at = coalesce(started_at, $4), finished_at = $4 WHERE id = $1 AND state IN ('queued', 'running')`,
    [row.id, end.state, end.state === 'failed' ? end.error.slice(0, 500) : null, at],
  );
  // Ended before (a late dead letter): the turn was passed then.
  if (!ended.rowCount) return;
  await client.query(
    `WITH next AS (
       SELECT id, chunks_done FROM bulk_actions WHERE account_id = $1 AND state IN ('queued', 'running') ORDER BY id LIMIT 1
     ), job AS (${jobOf(schema, 'next')})
     SELECT count(*) FROM job`,
    [row.accountId, BULK_ACTIONS_QUEUE],
  );
}

/** The job's read before its transaction (the program it acts in). */
export async function getBulkActionById(db: Queryable, id: number): Promise<BulkActionRow | null> {
  const { rows } = await db.query(`SELECT ${COLUMNS} FROM bulk_actions WHERE id = $1`, [id]);
  return rows[0] ? toRow(rows[0]) : null;
}

/** One bulk action of the program (another program's is not found). */
export async function getBulkAction(db: Queryable, programId: number, id: number): Promise<BulkActionRow | null> {
  const { rows } = await db.query(`SELECT ${COLUMNS} FROM bulk_actions WHERE program_id = $1 AND id = $2`, [programId, id]);
  return rows[0] ? toRow(rows[0]) : null;
}
