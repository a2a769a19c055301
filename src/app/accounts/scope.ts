// Whose data a caller may touch: the scope (the operator, or an account with its member's role)
// and the four checks that answer "in scope?" for a program, an API key, an outbound webhook
// endpoint and a team member, all on the one tenant primitive (src/db/accounts/tenant-scope.ts). Anything
// out of scope is the same 404 as something that does not exist.
import { errors } from '../../core/errors.js';
import { type Actor, OPERATOR_ACTOR } from '../../core/audit.js';
import type { Role } from '../../core/permissions.js';
import * as admin from '../../db/programs/programs-links-keys.js';
import * as members from '../../db/accounts/members.js';
import type { Pool } from '../../db/infra/pool.js';
import { programOfKey, programOwnedBy } from '../../db/accounts/tenant-scope.js';
import * as endpoints from '../../db/outbound/webhook-endpoints.js';

/**
 * The operator (admin token) reaches every program; a brand only its own account's, with the
 * signed-in member's role. `actor` is who acts (the audit log records it); without one, the
 * operator or the account itself.
 */
export type Scope = ({ kind: 'operator' } | { kind: 'account'; accountId: number; role: Role }) & { actor?: Actor };
export type AccountScope = Scope & { kind: 'account' };
export const OPERATOR: Scope = { kind: 'operator' };

/** Whose permissions the caller has: the operator's, or its member's role (src/core/permissions.ts). */
export const roleOf = (scope: Scope): Role | 'operator' => (scope.kind === 'operator' ? 'operator' : scope.role);

/** The operator acting from a request's address (the admin API). */
export const operatorFrom = (ip: string | null | undefined): Scope => ({ kind: 'operator', actor: { ...OPERATOR_ACTOR, ip: ip ?? null } });

/** The program when the scope may touch it; otherwise the same 404 as a program that does not exist. */
export async function programInScope(deps: { pool: Pool }, scope: Scope, programId: number): Promise<admin.ProgramView> {
  const inScope = Number.isSafeInteger(programId) && (scope.kind === 'operator' || (await programOwnedBy(deps.pool, programId, scope.accountId)));
  const program = inScope ? await admin.getProgram(deps.pool, programId) : null;
  if (!program) throw errors.notFound('Program not found');
  return program;
}

/** The program of an API key the scope may touch (its id), or the same 404 as a key that does not exist. */
export async function keyInScope(deps: { pool: Pool }, scope: Scope, keyId: number): Promise<number> {
  const programId = Number.isSafeInteger(keyId) ? await programOfKey(deps.pool, keyId) : null;
  if (programId === null) throw errors.notFound('API key not found');
  await programInScope(deps, scope, programId).catch(() => {
    throw errors.notFound('API key not found');
  });
  return programId;
}

/** An outbound webhook endpoint of a program the scope may touch, or a 404. */
export async function endpointInScope(deps: { pool: Pool }, scope: Scope, programId: number, endpointId: number) {
  await programInScope(deps, scope, programId);
  const endpoint = Number.isSafeInteger(endpointId) ? await endpoints.getEndpoint(deps.pool, programId, endpointId) : null;
  if (!endpoint) throw errors.notFound('Webhook endpoint not found');
  return endpoint;
}

/** A member of the account (the caller's, from its scope), or a 404. */
export async function memberInScope(deps: { pool: Pool }, accountId: number, memberId: number) {
  const member = Number.isSafeInteger(memberId) ? await members.memberOf(deps.pool, accountId, memberId) : null;
  if (!member) throw errors.notFound('Member not found');
  return member;
}
