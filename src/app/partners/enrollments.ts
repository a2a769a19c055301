// Adding a partner to a program, editing them, and the partner's page and money (docs/partners.md).
// Shared by the admin API, the dashboard and the CLI; every change is one transaction with its audit entry.
import { groupRef, optionalEmail, partnerName, tagsField } from './fields.js';
import { z } from 'zod';
import { AffixError, errors } from '../../core/errors.js';
import * as groupsDb from '../../db/partners/groups.js';
import * as enrollmentsDb from '../../db/partners/enrollments.js';
import * as partnerDetailsDb from '../../db/partners/details.js';
import { withTransaction } from '../../db/infra/pool.js';
import { type ManagementDeps, audit, parseInput } from '../programs/management.js';
import { type Scope, programInScope } from '../accounts/scope.js';
import { changedFields } from '../../core/audit.js';

export const newPartnerInput = z.object({
  name: partnerName,
  email: optionalEmail,
  group_id: groupRef,
  tags: tagsField.optional(),
  notes: z.string().trim().max(5000, 'Notes are at most 5000 characters.').nullish(),
  status: z.enum(['approved', 'invited'], { error: 'A partner the brand adds is approved or invited.' }).optional(),
});

export const editPartnerInput = z.object({
  name: partnerName.optional(),
  email: optionalEmail,
  notes: z.string().trim().max(5000, 'Notes are at most 5000 characters.').nullish(),
  tags: tagsField.optional(),
});

// ---- adding and editing ------------------------------------------------------------------------

export async function groupInProgram(deps: ManagementDeps, programId: number, groupId: number | null | undefined): Promise<number | null> {
  if (groupId === undefined || groupId === null) return null;
  const group = await groupsDb.getGroup(deps.pool, programId, groupId);
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
    const holder = await enrollmentsDb.partnerIdByEmail(deps.pool, program.id, body.email);
    if (holder !== null) throw duplicate(holder);
  }
  const made = await withTransaction(deps.pool, async (client) => {
    const enrolled = await enrollmentsDb.insertEnrollment(client, program.id, {
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
  const partner = Number.isSafeInteger(partnerId) ? await enrollmentsDb.getPartner(deps.pool, programId, partnerId) : null;
  if (!partner) throw errors.notFound('Partner not found');
  return partner;
}

/** Everything the partner page shows. */
export async function partnerPage(deps: ManagementDeps, scope: Scope, programId: number, partnerId: number) {
  const partner = await showPartner(deps, scope, programId, partnerId);
  const [details, elsewhere, groups, money, linkNumbers] = await Promise.all([
    partnerDetailsDb.partnerDetails(deps.pool, programId, partnerId),
    partnerDetailsDb.otherEnrollments(deps.pool, programId, partnerId),
    groupsDb.listGroups(deps.pool, programId),
    partnerDetailsDb.partnerMoney(deps.pool, programId, [partnerId]),
    partnerDetailsDb.partnerLinkNumbers(deps.pool, programId, partnerId),
  ]);
  return { partner, ...details, links: linkNumbers, money: money.get(partnerId) ?? [], elsewhere, groups };
}

/** The money of a page of partners per currency (the list shows each currency, never one converted). */
export async function partnersMoney(deps: ManagementDeps, scope: Scope, programId: number, partnerIds: number[]) {
  await programInScope(deps, scope, programId);
  return partnerDetailsDb.partnerMoney(deps.pool, programId, partnerIds);
}

/** The currencies the program has sold in: the list's money columns sort by one of them. */
export async function soldCurrencies(deps: ManagementDeps, scope: Scope, programId: number) {
  await programInScope(deps, scope, programId);
  return partnerDetailsDb.programCurrencies(deps.pool, programId);
}

/**
 * Edits the person (name, email: every program of the account sees them) and the enrollment
 * (notes, tags). A partner added without an email can be given one (and invited then).
 */
export async function editPartner(deps: ManagementDeps, scope: Scope, programId: number, partnerId: number, input: unknown) {
  await showPartner(deps, scope, programId, partnerId);
  const body = parseInput(editPartnerInput, input);
  if (body.email) {
    const holder = await enrollmentsDb.partnerIdByEmail(deps.pool, programId, body.email);
    if (holder !== null && holder !== partnerId) throw duplicate(holder);
  }
  const before = (await enrollmentsDb.getPartner(deps.pool, programId, partnerId))!;
  return withTransaction(deps.pool, async (client) => {
    if (body.name !== undefined || body.email !== undefined) {
      const outcome = await enrollmentsDb.updateProfile(client, programId, partnerId, { name: body.name, email: body.email });
      if (outcome === 'email_taken') {
        throw new AffixError(409, 'Another partner of your account has this email', { code: 'email_taken', fields: { email: 'Another partner of your account has this email.' } });
      }
    }
    await enrollmentsDb.updateEnrollment(client, programId, partnerId, { notes: body.notes, tags: body.tags });
    const after = (await enrollmentsDb.getPartner(client, programId, partnerId))!;
    const pick = (p: enrollmentsDb.PartnerView) => ({ name: p.name, email: p.email, notes: p.notes, tags: p.tags });
    await audit(client, scope, [{ programId, action: 'partner.updated', objectType: 'partner', objectId: partnerId, changes: changedFields(pick(before), pick(after)) }]);
    return after;
  });
}
