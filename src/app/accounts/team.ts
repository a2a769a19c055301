// A brand's team (docs/team.md): the owner invites members by mail (the link lasts 7 days), sets
// their role, removes them; an invited person joins by choosing a password. The account's own
// sign-in is an owner that cannot be removed or demoted: an account always keeps an owner.
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { AffixError, errors } from '../../core/errors.js';
import { mail } from '../../core/mail.js';
import { ROLES, type Role } from '../../core/permissions.js';
import { sha256 } from '../../core/secrets.js';
import { queueMails } from '../../db/outbound/mail-outbox.js';
import * as members from '../../db/accounts/members.js';
import { type Pool, withTransaction } from '../../db/infra/pool.js';
import { hashPassword } from '../../platform/passwords.js';
import { type Scope, memberInScope } from './scope.js';
import { audit, parseInput } from '../programs/management.js';

export const MEMBER_INVITATION_TTL_MS = 7 * 86_400_000;

export interface TeamDeps {
  pool: Pool;
  now: () => Date;
  publicUrl: string;
}

const inviteInput = z.object({
  email: z.email('Give the email address of the person to invite.').max(320),
  role: z.enum(ROLES, { error: 'Choose a role: owner, admin, finance or viewer.' }),
});
const roleInput = z.object({ role: z.enum(ROLES, { error: 'Choose a role: owner, admin, finance or viewer.' }) });
const joinInput = z.object({ password: z.string().min(12, 'A password of at least 12 characters.').max(200) });

const accountOf = (scope: Scope): number => {
  if (scope.kind !== 'account') throw errors.forbidden('The team belongs to an account');
  return scope.accountId;
};

export const listTeam = (deps: TeamDeps, scope: Scope) => members.listMembers(deps.pool, accountOf(scope));

/** Invites a person with a role: a member row (not yet accepted) and a mail with a join link that lasts days. */
export async function inviteMember(deps: TeamDeps, scope: Scope, input: unknown, accountName: string) {
  const accountId = accountOf(scope);
  const body = parseInput(inviteInput, input);
  const token = randomBytes(32).toString('base64url');
  return withTransaction(deps.pool, async (client) => {
    const memberId = await members.insertMember(client, accountId, body.email, body.role);
    if (memberId === null) throw new AffixError(409, 'This address is already on the team', { fields: { email: 'This address is already on the team.' } });
    await members.insertInvitation(client, memberId, sha256(token), new Date(deps.now().getTime() + MEMBER_INVITATION_TTL_MS));
    await queueMails(client, [
      memberInvitationMail(deps.publicUrl, accountName, body.email, body.role, token),
    ]);
    await audit(client, scope, [{ programId: null, action: 'member.invited', objectType: 'member', objectId: memberId, changes: { email: { from: null, to: body.email }, role: { from: null, to: body.role } } }]);
    return { memberId };
  });
}

/** The invitation to a team (its link works once, within 7 days); the dashboard's previews show it too. */
export const memberInvitationMail = (publicUrl: string, accountName: string, email: string, role: string, token: string) =>
  mail('member_invitation', {
    programId: null,
    to: email,
    senderName: accountName,
    subject: `${accountName} invited you to its Affix team`,
    body: `${accountName} invited you to its partner programs on Affix as ${role}.\n\nJoin (choose your password): ${publicUrl}/dashboard/join?token=${token}\n\nThe link works once, within 7 days.\n`,
    dedupeKey: `member_invitation:${sha256(token).toString('hex')}`,
  });

export async function changeRole(deps: TeamDeps, scope: Scope, memberId: number, input: unknown) {
  const accountId = accountOf(scope);
  const { role } = parseInput(roleInput, input);
  const member = await memberInScope(deps, accountId, memberId);
  await withTransaction(deps.pool, async (client) => {
    await members.setRole(client, accountId, memberId, role);
    await audit(client, scope, [{ programId: null, action: 'member.role_changed', objectType: 'member', objectId: memberId, changes: { role: { from: member.role, to: role } } }]);
  });
  return { ...member, role: role as Role };
}

export async function removeFromTeam(deps: TeamDeps, scope: Scope, memberId: number) {
  const accountId = accountOf(scope);
  const member = await memberInScope(deps, accountId, memberId);
  await withTransaction(deps.pool, async (client) => {
    await members.removeMember(client, accountId, memberId, deps.now());
    await audit(client, scope, [{ programId: null, action: 'member.removed', objectType: 'member', objectId: memberId, changes: { email: { from: member.email, to: null }, role: { from: member.role, to: null } } }]);
  });
}

/** What the join page shows for a token, or null (used, expired, removed). */
export const invitationFor = (deps: TeamDeps, token: string) => (/^[\w-]{20,100}$/.test(token) ? members.openInvitation(deps.pool, sha256(token), deps.now()) : Promise.resolve(null));

/** The invited person chooses a password: the invitation is used, and they are signed in as that member. */
export async function joinTeam(deps: TeamDeps, token: string, input: unknown) {
  const { password } = parseInput(joinInput, input);
  const hash = await hashPassword(password);
  const joined = /^[\w-]{20,100}$/.test(token) ? await withTransaction(deps.pool, (client) => members.acceptInvitation(client, sha256(token), hash, deps.now())) : null;
  if (!joined) throw errors.badRequest('This invitation expired or was already used. Ask for a new one.');
  return joined;
}
