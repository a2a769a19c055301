// Stripe Connect onboarding states and the binding of a connected account to a program.
import { sha256 } from '../../core/secrets.js';
import { type Pool, type PoolClient, isUniqueViolation } from '../infra/pool.js';

export async function createConnectState(pool: Pool, state: string, programId: number, accountId: number, expiresAt: Date): Promise<void> {
  await pool.query('INSERT INTO stripe_connect_states (state_hash, program_id, account_id, expires_at) VALUES ($1, $2, $3, $4)', [
    sha256(state),
    programId,
    accountId,
    expiresAt,
  ]);
}

/** The program a live, unused state was issued for to this brand; used up by this call. */
export async function takeConnectState(pool: Pool, state: string, accountId: number): Promise<number | null> {
  const { rows } = await pool.query(
    `UPDATE stripe_connect_states SET used_at = now()
      WHERE state_hash = $1 AND account_id = $2 AND used_at IS NULL AND expires_at > now()
      RETURNING program_id`,
    [sha256(state), accountId],
  );
  return rows[0]?.program_id ?? null;
}

/** 'taken' when another program already holds this connected account. */
/** In the caller's transaction: 'taken' (nothing written) when another program holds the account. */
export async function bindConnectedAccount(client: PoolClient, programId: number, stripeAccountId: string): Promise<'bound' | 'taken'> {
  const { rows } = await client.query(
    `UPDATE programs SET stripe_account_id = $2 WHERE id = $1 AND NOT EXISTS (SELECT 1 FROM programs o WHERE o.stripe_account_id = $2 AND o.id <> $1)
     RETURNING id`,
    [programId, stripeAccountId],
  );
  return rows[0] ? 'bound' : 'taken';
}
