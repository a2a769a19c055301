// Partner groups (the terms a group of partners shares) and one partner's override of them.
// Every read and write is scoped by program.
import type { PayoutMinimums } from '../../core/commission-ledger.js';
import type { CommissionType } from '../../core/types.js';
import { isUniqueViolation } from '../infra/pool.js';
import type { Pool, PoolClient } from '../infra/pool.js';
import { normalizeDecimal } from '../infra/rows.js';

type Queryable = Pool | PoolClient;

// ---- groups and overrides --------------------------------------------------------------------

export interface GroupView {
  id: number;
  program_id: number;
  name: string;
  slug: string;
  commission_type: CommissionType;
  commission_rate: number;
  duration_months: number | null;
  hold_days: number;
  payout_minimums_cents: PayoutMinimums;
  partners_can_create_links: boolean;
  applications_open: boolean;
  auto_approve: boolean;
  partners: number;
}

export interface GroupSettings {
  name: string;
  slug: string;
  commissionType: CommissionType;
  commissionRate: string;
  durationMonths: number | null;
  holdDays: number;
  payoutMinimums: PayoutMinimums;
  partnersCanCreateLinks: boolean;
  applicationsOpen: boolean;
  autoApprove: boolean;
}

const GROUP_SELECT = `SELECT g.*, (SELECT count(*) FROM partners pa WHERE pa.group_id = g.id)::int AS partners FROM partner_groups g`;
const toGroup = (r: any): GroupView => ({
  id: Number(r.id),
  program_id: Number(r.program_id),
  name: r.name,
  slug: r.slug,
  commission_type: r.commission_type,
  commission_rate: Number(normalizeDecimal(r.commission_rate)),
  duration_months: r.recurring_duration_months,
  hold_days: r.hold_days,
  payout_minimums_cents: r.payout_minimums,
  partners_can_create_links: r.partners_can_create_links,
  applications_open: r.applications_open,
  auto_approve: r.auto_approve,
  partners: r.partners,
});

const groupValues = (s: GroupSettings) => [
  s.name, s.slug, s.commissionType, s.commissionRate, s.durationMonths, s.holdDays, JSON.stringify(s.payoutMinimums), s.partnersCanCreateLinks, s.applicationsOpen, s.autoApprove,
];

/** null when the slug is taken in the program. */
export async function insertGroup(db: Queryable, programId: number, s: GroupSettings): Promise<GroupView | null> {
  try {
    const { rows } = await db.query(
      `INSERT INTO partner_groups (program_id, name, slug, commission_type, commission_rate, recurring_duration_months, hold_days, payout_minimums,
                                   partners_can_create_links, applications_open, auto_approve)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING id`,
      [programId, ...groupValues(s)],
    );
    return getGroup(db, programId, Number(rows[0].id));
  } catch (error) {
    if (isUniqueViolation(error)) return null;
    throw error;
  }
}

export async function updateGroup(db: Queryable, programId: number, groupId: number, s: GroupSettings): Promise<GroupView | 'slug_taken' | null> {
  try {
    const { rowCount } = await db.query(
      `UPDATE partner_groups SET name = $3, slug = $4, commission_type = $5, commission_rate = $6, recurring_duration_months = $7, hold_days = $8,
              payout_minimums = $9, partners_can_create_links = $10, applications_open = $11, auto_approve = $12
        WHERE program_id = $1 AND id = $2`,
      [programId, groupId, ...groupValues(s)],
    );
    return rowCount ? getGroup(db, programId, groupId) : null;
  } catch (error) {
    if (isUniqueViolation(error)) return 'slug_taken';
    throw error;
  }
}

export async function getGroup(db: Queryable, programId: number, groupId: number): Promise<GroupView | null> {
  const { rows } = await db.query(`${GROUP_SELECT} WHERE g.program_id = $1 AND g.id = $2`, [programId, groupId]);
  return rows[0] ? toGroup(rows[0]) : null;
}

export async function groupBySlug(db: Queryable, programId: number, slug: string): Promise<GroupView | null> {
  const { rows } = await db.query(`${GROUP_SELECT} WHERE g.program_id = $1 AND g.slug = lower($2)`, [programId, slug]);
  return rows[0] ? toGroup(rows[0]) : null;
}

export async function listGroups(db: Queryable, programId: number): Promise<GroupView[]> {
  const { rows } = await db.query(`${GROUP_SELECT} WHERE g.program_id = $1 ORDER BY g.id`, [programId]);
  return rows.map(toGroup);
}

export async function setOverride(
  db: Queryable,
  programId: number,
  partnerId: number,
  o: { commissionType: CommissionType; commissionRate: string; durationMonths: number | null; source: string },
): Promise<void> {
  await db.query(
    `INSERT INTO partner_term_overrides (program_id, partner_id, commission_type, commission_rate, recurring_duration_months, source)
     VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (partner_id) DO UPDATE SET commission_type = EXCLUDED.commission_type, commission_rate = EXCLUDED.commission_rate,
       recurring_duration_months = EXCLUDED.recurring_duration_months, source = EXCLUDED.source, created_at = now()`,
    [programId, partnerId, o.commissionType, o.commissionRate, o.durationMonths, o.source],
  );
}

export async function removeOverride(db: Queryable, programId: number, partnerId: number): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM partner_term_overrides WHERE program_id = $1 AND partner_id = $2', [programId, partnerId]);
  return (rowCount ?? 0) > 0;
}
