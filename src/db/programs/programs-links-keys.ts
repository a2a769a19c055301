// SQL behind the admin API (accounts, programs, partners, links, keys).
import type { CommissionType } from '../../core/types.js';
import { AffixError } from '../../core/errors.js';
import type { ProgramSettings } from '../../core/programs.js';
import { maskKey, newApiKey, sha256 } from '../../core/secrets.js';
import { type Pool, type PoolClient, isUniqueViolation, withTransaction } from '../infra/pool.js';
import { PROGRAM_COLUMNS, normalizeDecimal } from '../infra/rows.js';
import { linksChanged } from '../tracking/link-cache.js';

type Queryable = Pool | PoolClient;

export interface AccountView {
  id: number;
  email: string;
  name: string | null;
  suspended: boolean;
  created_at: Date;
}

export async function createAccount(db: Queryable, email: string, name: string | null): Promise<AccountView | null> {
  try {
    const { rows } = await db.query(
      'INSERT INTO accounts (email, name) VALUES (lower($1), $2) RETURNING id, email, name, suspended, created_at',
      [email.trim(), name],
    );
    return rows[0];
  } catch (error) {
    if (isUniqueViolation(error)) return null;
    throw error;
  }
}

export async function findAccountByEmail(db: Queryable, email: string): Promise<AccountView | null> {
  const { rows } = await db.query('SELECT id, email, name, suspended, created_at FROM accounts WHERE email = lower($1)', [email.trim()]);
  return rows[0] ?? null;
}

export async function getAccount(db: Queryable, accountId: number): Promise<AccountView | null> {
  const { rows } = await db.query('SELECT id, email, name, suspended, created_at FROM accounts WHERE id = $1', [accountId]);
  return rows[0] ?? null;
}

export async function setAccountSuspended(db: Queryable, accountId: number, suspended: boolean): Promise<AccountView | null> {
  const { rows } = await db.query(
    'UPDATE accounts SET suspended = $2 WHERE id = $1 RETURNING id, email, name, suspended, created_at',
    [accountId, suspended],
  );
  return rows[0] ?? null;
}

export interface ProgramView {
  id: number;
  account_id: number;
  name: string;
  domain: string;
  commission_type: CommissionType;
  commission_rate: number;
  duration_months: number | null;
  attribution_window_days: number;
  lead_auth: string;
  allowed_origins: string[];
  /** false: USD, EUR and VND only (the contract); true: every ISO 4217 currency. */
  accept_all_currencies: boolean;
  created_at: Date;
}

const toProgramView = (row: any): ProgramView => ({
  id: row.id,
  account_id: row.account_id,
  name: row.name,
  domain: row.domain,
  commission_type: row.commission_type,
  commission_rate: Number(normalizeDecimal(row.commission_rate)),
  duration_months: row.recurring_duration_months,
  attribution_window_days: row.attribution_window_days,
  lead_auth: row.lead_auth,
  allowed_origins: row.allowed_origins,
  accept_all_currencies: row.accept_all_currencies,
  created_at: row.created_at,
});

export async function accountExists(db: Queryable, accountId: number): Promise<boolean> {
  const { rowCount } = await db.query('SELECT 1 FROM accounts WHERE id = $1', [accountId]);
  return (rowCount ?? 0) > 0;
}

export async function insertProgram(db: Queryable, accountId: number, s: ProgramSettings): Promise<ProgramView> {
  const { rows } = await db.query(
    `INSERT INTO programs (account_id, name, domain, commission_type, commission_rate, attribution_window_days, lead_auth,
                           allowed_origins, recurring_duration_months, accept_all_currencies)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING ${PROGRAM_COLUMNS}`,
    [accountId, s.name, s.domain, s.commissionType, s.commissionRate, s.attributionWindowDays, s.leadAuth, s.allowedOrigins,
      s.recurringDurationMonths, s.acceptAllCurrencies],
  );
  return toProgramView(rows[0]);
}

const PROGRAM_UPDATE_COLUMNS: Record<keyof ProgramSettings, string> = {
  name: 'name',
  domain: 'domain',
  commissionType: 'commission_type',
  commissionRate: 'commission_rate',
  attributionWindowDays: 'attribution_window_days',
  leadAuth: 'lead_auth',
  allowedOrigins: 'allowed_origins',
  recurringDurationMonths: 'recurring_duration_months',
  acceptAllCurrencies: 'accept_all_currencies',
};

export async function updateProgram(db: Queryable, programId: number, update: Partial<ProgramSettings>): Promise<ProgramView | null> {
  const entries = Object.entries(update) as [keyof ProgramSettings, unknown][];
  if (entries.length === 0) return getProgram(db, programId);
  const sets = entries.map(([field], index) => `${PROGRAM_UPDATE_COLUMNS[field]} = $${index + 2}`);
  const { rows } = await db.query(
    `UPDATE programs SET ${sets.join(', ')} WHERE id = $1 RETURNING ${PROGRAM_COLUMNS}`,
    [programId, ...entries.map(([, value]) => value)],
  );
  linksChanged();
  return rows[0] ? toProgramView(rows[0]) : null;
}

export async function getProgram(db: Queryable, programId: number): Promise<ProgramView | null> {
  const { rows } = await db.query(`SELECT ${PROGRAM_COLUMNS} FROM programs WHERE id = $1`, [programId]);
  return rows[0] ? toProgramView(rows[0]) : null;
}

export async function listPrograms(db: Queryable, accountId: number): Promise<ProgramView[]> {
  const { rows } = await db.query(`SELECT ${PROGRAM_COLUMNS} FROM programs WHERE account_id = $1 ORDER BY id`, [accountId]);
  return rows.map(toProgramView);
}

export async function insertPartner(db: Queryable, programId: number, name: string, email: string | null) {
  const { rows } = await db.query(
    'INSERT INTO partners (program_id, name, email) VALUES ($1, $2, $3) RETURNING id, program_id, name, created_at',
    [programId, name, email],
  );
  return rows[0] as { id: number; program_id: number; name: string; created_at: Date };
}

export interface LinkView {
  id: number;
  short_link: string;
  program_id: number | null;
  partner_id: number | null;
  enabled: boolean;
}

/** Returns null when the short link is already taken. */
export async function insertLink(db: Queryable, programId: number, partnerId: number, shortLink: string): Promise<LinkView | null> {
  // ON CONFLICT, not a caught error: the caller's transaction goes on (its audit entry follows).
  const { rows } = await db.query(
    `INSERT INTO referral_links (short_link, program_id, partner_id) VALUES ($1, $2, $3) ON CONFLICT (lower(short_link)) WHERE NOT case_twin DO NOTHING
     RETURNING id, short_link, program_id, partner_id, enabled`,
    [shortLink, programId, partnerId],
  );
  return rows[0] ?? null;
}

/**
 * A link a partner makes, at most `limit` per partner: the partner row is locked first, so two
 * creations at once are counted one after the other. 'limit' when the partner has that many.
 */
export async function insertPartnerLink(client: PoolClient, programId: number, partnerId: number, shortLink: string, limit: number): Promise<LinkView | null | 'limit'> {
  await client.query('SELECT 1 FROM partners WHERE id = $1 AND program_id = $2 FOR UPDATE', [partnerId, programId]);
  const { rows } = await client.query('SELECT count(*)::int AS n FROM referral_links WHERE partner_id = $1 AND program_id = $2', [partnerId, programId]);
  if (rows[0].n >= limit) return 'limit';
  return insertLink(client, programId, partnerId, shortLink);
}

export async function setLinkEnabled(db: Queryable, linkId: number, enabled: boolean): Promise<LinkView | null> {
  const { rows } = await db.query(
    `UPDATE referral_links SET enabled = $2, updated_at = now() WHERE id = $1
     RETURNING id, short_link, program_id, partner_id, enabled`,
    [linkId, enabled],
  );
  linksChanged();
  return rows[0] ?? null;
}

export interface KeyView {
  id: number;
  program_id: number;
  masked: string;
  rotation_marked_at: Date | null;
  rotate_by: Date | null;
  revoked_at: Date | null;
  created_at: Date;
}

const KEY_COLUMNS = 'id, program_id, display_prefix, last_four, rotation_marked_at, rotate_by, revoked_at, created_at';
const toKeyView = (row: any): KeyView => ({
  id: row.id,
  program_id: row.program_id,
  masked: maskKey(row.display_prefix, row.last_four),
  rotation_marked_at: row.rotation_marked_at,
  rotate_by: row.rotate_by,
  revoked_at: row.revoked_at,
  created_at: row.created_at,
});

/** Issues a key; the clear key is returned here only and never stored. */
export async function issueApiKey(db: Queryable, programId: number): Promise<{ key: KeyView; apiKey: string }> {
  const apiKey = newApiKey();
  const { rows } = await db.query(
    `INSERT INTO api_keys (program_id, key_hash, display_prefix, last_four) VALUES ($1, $2, $3, $4) RETURNING ${KEY_COLUMNS}`,
    [programId, sha256(apiKey), apiKey.slice(0, 13), apiKey.slice(-4)],
  );
  return { key: toKeyView(rows[0]), apiKey };
}

/** Revokes the key and issues its replacement, in one transaction. */
export async function regenerateApiKey(client: PoolClient, keyId: number): Promise<{ key: KeyView; apiKey: string } | null> {
  const { rows } = await client.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL RETURNING program_id', [keyId]);
  if (!rows[0]) return null;
  return issueApiKey(client, rows[0].program_id);
}

export async function markKeyForRotation(db: Queryable, keyId: number, rotateBy: Date): Promise<KeyView | null> {
  const { rows } = await db.query(
    `UPDATE api_keys SET rotation_marked_at = coalesce(rotation_marked_at, now()), rotate_by = $2
      WHERE id = $1 AND revoked_at IS NULL RETURNING ${KEY_COLUMNS}`,
    [keyId, rotateBy],
  );
  return rows[0] ? toKeyView(rows[0]) : null;
}

export async function listKeys(db: Queryable, programId: number): Promise<KeyView[]> {
  const { rows } = await db.query(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE program_id = $1 ORDER BY id`, [programId]);
  return rows.map(toKeyView);
}

export interface StripeSettingsView {
  program_id: number;
  connect_account_id: string | null;
  webhook_secret_set: boolean;
  livemode_only_commissions: boolean;
}

/** Sets the program's Stripe connection; the signing secret arrives already sealed. */
export async function updateProgramStripe(
  db: Queryable,
  programId: number,
  update: { sealedSecret?: string | null; accountId?: string | null; livemodeOnlyCommissions?: boolean },
): Promise<StripeSettingsView | null> {
  // The signing secret is the program's Stripe endpoint (processor_endpoints, as Paddle's and
  // Lemon Squeezy's): saved, replaced (its last failure kept), or removed with a null.
  const { rows } = await db.query(
    `WITH program AS (
       UPDATE programs SET
          stripe_account_id = CASE WHEN $4 THEN $5 ELSE stripe_account_id END,
          livemode_only_commissions = coalesce($6, livemode_only_commissions)
        WHERE id = $1
        RETURNING id, stripe_account_id, livemode_only_commissions
     ), removed AS (
       DELETE FROM processor_endpoints e USING program
        WHERE $2 AND $3::text IS NULL AND e.program_id = program.id AND e.processor = 'stripe'
     ), saved AS (
       INSERT INTO processor_endpoints (program_id, processor, webhook_secret_sealed)
       SELECT id, 'stripe', $3 FROM program WHERE $2 AND $3::text IS NOT NULL
       ON CONFLICT (program_id, processor) DO UPDATE SET webhook_secret_sealed = EXCLUDED.webhook_secret_sealed, updated_at = now()
     )
     SELECT id, stripe_account_id, livemode_only_commissions,
            CASE WHEN $2 THEN $3::text IS NOT NULL
                 ELSE EXISTS (SELECT 1 FROM processor_endpoints e WHERE e.program_id = program.id AND e.processor = 'stripe') END AS secret_set
       FROM program`,
    [programId, update.sealedSecret !== undefined, update.sealedSecret ?? null, update.accountId !== undefined, update.accountId ?? null,
      update.livemodeOnlyCommissions ?? null],
  ).catch((error: unknown) => {
    // Unique stripe_account_id: one Connect account, one program.
    if (isUniqueViolation(error)) throw new AffixError(409, 'That Stripe account is connected to another program', { fields: { account_id: 'That Stripe account is connected to another program.' } });
    throw error;
  });
  linksChanged();
  const row = rows[0];
  return row
    ? { program_id: row.id, connect_account_id: row.stripe_account_id, webhook_secret_set: row.secret_set, livemode_only_commissions: row.livemode_only_commissions }
    : null;
}

export async function programName(db: Queryable, programId: number): Promise<string> {
  const { rows } = await db.query('SELECT name FROM programs WHERE id = $1', [programId]);
  return rows[0]?.name ?? '';
}
