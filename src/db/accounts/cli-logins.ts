// SQL of the CLI login flow and login tokens. States and tokens are stored as SHA-256 digests.
import type { Role } from '../../core/permissions.js';
import type { LoginSession } from '../../core/cli-login.js';
import { sha256 } from '../../core/secrets.js';
import type { CommissionType } from '../../core/types.js';
import { type Pool, type PoolClient, withTransaction } from '../infra/pool.js';
import { linksChanged } from '../tracking/link-cache.js';

type Queryable = Pool | PoolClient;

const toSession = (row: any): LoginSession & { memberId: number | null } => ({ id: row.id, status: row.status, expiresAt: row.expires_at, accountId: row.account_id, memberId: row.member_id === null || row.member_id === undefined ? null : Number(row.member_id) });

export async function createLoginSession(pool: Pool, state: string, expiresAt: Date): Promise<void> {
  await pool.query('INSERT INTO cli_login_sessions (state_hash, expires_at) VALUES ($1, $2)', [sha256(state), expiresAt]);
}

/** Runs fn with the session row locked, inside one transaction. */
export async function withLoginSession<T>(pool: Pool, state: string, fn: (session: (LoginSession & { memberId: number | null }) | null, client: PoolClient) => Promise<T>): Promise<T> {
  return withTransaction(pool, async (client) => {
    const { rows } = await client.query(
      'SELECT id, status, expires_at, account_id, member_id FROM cli_login_sessions WHERE state_hash = $1 FOR UPDATE',
      [sha256(state)],
    );
    return fn(rows[0] ? toSession(rows[0]) : null, client);
  });
}

export async function markSignedIn(db: Queryable, sessionId: number, accountId: number, memberId: number | null = null): Promise<void> {
  await db.query("UPDATE cli_login_sessions SET status = 'signed_in', account_id = $2, member_id = $3, signed_in_at = now() WHERE id = $1", [sessionId, accountId, memberId]);
}

export async function consumeSession(db: Queryable, sessionId: number): Promise<void> {
  await db.query("UPDATE cli_login_sessions SET status = 'consumed', consumed_at = now() WHERE id = $1", [sessionId]);
}

export async function insertLoginToken(db: Queryable, token: string, accountId: number, expiresAt: Date, memberId: number | null = null): Promise<void> {
  await db.query('INSERT INTO cli_tokens (token_hash, account_id, expires_at, member_id) VALUES ($1, $2, $3, $4)', [sha256(token), accountId, expiresAt, memberId]);
}

export interface TokenOwner {
  accountId: number;
  accountExists: boolean;
  email: string | null;
  suspended: boolean;
  /** The member the token acts as (the account's own sign-in: an owner). */
  role: Role;
  memberId: number | null;
}

/** The account behind a valid, unexpired login token, or null. */
export async function findTokenOwner(pool: Pool, token: string): Promise<TokenOwner | null> {
  const { rows } = await pool.query(
    `SELECT t.account_id, a.id IS NOT NULL AS account_exists, coalesce(m.email, a.email) AS email, coalesce(a.suspended, false) AS suspended,
            coalesce(m.role, 'owner') AS role, t.member_id
       FROM cli_tokens t LEFT JOIN accounts a ON a.id = t.account_id LEFT JOIN account_members m ON m.id = t.member_id
      WHERE t.token_hash = $1 AND t.revoked_at IS NULL AND t.expires_at > now() AND (t.member_id IS NULL OR m.removed_at IS NULL)`,
    [sha256(token)],
  );
  return rows[0]
    ? { accountId: rows[0].account_id, accountExists: rows[0].account_exists, email: rows[0].email, suspended: rows[0].suspended, role: rows[0].role, memberId: rows[0].member_id === null ? null : Number(rows[0].member_id) }
    : null;
}

/** Logout: the token stops working at once. True when a live token was revoked. */
export async function revokeLoginToken(pool: Pool, token: string): Promise<boolean> {
  const { rowCount } = await pool.query('UPDATE cli_tokens SET revoked_at = now() WHERE token_hash = $1 AND revoked_at IS NULL', [sha256(token)]);
  return (rowCount ?? 0) > 0;
}

export async function findAccountForLogin(db: Queryable, email: string) {
  const { rows } = await db.query('SELECT id, email, suspended, password_hash FROM accounts WHERE email = lower($1)', [email.trim()]);
  return (rows[0] as { id: number; email: string; suspended: boolean; password_hash: string | null } | undefined) ?? null;
}

/** First login creates the account (the advertiser). */
export async function findOrCreateAccount(db: Queryable, email: string, name: string | null) {
  const { rows } = await db.query(
    `INSERT INTO accounts (email, name) VALUES (lower($1), $2)
     ON CONFLICT (email) DO UPDATE SET email = accounts.email
     RETURNING id, email, suspended`,
    [email.trim(), name],
  );
  return rows[0] as { id: number; email: string; suspended: boolean };
}

/** A new password for the account's own sign-in (member_id null): its CLI tokens and dashboard sessions end, in the same statement; members keep theirs. */
export async function setAccountPassword(db: Queryable, accountId: number, passwordHash: string): Promise<boolean> {
  const { rows } = await db.query(
    `WITH changed AS (UPDATE accounts SET password_hash = $2 WHERE id = $1 RETURNING id),
          tokens AS (UPDATE cli_tokens SET revoked_at = now() WHERE account_id IN (SELECT id FROM changed) AND member_id IS NULL AND revoked_at IS NULL),
          sessions AS (DELETE FROM dashboard_sessions WHERE account_id IN (SELECT id FROM changed) AND member_id IS NULL)
     SELECT count(*)::int AS n FROM changed`,
    [accountId, passwordHash],
  );
  return rows[0].n > 0;
}

export interface ProgramSummary {
  id: number;
  name: string;
  domain: string;
  commission_type: CommissionType;
  commission_rate: string;
  duration_months: number | null;
  partners: number;
  created_at: Date;
}

export async function listAccountPrograms(pool: Pool, accountId: number): Promise<ProgramSummary[]> {
  const { rows } = await pool.query(
    `SELECT p.id, p.name, p.domain, p.commission_type, p.commission_rate, p.recurring_duration_months AS duration_months, p.created_at,
            (SELECT count(*) FROM partners pa WHERE pa.program_id = p.id AND NOT pa.test)::int AS partners
       FROM programs p WHERE p.account_id = $1 ORDER BY p.id`,
    [accountId],
  );
  return rows;
}

export interface ProgramStatusFacts {
  name: string;
  domain: string;
  stripe_connected: boolean;
  stripe_charges_enabled: boolean;
  active_partners: number;
  pending_commissions: number;
  allowed_origins: string[];
}

export async function programStatusFacts(pool: Pool, programId: number): Promise<ProgramStatusFacts | null> {
  const { rows } = await pool.query(
    `SELECT p.name, p.domain, p.allowed_origins,
            (EXISTS (SELECT 1 FROM processor_endpoints e WHERE e.program_id = p.id AND e.processor = 'stripe') OR p.stripe_account_id IS NOT NULL) AS stripe_connected,
            p.stripe_charges_enabled,
            (SELECT count(DISTINCT l.partner_id) FROM referral_links l
              WHERE l.program_id = p.id AND l.enabled
                -- The program's test partner (set-up page) is no partner; looked up by id, one row per link.
                AND NOT EXISTS (SELECT 1 FROM partners pa WHERE pa.id = l.partner_id AND pa.program_id = p.id AND pa.test))::int AS active_partners,
            (SELECT count(*) FROM commission_states c WHERE c.program_id = p.id AND c.state = 'pending')::int AS pending_commissions
       FROM programs p WHERE p.id = $1`,
    [programId],
  );
  return rows[0] ?? null;
}

/** The synthetic partner and link the CLI test events use; created, or re-enabled, as needed. */
export async function ensureTestLink(pool: Pool, programId: number): Promise<string> {
  const shortLink = `affix-test-${programId}`;
  await withTransaction(pool, async (client) => {
    const existing = await client.query('SELECT id, partner_id FROM referral_links WHERE lower(short_link) = lower($1) AND NOT case_twin FOR UPDATE', [shortLink]);
    if (existing.rows[0]?.partner_id) {
      await client.query('UPDATE referral_links SET enabled = true, program_id = $2, updated_at = now() WHERE id = $1', [existing.rows[0].id, programId]);
      return;
    }
    // Marked as the test partner: its traffic proves the wiring and is never listed, counted or paid.
    const partner = await client.query("INSERT INTO partners (program_id, name, test) VALUES ($1, 'Affix test partner', true) RETURNING id", [programId]);
    await client.query(
      `INSERT INTO referral_links (short_link, program_id, partner_id) VALUES ($1, $2, $3)
       ON CONFLICT (lower(short_link)) WHERE NOT case_twin DO UPDATE SET partner_id = EXCLUDED.partner_id, program_id = EXCLUDED.program_id, enabled = true, updated_at = now()`,
      [shortLink, programId, partner.rows[0].id],
    );
  });
  // After the commit: a click of this process reading the link meanwhile cannot keep the old row.
  linksChanged();
  return shortLink;
}

export async function accountEmail(db: Queryable, accountId: number): Promise<string | null> {
  const { rows } = await db.query('SELECT email FROM accounts WHERE id = $1', [accountId]);
  return rows[0]?.email ?? null;
}
