// A brand's own host names (migrations/0059): the routing lookup by host, and a program's hosts.
import type { BrandHosts, DomainKind } from '../../core/domains.js';
import type { Pool, PoolClient } from '../infra/pool.js';

type Db = Pool | PoolClient;

/** Whose a host is: the program and its account, and what the host serves. */
export interface HostOwner {
  programId: number;
  accountId: number;
  kind: DomainKind;
}

/** One host's owner (by the primary key), or null for a host no brand set. */
export async function hostOwner(db: Db, host: string): Promise<HostOwner | null> {
  const { rows } = await db.query(
    'SELECT d.program_id, d.kind, p.account_id FROM program_domains d JOIN programs p ON p.id = d.program_id WHERE d.host = $1',
    [host],
  );
  return rows[0] ? { programId: Number(rows[0].program_id), accountId: Number(rows[0].account_id), kind: rows[0].kind } : null;
}

/** Whether any brand set a host at all (until one does, every host is the service's own). */
export async function anyBrandHost(db: Db): Promise<boolean> {
  const { rows } = await db.query('SELECT EXISTS (SELECT 1 FROM program_domains) AS any');
  return rows[0].any === true;
}

export async function programHosts(db: Db, programId: number): Promise<BrandHosts> {
  const { rows } = await db.query('SELECT host, kind FROM program_domains WHERE program_id = $1', [programId]);
  const of = (kind: DomainKind) => (rows.find((r) => r.kind === kind)?.host as string | undefined) ?? null;
  return { portal: of('portal'), links: of('links') };
}

/** Sets (or with null, removes) the program's host of a kind; false when another program holds the host. */
export async function setProgramHost(db: Db, programId: number, kind: DomainKind, host: string | null): Promise<boolean> {
  await db.query('DELETE FROM program_domains WHERE program_id = $1 AND kind = $2', [programId, kind]);
  if (!host) return true;
  const { rowCount } = await db.query('INSERT INTO program_domains (host, program_id, kind) VALUES ($1, $2, $3) ON CONFLICT (host) DO NOTHING', [host, programId, kind]);
  return rowCount === 1;
}

/** An enabled link of this program by its code (any case), with the program's site: what a links host redirects to. */
export async function programLinkByCode(db: Db, programId: number, code: string): Promise<{ shortLink: string; domain: string } | null> {
  const { rows } = await db.query(
    `SELECT l.short_link, p.domain FROM referral_links l JOIN programs p ON p.id = l.program_id
      WHERE lower(l.short_link) = lower($1) AND l.program_id = $2 AND l.enabled AND l.partner_id IS NOT NULL
      ORDER BY l.case_twin LIMIT 1`,
    [code, programId],
  );
  return rows[0] ? { shortLink: rows[0].short_link, domain: rows[0].domain } : null;
}
