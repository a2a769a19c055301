import { normalizeOrigin } from '../core/origins.js';
import type { Pool } from './pool.js';

/** Whether any program lists this origin (allowed origins are stored normalized). */
export async function originListedByAnyProgram(pool: Pool, origin: string): Promise<boolean> {
  const { rowCount } = await pool.query('SELECT 1 FROM programs WHERE $1 = ANY (allowed_origins) LIMIT 1', [normalizeOrigin(origin)]);
  return (rowCount ?? 0) > 0;
}
