// An account's team: members with a role, their invitations (digests of random tokens), and
// what a session or a password sign-in resolves to. Scoped by account throughout.
import type { Role } from '../../core/permissions.js';
import type { Pool, PoolClient } from '../infra/pool.js';
import { endSignInsOf } from './sign-ins.js';

type Queryable = Pool | PoolClient;

export interface MemberView {
  id: number;
  email: string;
  role: Role;
  invited_at: Date;
  accepted_at: Date | null;
}

/** Members who may sign in with this email (accepted, not removed), in every account they belong to. */
export async function membersForLogin(db: Queryable, email: string) {
  const { rows } = await db.query(
    `SELECT m.id, m.account_id, m.email, m.role, m.password_hash, a.suspended FROM account_members m JOIN accounts a ON a.id = m.account_id
      WHERE lower(m.email) = lower($1) AND m.removed_at IS NULL AND m.accepted_at IS NOT NULL ORDER BY m.id`,
    [email.trim()],
  );
  return rows.map((r) => ({ id: Number(r.id), accountId: Number(r.account_id), email: r.email as string, role: r.role as Role, passwordHash: r.password_hash as string | null, suspended: r.suspended as boolean }));
}

export async function listMembers(db: Queryable, accountId: number): Promise<MemberView[]> {
  const { rows } = await db.query(
    'SELECT id, email, role, invited_at, accepted_at FROM account_members WHERE account_id = $1 AND removed_at IS NULL ORDER BY id',
    [accountId],
  );
  return rows.map((r) => ({ ...r, id: Number(r.id) }));
}

/** A new member (invited); null when the address is already a member of the account. */
export async function insertMember(client: PoolClient, accountId: number, email: string, role: Role): Promise<number | null> {
  const { rows } = await client.query(
    `INSERT INTO account_members (account_id, email, role) VALUES ($1, lower($2), $3)
     ON CONFLICT (account_id, lower(email)) WHERE removed_at IS NULL DO NOTHING RETURNING id`,
    [accountId, email, role],
  );
  return rows[0] ? Number(rows[0].id) : null;
}

export async function insertInvitation(client: PoolClient, memberId: number, tokenHash: Buffer, expiresAt: Date): Promise<void> {
  await client.query('INSERT INTO member_invitations (token_hash, member_id, expires_at) VALUES ($1, $2, $3)', [tokenHash, memberId, expiresAt]);
}

/** The invitation behind a token, if it can still be used (not used, not expired, the member not removed). */
export async function openInvitation(db: Queryable, tokenHash: Buffer, now: Date) {
  const { rows } = await db.query(
    `SELECT m.id, m.account_id, m.email, m.role, a.email AS account_email FROM member_invitations i
       JOIN account_members m ON m.id = i.member_id JOIN accounts a ON a.id = m.account_id
      WHERE i.token_hash = $1 AND i.used_at IS NULL AND i.expires_at > $2 AND m.removed_at IS NULL`,
    [tokenHash, now],
  );
  const r = rows[0];
  return r ? { memberId: Number(r.id), accountId: Number(r.account_id), email: r.email as string, role: r.role as Role, accountEmail: r.account_email as string } : null;
}

/** Uses the invitation once and sets the member's password: they are in. */
export async function acceptInvitation(client: PoolClient, tokenHash: Buffer, passwordHash: string, now: Date): Promise<{ memberId: number; accountId: number } | null> {
  const { rows } = await client.query(
    `WITH used AS (UPDATE member_invitations SET used_at = $3 WHERE token_hash = $1 AND used_at IS NULL AND expires_at > $3 RETURNING member_id)
     UPDATE account_members m SET password_hash = $2, accepted_at = coalesce(m.accepted_at, $3) FROM used
      WHERE m.id = used.member_id AND m.removed_at IS NULL RETURNING m.id, m.account_id`,
    [tokenHash, passwordHash, now],
  );
  return rows[0] ? { memberId: Number(rows[0].id), accountId: Number(rows[0].account_id) } : null;
}

export async function memberOf(db: Queryable, accountId: number, memberId: number): Promise<MemberView | null> {
  const { rows } = await db.query('SELECT id, email, role, invited_at, accepted_at FROM account_members WHERE account_id = $1 AND id = $2 AND removed_at IS NULL', [accountId, memberId]);
  return rows[0] ? { ...rows[0], id: Number(rows[0].id) } : null;
}

export async function setRole(client: PoolClient, accountId: number, memberId: number, role: Role): Promise<void> {
  await client.query('UPDATE account_members SET role = $3 WHERE account_id = $1 AND id = $2 AND removed_at IS NULL', [accountId, memberId, role]);
}

/** Removed: their sessions end and their CLI tokens stop at once. */
export async function removeMember(client: PoolClient, accountId: number, memberId: number, at: Date): Promise<void> {
  await client.query('UPDATE account_members SET removed_at = $3 WHERE account_id = $1 AND id = $2 AND removed_at IS NULL', [accountId, memberId, at]);
  await endSignInsOf(client, { accountId, memberId }, at);
}

/**
 * The role a person holds now (null: removed, never joined, or the account suspended); memberId
 * null is the account's own sign-in, an owner. Long work done in someone's name checks it again.
 */
export async function currentRoleOf(db: Pool | PoolClient, accountId: number, memberId: number | null): Promise<Role | null> {
  const { rows } = memberId === null
    ? await db.query(`SELECT 'owner' AS role FROM accounts WHERE id = $1 AND NOT suspended`, [accountId])
    : await db.query(
        `SELECT m.role FROM account_members m JOIN accounts a ON a.id = m.account_id
          WHERE m.account_id = $1 AND m.id = $2 AND m.removed_at IS NULL AND m.accepted_at IS NOT NULL AND NOT a.suspended`,
        [accountId, memberId],
      );
  return (rows[0]?.role as Role | undefined) ?? null;
}
