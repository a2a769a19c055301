import { normalizeOrigin } from '../core/origins.js';
import type { Pool } from './pool.js';
import { prepared } from './prepared.js';

/**
 * Whether any program lists this origin (allowed origins are stored normalized). Asked with
 * `@>`, which the GIN index on allowed_origins serves (`= ANY` read every program).
 */
export async function originListedByAnyProgram(pool: Pool, origin: string): Promise<boolean> {
  const { rowCount } = await pool.query(prepared('SELECT 1 FROM programs WHERE allowed_origins @> ARRAY[$1::text] LIMIT 1', [normalizeOrigin(origin)]));
  return (rowCount ?? 0) > 0;
}
