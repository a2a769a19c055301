// Bounties (docs/rewards.md "Bounties"): the brand creates, lists and archives them; partners
// submit to submission bounties in the portal and the brand approves or rejects; the evaluation
// job awards performance bounties. An award makes a commission without a sale, which then
// follows the normal hold, approval, payout, failed-payout and clawback paths; each award is in
// the ledger, mailed to the partner and sent to the brand's endpoints as `commission.created`.
import { z } from 'zod';
import { BOUNTY_KINDS, BOUNTY_METRICS, REFUND_RULES, awardsDue, bountyWords, periodsToEvaluate } from '../../core/bounties.js';
import { SYSTEM } from '../../core/audit.js';
import { toCurrency } from '../../core/currency.js';
import { errors } from '../../core/errors.js';
import { MAX_AMOUNT_CENTS } from '../../core/money.js';
import type { OutboundEvent } from '../../core/outbound-events.js';
import * as bounties from '../../db/money/bounties.js';
import { groupInProgram } from '../../db/money/reward-rules.js';
import { type PoolClient, withTransaction } from '../../db/infra/pool.js';
import { DEFAULT_OUTBOUND_QUEUE, writeMessages } from '../../db/outbound/messages.js';
import { queueMails } from '../../db/outbound/mail-outbox.js';
import { programName } from '../../db/programs/programs-links-keys.js';
import { type ManagementDeps, audit, parseInput } from '../programs/management.js';
import { type Scope, programInScope } from '../accounts/scope.js';
import { mailBrand } from '../outbound/mail.js';
import { bountyAwardedMail, bountyRejectedMail } from '../outbound/bounty-mail.js';

const currency = z.string({ error: 'Give a currency (ISO 4217, e.g. USD).' }).transform((v, ctx) => {
  const c = toCurrency(v);
  if (!c) ctx.addIssue({ code: 'custom', message: 'Give a currency (ISO 4217, e.g. USD).' });
  return c!;
});
const cents = (message: string) => z.coerce.number({ error: message }).int(message).positive(message).max(MAX_AMOUNT_CENTS, message);

export const bountyInput = z
  .object({
    kind: z.enum(BOUNTY_KINDS, { error: "kind is 'performance' or 'submission'." }),
    name: z.string({ error: 'Give the bounty a name.' }).trim().min(1, 'Give the bounty a name.').max(200, 'A name is at most 200 characters.'),
    description: z.string().trim().max(2000, 'A description is at most 2,000 characters.').optional().default(''),
    group_id: z.coerce.number().int().positive().nullish(),
    reward_cents: cents('The reward is a positive amount in the currency\'s smallest unit (10000 = 100.00 USD).'),
    currency,
    metric: z.enum(BOUNTY_METRICS, { error: "metric is 'new_customers' or 'revenue'." }).nullish(),
    metric_currency: currency.nullish(),
    threshold: cents('The threshold is a positive whole number (customers, or revenue in the smallest unit).').nullish(),
    refund_rule: z.enum(REFUND_RULES, { error: "refund_rule is 'as_recorded' or 'net_of_refunds'." }).nullish(),
    once_only: z.boolean().optional().default(true),
  })
  .superRefine((b, ctx) => {
    if (b.kind === 'performance') {
      if (!b.metric) ctx.addIssue({ code: 'custom', path: ['metric'], message: "A performance bounty counts 'new_customers' or 'revenue'." });
      if (!b.threshold) ctx.addIssue({ code: 'custom', path: ['threshold'], message: 'A performance bounty needs a threshold.' });
      if (!b.refund_rule) ctx.addIssue({ code: 'custom', path: ['refund_rule'], message: "Choose how refunds count: 'as_recorded' or 'net_of_refunds'." });
      if (b.metric === 'revenue' && !b.metric_currency) ctx.addIssue({ code: 'custom', path: ['metric_currency'], message: 'Revenue is counted in one currency: give metric_currency.' });
    } else if (b.metric || b.threshold || b.refund_rule) {
      ctx.addIssue({ code: 'custom', path: ['metric'], message: 'A submission bounty has no metric, threshold or refund rule.' });
    }
  });

export const submissionInput = z.object({
  content: z.string({ error: 'Give a link or a few words about what you did.' }).trim().min(1, 'Give a link or a few words about what you did.').max(2000, 'A submission is at most 2,000 characters.'),
});

export const rejectionInput = z.object({
  reason: z.string({ error: 'Give a reason: the partner reads it.' }).trim().min(1, 'Give a reason: the partner reads it.').max(500, 'A reason is at most 500 characters.'),
});

/** A bounty as the API answers it. */
export const bountyAnswer = (b: bounties.BountyRow) => ({
  id: b.id, program_id: b.programId, group_id: b.groupId, kind: b.kind, name: b.name, description: b.description, reward_cents: b.rewardCents, currency: b.currency,
  metric: b.metric, metric_currency: b.metricCurrency, threshold: b.threshold, refund_rule: b.refundRule, once_only: b.onceOnly,
  archived_at: b.archivedAt, created_at: b.createdAt,
});

export const submissionAnswer = (s: bounties.SubmissionRow) => ({
  id: s.id, program_id: s.programId, bounty_id: s.bountyId, bounty_name: s.bountyName, partner_id: s.partnerId, partner_name: s.partnerName, content: s.content,
  status: s.status, reason: s.reason, decided_at: s.decidedAt, created_at: s.createdAt, commission_id: s.commissionId,
});

export async function createBounty(deps: ManagementDeps, scope: Scope, programId: number, body: unknown): Promise<bounties.BountyRow> {
  const input = parseInput(bountyInput, body);
  await programInScope(deps, scope, programId);
  if (input.group_id && !(await groupInProgram(deps.pool, programId, input.group_id))) throw errors.notFound('Group not found');
  return withTransaction(deps.pool, async (client) => {
    const performance = input.kind === 'performance';
    const made = await bounties.insertBounty(client, {
      programId, groupId: input.group_id ?? null, kind: input.kind, name: input.name, description: input.description, rewardCents: input.reward_cents, currency: input.currency,
      metric: performance ? input.metric! : null, metricCurrency: performance && input.metric === 'revenue' ? input.metric_currency! : null,
      threshold: performance ? input.threshold! : null, refundRule: performance ? input.refund_rule! : null, onceOnly: input.once_only, createdAt: deps.now(),
    });
    await audit(client, scope, [{ programId, action: 'bounty.create', objectType: 'bounty', objectId: made.id, changes: { name: { from: null, to: made.name }, reward: { from: null, to: bountyWords(made.name, made.rewardCents, made.currency) } } }]);
    return made;
  });
}

export async function listBounties(deps: ManagementDeps, scope: Scope, programId: number, options: { archived?: boolean } = {}) {
  await programInScope(deps, scope, programId);
  return bounties.listBounties(deps.pool, programId, options);
}

export async function archiveBounty(deps: ManagementDeps, scope: Scope, programId: number, bountyId: number): Promise<bounties.BountyRow> {
  await programInScope(deps, scope, programId);
  return withTransaction(deps.pool, async (client) => {
    const before = await bounties.getBounty(client, programId, bountyId);
    if (!before) throw errors.notFound('Bounty not found');
    const after = (await bounties.archiveBounty(client, programId, bountyId, deps.now()))!;
    if (!before.archivedAt) await audit(client, scope, [{ programId, action: 'bounty.archive', objectType: 'bounty', objectId: bountyId, changes: { archived_at: { from: null, to: after.archivedAt!.toISOString() } } }]);
    return after;
  });
}

export async function listSubmissions(deps: ManagementDeps, scope: Scope, programId: number, options: { status?: bounties.SubmissionRow['status']; bountyId?: number } = {}) {
  await programInScope(deps, scope, programId);
  return bounties.listSubmissions(deps.pool, programId, options);
}

/** Mails and the `commission.created` event of fresh awards, in the awarding transaction. */
async function announceAwards(client: PoolClient, bounty: bounties.BountyRow, made: bounties.MadeAward[], words: string, period: string | null): Promise<void> {
  if (made.length === 0) return;
  const events: Omit<OutboundEvent, 'programId'>[] = made.map((m) => ({
    type: 'commission.created',
    test: false,
    data: {
      program_id: bounty.programId, commission_id: m.commissionId, sale_id: null, transaction_id: null, partner_id: m.partnerId, amount_cents: bounty.rewardCents,
      currency: bounty.currency, hold_reasons: [],
      // The commission is a bounty's: what it was for (a field added beside the sale's; nothing renamed).
      bounty: { id: bounty.id, kind: bounty.kind, name: bounty.name, award_id: m.awardId, period, measured: m.measured },
      reward: { words },
    },
  }));
  await writeMessages(client, DEFAULT_OUTBOUND_QUEUE, bounty.programId, events);
  const to = await bounties.partnerAddresses(client, bounty.programId, made.map((m) => m.partnerId));
  if (to.size === 0) return;
  const [name, brand] = [await programName(client, bounty.programId), await mailBrand(client, bounty.programId)];
  await queueMails(
    client,
    made.filter((m) => to.has(m.partnerId)).map((m) =>
      bountyAwardedMail({ publicUrl: '{{affix}}' }, {
        programId: bounty.programId, programName: name, brand, email: to.get(m.partnerId)!, partnerId: m.partnerId, awardId: m.awardId,
        bountyName: bounty.name, words, rewardCents: bounty.rewardCents, currency: bounty.currency, period, submitted: bounty.kind === 'submission',
      }),
    ),
  );
}

/** The scheduled evaluation acts as the system (the audit log says so). */
const EVALUATION: Scope = { kind: 'operator', actor: SYSTEM('bounty evaluation') };

/**
 * Evaluates one program's live performance bounties for the current month and the month before
 * (a late sale, and net-of-refunds bounties decided once their month is over). One transaction
 * per bounty and month; the unique key makes a concurrent or repeated run award nothing twice.
 * Returns how many awards it made.
 */
export async function evaluateProgramBounties(deps: ManagementDeps, programId: number): Promise<number> {
  let made = 0;
  const now = deps.now();
  for (const bounty of await bounties.livePerformanceBounties(deps.pool, programId)) {
    const terms = { metric: bounty.metric!, metricCurrency: bounty.metricCurrency, threshold: bounty.threshold!, refundRule: bounty.refundRule! };
    for (const period of periodsToEvaluate(now)) {
      // Nothing to count before the bounty existed.
      if (period.end.getTime() <= bounty.createdAt.getTime()) continue;
      made += await withTransaction(deps.pool, async (client) => {
        const [measures, awarded] = [await bounties.measurePartners(client, bounty, period.start, period.end), await bounties.awardedPartners(client, programId, bounty.id, period.key)];
        const due = awardsDue(terms, period, now, measures, awarded);
        if (due.length === 0) return 0;
        const words = bountyWords(bounty.name, bounty.rewardCents, bounty.currency);
        const awards = await bounties.insertAwards(client, bounty, due.map((d) => ({ partnerId: d.partnerId, period: period.key, submissionId: null, measured: d.measured })), words, now);
        await audit(client, EVALUATION, awards.map((a) => ({ programId, action: 'bounty.award', objectType: 'bounty_award', objectId: a.awardId, changes: { partner_id: { from: null, to: a.partnerId }, period: { from: null, to: period.key }, commission_id: { from: null, to: a.commissionId } } })));
        await announceAwards(client, bounty, awards, words, period.key);
        return awards.length;
      });
    }
  }
  return made;
}

/** Every program's live performance bounties (the job when no program is named). */
export async function evaluateAllBounties(deps: ManagementDeps): Promise<number> {
  let made = 0;
  for (const programId of await bounties.programsWithPerformanceBounties(deps.pool)) made += await evaluateProgramBounties(deps, programId);
  return made;
}

// ---- submissions ---------------------------------------------------------------------------

/** A partner's submission from the portal (the caller has checked the partner is the signed-in person's enrollment). */
export async function submitToBounty(deps: ManagementDeps, partner: { programId: number; partnerId: number }, bountyId: number, body: unknown): Promise<number> {
  const input = parseInput(submissionInput, body);
  const open = (await bounties.bountiesForPartner(deps.pool, partner.programId, partner.partnerId)).find((b) => b.id === bountyId && b.kind === 'submission');
  if (!open) throw errors.notFound('Bounty not found');
  const id = await bounties.insertSubmission(deps.pool, { programId: partner.programId, bountyId, partnerId: partner.partnerId, content: input.content, onceOnly: open.onceOnly, at: deps.now() });
  if (id === null) throw errors.conflict('You already submitted to this bounty', 'already_submitted');
  return id;
}

/** The bounties a partner sees in the portal and their own submissions. */
export async function partnerBounties(deps: ManagementDeps, partner: { programId: number; partnerId: number }) {
  const [open, submissions] = [await bounties.bountiesForPartner(deps.pool, partner.programId, partner.partnerId), await bounties.partnerSubmissions(deps.pool, partner.programId, partner.partnerId)];
  return { bounties: open, submissions };
}

async function withSubmission<T>(deps: ManagementDeps, scope: Scope, programId: number, submissionId: number, fn: (client: PoolClient, s: bounties.SubmissionRow, b: bounties.BountyRow) => Promise<T>): Promise<T> {
  await programInScope(deps, scope, programId);
  return withTransaction(deps.pool, async (client) => {
    const submission = await bounties.lockSubmission(client, programId, submissionId);
    if (!submission) throw errors.notFound('Submission not found');
    if (submission.status !== 'pending') throw errors.conflict(`This submission was already ${submission.status}`, 'submission_decided');
    return fn(client, submission, (await bounties.getBounty(client, programId, submission.bountyId))!);
  });
}

/** Approves a pending submission: its award and commission (pending, the partner's hold), the mail and the webhook. */
export async function approveSubmission(deps: ManagementDeps, scope: Scope, programId: number, submissionId: number): Promise<bounties.SubmissionRow> {
  await withSubmission(deps, scope, programId, submissionId, async (client, s, bounty) => {
    // Only an approved partner earns: a banned or archived one's submission can only be rejected.
    if ((await bounties.partnerStatus(client, programId, s.partnerId)) !== 'approved') throw errors.conflict('This partner is not an approved partner of the program: reject the submission instead', 'partner_not_approved');
    const at = deps.now();
    await bounties.decideSubmission(client, s.id, { status: 'approved', reason: null, at });
    const words = bountyWords(bounty.name, bounty.rewardCents, bounty.currency);
    const made = await bounties.insertAwards(client, bounty, [{ partnerId: s.partnerId, period: null, submissionId: s.id, measured: null }], words, at);
    await audit(client, scope, [{ programId, action: 'bounty_submission.approve', objectType: 'bounty_submission', objectId: s.id, changes: { status: { from: 'pending', to: 'approved' }, commission_id: { from: null, to: made[0]?.commissionId ?? null } } }]);
    await announceAwards(client, bounty, made, words, null);
  });
  return (await bounties.getSubmission(deps.pool, programId, submissionId))!;
}

/** Rejects a pending submission with a reason the partner reads (mailed). */
export async function rejectSubmission(deps: ManagementDeps, scope: Scope, programId: number, submissionId: number, body: unknown): Promise<bounties.SubmissionRow> {
  const { reason } = parseInput(rejectionInput, body);
  await withSubmission(deps, scope, programId, submissionId, async (client, s, bounty) => {
    await bounties.decideSubmission(client, s.id, { status: 'rejected', reason, at: deps.now() });
    await audit(client, scope, [{ programId, action: 'bounty_submission.reject', objectType: 'bounty_submission', objectId: s.id, changes: { status: { from: 'pending', to: 'rejected' }, reason: { from: null, to: reason } } }]);
    const to = await bounties.partnerAddresses(client, programId, [s.partnerId]);
    const email = to.get(s.partnerId);
    if (email) {
      await queueMails(client, [
        bountyRejectedMail({ publicUrl: '{{affix}}' }, {
          programId, programName: await programName(client, programId), brand: await mailBrand(client, programId), email, partnerId: s.partnerId, submissionId: s.id, bountyName: bounty.name, reason,
        }),
      ]);
    }
  });
  return (await bounties.getSubmission(deps.pool, programId, submissionId))!;
}
