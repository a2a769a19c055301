// Bulk actions on partners of any size (docs/partners.md). Up to INLINE_LIMIT partners run within
// the request, as partner-bulk.ts does them; more become a bulk action that the
// partner-bulk-actions job runs a chunk per transaction, recording its progress in that same
// transaction (a chunk done is never redone; an interrupted one is redone whole). An account's
// bulk actions run one at a time and each chunk is a job of its own, so brands take turns.
import { errors } from '../../core/errors.js';
import { ACTION_APPLIES_TO, type BulkReport, type ReapplyRule, addToReport, emptyReport } from '../../core/partners.js';
import * as bulkActions from '../../db/partners/bulk-actions.js';
import * as partnerListDb from '../../db/partners/list.js';
import { type PoolClient, withTransaction } from '../../db/infra/pool.js';
import { currentRoleOf } from '../../db/accounts/members.js';
import { allows } from '../../core/permissions.js';
import { type ManagementDeps, actorOf } from '../programs/management.js';
import { type Scope, programInScope, roleOf } from '../accounts/scope.js';
import { PARTNER_CHUNK, type PartnerDeps, checkBulkRequest, chunkAction, partnerChunkIn, runBulkInline } from './bulk-actions.js';

/** Selections up to this many partners run within the request (the page's flash stays immediate). */
export const INLINE_LIMIT = 1_000;

/** A bulk action as its asker reads it: the stored row without the scope, the parameters and the cursor. */
export type BulkActionView = Omit<bulkActions.BulkActionRow, 'accountId' | 'scopeRole' | 'actor' | 'parameters' | 'selection' | 'idsDone' | 'doneUntil'> & {
  selection: 'ids' | 'filter';
  askedBy: string;
};

const view = ({ accountId: _a, scopeRole: _s, actor, parameters: _p, selection, idsDone: _i, doneUntil: _d, ...row }: bulkActions.BulkActionRow): BulkActionView => ({
  ...row,
  selection: selection === 'ids' ? 'ids' : 'filter',
  askedBy: actor.label ?? actor.type,
});

export type BulkAnswer = { done: BulkReport & { links_created: number } } | { queued: BulkActionView };

/** A bulk request: done at once when small, otherwise stored for the job (the answer names it). */
export async function requestPartnerBulk(deps: PartnerDeps, scope: Scope, programId: number, input: unknown): Promise<BulkAnswer> {
  const request = await checkBulkRequest(deps, scope, programId, input);
  const expected =
    'partnerIds' in request.selection
      ? request.selection.partnerIds.length
      : await partnerListDb.countPartnersMatching(deps.pool, programId, request.selection.filter, ACTION_APPLIES_TO[request.action]);
  if (expected <= INLINE_LIMIT) return { done: await runBulkInline(deps, scope, request) };
  const id = await withTransaction(deps.pool, (client) =>
    bulkActions.insertBulkAction(client, {
      accountId: request.program.account_id,
      programId: request.program.id,
      scopeRole: roleOf(scope),
      actor: actorOf(scope),
      action: request.action,
      parameters: request.parameters,
      // Sorted: the job walks them by id, as it walks a filter's.
      selection: 'partnerIds' in request.selection ? { partnerIds: [...request.selection.partnerIds].sort((a, b) => a - b) } : request.selection,
      expected,
    }),
  );
  return { queued: (await showBulkAction(deps, scope, programId, id))! };
}

export async function showBulkAction(deps: ManagementDeps, scope: Scope, programId: number, id: number): Promise<BulkActionView> {
  await programInScope(deps, scope, programId);
  const row = Number.isSafeInteger(id) ? await bulkActions.getBulkAction(deps.pool, programId, id) : null;
  if (!row) throw errors.notFound('Bulk action not found');
  return view(row);
}

const scopeOf = (row: bulkActions.BulkActionRow): Scope =>
  row.scopeRole === 'operator' ? { kind: 'operator', actor: row.actor } : { kind: 'account', accountId: row.accountId, role: row.scopeRole, actor: row.actor };

export const ASKER_GONE = 'Stopped: the person who asked may no longer change partners (removed, a role without it, or the account suspended). What earlier chunks changed stays.';

/** Whether the asker (a member, a CLI token, or the account's own sign-in) still holds a role that may change partners; the operator always does. */
async function askerMayStill(client: PoolClient, row: bulkActions.BulkActionRow): Promise<boolean> {
  if (row.scopeRole === 'operator') return true;
  const id = row.actor.id ?? '';
  const memberId = id.startsWith('account:') ? null : Number(id);
  if (memberId !== null && !Number.isSafeInteger(memberId)) return false;
  const role = await currentRoleOf(client, row.accountId, memberId);
  return role !== null && allows(role, 'partners');
}

/**
 * The job: the bulk action's next chunk, in one transaction with its progress and the next
 * chunk's job. 'stale': this chunk was done already (a job retried after its commit), or the
 * bulk action ended.
 */
export async function runBulkActionChunk(deps: PartnerDeps, job: bulkActions.BulkActionJob): Promise<'chunk' | 'done' | 'stale'> {
  const first = await bulkActions.getBulkActionById(deps.pool, job.bulkActionId);
  if (!first) return 'stale';
  const program = await programInScope(deps, scopeOf(first), first.programId);
  return withTransaction(deps.pool, async (client) => {
    const row = await bulkActions.lockBulkAction(client, job.bulkActionId);
    if (!row || row.state === 'done' || row.state === 'failed' || row.chunksDone !== job.chunk) return 'stale';
    // Each chunk runs in the asker's name: one who has since been removed, lost the right, or whose
    // account was suspended stops the action here (what earlier chunks did stays, the report says why).
    if (!(await askerMayStill(client, row))) {
      await bulkActions.finishAndPassTurn(client, row, { state: 'failed', error: ASKER_GONE }, deps.now());
      return 'done';
    }
    const ids =
      row.selection === 'ids'
        ? await bulkActions.nextIdsGiven(client, row.id, row.idsDone, PARTNER_CHUNK)
        : await partnerListDb.partnerIdsMatching(client, row.programId, row.selection, ACTION_APPLIES_TO[row.action], row.doneUntil, PARTNER_CHUNK);
    const now = deps.now();
    if (ids.length > 0) {
      const parameters = { ...row.parameters, reapply: row.parameters.reapply as ReapplyRule };
      const action = chunkAction(program.name, row.action, parameters, deps.mailLinks ?? null);
      const { outcomes, linksCreated } = await partnerChunkIn(client, scopeOf(row), row.programId, action, ids, now);
      const report = emptyReport(row.action);
      for (const outcome of outcomes) addToReport(report, outcome);
      const last = ids.length < PARTNER_CHUNK;
      await bulkActions.recordChunk(client, row, { ...report, linksCreated, idsDone: row.idsDone + ids.length, doneUntil: ids[ids.length - 1]!, next: !last }, now);
      if (!last) return 'chunk';
    }
    await bulkActions.finishAndPassTurn(client, row, { state: 'done' }, now);
    return 'done';
  });
}

/** Out of retries: the bulk action says it failed (what its finished chunks changed stays), and the account's next one starts. */
export async function failBulkAction(deps: ManagementDeps, id: number, message: string): Promise<void> {
  await withTransaction(deps.pool, async (client) => {
    const row = await bulkActions.lockBulkAction(client, id);
    if (row) await bulkActions.finishAndPassTurn(client, row, { state: 'failed', error: message }, deps.now());
  });
}
