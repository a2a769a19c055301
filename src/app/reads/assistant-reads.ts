// What the read-only assistant may read about one program, each in a read-only transaction.
import { computeReadiness } from '../../core/readiness.js';
import type { Store } from '../../core/ports.js';
import type { Pool } from '../../db/infra/pool.js';
import { partnerStats, programOverview, readOnly, recentEvents, saleExplanation } from '../../db/reads/assistant-insights.js';

export interface ReadDeps {
  pool: Pool;
  store: Store;
  now: () => Date;
}

export const programSettings = (deps: ReadDeps, programId: number) => readOnly(deps.pool, (client) => programOverview(client, programId));

export const programReadiness = async (deps: ReadDeps, programId: number) => computeReadiness(programId, await deps.store.readinessFacts(programId, deps.now()));

export const latestEvents = (deps: ReadDeps, programId: number, kind: string | null, limit: number) =>
  readOnly(deps.pool, (client) => recentEvents(client, programId, kind, limit));

/** Per partner over the last `days` days (per currency; never added across currencies). */
export const partnerTotals = (deps: ReadDeps, programId: number, days: number) =>
  readOnly(deps.pool, (client) => partnerStats(client, programId, new Date(deps.now().getTime() - days * 86_400_000)));

export const explainSale = (deps: ReadDeps, programId: number, transactionId: string) =>
  readOnly(deps.pool, (client) => saleExplanation(client, programId, transactionId));
