// Sessions and CLI tokens (docs/team.md "Who sees and ends which sign-ins"): each person lists
// and ends only their own; from the team page an owner ends anyone's, an admin those of members
// below owner. Every end is in the audit log.
import { errors } from '../../core/errors.js';
import { type Role, mayEndSignInsOf } from '../../core/permissions.js';
import { memberOf } from '../../db/accounts/members.js';
import { type Pool, withTransaction } from '../../db/infra/pool.js';
import { type Person, endSessionById, endSignInsOf, listSignIns, revokeCliToken, signInCountsByPerson } from '../../db/accounts/sign-ins.js';
import { type Scope } from './scope.js';
import { audit } from '../programs/management.js';

export interface SignInsDeps {
  pool: Pool;
  now: () => Date;
}

/** How the audit log names a person: the member's id, or `account:<id>` for the account's own sign-in. */
export const personId = (person: Person): string => (person.memberId === null ? `account:${person.accountId}` : String(person.memberId));

export const ownSignIns = (pool: Pool, person: Person, currentSessionToken: string | null) => listSignIns(pool, person, currentSessionToken);

export async function revokeOwnCliToken(deps: SignInsDeps, scope: Scope, person: Person, tokenId: number): Promise<void> {
  await withTransaction(deps.pool, async (client) => {
    if (!Number.isSafeInteger(tokenId) || !(await revokeCliToken(client, person, tokenId, deps.now()))) throw errors.notFound('Token not found');
    await audit(client, scope, [{ programId: null, action: 'cli_token.revoked', objectType: 'cli_token', objectId: tokenId, changes: { person: { from: personId(person), to: null } } }]);
  });
}

export async function endOwnSession(deps: SignInsDeps, scope: Scope, person: Person, sessionId: number): Promise<void> {
  await withTransaction(deps.pool, async (client) => {
    if (!Number.isSafeInteger(sessionId) || !(await endSessionById(client, person, sessionId))) throw errors.notFound('Session not found');
    await audit(client, scope, [{ programId: null, action: 'session.ended', objectType: 'dashboard_session', objectId: sessionId, changes: { person: { from: personId(person), to: null } } }]);
  });
}

/** Live sessions and CLI tokens per person of the account (0: the account's own sign-in), for the team page. */
export const teamSignIns = (pool: Pool, accountId: number) => signInCountsByPerson(pool, accountId);

/** The team page's "End sessions": `target` is a member's id, or `account` for the account's own sign-in (an owner). */
export async function endSignInsOfPerson(deps: SignInsDeps, scope: Scope & { kind: 'account' }, role: Role, target: string) {
  const accountId = scope.accountId;
  const member = /^\d{1,15}$/.test(target) ? await memberOf(deps.pool, accountId, Number(target)) : null;
  const whose = target === 'account' ? { person: { accountId, memberId: null }, role: 'owner' as Role } : member ? { person: { accountId, memberId: member.id }, role: member.role } : null;
  if (!whose) throw errors.notFound('Member not found');
  if (!mayEndSignInsOf(role, whose.role)) throw errors.forbidden(`Your role (${role}) may not end the sessions of an owner`);
  return withTransaction(deps.pool, async (client) => {
    const ended = await endSignInsOf(client, whose.person, deps.now());
    await audit(client, scope, [{
      programId: null,
      action: 'member.sign_ins_ended',
      objectType: 'member',
      objectId: personId(whose.person),
      changes: { sessions: { from: ended.sessions, to: 0 }, cli_tokens: { from: ended.cliTokens, to: 0 } },
    }]);
    return ended;
  });
}
