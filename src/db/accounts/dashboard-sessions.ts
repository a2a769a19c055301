// Dashboard sessions: a signed-in browser's row (a digest of its random token), what it resolves
// to (the account, the member and their role), and its end.
import { sha256 } from '../../core/secrets.js';
import type { Pool } from '../infra/pool.js';
import type { Role } from '../../core/permissions.js';

export async function createDashboardSession(pool: Pool, token: string, accountId: number, expiresAt: Date, memberId: number | null = null): Promise<void> {
  await pool.query('INSERT INTO dashboard_sessions (token_hash, account_id, expires_at, member_id) VALUES ($1, $2, $3, $4)', [sha256(token), accountId, expiresAt, memberId]);
}

/** Who a session is: the account, the person (a member, or the account's own sign-in: an owner) and their role. */
export async function dashboardSessionAccount(pool: Pool, token: string): Promise<{ id: number; email: string; role: Role; memberId: number | null } | null> {
  const { rows } = await pool.query(
    `SELECT a.id, coalesce(m.email, a.email) AS email, coalesce(m.role, 'owner') AS role, m.id AS member_id
       FROM dashboard_sessions s JOIN accounts a ON a.id = s.account_id LEFT JOIN account_members m ON m.id = s.member_id
      WHERE s.token_hash = $1 AND s.expires_at > now() AND NOT a.suspended AND (s.member_id IS NULL OR m.removed_at IS NULL)`,
    [sha256(token)],
  );
  const r = rows[0];
  return r ? { id: Number(r.id), email: r.email, role: r.role, memberId: r.member_id === null ? null : Number(r.member_id) } : null;
}

export async function endDashboardSession(pool: Pool, token: string): Promise<void> {
  await pool.query('DELETE FROM dashboard_sessions WHERE token_hash = $1', [sha256(token)]);
}
