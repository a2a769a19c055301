// The CLI's sign-in (spec §3, §4.6): a login session per `affix login`, completed by a verified
// id_token (from the OpenID Connect issuer or the local sign-in page), polled for the token.
import { randomBytes } from 'node:crypto';
import { CLI_MESSAGES, LOGIN_SESSION_TTL_MS, LOGIN_TOKEN_TTL_MS, callbackVerdict, pollVerdict } from '../../core/cli-login.js';
import { errors } from '../../core/errors.js';
import { membersForLogin } from '../../db/accounts/members.js';
import { accountEmail, consumeSession, createLoginSession, findAccountForLogin, findOrCreateAccount, insertLoginToken, markSignedIn, revokeLoginToken, withLoginSession } from '../../db/accounts/cli-logins.js';
import type { Pool } from '../../db/infra/pool.js';

export interface SignInDeps {
  pool: Pool;
  now: () => Date;
}

/** A new login session: its state (in clear only here) and when it expires. */
export async function startCliLogin(deps: SignInDeps): Promise<{ state: string; expiresAt: Date }> {
  const state = randomBytes(24).toString('base64url');
  const expiresAt = new Date(deps.now().getTime() + LOGIN_SESSION_TTL_MS);
  await createLoginSession(deps.pool, state, expiresAt);
  return { state, expiresAt };
}

/** The session `state` is signed in by the account the verified claims name (created on first sign-in). */
export async function completeCliLogin(deps: SignInDeps, state: string, claims: { email: string; name: string | null }): Promise<{ email: string }> {
  return withLoginSession(deps.pool, state, async (session, client) => {
    const verdict = callbackVerdict(session, deps.now());
    if (verdict === 'not_found') throw errors.notFound(CLI_MESSAGES.sessionNotFoundOrUsed);
    if (verdict === 'expired') throw errors.badRequest(CLI_MESSAGES.sessionExpired);
    // A team member signs in as that member (their role); otherwise the account of this address (made on first sign-in).
    const [member] = (await findAccountForLogin(client, claims.email)) ? [] : await membersForLogin(client, claims.email);
    if (member) {
      if (member.suspended) throw errors.accountBlocked();
      await markSignedIn(client, session!.id, member.accountId, member.id);
      return { email: member.email };
    }
    const account = await findOrCreateAccount(client, claims.email, claims.name);
    if (account.suspended) throw errors.accountBlocked();
    await markSignedIn(client, session!.id, account.id);
    return { email: account.email };
  });
}

export type PollAnswer = { status: string } | { status: 'complete'; token: string; email: string | null; advertiser_id: number };

/** What the CLI's poll hears; a signed-in session hands out its token once and is consumed. */
export async function pollCliLogin(deps: SignInDeps, state: string): Promise<PollAnswer> {
  return withLoginSession(deps.pool, state, async (session, client) => {
    const verdict = pollVerdict(session, deps.now());
    if (verdict === 'not_found') throw errors.notFound(CLI_MESSAGES.sessionNotFound);
    if (verdict === 'consumed') throw errors.badRequest(CLI_MESSAGES.sessionConsumed);
    if (verdict !== 'hand_out') return { status: verdict };
    // The token exists in clear only in this answer; the database keeps its digest.
    const token = `affix_cli_${randomBytes(32).toString('base64url')}`;
    const accountId = session!.accountId!;
    await insertLoginToken(client, token, accountId, new Date(deps.now().getTime() + LOGIN_TOKEN_TTL_MS), session!.memberId);
    await consumeSession(client, session!.id);
    return { status: 'complete', token, email: await accountEmail(client, accountId), advertiser_id: accountId };
  });
}

/** `affix logout`: the token stops working on the server at once. */
export const revokeCliLogin = (deps: SignInDeps, token: string) => revokeLoginToken(deps.pool, token);
