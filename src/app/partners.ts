// Running a program's partners (docs/partners.md): adding and editing them, groups and
// overrides, the partner list and page, bulk actions (a single action is a bulk action of one),
// sanctions that lift exactly what they changed, and exports. Shared by the admin API, the
// dashboard and the CLI; every change is one transaction per chunk with its outbound events.
import { readSide } from './reads.js';
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { NO_CONTROL_CHARACTERS, hasControlCharacter } from '../core/names.js';
import { csvField } from '../core/csv.js';
import { AffixError, errors } from '../core/errors.js';
import type { OutboundEvent } from '../core/outbound-events.js';
import {
  ACTION_APPLIES_TO,
  ACTION_NEEDS_REASON,
  type BulkReport,
  PARTNER_ACTIONS,
  PARTNER_STATUSES,
  type PartnerAction,
  type PartnerStatus,
  REAPPLY_RULES,
  type ReapplyRule,
  addToReport,
  emptyReport,
  reapplyAfter,
} from '../core/partners.js';
import { parseReward } from '../core/programs.js';
import * as applications from '../db/applications.js';
import { DEFAULT_OUTBOUND_QUEUE, writeMessages } from '../db/outbound.js';
import * as partners from '../db/partners.js';
import { type PoolClient, withTransaction } from '../db/pool.js';
import { CURRENCY_CODE, FORM_BOOLEAN, HOLD_DAYS, PAYOUT_MINIMUMS, cancelPayoutIn, lockProgramPayouts } from './payouts.js';
import { type MailLinks, approvalLinks, decisionMail, mailBrand, queueInvitations } from './mail.js';
import { queueMails } from '../db/mail.js';
import { type ManagementDeps, type Scope, audit, parseInput, programInScope, roleOf } from './management.js';
import { searchMatchesPeople } from '../core/permissions.js';
import { changedFields } from '../core/audit.js';

/** How many partners one transaction of a bulk action changes. */
export const PARTNER_CHUNK = 500;
/** The most ids one bulk request may name (the admin API's bulk route takes a body large enough). */
export const MAX_BULK_IDS = 100_000;

/** The chunk's events, one statement (src/db/outbound.ts). */
const emitAll = (client: PoolClient, programId: number, events: OutboundEvent[]) => writeMessages(client, DEFAULT_OUTBOUND_QUEUE, programId, events);

/** With `mailLinks`, the changes mail the partners they concern (in their transaction: docs/mail.md). */
export interface PartnerDeps extends ManagementDeps {
  mailLinks?: MailLinks;
}

// ---- request shapes ----------------------------------------------------------------------------

const TAG = z.string().trim().toLowerCase().min(1).max(40, 'A tag is at most 40 characters.');
const tagsField = z
  .union([z.array(TAG), z.string().transform((text) => text.split(',').map((t) => t.trim().toLowerCase()).filter(Boolean))])
  .pipe(z.array(TAG).max(20, 'At most 20 tags.'));
const optionalEmail = z
  .union([z.literal('').transform(() => null), z.email('Partner email must be an email address.').max(320)])
  .nullish();
const name = z
  .string({ error: 'Partner name is required.' })
  .trim()
  .min(1, 'Partner name is required.')
  .max(255, 'Partner name is at most 255 characters.')
  .refine((text) => !hasControlCharacter(text), `Partner name ${NO_CONTROL_CHARACTERS}.`);
const groupRef = z.union([z.coerce.number().int().positive(), z.literal('').transform(() => null), z.null()]).optional();

export const newPartnerInput = z.object({
  name,
  email: optionalEmail,
  group_id: groupRef,
  tags: tagsField.optional(),
  notes: z.string().trim().max(5000, 'Notes are at most 5000 characters.').nullish(),
  status: z.enum(['approved', 'invited'], { error: 'A partner the brand adds is approved or invited.' }).optional(),
});

export const editPartnerInput = z.object({
  name: name.optional(),
  email: optionalEmail,
  notes: z.string().trim().max(5000, 'Notes are at most 5000 characters.').nullish(),
  tags: tagsField.optional(),
});

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

export const groupInput = z.object({
  name: z
    .string({ error: 'Give the group a name.' })
    .trim()
    .min(1, 'Give the group a name.')
    .max(100, 'At most 100 characters.')
    .refine((text) => !hasControlCharacter(text), `A group name ${NO_CONTROL_CHARACTERS}.`),
  slug: z
    .string({ error: 'Give the group an address name.' })
    .trim()
    .toLowerCase()
    .regex(/^[a-z0-9][a-z0-9-]{0,62}$/, 'Letters, digits and -, up to 63 (it is part of the application page address).'),
  hold_days: HOLD_DAYS,
  payout_minimums_cents: PAYOUT_MINIMUMS.optional(),
  partners_can_create_links: FORM_BOOLEAN.optional(),
  applications_open: FORM_BOOLEAN.optional(),
  auto_approve: FORM_BOOLEAN.optional(),
});

export const overrideInput = z.object({
  source: z.string({ error: 'Say where this deal comes from (a contract, an email).' }).trim().min(1, 'Say where this deal comes from (a contract, an email).').max(200),
});

// ---- adding and editing ------------------------------------------------------------------------

async function groupInProgram(deps: ManagementDeps, programId: number, groupId: number | null | undefined): Promise<number | null> {
  if (groupId === undefined || groupId === null) return null;
  const group = await partners.getGroup(deps.pool, programId, groupId);
  if (!group) throw errors.invalid('group_id must be a group of this program', { group_id: 'Choose a group of this program.' });
  return group.id;
}

const duplicate = (partnerId: number) =>
  new AffixError(409, `A partner with this email is already in this program (partner ${partnerId})`, {
    code: 'partner_exists',
    fields: { email: `A partner with this email is already in this program (partner ${partnerId}).` },
    extra: { partner_id: partnerId },
  });

/** The brand adds a partner. One email is one partner: the same address twice in a program is refused. */
export async function addPartner(deps: ManagementDeps, scope: Scope, programId: number, input: unknown) {
  const program = await programInScope(deps, scope, programId);
  const body = parseInput(newPartnerInput, input);
  const groupId = await groupInProgram(deps, program.id, body.group_id);
  // The duplicate check reads first: a refused insert would end the transaction its audit entry needs.
  if (body.email) {
    const holder = await partners.partnerIdByEmail(deps.pool, program.id, body.email);
    if (holder !== null) throw duplicate(holder);
  }
  const made = await withTransaction(deps.pool, async (client) => {
    const enrolled = await partners.insertEnrollment(client, program.id, {
      name: body.name,
      email: body.email ?? null,
      status: body.status ?? 'approved',
      groupId,
      tags: body.tags ?? [],
      notes: body.notes ?? null,
    });
    if ('partner' in enrolled) {
      const p = enrolled.partner;
      await audit(client, scope, [{ programId: program.id, action: 'partner.created', objectType: 'partner', objectId: p.id, changes: changedFields(null, { name: p.name, email: p.email, status: p.status, group_id: p.group_id, tags: p.tags }) }]);
    }
    return enrolled;
  });
  if ('duplicateOf' in made) throw duplicate(made.duplicateOf);
  return made.partner;
}

export async function showPartner(deps: ManagementDeps, scope: Scope, programId: number, partnerId: number) {
  await programInScope(deps, scope, programId);
  const partner = Number.isSafeInteger(partnerId) ? await partners.getPartner(deps.pool, programId, partnerId) : null;
  if (!partner) throw errors.notFound('Partner not found');
  return partner;
}

/** Everything the partner page shows. */
export async function partnerPage(deps: ManagementDeps, scope: Scope, programId: number, partnerId: number) {
  const partner = await showPartner(deps, scope, programId, partnerId);
  const [details, elsewhere, groups, money, linkNumbers] = await Promise.all([
    partners.partnerDetails(deps.pool, programId, partnerId),
    partners.otherEnrollments(deps.pool, programId, partnerId),
    partners.listGroups(deps.pool, programId),
    partners.partnerMoney(deps.pool, programId, [partnerId]),
    partners.partnerLinkNumbers(deps.pool, programId, partnerId),
  ]);
  return { partner, ...details, links: linkNumbers, money: money.get(partnerId) ?? [], elsewhere, groups };
}

/** The money of a page of partners per currency (the list shows each currency, never one converted). */
export async function partnersMoney(deps: ManagementDeps, scope: Scope, programId: number, partnerIds: number[]) {
  await programInScope(deps, scope, programId);
  return partners.partnerMoney(deps.pool, programId, partnerIds);
}

/** The currencies the program has sold in: the list's money columns sort by one of them. */
export async function soldCurrencies(deps: ManagementDeps, scope: Scope, programId: number) {
  await programInScope(deps, scope, programId);
  return partners.programCurrencies(deps.pool, programId);
}

/**
 * Edits the person (name, email: every program of the account sees them) and the enrollment
 * (notes, tags). A partner added without an email can be given one (and invited then).
 */
export async function editPartner(deps: ManagementDeps, scope: Scope, programId: number, partnerId: number, input: unknown) {
  await showPartner(deps, scope, programId, partnerId);
  const body = parseInput(editPartnerInput, input);
  if (body.email) {
    const holder = await partners.partnerIdByEmail(deps.pool, programId, body.email);
    if (holder !== null && holder !== partnerId) throw duplicate(holder);
  }
  const before = (await partners.getPartner(deps.pool, programId, partnerId))!;
  return withTransaction(deps.pool, async (client) => {
    if (body.name !== undefined || body.email !== undefined) {
      const outcome = await partners.updateProfile(client, programId, partnerId, { name: body.name, email: body.email });
      if (outcome === 'email_taken') {
        throw new AffixError(409, 'Another partner of your account has this email', { code: 'email_taken', fields: { email: 'Another partner of your account has this email.' } });
      }
    }
    await partners.updateEnrollment(client, programId, partnerId, { notes: body.notes, tags: body.tags });
    const after = (await partners.getPartner(client, programId, partnerId))!;
    const pick = (p: partners.PartnerView) => ({ name: p.name, email: p.email, notes: p.notes, tags: p.tags });
    await audit(client, scope, [{ programId, action: 'partner.updated', objectType: 'partner', objectId: partnerId, changes: changedFields(pick(before), pick(after)) }]);
    return after;
  });
}

// ---- the list ----------------------------------------------------------------------------------

export const listQuery = z.object({
  q: z.string().trim().max(320).optional(),
  status: z.enum(PARTNER_STATUSES, { error: `status must be one of: ${PARTNER_STATUSES.join(', ')}.` }).optional().or(z.literal('').transform(() => undefined)),
  group_id: z.coerce.number().int().positive().optional().or(z.literal('').transform(() => undefined)),
  tag: z.string().trim().max(40).optional(),
  sort: z.enum(partners.PARTNER_SORTS, { error: `sort must be one of: ${partners.PARTNER_SORTS.join(', ')}.` }).optional().or(z.literal('').transform(() => undefined)),
  direction: z.enum(['asc', 'desc']).optional().or(z.literal('').transform(() => undefined)),
  currency: z.literal('').transform(() => undefined).or(CURRENCY_CODE).optional(),
  after: z.string().max(300).optional(),
  limit: z.coerce.number().int().min(1).max(500).optional(),
});

/** A list's, export's or bulk action's filter, searched as the caller's role may (searchMatchesPeople). */
function partnerFilter(scope: Scope, f: { q?: string; status?: PartnerStatus; group_id?: number; tag?: string } | undefined): partners.PartnerFilter {
  return { q: f?.q || null, matchesPeople: searchMatchesPeople(roleOf(scope)), status: f?.status ?? null, groupId: f?.group_id ?? null, tag: f?.tag || null };
}

const cursorOf = (value: unknown, id: number) => Buffer.from(JSON.stringify([value instanceof Date ? value.toISOString() : value, id])).toString('base64url');

function readCursor(cursor: string | undefined): [string | number, number] | null {
  if (!cursor) return null;
  try {
    const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(parsed) && parsed.length === 2 && ['string', 'number'].includes(typeof parsed[0]) && Number.isSafeInteger(parsed[1])) return parsed as [string | number, number];
  } catch {
    // fall through
  }
  throw errors.invalid('after must be the next_cursor of a previous page', { after: 'This page link is out of date; start from the first page.' });
}

/** One page of partners: search, filters, sort by a number, keyset pagination (`next_cursor`). */
export async function listPartners(deps: ManagementDeps, scope: Scope, programId: number, query: unknown) {
  await programInScope(deps, scope, programId);
  const q = parseInput(listQuery, query);
  const sort = q.sort ?? 'created';
  const limit = q.limit ?? 50;
  const filter = partnerFilter(scope, q);
  const rows = await partners.listPartners(deps.pool, programId, filter, {
    sort,
    direction: q.direction ?? (sort === 'name' ? 'asc' : 'desc'),
    currency: q.currency ?? 'USD',
    after: readCursor(q.after),
    limit: limit + 1,
  });
  const page = rows.slice(0, limit);
  const last = page[page.length - 1] as (partners.PartnerListRow & { sort_value: unknown }) | undefined;
  return {
    partners: page.map(({ sort_value: _s, ...row }: any) => row as partners.PartnerListRow),
    next_cursor: rows.length > limit && last ? cursorOf(last.sort_value, last.id) : null,
    filter: { q: filter.q, status: filter.status, groupId: filter.groupId, tag: filter.tag, sort, currency: q.currency ?? 'USD' },
  };
}

/**
 * The partners a filter matches as CSV (formula-safe, every row): the header, then a chunk per
 * page of 1,000 as it is read. The caller's scope and the filter are checked before the first
 * chunk, so a refusal is an ordinary error response.
 */
export async function* exportPartnersCsv(deps: ManagementDeps, scope: Scope, programId: number, query: unknown): AsyncGenerator<string> {
  await programInScope(deps, scope, programId);
  const q = parseInput(listQuery, query);
  const filter = partnerFilter(scope, q);
  yield `${['partner_id', 'name', 'email', 'status', 'group', 'tags', 'referral_codes', 'created_at'].join(',')}\r\n`;
  for await (const rows of partners.partnerExportPages(readSide(deps).pool, programId, filter)) {
    yield rows.map((r) => `${[r.id, r.name, r.email, r.status, r.group_slug, r.tags.join(';'), r.codes, r.created_at].map(csvField).join(',')}\r\n`).join('');
  }
}

// ---- groups and overrides --------------------------------------------------------------------

function groupSettings(input: unknown): partners.GroupSettings {
  const raw = (input ?? {}) as Record<string, unknown>;
  const parsed = groupInput.safeParse(raw);
  let reward: ReturnType<typeof parseReward> | null = null;
  let rewardError: AffixError | null = null;
  try {
    reward = parseReward(raw);
  } catch (error) {
    if (!(error instanceof AffixError)) throw error;
    rewardError = error;
  }
  if (!parsed.success || rewardError) {
    // Every field's problem at once, the reward's and the group's.
    const fields = { ...(rewardError?.init.fields ?? {}) };
    if (!parsed.success) for (const issue of parsed.error.issues) fields[issue.path.join('.') || 'body'] ??= issue.message;
    const [field, message] = Object.entries(fields)[0]!;
    throw errors.invalid(rewardError?.message ?? `${field}: ${message}`, fields);
  }
  const body = parsed.data;
  const minimums = Object.fromEntries(Object.entries(body.payout_minimums_cents ?? {}).filter(([, v]) => v !== null && v !== undefined)) as partners.GroupSettings['payoutMinimums'];
  return {
    name: body.name,
    slug: body.slug,
    commissionType: reward!.commissionType,
    commissionRate: reward!.commissionRate,
    durationMonths: reward!.recurringDurationMonths,
    holdDays: body.hold_days,
    payoutMinimums: minimums,
    partnersCanCreateLinks: body.partners_can_create_links ?? false,
    applicationsOpen: body.applications_open ?? false,
    autoApprove: body.auto_approve ?? false,
  };
}

const slugTaken = () =>
  new AffixError(409, 'Another group of this program has this address name', { code: 'slug_taken', fields: { slug: 'Another group of this program has this address name.' } });

/** A group carries complete terms: its reward, hold days, payout minimums and link rule (nothing inherited). */
export async function createGroup(deps: ManagementDeps, scope: Scope, programId: number, input: unknown) {
  await programInScope(deps, scope, programId);
  const settings = groupSettings(input);
  return withTransaction(deps.pool, async (client) => {
    const group = await partners.insertGroup(client, programId, settings);
    if (!group) throw slugTaken();
    await audit(client, scope, [{ programId, action: 'group.created', objectType: 'group', objectId: group.id, changes: changedFields(null, { ...settings }) }]);
    return group;
  });
}

/** A change of a group's terms applies to commissions made from now on; earlier ones keep the terms they were made under. */
export async function updateGroup(deps: ManagementDeps, scope: Scope, programId: number, groupId: number, input: unknown) {
  await programInScope(deps, scope, programId);
  const settings = groupSettings(input);
  const before = Number.isSafeInteger(groupId) ? await partners.getGroup(deps.pool, programId, groupId) : null;
  if (!before) throw errors.notFound('Group not found');
  return withTransaction(deps.pool, async (client) => {
    const updated = await partners.updateGroup(client, programId, groupId, settings);
    if (updated === 'slug_taken') throw slugTaken();
    if (!updated) throw errors.notFound('Group not found');
    await audit(client, scope, [{ programId, action: 'group.updated', objectType: 'group', objectId: groupId, changes: changedFields(before as unknown as Record<string, unknown>, updated as unknown as Record<string, unknown>) }]);
    return updated;
  });
}

export async function listGroups(deps: ManagementDeps, scope: Scope, programId: number) {
  await programInScope(deps, scope, programId);
  return partners.listGroups(deps.pool, programId);
}

/** One partner's own reward, with where it comes from: it wins over their group and the program. */
export async function setOverride(deps: ManagementDeps, scope: Scope, programId: number, partnerId: number, input: unknown) {
  await showPartner(deps, scope, programId, partnerId);
  const { source } = parseInput(overrideInput, input);
  const reward = parseReward((input ?? {}) as Record<string, unknown>);
  return withTransaction(deps.pool, async (client) => {
    await partners.setOverride(client, programId, partnerId, { ...reward, durationMonths: reward.recurringDurationMonths, source });
    await audit(client, scope, [{ programId, action: 'partner.override_set', objectType: 'partner', objectId: partnerId, changes: changedFields(null, { ...reward, source }) }]);
    return (await partners.getPartner(client, programId, partnerId))!;
  });
}

export async function removeOverride(deps: ManagementDeps, scope: Scope, programId: number, partnerId: number) {
  await showPartner(deps, scope, programId, partnerId);
  return withTransaction(deps.pool, async (client) => {
    if (await partners.removeOverride(client, programId, partnerId)) {
      await audit(client, scope, [{ programId, action: 'partner.override_removed', objectType: 'partner', objectId: partnerId }]);
    }
    return (await partners.getPartner(client, programId, partnerId))!;
  });
}

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
  selection: { partnerIds: number[] } | { filter: partners.PartnerFilter };
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
 * Within the request: src/app/bulk-actions.ts sends large selections to the job instead.
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
    const ids = await partners.partnerIdsMatching(deps.pool, programId, request.selection.filter, ACTION_APPLIES_TO[request.action], after, PARTNER_CHUNK);
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
  const locked = new Map((await partners.lockPartners(client, programId, ids)).map((p) => [p.id, p]));
  const applies = ACTION_APPLIES_TO[a.action];
  const chosen = ids.map((id) => locked.get(id)).filter((p): p is partners.LockedPartner => !!p && applies.includes(p.status) && !(a.action === 'move_group' && p.groupId === a.groupId));
  const outcomes = ids.map((id): ChunkOutcome => {
    const p = locked.get(id);
    if (!p) return { id, skipped: 'not_found' };
    if (!chosen.includes(p)) return { id, skipped: a.action === 'move_group' ? 'already_in_group' : `status_${p.status}` };
    return { id };
  });
  const changed = await applyPartnerAction(client, programId, a, chosen, now);
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
async function mailDecision(client: PoolClient, programId: number, a: ChunkAction, chosen: partners.LockedPartner[], decision: 'approved' | 'rejected' | 'banned', changeKey: (p: partners.LockedPartner) => string) {
  if (!a.mailLinks) return;
  const links = a.mailLinks;
  const brand = await mailBrand(client, programId);
  const shown = decision === 'approved' ? await approvalLinks(client, programId, chosen.map((p) => p.id)) : new Map<number, string>();
  await queueMails(
    client,
    chosen.filter((p) => p.email).map((p) => decisionMail(links, { programId, programName: a.programName, brand, email: p.email!, partnerId: p.id, decision, reason: a.reason, changeKey: changeKey(p), link: shown.get(p.id) })),
  );
}

async function applyPartnerAction(client: PoolClient, programId: number, a: ChunkAction, chosen: partners.LockedPartner[], now: Date) {
  const ids = chosen.map((p) => p.id);
  const none = { linksCreated: 0 };
  if (ids.length === 0) return none;
  switch (a.action) {
    case 'approve':
      return approvePartners(client, programId, a, chosen, now);
    case 'reject': {
      await partners.setStatus(client, ids, 'rejected', now);
      const pending = await applications.pendingApplicationsOf(client, ids);
      await applications.decideApplications(client, [...pending.values()], { status: 'rejected', reason: a.reason, reapply: a.reapply, reapplyAfter: reapplyAfter(a.reapply, now), at: now, auto: a.auto });
      await mailDecision(client, programId, a, chosen, 'rejected', (p) => `application:${pending.get(p.id) ?? now.toISOString()}`);
      await emitAll(client, programId, chosen.map((p) => partnerEvent(programId, 'partner.rejected', { partner_id: p.id, reason: a.reason, reapply: a.reapply })));
      return none;
    }
    case 'move_group':
      await partners.setGroup(client, ids, a.groupId);
      await emitAll(client, programId, chosen.map((p) => partnerEvent(programId, 'partner.group_changed', { partner_id: p.id, group_id: a.groupId, previous_group_id: p.groupId })));
      return none;
    case 'archive':
    case 'ban': {
      const kind = a.action === 'ban' ? 'ban' : 'archive';
      const sanctions = await partners.insertSanctions(client, programId, kind, a.reason ?? 'archived', chosen, now);
      await partners.setStatus(client, ids, a.action === 'ban' ? 'banned' : 'archived', now);
      await partners.disableLinksUnder(client, sanctions);
      if (kind === 'ban') {
        await partners.rejectCommissionsUnder(client, sanctions, `partner banned: ${a.reason}`);
        for (const payout of await partners.openPayoutsOf(client, programId, ids)) {
          await cancelPayoutIn(client, programId, payout.id, now);
          await partners.stampPayoutCanceled(client, payout.id, sanctions.get(payout.partnerId)!);
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
      const active = (await partners.activeSanctions(client, ids)).filter((s) => s.kind === kind);
      await partners.liftSanctions(client, active.map((s) => s.id), a.reason, now);
      for (const statusBefore of new Set(active.map((s) => s.statusBefore))) {
        const back = active.filter((s) => s.statusBefore === statusBefore).map((s) => s.partnerId);
        await partners.setStatus(client, back, restoredStatus(statusBefore), now);
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
async function approvePartners(client: PoolClient, programId: number, a: ChunkAction, chosen: partners.LockedPartner[], now: Date) {
  const ids = chosen.map((p) => p.id);
  await partners.setStatus(client, ids, 'approved', now);
  if (a.groupId !== null) await partners.setGroup(client, ids, a.groupId);
  const applied = await applications.pendingApplicationCodes(client, ids);
  const pending = new Map([...applied].map(([partnerId, x]) => [partnerId, x.id]));
  await applications.decideApplications(client, [...pending.values()], { status: 'approved', reason: a.reason, reapply: null, reapplyAfter: null, at: now, auto: a.auto });
  // The code the applicant chose when still free, else a random one (a random one taken is drawn again).
  const withoutLink = await partners.partnersWithoutLink(client, ids);
  let waiting = withoutLink;
  for (let round = 0; waiting.length > 0; round += 1) {
    const made = await partners.insertLinks(client, programId, waiting.map((partnerId) => ({ partnerId, code: (round === 0 && applied.get(partnerId)?.wantedCode) || randomBytes(5).toString('hex') })));
    waiting = waiting.filter((partnerId) => !made.has(partnerId));
    if (round === 3 && waiting.length) throw new Error('random link codes kept colliding');
  }
  const invited = chosen.filter((p) => p.email);
  await partners.markInvited(client, invited.map((p) => p.id), now);
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
  return { report, partner: (await partners.getPartner(deps.pool, programId, partnerId))! };
}

function refusalWords(action: PartnerAction, refusal: string): string {
  if (refusal === 'already_in_group') return 'This partner is already in that group';
  const status = refusal.replace(/^status_/, '');
  return `A partner who is ${status} cannot be given this action (${action.replace('_', ' ')})`;
}

/** CSV of the program's applications with their answers and stored terms acceptance, a chunk per page of 1,000 as it is read. */
export async function* exportApplicationsCsv(deps: ManagementDeps, scope: Scope, programId: number): AsyncGenerator<string> {
  await programInScope(deps, scope, programId);
  yield `${['application_id', 'partner_id', 'name', 'email', 'status', 'group', 'answers', 'terms_version', 'terms_accepted_at', 'terms_ip', 'reason', 'auto_decided', 'created_at'].join(',')}\r\n`;
  for (let after = 0; ; ) {
    const rows = await applications.listApplications(readSide(deps).pool, programId, { afterId: after, limit: 1000 });
    yield rows
      .map((r) => `${[r.id, r.partner_id, r.name, r.email, r.status, r.group_name, JSON.stringify(r.answers), r.terms_version, r.terms_accepted_at, r.terms_ip, r.reason, r.auto_decided, r.created_at].map(csvField).join(',')}\r\n`)
      .join('');
    if (rows.length < 1000) return;
    after = rows[rows.length - 1]!.id;
  }
}

