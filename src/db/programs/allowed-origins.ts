import { normalizeOrigin } from '../../core/origins.js';
import type { Pool } from '../infra/pool.js';
import { prepared } from '../infra/prepared.js';

/**
 * Whether any program lists this origin (allowed origins are stored normalized). Asked with
 * `@>`, which the GIN index on allowed_origins serves (`= ANY` read every program).
 */
export async function originListedByAnyProgram(pool: Pool, origin: string): Promise<boolean> {
  const { rowCount } = await pool.query(prepared('SELECT 1 FROM programs WHERE allowed_origins @> ARRAY[$1::text] LIMIT 1', [normalizeOrigin(origin)]));
  return (rowCount ?? 0) > 0;
}

/**
 * The tracker of program `programId` was refused from `origin`: kept as the program's last
 * refusal when the program does not list it (one row per program; rewritten at most once a
 * minute for the same origin, so a busy refused site costs a read, not a write per request).
 */
export async function recordRefusedOrigin(pool: Pool, programId: number, origin: string, now: Date): Promise<void> {
  await pool.query(
    prepared(
      `INSERT INTO refused_origins (program_id, origin, refused_at)
       SELECT id, $2, $3 FROM programs WHERE id = $1 AND NOT allowed_origins @> ARRAY[$2::text]
       ON CONFLICT (program_id) DO UPDATE SET origin = EXCLUDED.origin, refused_at = EXCLUDED.refused_at
        WHERE refused_origins.origin <> EXCLUDED.origin OR refused_origins.refused_at < EXCLUDED.refused_at - interval '1 minute'`,
      [programId, normalizeOrigin(origin), now],
    ),
  );
}
