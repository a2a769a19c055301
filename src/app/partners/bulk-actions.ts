// Bulk actions on a program's partners (docs/partners.md): approve, reject, ban, archive, move,
// invite... a single action is a bulk action of one; sanctions lift exactly what they changed.
// Every change is one transaction per chunk with its outbound events and mails.
import { groupRef } from './fields.js';
import { groupInProgram } from './enrollments.js';
import { partnerFilter } from './list.js';
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { errors } from '../../core/errors.js';
import type { OutboundEvent } from '../../core/outbound-events.js';
import { ACTION_APPLIES_TO, ACTION_NEEDS_REASON, type BulkReport, PARTNER_ACTIONS, PARTNER_STATUSES, type PartnerAction, type PartnerStatus, REAPPLY_RULES, type ReapplyRule, addToReport, emptyReport, reapplyAfter } from '../../core/partners.js';
import { queueDiscountCodeSync } from '../../db/partners/discounts.js';
import * as applications from '../../db/partners/applications.js';
import { DEFAULT_OUTBOUND_QUEUE, writeMessages } from '../../db/outbound/messages.js';
import * as enrollmentsDb from '../../db/partners/enrollments.js';
import * as partnerListDb from '../../db/partners/list.js';
import * as sanctionsDb from '../../db/partners/sanctions.js';
import { type PoolClient, withTransaction } from '../../db/infra/pool.js';
import { cancelPayoutIn, lockProgramPayouts } from '../money/payout-runs.js';
import { type MailLinks, approvalLinks, decisionMail, mailBrand, queueInvitations } from '../outbound/mail.js';
import { queueMails } from '../../db/outbound/mail-outbox.js';
import { type ManagementDeps, audit, parseInput } from '../programs/management.js';
import { type Scope, programInScope } from '../accounts/scope.js';
import { changedFields } from '../../core/audit.js';

/** How many partners one transaction of a bulk action changes. */
export const PARTNER_CHUNK = 500;
/** The most ids one bulk request may name (the admin API's bulk route takes a body large enough). */
export const MAX_BULK_IDS = 100_000;

/** The chunk's events, one statement (src/db/outbound/messages.ts). */
const emitAll = (client: PoolClient, programId: number, events: OutboundEvent[]) => writeMessages(client, DEFAULT_OUTBOUND_QUEUE, programId, events);

/** With `mailLinks`, the changes mail the partners they concern (in their transaction: docs/mail.md). */
export interface PartnerDeps extends ManagementDeps {
  mailLinks?: MailLinks;
}

export const bulkInput = z
  .object({
    action: z.enum(PARTNER_ACTIONS, { error: `action must be one of: ${PARTNER_ACTIONS.join(', ')}.` }),
    partner_ids: z
      .array(z.coerce.number().int().positive(), { error: 'partner_ids must be a list of partner ids.' })
      .max(MAX_BULK_IDS, `At most ${MAX_BULK_IDS.toLocaleString('en-US')} partner ids in one bulk action; for more, use a filter.`)
      .optional(),
    filter: z
      .object({
        q: z.string().trim().max(320).optional(),
        status: z.enum(PARTNER_STATUSES).optional(),
        group_id: z.coerce.number().int().positive().optional(),
        tag: z.string().trim().max(40).optional(),
      })
      .optional(),
    reason: z.string().trim().max(500, 'A reason is at most 500 characters.').optional(),
    group_id: groupRef,
    reapply: z.enum(REAPPLY_RULES, { error: 'reapply is now, after_30_days or never.' }).optional(),
  })
  .refine((v) => (v.partner_ids === undefined) !== (v.filter === undefined), { message: 'Give either partner_ids or a filter.', path: ['partner_ids'] })
  .refine((v) => !ACTION_NEEDS_REASON[v.action] || !!v.reason, { message: 'Give a reason.', path: ['reason'] })
  .refine((v) => v.action !== 'move_group' || v.group_id !== undefined, { message: 'Choose the group to move to.', path: ['group_id'] });

// ---- bulk actions ------------------------------------------------------------------------------

const partnerEvent = (programId: number, type: OutboundEvent['type'], data: Record<string, unknown>): OutboundEvent => ({
  programId,
  type,
  test: false,
  data: { program_id: programId, ...data },
});

/** A bulk request, checked: the program, the action with its parameters, and the selection. */
export interface BulkRequest {
  program: Awaited<ReturnType<typeof programInScope>>;
  action: PartnerAction;
  parameters: { reason: string | null; groupId: number | null; reapply: ReapplyRule };
  selection: { partnerIds: number[] } | { filter: partnerListDb.PartnerFilter };
}

export async function checkBulkRequest(deps: ManagementDeps, scope: Scope, programId: number, input: unknown): Promise<BulkRequest> {
  const body = parseInput(bulkInput, input);
  const program = await programInScope(deps, scope, programId);
  const groupId = body.action === 'move_group' || body.action === 'approve' ? await groupInProgram(deps, programId, body.group_id) : null;
  return {
    program,
    action: body.action,
    parameters: { reason: body.reason || null, groupId, reapply: body.reapply ?? 'after_30_days' },
    selection: body.partner_ids
      ? { partnerIds: [...new Set(body.partner_ids)] }
      : { filter: partnerFilter(scope, body.filter) },
  };
}

/**
 * Approve or reject applicants, move to a group, archive, restore, ban, lift a ban: on the
 * partners named or on every partner a filter matches. One transaction per chunk; a partner
 * the action does not apply to (already in that state, changed meanwhile) is skipped and
 * counted, so sending a batch twice changes nothing more. The report says what changed.
 * Within the request: src/app/partners/bulk-action-jobs.ts sends large selections to the job instead.
 */
export async function partnerBulk(deps: PartnerDeps, scope: Scope, programId: number, input: unknown): Promise<BulkReport & { links_created: number }> {
  return runBulkInline(deps, scope, await checkBulkRequest(deps, scope, programId, input));
}

/** `auto`: the system decides (a group's auto-approve), not a person; the applications say so. */
export async function runBulkInline(deps: PartnerDeps, scope: Scope, request: BulkRequest, auto = false): Promise<BulkReport & { links_created: number }> {
  const programId = request.program.id;
  const report = { ...emptyReport(request.action), links_created: 0 };
  const action = chunkAction(request.program.name, request.action, request.parameters, deps.mailLinks ?? null, auto);
  const chunk = async (ids: number[]) => {
    const { outcomes, linksCreated } = await withTransaction(deps.pool, (client) => partnerChunkIn(client, scope, programId, action, ids, deps.now()));
    for (const outcome of outcomes) addToReport(report, outcome);
    report.links_created += linksCreated;
  };
  if ('partnerIds' in request.selection) {
    const ids = request.selection.partnerIds;
    for (let i = 0; i < ids.length; i += PARTNER_CHUNK) await chunk(ids.slice(i, i + PARTNER_CHUNK));
    return report;
  }
  // Moving to a group keeps the partners in the selection: walk by id rather than re-reading the first page.
  for (let after = 0; ; ) {
    const ids = await partnerListDb.partnerIdsMatching(deps.pool, programId, request.selection.filter, ACTION_APPLIES_TO[request.action], after, PARTNER_CHUNK);
    if (ids.length === 0) return report;
    await chunk(ids);
    after = ids[ids.length - 1]!;
  }
}

export interface ChunkAction {
  action: PartnerAction;
  reason: string | null;
  groupId: number | null;
  reapply: ReapplyRule;
  programName: string;
  mailLinks: MailLinks | null;
  /** Decided by the system (auto-approve) rather than a person. */
  auto: boolean;
}

export const chunkAction = (programName: string, action: PartnerAction, p: BulkRequest['parameters'], mailLinks: MailLinks | null, auto = false): ChunkAction => ({
  action,
  reason: p.reason,
  groupId: p.groupId,
  reapply: p.reapply,
  programName,
  mailLinks,
  auto,
});

export type ChunkOutcome = { id: number; skipped?: string };

/** One chunk of a bulk action in the caller's transaction: what each partner came to, and the links made. */
export async function partnerChunkIn(client: PoolClient, scope: Scope, programId: number, a: ChunkAction, ids: number[], now: Date): Promise<{ outcomes: ChunkOutcome[]; linksCreated: number }> {
  // A ban cancels payouts and rejects commissions: the program's payout lock comes first (the one lock order).
  if (a.action === 'ban') await lockProgramPayouts(client, programId);
  const locked = new Map((await enrollmentsDb.lockPartners(client, programId, ids)).map((p) => [p.id, p]));
  const applies = ACTION_APPLIES_TO[a.action];
  const chosen = ids.map((id) => locked.get(id)).filter((p): p is enrollmentsDb.LockedPartner => !!p && applies.includes(p.status) && !(a.action === 'move_group' && p.groupId === a.groupId));
  const outcomes = ids.map((id): ChunkOutcome => {
    const p = locked.get(id);
    if (!p) return { id, skipped: 'not_found' };
    if (!chosen.includes(p)) return { id, skipped: a.action === 'move_group' ? 'already_in_group' : `status_${p.status}` };
    return { id };
  });
  const changed = await applyPartnerAction(client, programId, a, chosen, now);
  // Their discount codes follow (made on approval, deactivated on ban, archive or a group change): a job.
  if (a.action !== 'reject') await queueDiscountCodeSync(client, programId, chosen.map((p) => p.id));
  // One entry per partner changed, in the chunk's transaction.
  await audit(
    client,
    scope,
    chosen.map((p) => ({
      programId,
      action: `partner.${a.action}`,
      objectType: 'partner',
      objectId: p.id,
      // The action is the change: its entry stays without a reason or group (no `changes` then).
      changes: nonEmpty(changedFields({ reason: null }, { reason: a.reason, ...(a.action === 'move_group' || (a.action === 'approve' && a.groupId !== null) ? { group_id: a.groupId } : {}) })),
    })),
  );
  return { outcomes, ...changed };
}

const nonEmpty = <T extends object>(changes: T): T | undefined => (Object.keys(changes).length ? changes : undefined);

/** The partners the change concerns hear of it (approved, rejected, banned): one mail per partner with an email, per change. */
async function mailDecision(client: PoolClient, programId: number, a: ChunkAction, chosen: enrollmentsDb.LockedPartner[], decision: 'approved' | 'rejected' | 'banned', changeKey: (p: enrollmentsDb.LockedPartner) => string) {
  if (!a.mailLinks) return;
  const links = a.mailLinks;
  const brand = await mailBrand(client, programId);
  const shown = decision === 'approved' ? await approvalLinks(client, programId, chosen.map((p) => p.id)) : new Map<number, string>();
  await queueMails(
    client,
    chosen.filter((p) => p.email).map((p) => decisionMail(links, { programId, programName: a.programName, brand, email: p.email!, partnerId: p.id, decision, reason: a.reason, changeKey: changeKey(p), link: shown.get(p.id) })),
  );
}

async function applyPartnerAction(client: PoolClient, programId: number, a: ChunkAction, chosen: enrollmentsDb.LockedPartner[], now: Date) {
  const ids = chosen.map((p) => p.id);
  const none = { linksCreated: 0 };
  if (ids.length === 0) return none;
  switch (a.action) {
    case 'approve':
      return approvePartners(client, programId, a, chosen, now);
    case 'reject': {
      await enrollmentsDb.setStatus(client, ids, 'rejected', now);
      const pending = await applications.pendingApplicationsOf(client, ids);
      await applications.decideApplications(client, [...pending.values()], { status: 'rejected', reason: a.reason, reapply: a.reapply, reapplyAfter: reapplyAfter(a.reapply, now), at: now, auto: a.auto });
      await mailDecision(client, programId, a, chosen, 'rejected', (p) => `application:${pending.get(p.id) ?? now.toISOString()}`);
      await emitAll(client, programId, chosen.map((p) => partnerEvent(programId, 'partner.rejected', { partner_id: p.id, reason: a.reason, reapply: a.reapply })));
      return none;
    }
    case 'move_group':
      await enrollmentsDb.setGroup(client, ids, a.groupId);
      await emitAll(client, programId, chosen.map((p) => partnerEvent(programId, 'partner.group_changed', { partner_id: p.id, group_id: a.groupId, previous_group_id: p.groupId })));
      return none;
    case 'archive':
    case 'ban': {
      const kind = a.action === 'ban' ? 'ban' : 'archive';
      const sanctions = await sanctionsDb.insertSanctions(client, programId, kind, a.reason ?? 'archived', chosen, now);
      await enrollmentsDb.setStatus(client, ids, a.action === 'ban' ? 'banned' : 'archived', now);
      await sanctionsDb.disableLinksUnder(client, sanctions);
      if (kind === 'ban') {
        await sanctionsDb.rejectCommissionsUnder(client, sanctions, `partner banned: ${a.reason}`);
        for (const payout of await sanctionsDb.openPayoutsOf(client, programId, ids)) {
          await cancelPayoutIn(client, programId, payout.id, now);
          await sanctionsDb.stampPayoutCanceled(client, payout.id, sanctions.get(payout.partnerId)!);
        }
      }
      if (kind === 'ban') await mailDecision(client, programId, a, chosen, 'banned', (p) => `sanction:${sanctions.get(p.id)}`);
      const type = kind === 'ban' ? 'partner.banned' : 'partner.archived';
      await emitAll(client, programId, chosen.map((p) => partnerEvent(programId, type, { partner_id: p.id, reason: a.reason, sanction_id: sanctions.get(p.id) })));
      return none;
    }
    case 'unarchive':
    case 'unban': {
      const kind = a.action === 'unban' ? 'ban' : 'archive';
      const active = (await sanctionsDb.activeSanctions(client, ids)).filter((s) => s.kind === kind);
      await sanctionsDb.liftSanctions(client, active.map((s) => s.id), a.reason, now);
      for (const statusBefore of new Set(active.map((s) => s.statusBefore))) {
        const back = active.filter((s) => s.statusBefore === statusBefore).map((s) => s.partnerId);
        await enrollmentsDb.setStatus(client, back, restoredStatus(statusBefore), now);
      }
      const type = kind === 'ban' ? 'partner.unbanned' : 'partner.unarchived';
      await emitAll(client, programId, active.map((s) => partnerEvent(programId, type, { partner_id: s.partnerId, sanction_id: s.id })));
      return none;
    }
  }
}

/** A ban over an archive (or the reverse) returns to where the partner stood before the first. */
const restoredStatus = (status: PartnerStatus): PartnerStatus => (status === 'banned' || status === 'archived' ? 'approved' : status);

/** Approved (into a group, if one is given): a referral link for those without one, a portal invitation for those with an email. */
async function approvePartners(client: PoolClient, programId: number, a: ChunkAction, chosen: enrollmentsDb.LockedPartner[], now: Date) {
  const ids = chosen.map((p) => p.id);
  await enrollmentsDb.setStatus(client, ids, 'approved', now);
  if (a.groupId !== null) await enrollmentsDb.setGroup(client, ids, a.groupId);
  const applied = await applications.pendingApplicationCodes(client, ids);
  const pending = new Map([...applied].map(([partnerId, x]) => [partnerId, x.id]));
  await applications.decideApplications(client, [...pending.values()], { status: 'approved', reason: a.reason, reapply: null, reapplyAfter: null, at: now, auto: a.auto });
  // The code the applicant chose when still free, else a random one (a random one taken is drawn again).
  const withoutLink = await enrollmentsDb.partnersWithoutLink(client, ids);
  let waiting = withoutLink;
  for (let round = 0; waiting.length > 0; round += 1) {
    const made = await enrollmentsDb.insertLinks(client, programId, waiting.map((partnerId) => ({ partnerId, code: (round === 0 && applied.get(partnerId)?.wantedCode) || randomBytes(5).toString('hex') })));
    waiting = waiting.filter((partnerId) => !made.has(partnerId));
    if (round === 3 && waiting.length) throw new Error('random link codes kept colliding');
  }
  const invited = chosen.filter((p) => p.email);
  await enrollmentsDb.markInvited(client, invited.map((p) => p.id), now);
  await emitAll(client, programId, chosen.map((p) => partnerEvent(programId, 'partner.approved', { partner_id: p.id, group_id: a.groupId ?? p.groupId, auto_decided: a.auto })));
  if (a.mailLinks) {
    // The welcome and the portal invitation (a sign-in link that lasts days), with the change.
    await mailDecision(client, programId, a, chosen, 'approved', (p) => `approval:${pending.get(p.id) ?? now.toISOString()}`);
    await queueInvitations(client, a.mailLinks, invited.map((p) => ({ email: p.email!, programId, programName: a.programName, partnerId: p.id, approved: true })), now);
  }
  return { linksCreated: withoutLink.length };
}

/** One partner's action: the bulk path with one id; a partner it does not apply to is the answer (409, or 404). */
export async function partnerActionOfOne(deps: PartnerDeps, scope: Scope, programId: number, partnerId: number, action: PartnerAction, input: unknown) {
  if (!Number.isSafeInteger(partnerId)) throw errors.notFound('Partner not found');
  const body = (input ?? {}) as Record<string, unknown>;
  const report = await partnerBulk(deps, scope, programId, { ...body, action, partner_ids: [partnerId] });
  const [refusal] = Object.keys(report.skipped);
  if (refusal === 'not_found') throw errors.notFound('Partner not found');
  if (refusal) throw errors.conflict(refusalWords(action, refusal), refusal);
  return { report, partner: (await enrollmentsDb.getPartner(deps.pool, programId, partnerId))! };
}

function refusalWords(action: PartnerAction, refusal: string): string {
  if (refusal === 'already_in_group') return 'This partner is already in that group';
  const status = refusal.replace(/^status_/, '');
  return `A partner who is ${status} cannot be given this action (${action.replace('_', ' ')})`;
}
