// Money owed to partners: approvals (scheduled and by hand), payout runs, marking paid, the
// exports and the settings behind them. Shared by the admin API, the dashboard, the CLI and the
// scheduled job; every change is one transaction with its ledger entries and outbound events.
import { z } from 'zod';
import {
  COMMISSION_STATES,
  approvalRefusal,
  approvedEntry,
  clawbackSettledEntry,
  netCents,
  type PayoutLine,
  type PayoutMinimums,
  paidEntry,
  hasPayoutDetails,
  linesByPayoutDetails,
  pastHold,
  payableBalances,
  payoutLines,
  rejectedEntry,
  releaseClaim,
  releasedEntry,
  reviewRefusal,
  unapprovalRefusal,
  unapprovedEntry,
} from '../core/commission-ledger.js';
import Stripe from 'stripe';
import { AffixError, errors } from '../core/errors.js';
import { type BulkReport, COMMISSION_ACTIONS, type CommissionAction, addToReport, emptyReport } from '../core/partners.js';
import { MAX_AMOUNT_CENTS, formatMoney } from '../core/money.js';
import type { Currency } from '../core/types.js';
import { toCurrency } from '../core/currency.js';
import { toStripeAmount } from '../core/stripe/amounts.js';
import type { OutboundEvent } from '../core/outbound-events.js';
import { type ExportFormat, payoutCsvHeader, payoutCsvLines } from '../core/payout-export.js';
import { appendLines } from '../db/ledger.js';
import { DEFAULT_OUTBOUND_QUEUE, writeMessage, writeMessages } from '../db/outbound.js';
import * as payouts from '../db/payouts.js';
import { type PoolClient, withTransaction } from '../db/pool.js';
import { type ManagementDeps, type Scope, audit, parseInput, programInScope } from './management.js';
import { SYSTEM, changedFields } from '../core/audit.js';
import { type MailLinks, mailBrand, managerMail, payoutDetailsReminderMail, payoutSentMail, queueForManagers } from './mail.js';
import { queueMails } from '../db/mail.js';
import { programName } from '../db/admin.js';

const emit = (client: PoolClient, event: OutboundEvent) => writeMessage(client, DEFAULT_OUTBOUND_QUEUE, event);

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
  // The writer adds the commission's state (db/outbound.ts).
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

/** A balance a run left owed because the partner has no payout details. */
export interface WaitingLine {
  partnerId: number;
  partnerName: string;
  currency: Currency;
  amountCents: number;
}

/**
 * A payout run: each partner's approved balance per currency (clawbacks netted) at or above the
 * program's minimum becomes a payout line of one new batch, claiming what it pays. A partner
 * without payout details (a method and where to pay) is not paid: their balance stays owed and
 * is answered under `missingPayoutDetails`, so the dashboard and the API both say what waits.
 */
export async function runPayouts(deps: ManagementDeps, scope: Scope, programId: number): Promise<{ batchId: number; payouts: payouts.PayoutRow[]; missingPayoutDetails: WaitingLine[] }> {
  await programInScope(deps, scope, programId);
  return withTransaction(deps.pool, async (client) => {
    await payouts.lockProgramPayouts(client, programId);
    const payable = await payouts.lockPayableItems(client, programId);
    const balances = payableBalances(payable);
    const partnerIds = [...new Set(balances.map((b) => b.partnerId))];
    const minimums = await payouts.payoutMinimumsOf(client, programId, partnerIds);
    const details = await payouts.payoutDetailsOf(client, programId, partnerIds);
    const { pay: lines, waiting } = linesByPayoutDetails(payoutLines(balances, (partnerId) => minimums.get(partnerId) ?? {}), (partnerId) => details.get(partnerId));
    const missingPayoutDetails = await waitingLines(client, programId, waiting);
    if (lines.length === 0) {
      if (waiting.length > 0) {
        const partners = new Set(waiting.map((w) => w.partnerId)).size;
        throw errors.conflict(
          `Nothing to pay: ${partners === 1 ? 'the partner' : `all ${partners} partners`} owed at or above the minimum ${partners === 1 ? 'has' : 'have'} no payout details yet (${owedWords(waiting)}); remind them to add them`,
          'missing_payout_details',
        );
      }
      throw errors.conflict('Nothing to pay: no partner has an approved balance at or above the minimum', 'nothing_to_pay');
    }
    const batchId = await payouts.insertBatch(client, programId, lines, payable);
    const waitingNote = missingPayoutDetails.length ? ` ${new Set(waiting.map((w) => w.partnerId)).size} partner(s) without payout details wait (${owedWords(waiting)}): {{affix}}/dashboard/programs/${programId}/payouts#missing-details\n` : '';
    await audit(client, scope, [
      { programId, action: 'payout.run', objectType: 'payout_batch', objectId: batchId, changes: { payouts: { from: null, to: lines.length }, ...(waiting.length ? { waiting_for_details: { from: null, to: waiting.length } } : {}) } },
    ]);
    await queueForManagers(
      client,
      programId,
      managerMail('payout_run_ready', {
        programId,
        subject: `Payout batch ${batchId} is ready to pay (${lines.length} payout${lines.length === 1 ? '' : 's'})`,
        body: `A payout run made batch ${batchId} with ${lines.length} payout${lines.length === 1 ? '' : 's'}. Export it, pay, then mark each payout paid: {{affix}}/dashboard/programs/${programId}/payouts\n${waitingNote}`,
        key: `payout_run_ready:${batchId}`,
      }),
    );
    // Every payout of the batch (a list page stops at 200; a run pays thousands).
    return { batchId, payouts: await payouts.listPayouts(client, programId, { batchId, limit: lines.length }), missingPayoutDetails };
  });
}

/** "$430.00 and €80.00": what lines add up to, per currency. */
const owedWords = (lines: { currency: Currency; amountCents: number }[]): string => {
  const sums = new Map<Currency, number>();
  for (const l of lines) sums.set(l.currency, (sums.get(l.currency) ?? 0) + l.amountCents);
  return [...sums].sort(([a], [b]) => a.localeCompare(b)).map(([c, cents]) => formatMoney(cents, c)).join(' and ');
};

async function waitingLines(client: PoolClient, programId: number, waiting: PayoutLine[]): Promise<WaitingLine[]> {
  if (waiting.length === 0) return [];
  const names = new Map((await payouts.partnersByIds(client, programId, [...new Set(waiting.map((w) => w.partnerId))])).map((p) => [p.partnerId, p.name]));
  return waiting.map((w) => ({ partnerId: w.partnerId, partnerName: names.get(w.partnerId) ?? '', currency: w.currency, amountCents: w.amountCents }));
}

/** A partner owed money who cannot be paid yet: no payout details. */
export interface MissingDetails {
  partnerId: number;
  partnerName: string;
  /** Owed per currency (approved, not in an open payout). */
  owed: { currency: Currency; cents: number }[];
}

/** The partners owed money (approved, not claimed by an open payout) who have no payout details: a run cannot pay them. */
export function partnersMissingDetails(balances: payouts.PartnerBalance[]): MissingDetails[] {
  const byPartner = new Map<number, MissingDetails>();
  for (const b of balances) {
    const owed = b.approvedCents - b.inPayoutCents;
    if (owed <= 0 || hasPayoutDetails(b)) continue;
    const entry = byPartner.get(b.partnerId) ?? { partnerId: b.partnerId, partnerName: b.partnerName, owed: [] };
    entry.owed.push({ currency: b.currency, cents: owed });
    byPartner.set(b.partnerId, entry);
  }
  return [...byPartner.values()];
}

export interface ReminderDeps extends ManagementDeps {
  mailLinks: MailLinks;
}

/**
 * Mails the partners named (or every one owed without payout details) a reminder to add them, through
 * the mail queue: at most one a partner a day (its key), the brand's mail taking its turns with
 * other brands'. A partner who has details by now, or no email, gets none. Returns how many were written.
 */
export const remindInput = z.object({
  /** The partners to remind; absent: every partner owed money without payout details. */
  partner_ids: z.array(z.coerce.number().int().positive(), { error: 'partner_ids must be a list of partner ids.' }).max(100_000).optional(),
});

export async function remindPayoutDetails(deps: ReminderDeps, scope: Scope, programId: number, input: unknown): Promise<{ reminded: number; partners: number }> {
  const body = parseInput(remindInput, input ?? {});
  const program = await programInScope(deps, scope, programId);
  const owed = partnersMissingDetails(await payouts.partnerBalances(deps.pool, programId));
  const named = body.partner_ids === undefined ? null : new Set(body.partner_ids);
  const chosen = owed.filter((o) => named === null || named.has(o.partnerId));
  if (chosen.length === 0) throw errors.conflict('Nobody to remind: every partner owed money has payout details', 'nobody_to_remind');
  const owedOf = new Map(chosen.map((o) => [o.partnerId, o.owed]));
  const day = deps.now().toISOString().slice(0, 10);
  const recipients = (await payouts.partnersToRemind(deps.pool, programId, [...owedOf.keys()])).filter((p) => !hasPayoutDetails(p));
  const brand = await mailBrand(deps.pool, programId);
  const mails = recipients.map((p) =>
    payoutDetailsReminderMail(deps.mailLinks, { programId, programName: program.name, brand, email: p.email, partnerId: p.partnerId, owed: owedOf.get(p.partnerId)!, day }),
  );
  return withTransaction(deps.pool, async (client) => {
    const reminded = await queueMails(client, mails);
    await audit(client, scope, recipients.map((p) => ({ programId, action: 'partner.payout_details_reminded', objectType: 'partner', objectId: p.partnerId, changes: {} })));
    return { reminded, partners: recipients.length };
  });
}

export const markPaidInput = z.object({
  reference: z
    .string({ error: 'Give the payment reference (the transfer or batch id).' })
    .trim()
    .min(1, 'Give the payment reference (the transfer or batch id).')
    .max(200, 'A reference is at most 200 characters.'),
});

/**
 * The payout of a program the caller may touch, locked (after the program's payout lock: the
 * one lock order, src/db/payouts.ts) and in one of the statuses the change accepts.
 */
async function withPayout<T>(
  deps: ManagementDeps,
  programId: number,
  payoutId: number,
  fn: (client: PoolClient, payout: payouts.PayoutRow) => Promise<T>,
  accepts: payouts.PayoutStatus[] = ['pending'],
) {
  return withTransaction(deps.pool, async (client) => {
    await payouts.lockProgramPayouts(client, programId);
    const payout = Number.isSafeInteger(payoutId) ? await payouts.lockPayout(client, programId, payoutId) : null;
    if (!payout) throw errors.notFound('Payout not found');
    if (payout.status === 'processing' && !accepts.includes('processing')) {
      throw errors.conflict('This payout is being paid through Stripe; pay it through Stripe again to finish', 'payout_processing');
    }
    if (!accepts.includes(payout.status)) throw errors.conflict(`This payout is already ${payout.status}`, `payout_${payout.status}`);
    return fn(client, payout);
  });
}

/** The money went out: the payout's commissions become paid and its clawbacks are settled. */
export async function markPayoutPaid(deps: ManagementDeps, scope: Scope, programId: number, payoutId: number, input: unknown) {
  const { reference } = parseInput(markPaidInput, input);
  await programInScope(deps, scope, programId);
  return markPaid(deps, scope, programId, payoutId, reference, ['pending']);
}

/** For a program already checked against the caller's scope. */
async function markPaid(deps: ManagementDeps, scope: Scope, programId: number, payoutId: number, reference: string, accepts: payouts.PayoutStatus[]) {
  return withPayout(deps, programId, payoutId, async (client, payout) => {
    const now = deps.now();
    const contents = await payouts.payoutContents(client, payout.id);
    await payouts.changeStage(client, 'paid', contents.commissions.map((c) => ({ commission: c, entry: paidEntry(c.payoutCents ?? netCents(c)) })), { at: now });
    await appendLines(
      client,
      contents.clawbacks.map((clawback) => ({
        commissionId: clawback.commissionId,
        programId,
        partnerId: payout.partnerId,
        currency: payout.currency,
        entry: clawbackSettledEntry(clawback.amountCents),
        payoutId: payout.id,
      })),
    );
    await payouts.setPayoutStatus(client, payout.id, 'paid', reference, now);
    await audit(client, scope, [{ programId, action: 'payout.paid', objectType: 'payout', objectId: payout.id, changes: { status: { from: payout.status, to: 'paid' }, reference: { from: null, to: reference } } }]);
    // The partner hears it with the change (sent once it commits).
    if (payout.partnerEmail) {
      const program = await programName(client, programId);
      await queueMails(client, [payoutSentMail({ publicUrl: '{{affix}}' }, { programId, programName: program, brand: await mailBrand(client, programId), email: payout.partnerEmail, payoutId: payout.id, amountCents: payout.amountCents, currency: payout.currency, reference })]);
    }
    await emit(client, {
      programId,
      type: 'payout.paid',
      test: false,
      data: {
        program_id: programId, payout_id: payout.id, batch_id: payout.batchId, partner_id: payout.partnerId, amount_cents: payout.amountCents,
        currency: payout.currency, reference, commission_ids: contents.commissions.map((c) => c.id), clawback_ids: contents.clawbacks.map((c) => c.id),
      },
    });
    return { ...payout, status: 'paid' as const, reference, paidAt: now };
  }, accepts);
}

/** A Stripe error that means Stripe answered and refused (no transfer exists), not a lost connection. */
const stripeRefused = (error: unknown): boolean => {
  const status = (error as { statusCode?: unknown }).statusCode;
  return typeof status === 'number' && status >= 400 && status < 500;
};

/**
 * Pays a payout as a Stripe transfer to the partner's connected account. The payout is claimed
 * first ('processing': no cancel or manual mark-paid meanwhile), then transferred with the
 * payout's idempotency key, then recorded as paid. A retry after a crash anywhere finds it
 * processing and gets the same transfer back from Stripe, never a second one; a transfer Stripe
 * refused returns it to pending.
 */
export async function payWithStripe(deps: ManagementDeps & { stripeSecretKey: string | undefined }, scope: Scope, programId: number, payoutId: number) {
  if (!deps.stripeSecretKey) throw errors.conflict('Stripe transfers are not configured: set STRIPE_SECRET_KEY', 'stripe_not_configured');
  await programInScope(deps, scope, programId);
  const payout = await withPayout(deps, programId, payoutId, async (client, claimed) => {
    if (claimed.payoutMethod !== 'stripe' || !claimed.payoutReference?.startsWith('acct_')) {
      throw errors.conflict('This partner is not paid through Stripe: set their payout method to stripe with their connected account id (acct_…)', 'not_stripe');
    }
    // Stripe's unit, not ISO's (ISK x100, MGA /100); an amount Stripe cannot represent stays
    // pending with the reason, never rounded: pay it another way.
    const stripeAmount = toStripeAmount(claimed.amountCents, claimed.currency);
    if ('problem' in stripeAmount) throw errors.conflict(`This payout cannot be sent through Stripe: ${stripeAmount.problem}. Pay it another way and mark it paid.`, 'stripe_amount_unrepresentable');
    if (claimed.status === 'pending') await payouts.setPayoutStatus(client, claimed.id, 'processing', null, deps.now());
    return { ...claimed, stripeAmount: stripeAmount.amount };
  }, ['pending', 'processing']);
  let transferId: string;
  try {
    const transfer = await new Stripe(deps.stripeSecretKey, { maxNetworkRetries: 2 }).transfers.create(
      {
        amount: payout.stripeAmount,
        currency: payout.currency.toLowerCase(),
        destination: payout.payoutReference!,
        transfer_group: `affix_batch_${payout.batchId}`,
        metadata: { affix_payout_id: String(payout.id), affix_program_id: String(programId) },
      },
      { idempotencyKey: `affix-payout-${payout.id}` },
    );
    transferId = transfer.id;
  } catch (error) {
    if (stripeRefused(error)) {
      await withPayout(deps, programId, payoutId, (client, claimed) => payouts.setPayoutStatus(client, claimed.id, 'pending', null, deps.now()), ['processing']);
    }
    throw new AffixError(502, `Stripe refused the transfer: ${(error as Error).message}`, { cause: error, code: 'stripe_transfer_failed' });
  }
  return markPaid(deps, scope, programId, payoutId, transferId, ['processing']);
}

/** Not paid after all: exactly what it claimed goes back to the partner's approved balance. */
export async function cancelPayout(deps: ManagementDeps, scope: Scope, programId: number, payoutId: number) {
  await programInScope(deps, scope, programId);
  return withPayout(deps, programId, payoutId, async (client, payout) => {
    await releasePayout(client, payout, deps.now());
    await audit(client, scope, [{ programId, action: 'payout.canceled', objectType: 'payout', objectId: payout.id, changes: { status: { from: payout.status, to: 'canceled' } } }]);
    return { ...payout, status: 'canceled' as const };
  });
}

async function releasePayout(client: PoolClient, payout: payouts.PayoutRow, at: Date): Promise<void> {
  const unclaimed = await payouts.unclaimCommissions(client, payout.id);
  await payouts.applyClaimRelease(client, payout, releaseClaim(await payouts.clawbacksMadeUnder(client, payout.id, unclaimed)));
  await payouts.setPayoutStatus(client, payout.id, 'canceled', null, at);
}

/**
 * Cancels a pending payout inside the caller's transaction (a ban cancels its partner's), which
 * took the program's payout lock first (the one lock order, src/db/payouts.ts).
 */
export async function cancelPayoutIn(client: PoolClient, programId: number, payoutId: number, at: Date): Promise<void> {
  const payout = await payouts.lockPayout(client, programId, payoutId);
  if (payout?.status === 'pending') await releasePayout(client, payout, at);
}

/** Takes the program's payout lock in the caller's transaction (before any commission or partner row). */
export const lockProgramPayouts = (client: PoolClient, programId: number) => payouts.lockProgramPayouts(client, programId);

/**
 * A batch's payouts as CSV in one of the formats, a chunk per page of 1,000 as it is read. The
 * scope, the format and the batch are checked before the first chunk.
 */
export async function* payoutExportCsv(deps: ManagementDeps, scope: Scope, programId: number, batchId: number, format: string): AsyncGenerator<string> {
  const program = await programInScope(deps, scope, programId);
  const known: ExportFormat[] = ['generic', 'paypal', 'wise'];
  if (!known.includes(format as ExportFormat)) throw errors.invalid(`format must be one of ${known.join(', ')}`, { format: 'Choose generic, paypal or wise.' });
  const pages = Number.isSafeInteger(batchId) ? payouts.batchPayoutPages(deps.pool, programId, batchId) : null;
  const first = pages ? await pages.next() : null;
  if (!pages || !first || first.done) throw errors.notFound('Payout batch not found');
  // PayPal and Wise files hold only the partners paid by that method (a bank reference has no place in PayPal's Email column).
  const method = format === 'generic' ? null : format;
  const lines = (rows: payouts.PayoutRow[]) =>
    payoutCsvLines(format as ExportFormat, rows.filter((r) => r.status !== 'canceled' && (method === null || r.payoutMethod === method)), { programName: program.name });
  yield payoutCsvHeader(format as ExportFormat);
  yield lines(first.value);
  for await (const rows of pages) yield lines(rows);
}

/** The same CSV whole (a batch is read page by page all the same). */
export async function exportPayouts(deps: ManagementDeps, scope: Scope, programId: number, batchId: number, format: string): Promise<string> {
  let csv = '';
  for await (const chunk of payoutExportCsv(deps, scope, programId, batchId, format)) csv += chunk;
  return csv;
}

export async function balances(deps: ManagementDeps, scope: Scope, programId: number) {
  await programInScope(deps, scope, programId);
  return payouts.partnerBalances(deps.pool, programId);
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

export async function listPayouts(deps: ManagementDeps, scope: Scope, programId: number) {
  await programInScope(deps, scope, programId);
  return payouts.listPayouts(deps.pool, programId);
}

const minimumCents = z.coerce
  .number({ error: 'A minimum payout is a whole number in the currency’s smallest unit.' })
  .int('A minimum payout is a whole number in the currency’s smallest unit.')
  .min(0, 'A minimum payout cannot be negative.')
  .max(MAX_AMOUNT_CENTS, 'A minimum payout is at most 10^12.');

export const HOLD_DAYS = z.coerce
  .number({ error: 'Hold period must be a whole number of days.' })
  .int('Hold period must be a whole number of days.')
  .min(0, 'Hold period is 0 to 365 days.')
  .max(365, 'Hold period is 0 to 365 days.');

/**
 * One minimum per currency, in its own minor unit (5000 is $50, 5000 yen, 5.000 KWD):
 * {"USD": 5000, "JPY": 5000}. Keys are ISO 4217 codes (any case); null removes a minimum.
 */
export const PAYOUT_MINIMUMS = z
  .record(z.string(), minimumCents.nullish(), { error: 'Give the minimums per currency, like {"USD": 5000}.' })
  .superRefine((value, ctx) => {
    const seen = new Map<string, string>();
    for (const key of Object.keys(value)) {
      const code = toCurrency(key);
      if (!code) ctx.addIssue({ code: 'custom', path: [key], message: `${key} is not an ISO 4217 currency code (like USD, GBP or JPY).` });
      // "usd" and "USD" are one currency: which amount was meant is not guessed.
      else if (seen.has(code)) ctx.addIssue({ code: 'custom', path: [key], message: `${seen.get(code)} and ${key} are both ${code}: give one minimum per currency.` });
      else seen.set(code, key);
    }
  })
  .transform((value) => Object.fromEntries(Object.entries(value).map(([key, cents]) => [toCurrency(key)!, cents])) as Partial<Record<Currency, number | null>>);

/** A currency named in a request (a payout currency, a list's money column): any ISO 4217 code, in any case. */
export const CURRENCY_CODE = z
  .string({ error: 'Give a currency code like USD, EUR or GBP.' })
  .transform((value, ctx) => {
    const code = toCurrency(value);
    if (!code) ctx.addIssue({ code: 'custom', message: 'Give a currency code like USD, EUR or GBP.' });
    return code ?? ('USD' as Currency);
  });

/** A checkbox or a JSON boolean. */
export const FORM_BOOLEAN = z.union([z.boolean(), z.enum(['true', 'false', 'on', '']).transform((v) => v === 'true' || v === 'on')]);

export const settingsInput = z.object({
  // Each setting is kept as it is when absent.
  hold_days: HOLD_DAYS.optional(),
  // One minimum per currency (5000 is $50 but 5000 yen): {"USD": 5000, "JPY": 5000}; a currency left out keeps its minimum, null removes it.
  payout_minimums_cents: PAYOUT_MINIMUMS.optional(),
  payout_minimum_cents: z
    .unknown()
    .refine((value) => value === undefined, 'Replaced by payout_minimums_cents: one minimum per currency, like {"USD": 5000, "VND": 1000000}.')
    .optional(),
  // Fraud thresholds: each kept as it is when absent.
  fraud_min_signup_seconds: z.coerce.number({ error: 'Give whole seconds.' }).int('Give whole seconds.').min(0, 'Cannot be negative.').max(86_400, 'At most a day.').optional(),
  fraud_max_leads_per_ip: z.coerce.number({ error: 'Give a whole number.' }).int('Give a whole number.').min(1, 'At least 1.').max(100_000, 'Too large.').optional(),
  fraud_ip_window_minutes: z.coerce.number({ error: 'Give whole minutes.' }).int('Give whole minutes.').min(1, 'At least 1 minute.').max(43_200, 'At most 30 days.').optional(),
  partners_can_create_links: FORM_BOOLEAN.optional(),
  partner_link_limit: z.coerce.number({ error: 'Give a whole number of links.' }).int('Give a whole number of links.').min(1, 'At least 1 link.').max(1000, 'At most 1000 links.').optional(),
});

export async function payoutSettings(deps: ManagementDeps, scope: Scope, programId: number) {
  await programInScope(deps, scope, programId);
  return (await payouts.payoutSettings(deps.pool, programId))!;
}

export async function updatePayoutSettings(deps: ManagementDeps, scope: Scope, programId: number, input: unknown) {
  await programInScope(deps, scope, programId);
  const parsed = parseInput(settingsInput, input);
  const current = (await payouts.payoutSettings(deps.pool, programId))!;
  const minimums: PayoutMinimums = { ...current.payoutMinimumsCents };
  for (const [currency, value] of Object.entries(parsed.payout_minimums_cents ?? {}) as [Currency, number | null | undefined][]) {
    if (value === null) delete minimums[currency];
    else if (value !== undefined) minimums[currency] = value;
  }
  const settings: payouts.PayoutSettings = {
    holdDays: parsed.hold_days ?? current.holdDays,
    payoutMinimumsCents: minimums,
    fraud: {
      minSignupSeconds: parsed.fraud_min_signup_seconds ?? current.fraud.minSignupSeconds,
      maxLeadsPerIp: parsed.fraud_max_leads_per_ip ?? current.fraud.maxLeadsPerIp,
      ipWindowMinutes: parsed.fraud_ip_window_minutes ?? current.fraud.ipWindowMinutes,
    },
    partnersCanCreateLinks: parsed.partners_can_create_links ?? current.partnersCanCreateLinks,
    partnerLinkLimit: parsed.partner_link_limit ?? current.partnerLinkLimit,
  };
  return withTransaction(deps.pool, async (client) => {
    await payouts.setPayoutSettings(client, programId, settings);
    await audit(client, scope, [{ programId, action: 'payout_settings.updated', objectType: 'program', objectId: programId, changes: changedFields({ ...current }, { ...settings }) }]);
    return settings;
  });
}

export const detailsInput = z
  .object({
    payout_method: z.enum(['paypal', 'wise', 'bank_transfer', 'stripe'], { error: 'Choose PayPal, Wise, bank transfer or Stripe.' }).nullish(),
    payout_reference: z.string().trim().max(200, 'At most 200 characters.').nullish(),
    payout_currency: CURRENCY_CODE.nullish(),
  })
  .superRefine((value, ctx) => {
    const reference = value.payout_reference ?? '';
    if (value.payout_method && !reference) ctx.addIssue({ code: 'custom', path: ['payout_reference'], message: 'Give the email, IBAN or account id to pay.' });
    // An address without a method pays nobody: the method is chosen, never assumed.
    if (!value.payout_method && reference) ctx.addIssue({ code: 'custom', path: ['payout_method'], message: 'Choose how you are paid.' });
    if ((value.payout_method === 'paypal' || value.payout_method === 'wise') && reference && !z.email().safeParse(reference).success) {
      ctx.addIssue({ code: 'custom', path: ['payout_reference'], message: 'PayPal and Wise pay to an email address.' });
    }
    if (value.payout_method === 'stripe' && reference && !/^acct_\w+$/.test(reference)) {
      ctx.addIssue({ code: 'custom', path: ['payout_reference'], message: 'A Stripe connected account id starts with acct_.' });
    }
  });

/** The brand sets how a partner is paid (the partner will too, from the portal). */
export async function setPayoutDetails(deps: ManagementDeps, scope: Scope, programId: number, partnerId: number, input: unknown) {
  await programInScope(deps, scope, programId);
  const parsed = parseInput(detailsInput, input);
  const details: payouts.PayoutDetails = {
    payoutMethod: parsed.payout_method ?? null,
    payoutReference: parsed.payout_reference || null,
    payoutCurrency: parsed.payout_currency ?? null,
  };
  if (!Number.isSafeInteger(partnerId)) throw errors.notFound('Partner not found');
  return withTransaction(deps.pool, async (client) => {
    if (!(await payouts.setPartnerPayoutDetails(client, programId, partnerId, details))) throw errors.notFound('Partner not found');
    // Where a partner is paid is what a fraudster changes: recorded (method, and that the account changed).
    await audit(client, scope, [{ programId, action: 'partner.payout_details_updated', objectType: 'partner', objectId: partnerId, changes: { payout_method: { from: null, to: details.payoutMethod }, payout_reference: { from: null, to: details.payoutReference ? 'set' : 'removed' } } }]);
    return details;
  });
}

