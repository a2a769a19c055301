// Places (digest of a sign-in address and a client IP) a person signed in from, with when: a
// right password from a known place passes the account-wide sign-in limit.
import type { Pool } from '../infra/pool.js';

export async function rememberSignInPlace(pool: Pool, placeHash: Buffer, at: Date): Promise<void> {
  await pool.query(
    'INSERT INTO sign_in_places (place_hash, last_at) VALUES ($1, $2) ON CONFLICT (place_hash) DO UPDATE SET last_at = greatest(sign_in_places.last_at, excluded.last_at)',
    [placeHash, at],
  );
}

export async function signedInFromSince(pool: Pool, placeHash: Buffer, since: Date): Promise<boolean> {
  const { rowCount } = await pool.query('SELECT 1 FROM sign_in_places WHERE place_hash = $1 AND last_at > $2', [placeHash, since]);
  return (rowCount ?? 0) > 0;
}

/** Forgets places not signed in from since `before`. */
export async function pruneSignInPlaces(pool: Pool, before: Date): Promise<number> {
  const { rowCount } = await pool.query('DELETE FROM sign_in_places WHERE last_at < $1', [before]);
  return rowCount ?? 0;
}
