// The SQL of a partner import: what the program already holds for a chunk of rows, and the
// chunk's writes (enrollments, payout details of new profiles, referral links), set-based.
import { linksChanged } from '../tracking/link-cache.js';
import type { Pool, PoolClient } from '../infra/pool.js';

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
    db.query('SELECT id, name, slug FROM partner_groups WHERE program_id = $1 ORDER BY id', [programId]),
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
    groups: groups.rows.map((r) => ({ id: Number(r.id), name: r.name as string, slug: r.slug as string })),
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
  /** A row with neither email nor code: its name's key (lower case), unique among the program's imported partners. */
  nameKey?: string | null;
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
  // A row known by its name waits for an import of the same name running at once (the lock), then
  // finds the partner it made; the unique key is the backstop.
  const nameKeys = [...new Set(rows.filter((r) => !r.email && r.nameKey).map((r) => r.nameKey!))].sort();
  if (nameKeys.length) {
    await client.query(
      `SELECT pg_advisory_xact_lock(k) FROM (SELECT hashtextextended('partner-import:' || $1::text || ':' || key, 0) AS k FROM unnest($2::text[]) AS key ORDER BY 1) AS keys`,
      [programId, nameKeys],
    );
  }
  const ids: (number | null)[] = [];
  for (const row of rows) {
    if (row.email) {
      ids.push(byEmail.get(row.email.toLowerCase()) ?? null);
      continue;
    }
    const { rows: one } = await client.query(
      `INSERT INTO partners (program_id, name, email, status, group_id, tags, import_name_key)
       SELECT $1, $2, NULL, 'approved', $3, $4, $5::text
        WHERE $5::text IS NULL OR NOT EXISTS (SELECT 1 FROM partners WHERE program_id = $1 AND import_name_key = $5::text)
       ON CONFLICT (program_id, import_name_key) WHERE import_name_key IS NOT NULL DO NOTHING
       RETURNING id`,
      [programId, row.name, row.groupId, row.tags, row.nameKey ?? null],
    );
    ids.push(one.length ? Number(one[0].id) : null);
  }
  return ids;
}

/**
 * The groups an import makes, with the program's own terms; a group of that address name made
 * meanwhile is taken when it has the same name. Returns each name's (lower case) group id, or
 * the names whose address name another group holds.
 */
export async function insertImportedGroups(
  client: PoolClient,
  programId: number,
  groups: { name: string; slug: string }[],
): Promise<{ made: { id: number; name: string }[]; ids: Map<string, number>; taken: string[] }> {
  const made: { id: number; name: string }[] = [];
  const ids = new Map<string, number>();
  const taken: string[] = [];
  for (const group of groups) {
    const { rows } = await client.query(
      `INSERT INTO partner_groups (program_id, name, slug, commission_type, commission_rate, recurring_duration_months, hold_days)
       SELECT id, $2, $3, commission_type, commission_rate, recurring_duration_months, hold_days FROM programs WHERE id = $1
       ON CONFLICT (program_id, slug) DO NOTHING RETURNING id`,
      [programId, group.name, group.slug],
    );
    if (rows.length) {
      made.push({ id: Number(rows[0].id), name: group.name });
      ids.set(group.name.toLowerCase(), Number(rows[0].id));
      continue;
    }
    const { rows: there } = await client.query('SELECT id, name FROM partner_groups WHERE program_id = $1 AND slug = $2', [programId, group.slug]);
    if (there.length && (there[0].name as string).toLowerCase() === group.name.toLowerCase()) ids.set(group.name.toLowerCase(), Number(there[0].id));
    else taken.push(group.name);
  }
  return { made, ids, taken };
}

/** An uploaded file kept for its import (the dashboard's confirm names it); expired ones of the program go. */
export async function keepImportFile(db: Queryable, programId: number, bytes: Uint8Array, sha256: string, now: Date, expiresAt: Date): Promise<string> {
  await db.query('DELETE FROM partner_import_files WHERE program_id = $1 AND expires_at <= $2', [programId, now]);
  const { rows } = await db.query('INSERT INTO partner_import_files (program_id, bytes, sha256, created_at, expires_at) VALUES ($1, $2, $3, $4, $5) RETURNING id', [
    programId,
    Buffer.from(bytes),
    sha256,
    now,
    expiresAt,
  ]);
  return rows[0].id as string;
}

/** A kept file of the program that has not expired, or null. */
export async function keptImportFile(db: Queryable, programId: number, fileId: string, now: Date): Promise<{ bytes: Buffer; sha256: string } | null> {
  const { rows } = await db.query('SELECT bytes, sha256 FROM partner_import_files WHERE program_id = $1 AND id = $2 AND expires_at > $3', [programId, fileId, now]);
  return rows.length ? { bytes: rows[0].bytes as Buffer, sha256: rows[0].sha256 as string } : null;
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
