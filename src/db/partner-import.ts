// The SQL of a partner import: what the program already holds for a chunk of rows, and the
// chunk's writes (enrollments, payout details of new profiles, referral links), set-based.
import { linksChanged } from './link-cache.js';
import type { Pool, PoolClient } from './pool.js';

type Queryable = Pool | PoolClient;

/**
 * For these emails, codes and names: the program's partners by email, each code's holder (any
 * program), the program's groups by slug, and its partners without an email by name (lowercase;
 * the lowest id when a name is there twice).
 */
export async function importLookups(db: Queryable, programId: number, emails: string[], codes: string[], names: string[] = []) {
  const [partners, links, groups, unmailed] = await Promise.all([
    db.query('SELECT id, lower(email) AS email FROM partners WHERE program_id = $1 AND lower(email) = ANY ($2::text[])', [programId, emails.map((e) => e.toLowerCase())]),
    db.query('SELECT DISTINCT ON (lower(short_link)) lower(short_link) AS code_key, program_id, partner_id FROM referral_links WHERE lower(short_link) = ANY ($1::text[]) ORDER BY lower(short_link), case_twin', [codes.map((c) => c.toLowerCase())]),
    db.query('SELECT id, slug FROM partner_groups WHERE program_id = $1', [programId]),
    names.length
      ? db.query('SELECT DISTINCT ON (lower(name)) id, lower(name) AS name_key FROM partners WHERE program_id = $1 AND email IS NULL AND lower(name) = ANY ($2::text[]) ORDER BY lower(name), id', [
          programId,
          names.map((n) => n.toLowerCase()),
        ])
      : { rows: [] as { id: string; name_key: string }[] },
  ]);
  return {
    partnerByEmail: new Map(partners.rows.map((r) => [r.email as string, Number(r.id)])),
    codeHolder: new Map(links.rows.map((r) => [r.code_key as string, { programId: r.program_id === null ? null : Number(r.program_id), partnerId: r.partner_id === null ? null : Number(r.partner_id) }])),
    groupBySlug: new Map(groups.rows.map((r) => [r.slug as string, Number(r.id)])),
    unmailedByName: new Map(unmailed.rows.map((r) => [r.name_key as string, Number(r.id)])),
  };
}

export interface ImportWrite {
  name: string;
  email: string | null;
  groupId: number | null;
  tags: string[];
  payoutMethod: string | null;
  payoutReference: string | null;
}

/**
 * Enrolls the rows (a person already in the program is left as is: ON CONFLICT), sets payout
 * details on profiles that have none, and returns each written row's partner id (null: was there).
 */
export async function insertImported(client: PoolClient, programId: number, rows: ImportWrite[]): Promise<(number | null)[]> {
  if (rows.length === 0) return [];
  const withEmail = rows.filter((r) => r.email);
  const { rows: made } = withEmail.length
    ? await client.query(
        `INSERT INTO partners (program_id, name, email, status, group_id, tags)
         SELECT $1, r.name, r.email, 'approved', r.group_id, coalesce((SELECT array_agg(t) FROM jsonb_array_elements_text(r.tags) t), '{}')
           FROM jsonb_to_recordset($2::jsonb) AS r (name text, email text, group_id bigint, tags jsonb)
         ON CONFLICT (program_id, profile_id) DO NOTHING
         RETURNING id, lower(email) AS email`,
        [programId, JSON.stringify(withEmail.map((r) => ({ name: r.name, email: r.email, group_id: r.groupId, tags: r.tags })))],
      )
    : { rows: [] as { id: string; email: string }[] };
  const byEmail = new Map(made.map((m) => [m.email as string, Number(m.id)]));
  const payouts = withEmail.filter((r) => r.payoutMethod && byEmail.has(r.email!.toLowerCase()));
  if (payouts.length) {
    await client.query(
      `UPDATE partner_profiles pp SET payout_method = r.method, payout_reference = r.reference, updated_at = now()
         FROM unnest($1::bigint[], $2::text[], $3::text[]) AS r (partner_id, method, reference), partners pa
        WHERE pa.id = r.partner_id AND pp.id = pa.profile_id AND pp.payout_method IS NULL`,
      [payouts.map((r) => byEmail.get(r.email!.toLowerCase())!), payouts.map((r) => r.payoutMethod), payouts.map((r) => r.payoutReference)],
    );
  }
  // Rows without an email cannot be matched by it: each is its own statement, so its id is its own.
  const ids: (number | null)[] = [];
  for (const row of rows) {
    if (row.email) {
      ids.push(byEmail.get(row.email.toLowerCase()) ?? null);
      continue;
    }
    const { rows: one } = await client.query(
      `INSERT INTO partners (program_id, name, email, status, group_id, tags) VALUES ($1, $2, NULL, 'approved', $3, $4) RETURNING id`,
      [programId, row.name, row.groupId, row.tags],
    );
    ids.push(Number(one[0].id));
  }
  return ids;
}

/** Referral links with the codes brands already use; a code taken meanwhile is left out (returned). */
export async function insertImportedLinks(client: PoolClient, programId: number, links: { partnerId: number; code: string }[]): Promise<string[]> {
  if (links.length === 0) return [];
  const { rows } = await client.query(
    `INSERT INTO referral_links (short_link, program_id, partner_id) SELECT code, $1, partner_id FROM unnest($2::text[], $3::bigint[]) AS l (code, partner_id)
     ON CONFLICT (lower(short_link)) WHERE NOT case_twin DO NOTHING RETURNING short_link`,
    [programId, links.map((l) => l.code), links.map((l) => l.partnerId)],
  );
  linksChanged();
  const written = new Set(rows.map((r) => r.short_link));
  return links.filter((l) => !written.has(l.code)).map((l) => l.code);
}
