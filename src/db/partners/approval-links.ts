// The link an approval mail shows each partner (issue 44, item 4): their first enabled link in the
// program, with the program's site and links host to write it as the portal shows it.
import type { Pool, PoolClient } from '../infra/pool.js';

type Db = Pool | PoolClient;

/** Partner id -> their first enabled code in the program (by referral_links_program_idx), with the program's site and links host. */
export async function firstLinksOf(db: Db, programId: number, partnerIds: number[]): Promise<{ domain: string; linksHost: string | null; codes: Map<number, string> }> {
  // One after the other: `db` may be the caller's transaction (one connection).
  const links = await db.query(
    `SELECT DISTINCT ON (partner_id) partner_id, short_link FROM referral_links
      WHERE program_id = $1 AND partner_id = ANY ($2::bigint[]) AND enabled ORDER BY partner_id, id`,
    [programId, partnerIds],
  );
  const program = await db.query(`SELECT p.domain, (SELECT d.host FROM program_domains d WHERE d.program_id = p.id AND d.kind = 'links') AS links_host FROM programs p WHERE p.id = $1`, [programId]);
  return {
    domain: program.rows[0]?.domain ?? '',
    linksHost: program.rows[0]?.links_host ?? null,
    codes: new Map(links.rows.map((r) => [Number(r.partner_id), r.short_link as string])),
  };
}
