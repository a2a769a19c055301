// The tenant primitive: does this account own this program, and which program does a link, a key
// or a partner belong to. Every scope check of src/app/accounts/scope.ts starts here; each is one indexed
// lookup by primary key (or by program).
import type { Pool, PoolClient } from '../infra/pool.js';

type Queryable = Pool | PoolClient;

export async function programOwnedBy(pool: Queryable, programId: number, accountId: number): Promise<boolean> {
  const { rowCount } = await pool.query('SELECT 1 FROM programs WHERE id = $1 AND account_id = $2', [programId, accountId]);
  return (rowCount ?? 0) > 0;
}

export async function partnerInProgram(db: Queryable, partnerId: number, programId: number): Promise<boolean> {
  const { rowCount } = await db.query('SELECT 1 FROM partners WHERE id = $1 AND program_id = $2', [partnerId, programId]);
  return (rowCount ?? 0) > 0;
}

/** The program a referral link or an API key belongs to (for scope checks), or null. */
export async function programOfLink(db: Queryable, linkId: number): Promise<number | null> {
  const { rows } = await db.query('SELECT program_id FROM referral_links WHERE id = $1', [linkId]);
  return rows[0]?.program_id ?? null;
}

export async function programOfKey(db: Queryable, keyId: number): Promise<number | null> {
  const { rows } = await db.query('SELECT program_id FROM api_keys WHERE id = $1', [keyId]);
  return rows[0]?.program_id ?? null;
}
