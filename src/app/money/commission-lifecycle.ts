// A commission's life before it is paid: the scheduled approval, a manager's approve, unapprove,
// release and reject (one, or in bulk by ids or a filter), and the commission list. Shared by the
// admin API, the dashboard, the CLI and the scheduled job; every change is one transaction with
// its ledger entries and outbound events.
import { z } from 'zod';
import { COMMISSION_STATES, approvalRefusal, approvedEntry, netCents, pastHold, rejectedEntry, releasedEntry, reviewRefusal, unapprovalRefusal, unapprovedEntry } from '../../core/commission-ledger.js';
import { errors } from '../../core/errors.js';
import { type BulkReport, COMMISSION_ACTIONS, type CommissionAction, addToReport, emptyReport } from '../../core/partners.js';
import type { Currency } from '../../core/types.js';
import type { OutboundEvent } from '../../core/outbound-events.js';
import { DEFAULT_OUTBOUND_QUEUE, writeMessages } from '../../db/outbound/messages.js';
import * as payouts from '../../db/money/commissions-and-payouts.js';
import { type PoolClient, withTransaction } from '../../db/infra/pool.js';
import { type ManagementDeps, audit, parseInput } from '../programs/management.js';
import { type Scope, programInScope } from '../accounts/scope.js';
import { SYSTEM } from '../../core/audit.js';

const commissionData = (c: payouts.CommissionRow) => ({
  program_id: c.programId,
  commission_id: c.id,
  sale_id: c.saleId,
  transaction_id: c.transactionId,
  partner_id: c.partnerId,
  amount_cents: netCents(c),
  currency: c.currency,
});

/**
 * A commission as the API answers it: its one state (the commission_states view) and amounts.
 * The stored `stage` and refund `status` stay out: a moved commission keeps both `pending`
 * and an integration reading either would wait for money that never comes.
 */
export const commissionAnswer = ({ stage: _stage, status: _status, ...answer }: payouts.CommissionRow) => answer;

const approveEvent = (c: payouts.CommissionRow): OutboundEvent => ({
  programId: c.programId,
  type: 'commission.approved',
  test: c.test,
  // The writer adds the commission's state (db/outbound/messages.ts).
  data: commissionData(c),
});

/** The scheduled approval acts as the system (the audit log says so). */
const SCHEDULE: Scope = { kind: 'operator', actor: SYSTEM('scheduled approval') };

/** How many commissions the scheduled approval takes per transaction. */
export const APPROVAL_BATCH = 500;

/**
 * The scheduled approval: every pending commission whose hold is over (and that no manager took
 * back) becomes approved. Batches of APPROVAL_BATCH; returns how many it approved.
 */
export async function approveDueCommissions(deps: ManagementDeps): Promise<number> {
  let total = 0;
  for (;;) {
    const now = deps.now();
    const approved = await withTransaction(deps.pool, async (client) => {
      const candidates = await payouts.lockApprovalCandidates(client, now, APPROVAL_BATCH);
      const due = candidates.filter((c) => approvalRefusal(c, c.holdDays, now, false) === null);
      await payouts.changeStage(client, 'approved', due.map((c) => ({ commission: c, entry: approvedEntry(c, null) })), { at: now });
      await audit(client, SCHEDULE, due.map((c) => ({ programId: c.programId, action: 'commission.approve', objectType: 'commission', objectId: c.id, changes: { stage: { from: 'pending', to: 'approved' } } })));
      // One statement per program for the batch's events.
      for (const programId of new Set(due.map((c) => c.programId))) {
        await writeMessages(client, DEFAULT_OUTBOUND_QUEUE, programId, due.filter((c) => c.programId === programId).map(approveEvent));
      }
      return { due: due.length, seen: candidates.length };
    });
    total += approved.due;
    if (approved.seen < APPROVAL_BATCH) return total;
  }
}

export const reasonInput = z.object({
  reason: z.string({ error: 'Give a reason.' }).trim().min(1, 'Give a reason.').max(500, 'A reason is at most 500 characters.'),
});

/** An approval's reason is optional (kept in the ledger when given): approving is the everyday step, one click. */
export const approvalReasonInput = z.object({
  reason: z
    .string({ error: 'A reason is text.' })
    .trim()
    .max(500, 'A reason is at most 500 characters.')
    .nullish()
    .transform((reason) => reason || null),
});

const REFUSALS: Record<string, string> = {
  not_pending: 'Only a pending commission can be approved',
  reversed: 'A reversed commission cannot be approved',
  not_approved: 'Only an approved commission can be taken back',
  in_payout: 'This commission is in a payout; cancel the payout first',
  held: 'This commission is held for review: release it first',
  not_held: 'Only a held commission can be released or rejected',
  test_mode: 'A test-mode commission is never approved or paid',
};

async function withCommission<T>(
  deps: ManagementDeps,
  scope: Scope,
  programId: number,
  commissionId: number,
  fn: (client: PoolClient, commission: payouts.CommissionRow) => Promise<T>,
): Promise<T> {
  await programInScope(deps, scope, programId);
  return withTransaction(deps.pool, async (client) => {
    const commission = Number.isSafeInteger(commissionId) ? await payouts.lockCommission(client, programId, commissionId) : null;
    if (!commission) throw errors.notFound('Commission not found');
    return fn(client, commission);
  });
}

/** A manager approves a commission, also before its hold is over; the reason goes in the ledger. A bulk action of one. */
export async function approveCommission(deps: ManagementDeps, scope: Scope, programId: number, commissionId: number, input: unknown) {
  return commissionActionOfOne(deps, scope, programId, commissionId, 'approve', input);
}

/** Takes an approval back (with a reason): pending again, and the schedule leaves it to the manager. */
export async function unapproveCommission(deps: ManagementDeps, scope: Scope, programId: number, commissionId: number, input: unknown) {
  const { reason } = parseInput(reasonInput, input);
  return withCommission(deps, scope, programId, commissionId, async (client, commission) => {
    const refusal = unapprovalRefusal(commission);
    if (refusal) throw errors.conflict(REFUSALS[refusal]!, refusal);
    await payouts.changeStage(client, 'pending', [{ commission, entry: unapprovedEntry(commission, reason) }], { at: deps.now(), autoApprove: false });
    await audit(client, scope, [{ programId, action: 'commission.unapprove', objectType: 'commission', objectId: commission.id, changes: { stage: { from: 'approved', to: 'pending' }, reason: { from: null, to: reason } } }]);
    return commissionAnswer((await payouts.getCommission(client, programId, commission.id))!);
  });
}

/** A held commission (fraud signal) is fine after all: pending again, approved after its hold period. */
export async function releaseCommission(deps: ManagementDeps, scope: Scope, programId: number, commissionId: number, input: unknown) {
  return commissionActionOfOne(deps, scope, programId, commissionId, 'release', input);
}

/** A held commission is fraud: it is never owed (a refund later changes nothing). */
export async function rejectCommission(deps: ManagementDeps, scope: Scope, programId: number, commissionId: number, input: unknown) {
  return commissionActionOfOne(deps, scope, programId, commissionId, 'reject', input);
}

/** One commission's action: the bulk path with one id; a refusal is the answer (409, or 404 when not the program's). */
async function commissionActionOfOne(deps: ManagementDeps, scope: Scope, programId: number, commissionId: number, action: CommissionAction, input: unknown) {
  const { reason } = parseInput(action === 'approve' ? approvalReasonInput : reasonInput, input);
  if (!Number.isSafeInteger(commissionId)) throw errors.notFound('Commission not found');
  const report = await commissionBulk(deps, scope, programId, { action, commission_ids: [commissionId], reason });
  const [refusal] = Object.keys(report.skipped);
  if (refusal === 'not_found') throw errors.notFound('Commission not found');
  if (refusal) throw errors.conflict(REFUSALS[refusal] ?? refusal, refusal);
  return commissionAnswer((await payouts.getCommission(deps.pool, programId, commissionId))!);
}

/** How many commissions one transaction of a bulk action changes. */
export const BULK_CHUNK = 500;

const DAY_OR_INSTANT = z.coerce.date({ error: 'Give a date like 2026-01-31.' });

export const commissionFilterInput = z.object({
  state: z.enum(COMMISSION_STATES, { error: `state must be one of: ${COMMISSION_STATES.join(', ')}.` }).optional(),
  partner_id: z.coerce.number().int().positive().optional(),
  /** Made on or after this instant (a date is its midnight UTC). */
  from: DAY_OR_INSTANT.optional(),
  /** Made before this instant. */
  to: DAY_OR_INSTANT.optional(),
  /** Only commissions whose hold period is over (approve). */
  past_hold: z.boolean().optional(),
});

export const commissionBulkInput = z
  .object({
    action: z.enum(COMMISSION_ACTIONS, { error: 'action must be approve, release or reject.' }),
    commission_ids: z.array(z.coerce.number().int().positive(), { error: 'commission_ids must be a list of commission ids.' }).max(100_000).optional(),
    filter: commissionFilterInput.optional(),
    // Required to release or reject; optional to approve (kept when given).
    reason: approvalReasonInput.shape.reason,
  })
  .refine((v) => (v.commission_ids === undefined) !== (v.filter === undefined), { message: 'Give either commission_ids or a filter.', path: ['commission_ids'] })
  .refine((v) => v.action === 'approve' || Boolean(v.reason), { message: 'Give a reason.', path: ['reason'] });

/** The stage a commission action moves to, and the stage it applies to (the selection and the guard both use it). */
const COMMISSION_ACTION_RULES: Record<CommissionAction, { from: 'pending' | 'held'; to: 'approved' | 'pending' | 'rejected'; event: OutboundEvent['type'] }> = {
  approve: { from: 'pending', to: 'approved', event: 'commission.approved' },
  release: { from: 'held', to: 'pending', event: 'commission.released' },
  reject: { from: 'held', to: 'rejected', event: 'commission.rejected' },
};

/**
 * Approve, release or reject commissions: the ones named, or every one a filter matches. One
 * transaction per chunk of BULK_CHUNK; a commission already past the action (approved, released
 * or rejected meanwhile) is skipped and counted, so sending a batch twice changes nothing more.
 */
export async function commissionBulk(deps: ManagementDeps, scope: Scope, programId: number, input: unknown): Promise<BulkReport> {
  const body = parseInput(commissionBulkInput, input);
  await programInScope(deps, scope, programId);
  const report = emptyReport(body.action);
  const rule = COMMISSION_ACTION_RULES[body.action];
  const run = (ids: number[]) => commissionChunk(deps, scope, programId, body.action, ids, body.reason, report);
  if (body.commission_ids) {
    const ids = [...new Set(body.commission_ids)];
    for (let i = 0; i < ids.length; i += BULK_CHUNK) await run(ids.slice(i, i + BULK_CHUNK));
    return report;
  }
  // Everything the filter matches in the stage the action applies to, by id: a changed row leaves the selection.
  for (let after = 0; ; ) {
    const ids = await payouts.commissionIdsMatching(deps.pool, programId, { ...toFilter(body.filter!, deps.now()), stage: rule.from }, after, BULK_CHUNK);
    if (ids.length === 0) return report;
    await run(ids);
    after = ids[ids.length - 1]!;
  }
}

/** A filter as the store reads it: past_hold at the instant of the request. */
const toFilter = (f: z.infer<typeof commissionFilterInput>, now: Date): payouts.CommissionFilter => ({
  state: f.state,
  partner_id: f.partner_id,
  from: f.from,
  to: f.to,
  pastHoldAt: f.past_hold ? now : undefined,
});

/**
 * What approving would approve, before it is done: per currency the count and sum of the
 * selected pending commissions (the ids, or a filter's), and how many of them are past their
 * hold. The dashboard shows it and asks before a bulk approval overrides a hold.
 */
export async function approvalPreview(deps: ManagementDeps, scope: Scope, programId: number, input: { commission_ids?: unknown; filter?: unknown }): Promise<payouts.ApprovalSums[]> {
  await programInScope(deps, scope, programId);
  const now = deps.now();
  if (input.commission_ids === undefined) return payouts.approvalSums(deps.pool, programId, toFilter(parseInput(commissionFilterInput, input.filter ?? {}), now), now);
  const ids = [...new Set(([] as unknown[]).concat(input.commission_ids).map(Number).filter(Number.isSafeInteger))];
  const settings = (await payouts.payoutSettings(deps.pool, programId))!;
  const sums = new Map<Currency, payouts.ApprovalSums>();
  for (const c of await payouts.commissionsOf(deps.pool, programId, ids)) {
    if (approvalRefusal(c, 0, now, true) !== null) continue;
    const line = sums.get(c.currency) ?? { currency: c.currency, count: 0, cents: 0, pastHoldCount: 0, pastHoldCents: 0 };
    line.count += 1;
    line.cents += netCents(c);
    if (pastHold(c, c.holdDays ?? settings.holdDays, now)) {
      line.pastHoldCount += 1;
      line.pastHoldCents += netCents(c);
    }
    sums.set(c.currency, line);
  }
  return [...sums.values()].sort((a, b) => a.currency.localeCompare(b.currency));
}

/** Of the commissions named, the pending ones past their hold (a bulk approval that keeps holds approves only these). */
export async function pastHoldOf(deps: ManagementDeps, scope: Scope, programId: number, ids: number[]): Promise<number[]> {
  await programInScope(deps, scope, programId);
  const now = deps.now();
  const { holdDays } = (await payouts.payoutSettings(deps.pool, programId))!;
  const named = ids.filter(Number.isSafeInteger);
  return (await payouts.commissionsOf(deps.pool, programId, named)).filter((c) => approvalRefusal(c, 0, now, true) === null && pastHold(c, c.holdDays ?? holdDays, now)).map((c) => c.id);
}

async function commissionChunk(deps: ManagementDeps, scope: Scope, programId: number, action: CommissionAction, ids: number[], reason: string | null, report: BulkReport) {
  const rule = COMMISSION_ACTION_RULES[action];
  const now = deps.now();
  const outcomes = await withTransaction(deps.pool, async (client) => {
    const locked = new Map((await payouts.lockCommissions(client, programId, ids)).map((c) => [c.id, c]));
    const changes: payouts.StageChange[] = [];
    const result = ids.map((id) => {
      const commission = locked.get(id);
      if (!commission) return { id, skipped: 'not_found' };
      const refusal = action === 'approve' ? approvalRefusal(commission, 0, now, true) : reviewRefusal(commission);
      if (refusal) return { id, skipped: refusal };
      const entry = action === 'approve' ? approvedEntry(commission, reason) : action === 'release' ? releasedEntry(reason!) : rejectedEntry(commission, reason!);
      changes.push({ commission, entry });
      return { id };
    });
    await payouts.changeStage(client, rule.to, changes, { at: now });
    await audit(client, scope, changes.map(({ commission }) => ({ programId, action: `commission.${action}`, objectType: 'commission', objectId: commission.id, changes: { stage: { from: commission.stage, to: rule.to }, ...(reason ? { reason: { from: null, to: reason } } : {}) } })));
    await writeMessages(
      client,
      DEFAULT_OUTBOUND_QUEUE,
      programId,
      changes.map(({ commission }) =>
        action === 'approve'
          ? approveEvent(commission)
          : { type: rule.event, test: commission.test, data: { ...commissionData(commission), reason, hold_reasons: commission.holdReasons } },
      ),
    );
    return result;
  });
  for (const outcome of outcomes) addToReport(report, outcome);
}

export async function commissions(deps: ManagementDeps, scope: Scope, programId: number, query: { state?: unknown; stage?: unknown; page?: unknown }) {
  await programInScope(deps, scope, programId);
  // A state of the commission_states view (the one read every surface shares); `stage` is its
  // older name, still read.
  const state = COMMISSION_STATES.find((s) => s === (query.state ?? query.stage));
  const page = Math.max(1, Number.parseInt(String(query.page ?? '1'), 10) || 1);
  const rows = await payouts.listCommissions(deps.pool, programId, { state, limit: 50, offset: (page - 1) * 50 });
  return { state: state ?? null, page, rows: rows.map(commissionAnswer) };
}
