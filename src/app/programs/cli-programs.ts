// What the CLI's token- and key-authenticated routes do beyond program creation (which shares
// createProgram/issueKey with the dashboard): who holds a login token, the account's programs,
// a program's status, and synthetic test events with their hourly chain cap.
import type { Role } from '../../core/permissions.js';
import { CLI_MESSAGES } from '../../core/cli-login.js';
import { errors } from '../../core/errors.js';
import { overLimit, retryAfterSeconds } from '../../core/limits.js';
import type { Store } from '../../core/ports.js';
import { type SyntheticEventType, runSyntheticEvents } from '../../core/synthetic-events.js';
import { ensureTestLink, findTokenOwner, listAccountPrograms, programStatusFacts } from '../../db/accounts/cli-logins.js';
import type { Pool } from '../../db/infra/pool.js';
import { hitRateLimit } from '../../db/infra/rate-limit.js';

export const CHAIN_LIMIT = { bucket: 'cli_chain', limit: 10, windowSeconds: 3600 };

export interface CliDeps {
  pool: Pool;
  store: Store;
  now: () => Date;
}

export type TokenVerdict = { kind: 'invalid' } | { kind: 'no_user' } | { kind: 'suspended' } | { kind: 'account'; accountId: number; role: Role; memberId: number | null; email: string | null };

/** Whose login token this is, in the words the routes answer with. */
export async function loginTokenVerdict(pool: Pool, token: string | null): Promise<TokenVerdict> {
  const owner = token === null ? null : await findTokenOwner(pool, token);
  if (!owner) return { kind: 'invalid' };
  if (!owner.accountExists) return { kind: 'no_user' };
  if (owner.suspended) return { kind: 'suspended' };
  return { kind: 'account', accountId: owner.accountId, role: owner.role, memberId: owner.memberId, email: owner.email };
}

export const cliPrograms = (pool: Pool, accountId: number) => listAccountPrograms(pool, accountId);

/** Status facts and the last day's counts of one program. */
export async function cliProgramStatus(deps: CliDeps, programId: number) {
  const [facts, counts] = await Promise.all([programStatusFacts(deps.pool, programId), deps.store.readinessFacts(programId, deps.now())]);
  return { facts, counts };
}

/**
 * A synthetic click, lead or sale (`upTo`), or the whole chain, through the real tracking
 * rules on the program's test link. The fixture records come first; the chain cap is checked
 * after them (spec §8).
 */
export async function runTestEvents(deps: CliDeps, programId: number, upTo: SyntheticEventType, chain: boolean) {
  const shortLink = await ensureTestLink(deps.pool, programId);
  if (chain) {
    const now = deps.now();
    const hit = await hitRateLimit(deps.pool, CHAIN_LIMIT, String(programId), now);
    if (overLimit(CHAIN_LIMIT, hit)) {
      throw errors.rateLimited(retryAfterSeconds(hit, now), CLI_MESSAGES.tooManyChains);
    }
  }
  const result = await runSyntheticEvents(deps.store, { programId, shortLink, upTo, now: deps.now() });
  return { shortLink, ...result };
}
