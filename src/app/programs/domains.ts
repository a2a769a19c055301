// A brand's own host names: set on the program's settings (audited), and looked up for every
// request whose Host is not the service's own (cached briefly: a request costs no query most of
// the time, and nothing is kept that another instance would need).
import { z } from 'zod';
import { changedFields } from '../../core/audit.js';
import { type BrandHosts, DOMAIN_KINDS, parseBrandHost } from '../../core/domains.js';
import { errors } from '../../core/errors.js';
import { referralUrl } from '../../core/programs.js';
import * as domains from '../../db/programs/domains.js';
import { type Pool, withTransaction } from '../../db/infra/pool.js';
import { TtlCache } from '../../platform/ttl-cache.js';
import { type ManagementDeps, audit, parseInput } from './management.js';
import { type Scope, programInScope } from '../accounts/scope.js';

export type { HostOwner } from '../../db/programs/domains.js';

const TAKEN = 'This host is already in use: choose another.';

export async function programDomainsOf(deps: ManagementDeps, scope: Scope, programId: number): Promise<BrandHosts> {
  await programInScope(deps, scope, programId);
  return domains.programHosts(deps.pool, programId);
}

const hostsInput = z.object({ portal_host: z.string().max(300).default(''), links_host: z.string().max(300).default('') });

/**
 * Sets the program's portal and links hosts (empty: none). A host another program holds is
 * "taken", which is all its brand learns. `serviceHost` is the service's own (never a brand's).
 */
export async function updateProgramDomains(deps: ManagementDeps & { hosts?: BrandHostRouter }, scope: Scope, programId: number, input: unknown, serviceHost: string): Promise<BrandHosts> {
  await programInScope(deps, scope, programId);
  const typed = parseInput(hostsInput, input);
  const wanted: BrandHosts = { portal: null, links: null };
  const problems: Record<string, string> = {};
  for (const kind of DOMAIN_KINDS) {
    const value = typed[`${kind}_host`];
    if (!value.trim()) continue;
    const parsed = parseBrandHost(value, serviceHost);
    if ('problem' in parsed) problems[`${kind}_host`] = parsed.problem;
    else wanted[kind] = parsed.host;
  }
  if (wanted.portal && wanted.portal === wanted.links) problems.links_host = 'The links host must differ from the portal host.';
  if (Object.keys(problems).length) throw errors.invalid(Object.values(problems)[0]!, problems);
  const changed = await withTransaction(deps.pool, async (client) => {
    const current = await domains.programHosts(client, programId);
    for (const kind of DOMAIN_KINDS) {
      if (current[kind] === wanted[kind]) continue;
      if (!(await domains.setProgramHost(client, programId, kind, wanted[kind]))) problems[`${kind}_host`] = TAKEN;
    }
    if (Object.keys(problems).length) throw errors.invalid(Object.values(problems)[0]!, problems);
    await audit(client, scope, [{ programId, action: 'program_domains.updated', objectType: 'program', objectId: programId, changes: changedFields({ ...current }, { ...wanted }) }]);
    return current;
  });
  // This instance sees its own change at once; others within the cache's lifetime.
  for (const host of [...Object.values(changed), ...Object.values(wanted)]) if (host) deps.hosts?.forget(host);
  return wanted;
}

/** The program's hosts as the admin API answers them (null: none of that kind). */
export const domainsView = (hosts: BrandHosts) => ({ portal_host: hosts.portal, links_host: hosts.links });

const patchInput = z.object({ portal_host: z.string().max(300).nullable().optional(), links_host: z.string().max(300).nullable().optional() }).strict();
/** The admin API's body: each host given changes (`""` or null removes it); one left out stays as it is. */
export const domainsPatchInput = patchInput;

/**
 * The admin API's PATCH: the hosts given, the others kept, then the dashboard's update (the same
 * checks, the same "taken", the same audit entry).
 */
export async function patchProgramDomains(deps: ManagementDeps & { hosts?: BrandHostRouter }, scope: Scope, programId: number, input: unknown, serviceHost: string): Promise<BrandHosts> {
  await programInScope(deps, scope, programId);
  const given = parseInput(patchInput, input ?? {});
  const current = await domains.programHosts(deps.pool, programId);
  const value = (kind: 'portal' | 'links') => {
    const typed = given[`${kind}_host`];
    return typed === undefined ? (current[kind] ?? '') : (typed ?? '');
  };
  return updateProgramDomains(deps, scope, programId, { portal_host: value('portal'), links_host: value('links') }, serviceHost);
}

/** How long a host's owner (or its absence) is kept: a new or moved host works everywhere within this. */
export const HOST_CACHE_MS = 30_000;

export interface BrandHostRouter {
  /** The brand host's owner, or null (not a brand's host). */
  owner(host: string): Promise<domains.HostOwner | null>;
  /** Whether any brand host exists (until then every host is served as the service's own). */
  anyHost(): Promise<boolean>;
  /** Without a query: false only when the last look found no brand host at all (then any host is the service's). */
  mayHaveHosts(): boolean;
  forget(host: string): void;
}

export function brandHostRouter(pool: Pool, now: () => number = Date.now): BrandHostRouter {
  const owners = new TtlCache<string, domains.HostOwner | null>(HOST_CACHE_MS, 10_000, now);
  const any = new TtlCache<'any', boolean>(HOST_CACHE_MS, 1, now);
  let seen: boolean | null = null;
  return {
    owner: (host) => owners.get(host, (h) => domains.hostOwner(pool, h)),
    anyHost: () => any.get('any', async () => (seen = await domains.anyBrandHost(pool))),
    mayHaveHosts: () => seen !== false,
    forget(host) {
      owners.forget(host);
      any.forget('any');
    },
  };
}

/** A links host's answer for a code: the partner's referral URL, or null (not this program's code: the same as none). */
export async function linkTarget(deps: Pick<ManagementDeps, 'pool'>, programId: number, code: string): Promise<string | null> {
  if (!/^[\w-]{1,64}$/.test(code)) return null;
  const link = await domains.programLinkByCode(deps.pool, programId, code);
  return link ? referralUrl(link.domain, link.shortLink) : null;
}
