// Where the dashboard's figures, the exports and the partner portal read: a replica when one is
// configured (DATABASE_READ_URL), the primary otherwise; and the primary whenever the caller
// must see their own write (the page a form redirects to, sign-in and session checks, anything
// in a transaction with writes: those never take this path). The one place that chooses.
import type { Store } from '../../core/ports.js';
import { databaseAnswers, replicaLagSeconds } from '../../db/infra/health.js';
import type { Pool } from '../../db/infra/pool.js';

export interface ReadReplica {
  /** The replica, or the primary for a statement the replica cannot be reached for (db/infra/pool.ts fallingBackToPrimary). */
  pool: Pool;
  /** The replica alone: its lag and readiness (no fallback: they are about the replica itself). */
  replica: Pool;
  /** The same reads as the primary's store (readiness's counts), on `pool`. */
  store: Store;
  /** Past this lag, pages read from the replica say how far behind their figures may be (AFFIX_READ_LAG_NOTE_SECONDS). */
  noteAfterSeconds: number;
}

type Reader = { pool: Pool; store?: Store; reads?: ReadReplica };

/** `deps` reading from the replica, unless there is none or the caller has just written. */
export function readSide<D extends Reader>(deps: D, afterOwnWrite = false): D {
  if (!deps.reads || afterOwnWrite) return deps;
  return { ...deps, pool: deps.reads.pool, ...(deps.store ? { store: deps.reads.store } : {}) };
}

/**
 * Seconds the figures `read` reads may be behind, when past the replica's note threshold; null
 * otherwise, and when the replica cannot say (out of reach: the figures then came from the primary).
 */
export async function staleFigures(deps: Reader, read: Reader): Promise<number | null> {
  if (!deps.reads || read.pool !== deps.reads.pool) return null;
  const lag = await replicaLagSeconds(deps.reads.replica).catch(() => null);
  return lag !== null && lag > deps.reads.noteAfterSeconds ? lag : null;
}

/** Readiness of the replica: reported beside the primary's, never failing it. */
export const replicaReady = (reads: ReadReplica | undefined, timeoutMs: number): Promise<'ok' | 'unavailable' | null> =>
  reads ? databaseAnswers(reads.replica, timeoutMs).then((ok) => (ok ? 'ok' : 'unavailable')) : Promise.resolve(null);
