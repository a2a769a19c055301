// Passwords of a person (the account's own sign-in or a member) and password reset links (digests
// of random tokens) for an address.
import type { Person } from './sign-ins.js';
import type { Pool, PoolClient } from '../infra/pool.js';

type Queryable = Pool | PoolClient;

/** Every sign-in an address has: the account made with it, and each accepted, not removed membership. */
export async function peopleOfAddress(db: Queryable, email: string): Promise<(Person & { email: string })[]> {
  const { rows } = await db.query(
    `SELECT id AS account_id, NULL::bigint AS member_id, email FROM accounts WHERE email = lower($1)
     UNION ALL
     SELECT account_id, id, email FROM account_members WHERE lower(email) = lower($1) AND removed_at IS NULL AND accepted_at IS NOT NULL`,
    [email.trim()],
  );
  return rows.map((r) => ({ accountId: Number(r.account_id), memberId: r.member_id === null ? null : Number(r.member_id), email: r.email as string }));
}

/** The person's password digest (null: none set, or no such person). */
export async function passwordHashOf(db: Queryable, person: Person): Promise<string | null> {
  const { rows } = person.memberId === null
    ? await db.query('SELECT password_hash FROM accounts WHERE id = $1', [person.accountId])
    : await db.query('SELECT password_hash FROM account_members WHERE account_id = $1 AND id = $2 AND removed_at IS NULL', [person.accountId, person.memberId]);
  return (rows[0]?.password_hash as string | undefined) ?? null;
}

export async function setPasswordOf(db: Queryable, person: Person, passwordHash: string): Promise<void> {
  if (person.memberId === null) await db.query('UPDATE accounts SET password_hash = $2 WHERE id = $1', [person.accountId, passwordHash]);
  else await db.query('UPDATE account_members SET password_hash = $3 WHERE account_id = $1 AND id = $2 AND removed_at IS NULL', [person.accountId, person.memberId, passwordHash]);
}

/** The address a reset link is for, if it can still be used. */
export async function openPasswordReset(db: Queryable, tokenHash: Buffer, now: Date): Promise<string | null> {
  const { rows } = await db.query('SELECT email FROM password_resets WHERE token_hash = $1 AND used_at IS NULL AND expires_at > $2', [tokenHash, now]);
  return (rows[0]?.email as string | undefined) ?? null;
}

/** Uses a reset link once: its address, or null (used, expired, unknown). */
export async function usePasswordReset(db: Queryable, tokenHash: Buffer, now: Date): Promise<string | null> {
  const { rows } = await db.query('UPDATE password_resets SET used_at = $2 WHERE token_hash = $1 AND used_at IS NULL AND expires_at > $2 RETURNING email', [tokenHash, now]);
  return (rows[0]?.email as string | undefined) ?? null;
}

/** Every reset link of an address still open is closed: once a password is set, older links are spent too. */
export async function closePasswordResets(db: Queryable, email: string, now: Date): Promise<void> {
  await db.query('UPDATE password_resets SET used_at = $2 WHERE email = lower($1) AND used_at IS NULL', [email.trim(), now]);
}

/** The address a person signs in with. */
export async function addressOf(db: Queryable, person: Person): Promise<string | null> {
  const { rows } = person.memberId === null
    ? await db.query('SELECT email FROM accounts WHERE id = $1', [person.accountId])
    : await db.query('SELECT email FROM account_members WHERE account_id = $1 AND id = $2', [person.accountId, person.memberId]);
  return (rows[0]?.email as string | undefined) ?? null;
}
