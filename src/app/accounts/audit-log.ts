// Reading the audit log (docs/audit.md): a brand reads its own account's entries (the program's
// page filters by program); the operator reads any. Newest first, by keyset; CSV of a filter.
import { readSide } from '../reads/read-side.js';
import { z } from 'zod';
import { ACTOR_TYPES } from '../../core/audit.js';
import { csvField } from '../../core/csv.js';
import { listAudit } from '../../db/accounts/audit-log.js';
import { type ManagementDeps, parseInput } from '../programs/management.js';
import { type Scope, programInScope } from './scope.js';

export const query = z.object({
  program_id: z.coerce.number().int().positive().optional(),
  account_id: z.coerce.number().int().positive().optional(),
  actor_type: z.enum(ACTOR_TYPES).optional().or(z.literal('').transform(() => undefined)),
  object_type: z.string().trim().max(40).optional().or(z.literal('').transform(() => undefined)),
  action: z.string().trim().max(80).optional().or(z.literal('').transform(() => undefined)),
  before: z.coerce.number().int().positive().optional(),
  with_account: z.union([z.boolean(), z.enum(['true', 'false']).transform((v) => v === 'true')]).optional(),
  limit: z.coerce.number().int().min(1).max(1000).optional(),
});

async function filterFor(deps: ManagementDeps, scope: Scope, input: unknown) {
  const q = parseInput(query, input);
  const program = q.program_id !== undefined ? await programInScope(deps, scope, q.program_id) : null;
  const withAccount = Boolean(q.with_account && program);
  return {
    withAccount,
    accountId: scope.kind === 'account' ? scope.accountId : withAccount ? program!.account_id : (q.account_id ?? null),
    programId: q.program_id ?? null,
    actorType: q.actor_type ?? null,
    objectType: q.object_type ?? null,
    action: q.action ?? null,
    beforeId: q.before ?? null,
    limit: q.limit ?? 100,
  };
}

export async function auditLog(deps: ManagementDeps, scope: Scope, input: unknown) {
  const filter = await filterFor(deps, scope, input);
  const rows = await listAudit(deps.pool, { ...filter, limit: filter.limit + 1 });
  const page = rows.slice(0, filter.limit);
  return { entries: page, next_cursor: rows.length > filter.limit ? String(page[page.length - 1]!.id) : null };
}

const COLUMNS = ['id', 'created_at', 'program_id', 'actor_type', 'actor_id', 'actor_label', 'ip', 'action', 'object_type', 'object_id', 'changes'] as const;

/** The entries a filter matches as CSV (formula-safe), newest first, up to 100,000: a chunk per page of 1,000 as it is read. */
export async function* auditCsv(deps: ManagementDeps, scope: Scope, input: unknown): AsyncGenerator<string> {
  const filter = await filterFor(deps, scope, input);
  yield `${COLUMNS.join(',')}\r\n`;
  let before: number | null = filter.beforeId;
  for (let written = 0; written < 100_000; ) {
    const rows = await listAudit(readSide(deps).pool, { ...filter, beforeId: before, limit: Math.min(1000, 100_000 - written) });
    yield rows.map((row) => `${COLUMNS.map((c) => csvField(c === 'changes' ? JSON.stringify(row.changes) : row[c])).join(',')}\r\n`).join('');
    written += rows.length;
    if (rows.length < 1000) return;
    before = rows[rows.length - 1]!.id;
  }
}
