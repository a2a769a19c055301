// A person's ways in: live CLI login tokens and dashboard sessions, listed and ended by the
// account that owns them (every statement is scoped by account_id).
import { sha256 } from '../core/secrets.js';
import type { Pool } from './pool.js';

export interface SignIn {
  id: number;
  created_at: Date;
  expires_at: Date;
  current: boolean;
}

export async function listSignIns(pool: Pool, accountId: number, currentSessionToken: string | null): Promise<{ cliTokens: SignIn[]; sessions: SignIn[] }> {
  const [tokens, sessions] = await Promise.all([
    pool.query(
      `SELECT id, created_at, expires_at, false AS current FROM cli_tokens
        WHERE account_id = $1 AND revoked_at IS NULL AND expires_at > now() ORDER BY id DESC`,
      [accountId],
    ),
    pool.query(
      `SELECT id, created_at, expires_at, token_hash = $2 AS current FROM dashboard_sessions
        WHERE account_id = $1 AND expires_at > now() ORDER BY id DESC`,
      [accountId, currentSessionToken ? sha256(currentSessionToken) : null],
    ),
  ]);
  return { cliTokens: tokens.rows, sessions: sessions.rows };
}

export async function revokeCliToken(pool: Pool, accountId: number, tokenId: number): Promise<boolean> {
  const { rowCount } = await pool.query('UPDATE cli_tokens SET revoked_at = now() WHERE id = $1 AND account_id = $2 AND revoked_at IS NULL', [
    tokenId,
    accountId,
  ]);
  return (rowCount ?? 0) > 0;
}

export async function endSessionById(pool: Pool, accountId: number, sessionId: number): Promise<boolean> {
  const { rowCount } = await pool.query('DELETE FROM dashboard_sessions WHERE id = $1 AND account_id = $2', [sessionId, accountId]);
  return (rowCount ?? 0) > 0;
}
