// Partner groups (terms a group of partners shares, its application page) and one partner's
// override of them (docs/partners.md). Each change is one transaction with its audit entry.
import { z } from 'zod';
import { NO_CONTROL_CHARACTERS, hasControlCharacter } from '../../core/names.js';
import { AffixError, errors } from '../../core/errors.js';
import { parseReward } from '../../core/programs.js';
import * as groupsDb from '../../db/partners/groups.js';
import * as enrollmentsDb from '../../db/partners/enrollments.js';
import { withTransaction } from '../../db/infra/pool.js';
import { FORM_BOOLEAN, HOLD_DAYS, PAYOUT_MINIMUMS } from '../money/payout-settings.js';
import { type ManagementDeps, audit, parseInput } from '../programs/management.js';
import { type Scope, programInScope } from '../accounts/scope.js';
import { changedFields } from '../../core/audit.js';
import { showPartner } from './enrollments.js';

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

// ---- groups and overrides --------------------------------------------------------------------

function groupSettings(input: unknown): groupsDb.GroupSettings {
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
  const minimums = Object.fromEntries(Object.entries(body.payout_minimums_cents ?? {}).filter(([, v]) => v !== null && v !== undefined)) as groupsDb.GroupSettings['payoutMinimums'];
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
    const group = await groupsDb.insertGroup(client, programId, settings);
    if (!group) throw slugTaken();
    await audit(client, scope, [{ programId, action: 'group.created', objectType: 'group', objectId: group.id, changes: changedFields(null, { ...settings }) }]);
    return group;
  });
}

/** A change of a group's terms applies to commissions made from now on; earlier ones keep the terms they were made under. */
export async function updateGroup(deps: ManagementDeps, scope: Scope, programId: number, groupId: number, input: unknown) {
  await programInScope(deps, scope, programId);
  const settings = groupSettings(input);
  const before = Number.isSafeInteger(groupId) ? await groupsDb.getGroup(deps.pool, programId, groupId) : null;
  if (!before) throw errors.notFound('Group not found');
  return withTransaction(deps.pool, async (client) => {
    const updated = await groupsDb.updateGroup(client, programId, groupId, settings);
    if (updated === 'slug_taken') throw slugTaken();
    if (!updated) throw errors.notFound('Group not found');
    await audit(client, scope, [{ programId, action: 'group.updated', objectType: 'group', objectId: groupId, changes: changedFields(before as unknown as Record<string, unknown>, updated as unknown as Record<string, unknown>) }]);
    return updated;
  });
}

export async function listGroups(deps: ManagementDeps, scope: Scope, programId: number) {
  await programInScope(deps, scope, programId);
  return groupsDb.listGroups(deps.pool, programId);
}

/** One partner's own reward, with where it comes from: it wins over their group and the program. */
export async function setOverride(deps: ManagementDeps, scope: Scope, programId: number, partnerId: number, input: unknown) {
  await showPartner(deps, scope, programId, partnerId);
  const { source } = parseInput(overrideInput, input);
  const reward = parseReward((input ?? {}) as Record<string, unknown>);
  return withTransaction(deps.pool, async (client) => {
    await groupsDb.setOverride(client, programId, partnerId, { ...reward, durationMonths: reward.recurringDurationMonths, source });
    await audit(client, scope, [{ programId, action: 'partner.override_set', objectType: 'partner', objectId: partnerId, changes: changedFields(null, { ...reward, source }) }]);
    return (await enrollmentsDb.getPartner(client, programId, partnerId))!;
  });
}

export async function removeOverride(deps: ManagementDeps, scope: Scope, programId: number, partnerId: number) {
  await showPartner(deps, scope, programId, partnerId);
  return withTransaction(deps.pool, async (client) => {
    if (await groupsDb.removeOverride(client, programId, partnerId)) {
      await audit(client, scope, [{ programId, action: 'partner.override_removed', objectType: 'partner', objectId: partnerId }]);
    }
    return (await enrollmentsDb.getPartner(client, programId, partnerId))!;
  });
}
