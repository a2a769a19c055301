// Applications to a program: the public page's program and group, the stored application with
// its terms acceptance, the risk facts a reviewer sees, and decisions. Scoped by program.
import type { ApplicationField, ReapplyRule } from '../../core/partners.js';
import type { CommissionType } from '../../core/types.js';
import type { Pool, PoolClient } from '../infra/pool.js';
import { normalizeDecimal } from '../infra/rows.js';

type Queryable = Pool | PoolClient;

export interface ApplicationPage {
  programId: number;
  accountId: number;
  name: string;
  domain: string;
  applicationsOpen: boolean;
  termsText: string;
  termsVersion: string;
  fields: ApplicationField[];
  commissionType: CommissionType;
  commissionRate: string;
  durationMonths: number | null;
}

const toPage = (r: any): ApplicationPage => ({
  programId: Number(r.id),
  accountId: Number(r.account_id),
  name: r.name,
  domain: r.domain,
  applicationsOpen: r.applications_open,
  termsText: r.terms_text,
  termsVersion: r.terms_version,
  fields: r.application_fields,
  commissionType: r.commission_type,
  commissionRate: normalizeDecimal(r.commission_rate),
  durationMonths: r.recurring_duration_months,
});

const PAGE_COLUMNS = 'id, account_id, name, domain, applications_open, terms_text, terms_version, application_fields, commission_type, commission_rate, recurring_duration_months';

/** The program behind a public application page, by its slug or its id. */
export async function applicationPage(db: Queryable, ref: string): Promise<ApplicationPage | null> {
  const byId = /^\d{1,15}$/.test(ref);
  const { rows } = await db.query(`SELECT ${PAGE_COLUMNS} FROM programs WHERE ${byId ? 'id = $1::bigint' : 'slug = lower($1)'}`, [ref]);
  return rows[0] ? toPage(rows[0]) : null;
}

export interface ApplicationSettings {
  applicationsOpen: boolean;
  slug: string | null;
  termsText: string;
  termsVersion: string;
  fields: ApplicationField[];
  /** Links and notes for partners, one per line (the portal shows them). */
  partnerResources: string;
}

/** null: the slug belongs to another program. */
export async function setApplicationSettings(db: Queryable, programId: number, s: ApplicationSettings): Promise<boolean> {
  try {
    await db.query('UPDATE programs SET applications_open = $2, slug = $3, terms_text = $4, terms_version = $5, application_fields = $6, partner_resources = $7 WHERE id = $1', [
      programId,
      s.applicationsOpen,
      s.slug,
      s.termsText,
      s.termsVersion,
      JSON.stringify(s.fields),
      s.partnerResources,
    ]);
    return true;
  } catch (error) {
    // (A unique slug refused: the caller's transaction is over; it answers 409 and writes nothing.)
    if ((error as { code?: string }).code === '23505') return false;
    throw error;
  }
}

export async function applicationSettings(db: Queryable, programId: number): Promise<ApplicationSettings> {
  const { rows } = await db.query('SELECT applications_open, slug, terms_text, terms_version, application_fields, partner_resources FROM programs WHERE id = $1', [programId]);
  const r = rows[0];
  return { applicationsOpen: r.applications_open, slug: r.slug, termsText: r.terms_text, termsVersion: r.terms_version, fields: r.application_fields, partnerResources: r.partner_resources };
}

/** The applicant's standing in the program, if they were ever enrolled: the page's answer depends on it (never shown to them). */
export async function applicantStanding(client: PoolClient, programId: number, email: string) {
  const { rows } = await client.query(
    `SELECT pa.id, pa.status, a.reapply_after, a.reapply FROM partners pa
       LEFT JOIN LATERAL (SELECT reapply_after, reapply FROM partner_applications WHERE partner_id = pa.id ORDER BY id DESC LIMIT 1) a ON true
      WHERE pa.program_id = $1 AND lower(pa.email) = lower($2) FOR UPDATE OF pa`,
    [programId, email],
  );
  const r = rows[0];
  return r ? { partnerId: Number(r.id), status: r.status as string, reapply: r.reapply as ReapplyRule | null, reapplyAfter: r.reapply_after as Date | null } : null;
}

export async function insertApplication(
  client: PoolClient,
  a: { programId: number; partnerId: number; groupId: number | null; answers: Record<string, string>; termsVersion: string; acceptedAt: Date; ip: string | null; wantedCode?: string | null },
): Promise<number> {
  const { rows } = await client.query(
    `INSERT INTO partner_applications (program_id, partner_id, group_id, answers, terms_version, terms_accepted_at, terms_ip, created_at, wanted_code)
     VALUES ($1, $2, $3, $4, $5, $6, $7::inet, $6, $8) RETURNING id`,
    [a.programId, a.partnerId, a.groupId, JSON.stringify(a.answers), a.termsVersion, a.acceptedAt, a.ip, a.wantedCode ?? null],
  );
  return Number(rows[0].id);
}

/**
 * What a reviewer should know about an applicant, from what the account already holds: the
 * email with another partner of the account, their payout account with another partner, a ban
 * in another of the account's programs.
 */
export async function riskFacts(db: Queryable, programId: number, partnerId: number) {
  const { rows } = await db.query(
    `SELECT pa.email,
            EXISTS (SELECT 1 FROM partners o JOIN programs op ON op.id = o.program_id
                     WHERE op.account_id = p.account_id AND o.profile_id <> pa.profile_id AND o.email IS NOT NULL AND lower(o.email) = lower(pa.email)) AS email_seen,
            EXISTS (SELECT 1 FROM partner_profiles pp2 WHERE pp2.account_id = p.account_id AND pp2.id <> pa.profile_id
                       AND pa.payout_reference IS NOT NULL AND lower(pp2.payout_reference) = lower(pa.payout_reference)) AS payout_seen,
            EXISTS (SELECT 1 FROM partners o JOIN programs op ON op.id = o.program_id
                     WHERE op.account_id = p.account_id AND o.profile_id = pa.profile_id AND o.id <> pa.id AND o.status = 'banned') AS banned_elsewhere
       FROM partners pa JOIN programs p ON p.id = pa.program_id WHERE pa.program_id = $1 AND pa.id = $2`,
    [programId, partnerId],
  );
  const r = rows[0];
  return r ? { email: r.email as string | null, emailSeen: r.email_seen as boolean, payoutSeen: r.payout_seen as boolean, bannedElsewhere: r.banned_elsewhere as boolean } : null;
}

export interface ApplicationRow {
  id: number;
  partner_id: number;
  name: string;
  email: string | null;
  partner_status: string;
  group_id: number | null;
  group_name: string | null;
  answers: Record<string, string>;
  terms_version: string;
  terms_accepted_at: Date;
  terms_ip: string | null;
  status: 'pending' | 'approved' | 'rejected';
  reason: string | null;
  reapply: ReapplyRule | null;
  auto_decided: boolean;
  decided_at: Date | null;
  created_at: Date;
}

const APPLICATION_SELECT = `SELECT a.id, a.partner_id, pa.name, pa.email, pa.status AS partner_status, a.group_id, g.name AS group_name, a.answers, a.terms_version,
       a.terms_accepted_at, host(a.terms_ip) AS terms_ip, a.status, a.reason, a.reapply, a.auto_decided, a.decided_at, a.created_at
  FROM partner_applications a JOIN partners pa ON pa.id = a.partner_id LEFT JOIN partner_groups g ON g.id = a.group_id`;

const toApplication = (r: any): ApplicationRow => ({ ...r, id: Number(r.id), partner_id: Number(r.partner_id), group_id: r.group_id === null ? null : Number(r.group_id) });

export async function listApplications(db: Queryable, programId: number, filter: { status?: string | null; afterId?: number; limit: number }): Promise<ApplicationRow[]> {
  const { rows } = await db.query(
    `${APPLICATION_SELECT} WHERE a.program_id = $1 AND ($2::text IS NULL OR a.status = $2) AND a.id > $3 ORDER BY a.id LIMIT $4`,
    [programId, filter.status ?? null, filter.afterId ?? 0, filter.limit],
  );
  return rows.map(toApplication);
}

/** The latest pending application of each of these partners. */
export async function pendingApplicationsOf(client: PoolClient, partnerIds: number[]): Promise<Map<number, number>> {
  return new Map([...(await pendingApplicationCodes(client, partnerIds))].map(([partnerId, a]) => [partnerId, a.id]));
}

/** Each partner's latest pending application and the link code it asked for (null: none). */
export async function pendingApplicationCodes(client: PoolClient, partnerIds: number[]): Promise<Map<number, { id: number; wantedCode: string | null }>> {
  const { rows } = await client.query(
    "SELECT DISTINCT ON (partner_id) partner_id, id, wanted_code FROM partner_applications WHERE partner_id = ANY ($1::bigint[]) AND status = 'pending' ORDER BY partner_id, id DESC",
    [partnerIds],
  );
  return new Map(rows.map((r) => [Number(r.partner_id), { id: Number(r.id), wantedCode: r.wanted_code }]));
}

export async function decideApplications(
  client: PoolClient,
  ids: number[],
  decision: { status: 'approved' | 'rejected'; reason: string | null; reapply: ReapplyRule | null; reapplyAfter: Date | null; at: Date; auto: boolean },
): Promise<void> {
  if (ids.length === 0) return;
  await client.query(
    `UPDATE partner_applications SET status = $2, reason = $3, reapply = $4, reapply_after = $5, decided_at = $6, auto_decided = $7 WHERE id = ANY ($1::bigint[])`,
    [ids, decision.status, decision.reason, decision.reapply, decision.reapplyAfter, decision.at, decision.auto],
  );
}
