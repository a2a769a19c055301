// A person's ways in: live CLI login tokens and dashboard sessions, listed and ended per person of
// an account (a member, or the account's own sign-in: member_id null, person 0 in the index).
import { sha256 } from '../../core/secrets.js';
import type { Pool, PoolClient } from '../infra/pool.js';

type Queryable = Pool | PoolClient;

/** One person of an account: a member, or the account's own sign-in (memberId null). */
export interface Person {
  accountId: number;
  memberId: number | null;
}

export interface SignIn {
  id: number;
  created_at: Date;
  expires_at: Date;
  current: boolean;
}

const PERSON = 'account_id = $1 AND coalesce(member_id, 0) = coalesce($2::bigint, 0)';

export async function listSignIns(pool: Pool, person: Person, currentSessionToken: string | null): Promise<{ cliTokens: SignIn[]; sessions: SignIn[] }> {
  const [tokens, sessions] = await Promise.all([
    pool.query(
      `SELECT id, created_at, expires_at, false AS current FROM cli_tokens
        WHERE ${PERSON} AND revoked_at IS NULL AND expires_at > now() ORDER BY id DESC`,
      [person.accountId, person.memberId],
    ),
    pool.query(
      `SELECT id, created_at, expires_at, token_hash = $3 AS current FROM dashboard_sessions
        WHERE ${PERSON} AND expires_at > now() ORDER BY id DESC`,
      [person.accountId, person.memberId, currentSessionToken ? sha256(currentSessionToken) : null],
    ),
  ]);
  const rows = (r: { rows: SignIn[] }) => r.rows.map((s) => ({ ...s, id: Number(s.id) }));
  return { cliTokens: rows(tokens), sessions: rows(sessions) };
}

/** Revokes one of the person's own CLI tokens; false when it is not theirs (or already revoked). */
export async function revokeCliToken(db: Queryable, person: Person, tokenId: number, at: Date): Promise<boolean> {
  const { rowCount } = await db.query(`UPDATE cli_tokens SET revoked_at = $4 WHERE id = $3 AND ${PERSON} AND revoked_at IS NULL`, [person.accountId, person.memberId, tokenId, at]);
  return (rowCount ?? 0) > 0;
}

/** Ends one of the person's own sessions; false when it is not theirs. */
export async function endSessionById(db: Queryable, person: Person, sessionId: number): Promise<boolean> {
  const { rowCount } = await db.query(`DELETE FROM dashboard_sessions WHERE id = $3 AND ${PERSON}`, [person.accountId, person.memberId, sessionId]);
  return (rowCount ?? 0) > 0;
}

/** Ends every session (but the one `keepSessionToken` holds) and revokes every CLI token of the person: how many of each. */
export async function endSignInsOf(db: Queryable, person: Person, at: Date, keepSessionToken: string | null = null): Promise<{ sessions: number; cliTokens: number }> {
  const { rows } = await db.query(
    `WITH sessions AS (DELETE FROM dashboard_sessions WHERE ${PERSON} AND token_hash IS DISTINCT FROM $3 RETURNING expires_at),
          tokens AS (UPDATE cli_tokens SET revoked_at = $4 WHERE ${PERSON} AND revoked_at IS NULL RETURNING expires_at)
     SELECT (SELECT count(*) FROM sessions WHERE expires_at > $4)::int AS sessions, (SELECT count(*) FROM tokens WHERE expires_at > $4)::int AS cli_tokens`,
    [person.accountId, person.memberId, keepSessionToken ? sha256(keepSessionToken) : null, at],
  );
  return { sessions: rows[0].sessions, cliTokens: rows[0].cli_tokens };
}

/** Live sessions and CLI tokens per person of the account (key: member id, 0 for the account's own sign-in). */
export async function signInCountsByPerson(pool: Pool, accountId: number): Promise<Map<number, { sessions: number; cliTokens: number }>> {
  const { rows } = await pool.query(
    `SELECT person, sum(sessions)::int AS sessions, sum(cli_tokens)::int AS cli_tokens FROM (
       SELECT coalesce(member_id, 0) AS person, 1 AS sessions, 0 AS cli_tokens FROM dashboard_sessions WHERE account_id = $1 AND expires_at > now()
       UNION ALL
       SELECT coalesce(member_id, 0), 0, 1 FROM cli_tokens WHERE account_id = $1 AND revoked_at IS NULL AND expires_at > now()
     ) live GROUP BY person`,
    [accountId],
  );
  return new Map(rows.map((r) => [Number(r.person), { sessions: r.sessions, cliTokens: r.cli_tokens }]));
}
