// Stripe Connect onboarding states and the binding of a connected account to a program.
import { sha256 } from '../core/secrets.js';
import { type Pool, isUniqueViolation } from './pool.js';

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
export async function bindConnectedAccount(pool: Pool, programId: number, stripeAccountId: string): Promise<'bound' | 'taken'> {
  try {
    await pool.query('UPDATE programs SET stripe_account_id = $2 WHERE id = $1', [programId, stripeAccountId]);
    return 'bound';
  } catch (error) {
    if (isUniqueViolation(error)) return 'taken';
    throw error;
  }
}
