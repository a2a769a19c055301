// Enrollments of a program (the partners row) and the person's profile (per account): one
// partner read, adding, editing, and the changes of many a bulk action makes in the caller's
// transaction. Every read and write is scoped by program (and a profile by its account).
import type { PartnerStatus } from '../../core/partners.js';
import type { CommissionType } from '../../core/types.js';
import { isUniqueViolation } from '../infra/pool.js';
import { linksChanged } from '../tracking/link-cache.js';
import type { Pool, PoolClient } from '../infra/pool.js';
import { normalizeDecimal } from '../infra/rows.js';

type Queryable = Pool | PoolClient;

export interface PartnerView {
  id: number;
  program_id: number;
  profile_id: number;
  name: string;
  email: string | null;
  status: PartnerStatus;
  group_id: number | null;
  group_name: string | null;
  notes: string | null;
  tags: string[];
  invited_at: Date | null;
  created_at: Date;
  status_changed_at: Date;
  payout_method: string | null;
  payout_reference: string | null;
  payout_currency: string | null;
  terms: { source: string; commission_type: CommissionType; commission_rate: number; duration_months: number | null; hold_days: number; override_source: string | null };
  sanction: { id: number; kind: 'ban' | 'archive'; reason: string; created_at: Date } | null;
}

const PARTNER_SELECT = `SELECT pa.id, pa.program_id, pa.profile_id, pa.name, pa.email, pa.status, pa.group_id, g.name AS group_name, pa.notes, pa.tags,
       pa.invited_at, pa.created_at, pa.status_changed_at, pa.payout_method, pa.payout_reference, pa.payout_currency,
       t.source, t.commission_type, t.commission_rate, t.recurring_duration_months, t.hold_days, o.source AS override_source,
       s.id AS sanction_id, s.kind AS sanction_kind, s.reason AS sanction_reason, s.created_at AS sanction_at
  FROM partners pa
  JOIN partner_terms t ON t.partner_id = pa.id
  LEFT JOIN partner_groups g ON g.id = pa.group_id
  LEFT JOIN partner_term_overrides o ON o.partner_id = pa.id
  LEFT JOIN partner_sanctions s ON s.partner_id = pa.id AND s.lifted_at IS NULL`;

const toPartner = (r: any): PartnerView => ({
  id: Number(r.id),
  program_id: Number(r.program_id),
  profile_id: Number(r.profile_id),
  name: r.name,
  email: r.email,
  status: r.status,
  group_id: r.group_id === null ? null : Number(r.group_id),
  group_name: r.group_name,
  notes: r.notes,
  tags: r.tags,
  invited_at: r.invited_at,
  created_at: r.created_at,
  status_changed_at: r.status_changed_at,
  payout_method: r.payout_method,
  payout_reference: r.payout_reference,
  payout_currency: r.payout_currency,
  terms: {
    source: r.source,
    commission_type: r.commission_type,
    commission_rate: Number(normalizeDecimal(r.commission_rate)),
    duration_months: r.recurring_duration_months,
    hold_days: r.hold_days,
    override_source: r.override_source,
  },
  sanction: r.sanction_id === null ? null : { id: Number(r.sanction_id), kind: r.sanction_kind, reason: r.sanction_reason, created_at: r.sanction_at },
});

export async function getPartner(db: Queryable, programId: number, partnerId: number): Promise<PartnerView | null> {
  const { rows } = await db.query(`${PARTNER_SELECT} WHERE pa.program_id = $1 AND pa.id = $2`, [programId, partnerId]);
  return rows[0] ? toPartner(rows[0]) : null;
}

export interface NewEnrollment {
  name: string;
  email: string | null;
  status: PartnerStatus;
  groupId: number | null;
  tags: string[];
  notes: string | null;
}

/**
 * Enrolls a person: the account's profile with this email, or a new one (the trigger of
 * migration 0021). The same person twice in a program is refused: `duplicateOf` names the one there.
 */
export async function insertEnrollment(db: Queryable, programId: number, enrollment: NewEnrollment): Promise<{ partner: PartnerView } | { duplicateOf: number }> {
  try {
    const { rows } = await db.query(
      `INSERT INTO partners (program_id, name, email, status, group_id, tags, notes) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id`,
      [programId, enrollment.name, enrollment.email, enrollment.status, enrollment.groupId, enrollment.tags, enrollment.notes],
    );
    return { partner: (await getPartner(db, programId, Number(rows[0].id)))! };
  } catch (error) {
    if (!isUniqueViolation(error) || !enrollment.email) throw error;
    const { rows } = await db.query('SELECT id FROM partners WHERE program_id = $1 AND lower(email) = lower($2)', [programId, enrollment.email]);
    if (!rows[0]) throw error;
    return { duplicateOf: Number(rows[0].id) };
  }
}

export async function partnerIdByEmail(db: Queryable, programId: number, email: string): Promise<number | null> {
  const { rows } = await db.query('SELECT id FROM partners WHERE program_id = $1 AND lower(email) = lower($2)', [programId, email]);
  return rows[0] ? Number(rows[0].id) : null;
}

/** The person's name or email (every program of the account sees the change). 'email_taken': another partner of the account has it. */
export async function updateProfile(db: Queryable, programId: number, partnerId: number, change: { name?: string; email?: string | null }) {
  try {
    const { rowCount } = await db.query(
      `UPDATE partner_profiles pp SET name = coalesce($3, pp.name), email = CASE WHEN $4 THEN $5 ELSE pp.email END, updated_at = now()
         FROM partners pa WHERE pa.program_id = $1 AND pa.id = $2 AND pp.id = pa.profile_id`,
      [programId, partnerId, change.name ?? null, change.email !== undefined, change.email ?? null],
    );
    return (rowCount ?? 0) > 0 ? 'updated' : 'not_found';
  } catch (error) {
    if (isUniqueViolation(error)) return 'email_taken';
    throw error;
  }
}

export async function updateEnrollment(db: Queryable, programId: number, partnerId: number, change: { notes?: string | null; tags?: string[] }): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE partners SET notes = CASE WHEN $3 THEN $4 ELSE notes END, tags = coalesce($5, tags), updated_at = now() WHERE program_id = $1 AND id = $2`,
    [programId, partnerId, change.notes !== undefined, change.notes ?? null, change.tags ?? null],
  );
  return (rowCount ?? 0) > 0;
}

// ---- changes of many -------------------------------------------------------------------------

export interface LockedPartner {
  id: number;
  status: PartnerStatus;
  groupId: number | null;
  email: string | null;
  name: string;
  invitedAt: Date | null;
}

/** The program's partners among `ids`, locked in id order (the one lock order for partner batches). */
export async function lockPartners(client: PoolClient, programId: number, ids: number[]): Promise<LockedPartner[]> {
  const { rows } = await client.query(
    'SELECT id, status, group_id, email, name, invited_at FROM partners WHERE program_id = $1 AND id = ANY ($2::bigint[]) ORDER BY id FOR UPDATE',
    [programId, ids],
  );
  return rows.map((r) => ({ id: Number(r.id), status: r.status, groupId: r.group_id === null ? null : Number(r.group_id), email: r.email, name: r.name, invitedAt: r.invited_at }));
}

export async function setStatus(client: PoolClient, ids: number[], status: PartnerStatus, at: Date): Promise<void> {
  if (ids.length === 0) return;
  await client.query('UPDATE partners SET status = $2, status_changed_at = $3, updated_at = $3 WHERE id = ANY ($1::bigint[])', [ids, status, at]);
}

export async function setGroup(client: PoolClient, ids: number[], groupId: number | null): Promise<void> {
  if (ids.length === 0) return;
  await client.query('UPDATE partners SET group_id = $2, updated_at = now() WHERE id = ANY ($1::bigint[])', [ids, groupId]);
}

export async function markInvited(client: PoolClient, ids: number[], at: Date): Promise<void> {
  if (ids.length === 0) return;
  await client.query('UPDATE partners SET invited_at = coalesce(invited_at, $2) WHERE id = ANY ($1::bigint[])', [ids, at]);
}

/** Partners among `ids` without any referral link (an approved applicant gets one). */
export async function partnersWithoutLink(client: PoolClient, ids: number[]): Promise<number[]> {
  const { rows } = await client.query(
    'SELECT pa.id FROM partners pa WHERE pa.id = ANY ($1::bigint[]) AND NOT EXISTS (SELECT 1 FROM referral_links l WHERE l.partner_id = pa.id) ORDER BY pa.id',
    [ids],
  );
  return rows.map((r) => Number(r.id));
}

/** The partners whose link was made: a code already in use makes none (the caller picks another). */
export async function insertLinks(client: PoolClient, programId: number, links: { partnerId: number; code: string }[]): Promise<Set<number>> {
  if (links.length === 0) return new Set();
  const { rows } = await client.query(
    `INSERT INTO referral_links (short_link, program_id, partner_id) SELECT code, $1, partner_id FROM unnest($2::text[], $3::bigint[]) AS l (code, partner_id)
     ON CONFLICT (lower(short_link)) WHERE NOT case_twin DO NOTHING RETURNING partner_id`,
    [programId, links.map((l) => l.code), links.map((l) => l.partnerId)],
  );
  linksChanged();
  return new Set(rows.map((r) => Number(r.partner_id)));
}
