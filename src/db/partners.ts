// Partners of a program: profiles (the person, per account), enrollments (the partners row),
// groups, overrides, sanctions and the partner list. Every read and write is scoped by program
// (and a profile by its account); changes run in the caller's transaction where they are many.
import type { PayoutMinimums } from '../core/commission-ledger.js';
import type { PartnerStatus } from '../core/partners.js';
import type { CommissionType } from '../core/types.js';
import { isUniqueViolation } from './pool.js';
import { linksChanged } from './link-cache.js';
import type { Pool, PoolClient } from './pool.js';
import { normalizeDecimal } from './rows.js';

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

// ---- the list ----------------------------------------------------------------------------------

export const PARTNER_SORTS = ['created', 'name', 'clicks', 'leads', 'sales', 'revenue', 'commission'] as const;
export type PartnerSort = (typeof PARTNER_SORTS)[number];

export interface PartnerFilter {
  q?: string | null;
  /** The search may match emails and payout references (src/core/permissions.ts searchMatchesPeople); otherwise names only. */
  matchesPeople: boolean;
  status?: PartnerStatus | null;
  groupId?: number | null;
  tag?: string | null;
}

export interface PartnerListRow {
  id: number;
  name: string;
  email: string | null;
  status: PartnerStatus;
  group_id: number | null;
  group_name: string | null;
  tags: string[];
  clicks: number;
  leads: number;
  sales: number;
  revenue_cents: number;
  commission_cents: number;
  created_at: Date;
}

/** The filter as SQL conditions on `pa` (parameters from $2; $1 is the program). */
function filterSql(filter: PartnerFilter, params: unknown[]): string {
  // The test partner (migration 0051) is never among the program's partners.
  const where = ['pa.program_id = $1', 'NOT pa.test'];
  const add = (sql: (n: string) => string, value: unknown) => {
    params.push(value);
    where.push(sql(`$${params.length}`));
  };
  if (filter.q) {
    const within = `%${filter.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    // Without the people permission a search reads names alone: no email or payout reference can match.
    if (!filter.matchesPeople) add((n) => `pa.name ILIKE ${n}`, within);
    // An address finds the partner with that email or payout reference (case-insensitive); anything else any part of them or the name.
    else if (filter.q.includes('@')) add((n) => `(lower(pa.email) = lower(${n}) OR lower(pa.payout_reference) = lower(${n}))`, filter.q);
    else add((n) => `(pa.name ILIKE ${n} OR pa.email ILIKE ${n} OR pa.payout_reference ILIKE ${n})`, within);
  }
  if (filter.status) add((n) => `pa.status = ${n}`, filter.status);
  if (filter.groupId) add((n) => `pa.group_id = ${n}`, filter.groupId);
  if (filter.tag) add((n) => `${n} = ANY (pa.tags)`, filter.tag.toLowerCase());
  return where.join(' AND ');
}

const SORT_SQL: Record<PartnerSort, string> = {
  created: 'pa.id',
  name: 'lower(pa.name)',
  clicks: 'coalesce(t.clicks, 0)',
  leads: 'coalesce(t.leads, 0)',
  sales: 'coalesce(t.sales, 0)',
  revenue: 'coalesce(t.revenue_cents, 0)',
  commission: 'coalesce(t.commission_cents, 0)',
};

/**
 * One page of the program's partners with their numbers, sorted, by keyset: `after` is the last
 * row's [sort value, id] of the previous page. Money is in one currency (the page's choice).
 */
export async function listPartners(
  db: Queryable,
  programId: number,
  filter: PartnerFilter,
  page: { sort: PartnerSort; direction: 'asc' | 'desc'; currency: string; after: [string | number, number] | null; limit: number },
): Promise<PartnerListRow[]> {
  const params: unknown[] = [programId];
  const where = filterSql(filter, params);
  params.push(page.currency);
  const currency = `$${params.length}`;
  const sortSql = SORT_SQL[page.sort];
  const op = page.direction === 'asc' ? '>' : '<';
  let keyset = '';
  if (page.after) {
    params.push(page.after[0], page.after[1]);
    const cast = page.sort === 'name' ? 'text' : 'bigint';
    keyset = `AND (${sortSql}, pa.id) ${op} ($${params.length - 1}::${cast}, $${params.length}::bigint)`;
  }
  params.push(page.limit);
  const { rows } = await db.query(
    `WITH selected AS (SELECT pa.id FROM partners pa WHERE ${where}),
          -- All-time numbers from the rollups (migration 0028); money in the page's currency.
          t AS (SELECT partner_id, sum(value) FILTER (WHERE measure = 'clicks') AS clicks, sum(value) FILTER (WHERE measure = 'leads') AS leads,
                       sum(value) FILTER (WHERE measure = 'sales') AS sales, sum(value) FILTER (WHERE measure = 'revenue' AND currency = ${currency}) AS revenue_cents,
                       sum(value) FILTER (WHERE measure LIKE 'earned:%' AND measure <> 'earned:test' AND currency = ${currency}) AS commission_cents
                  FROM page_rollups WHERE program_id = $1 AND day = 'infinity' AND partner_id IN (SELECT id FROM selected) GROUP BY partner_id)
     SELECT pa.id, pa.name, pa.email, pa.status, pa.group_id, g.name AS group_name, pa.tags, pa.created_at, ${sortSql} AS sort_value,
            coalesce(t.clicks, 0)::int AS clicks, coalesce(t.leads, 0)::int AS leads, coalesce(t.sales, 0)::int AS sales,
            coalesce(t.revenue_cents, 0)::bigint AS revenue_cents, coalesce(t.commission_cents, 0)::bigint AS commission_cents
       FROM partners pa
       LEFT JOIN partner_groups g ON g.id = pa.group_id
       LEFT JOIN t ON t.partner_id = pa.id
      WHERE ${where} ${keyset}
      ORDER BY ${sortSql} ${page.direction}, pa.id ${page.direction}
      LIMIT $${params.length}`,
    params,
  );
  return rows.map((r) => ({
    id: Number(r.id),
    name: r.name,
    email: r.email,
    status: r.status,
    group_id: r.group_id === null ? null : Number(r.group_id),
    group_name: r.group_name,
    tags: r.tags,
    clicks: r.clicks,
    leads: r.leads,
    sales: r.sales,
    revenue_cents: Number(r.revenue_cents),
    commission_cents: Number(r.commission_cents),
    created_at: r.created_at,
    sort_value: r.sort_value,
  }));
}

/** Ids of the program's partners a filter matches and an action may change, by id (keyset), for a bulk action on "everything". */
export async function partnerIdsMatching(db: Queryable, programId: number, filter: PartnerFilter, statuses: readonly PartnerStatus[], afterId: number, limit: number): Promise<number[]> {
  const params: unknown[] = [programId];
  const where = filterSql(filter, params);
  params.push(statuses, afterId, limit);
  const n = params.length;
  const { rows } = await db.query(
    `SELECT pa.id FROM partners pa WHERE ${where} AND pa.status = ANY ($${n - 2}::text[]) AND pa.id > $${n - 1} ORDER BY pa.id LIMIT $${n}`,
    params,
  );
  return rows.map((r) => Number(r.id));
}

/** How many of the program's partners a filter matches that an action may change (a bulk action's size). */
export async function countPartnersMatching(db: Queryable, programId: number, filter: PartnerFilter, statuses: readonly PartnerStatus[]): Promise<number> {
  const params: unknown[] = [programId];
  const where = filterSql(filter, params);
  params.push(statuses);
  const { rows } = await db.query(`SELECT count(*)::int AS n FROM partners pa WHERE ${where} AND pa.status = ANY ($${params.length}::text[])`, params);
  return rows[0].n;
}

/** Every partner of the program a filter matches, for the CSV (keyset chunks by id). */
export async function partnersForExport(db: Queryable, programId: number, filter: PartnerFilter, afterId: number, limit: number) {
  const params: unknown[] = [programId];
  const where = filterSql(filter, params);
  params.push(afterId, limit);
  const { rows } = await db.query(
    `SELECT pa.id, pa.name, pa.email, pa.status, g.slug AS group_slug, pa.tags, pa.created_at,
            (SELECT string_agg(l.short_link, ' ' ORDER BY l.id) FROM referral_links l WHERE l.partner_id = pa.id) AS codes
       FROM partners pa LEFT JOIN partner_groups g ON g.id = pa.group_id
      WHERE ${where} AND pa.id > $${params.length - 1} ORDER BY pa.id LIMIT $${params.length}`,
    params,
  );
  return rows as { id: number; name: string; email: string | null; status: string; group_slug: string | null; tags: string[]; created_at: Date; codes: string | null }[];
}

/** The same rows a page at a time (keyset by id): an export streams them as they are read, never the whole list at once. */
export async function* partnerExportPages(db: Queryable, programId: number, filter: PartnerFilter, pageSize = 1000) {
  for (let after = 0; ; ) {
    const rows = await partnersForExport(db, programId, filter, after, pageSize);
    if (rows.length > 0) yield rows;
    if (rows.length < pageSize) return;
    after = Number(rows[rows.length - 1]!.id);
  }
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

// ---- sanctions -------------------------------------------------------------------------------

export async function insertSanctions(
  client: PoolClient,
  programId: number,
  kind: 'ban' | 'archive',
  reason: string,
  partners: { id: number; status: PartnerStatus }[],
  at: Date,
): Promise<Map<number, number>> {
  if (partners.length === 0) return new Map();
  const { rows } = await client.query(
    `INSERT INTO partner_sanctions (program_id, partner_id, kind, reason, status_before, created_at)
     SELECT $1, p.id, $2, $3, p.status, $4 FROM unnest($5::bigint[], $6::text[]) AS p (id, status) RETURNING id, partner_id`,
    [programId, kind, reason, at, partners.map((p) => p.id), partners.map((p) => p.status)],
  );
  return new Map(rows.map((r) => [Number(r.partner_id), Number(r.id)]));
}

/** The active sanctions of these partners (at most one each). */
export async function activeSanctions(client: PoolClient, partnerIds: number[]) {
  const { rows } = await client.query(
    'SELECT id, partner_id, kind, status_before FROM partner_sanctions WHERE partner_id = ANY ($1::bigint[]) AND lifted_at IS NULL',
    [partnerIds],
  );
  return rows.map((r) => ({ id: Number(r.id), partnerId: Number(r.partner_id), kind: r.kind as 'ban' | 'archive', statusBefore: r.status_before as PartnerStatus }));
}

/** Turns off the partners' enabled links, each stamped with its partner's sanction. */
export async function disableLinksUnder(client: PoolClient, sanctions: Map<number, number>): Promise<number> {
  if (sanctions.size === 0) return 0;
  const { rowCount } = await client.query(
    `UPDATE referral_links l SET enabled = false, disabled_by_sanction_id = s.sanction_id, updated_at = now()
       FROM unnest($1::bigint[], $2::bigint[]) AS s (partner_id, sanction_id)
      WHERE l.partner_id = s.partner_id AND l.enabled`,
    [[...sanctions.keys()], [...sanctions.values()]],
  );
  linksChanged();
  return rowCount ?? 0;
}

/**
 * Rejects the partners' pending and held commissions under their sanction: each row keeps the
 * stage it had and the sanction's id; the ledger takes what each still owed out of pending.
 */
export async function rejectCommissionsUnder(client: PoolClient, sanctions: Map<number, number>, reason: string): Promise<number> {
  if (sanctions.size === 0) return 0;
  const { rowCount } = await client.query(
    `WITH changed AS (
       UPDATE commissions c SET stage_before_sanction = c.stage, stage = 'rejected', rejected_by_sanction_id = s.sanction_id, updated_at = now()
         FROM unnest($1::bigint[], $2::bigint[]) AS s (partner_id, sanction_id)
        WHERE c.partner_id = s.partner_id AND c.stage IN ('pending', 'held') AND c.moved_to_sale_id IS NULL
        RETURNING c.id, c.program_id, c.partner_id, c.currency, c.amount_cents - c.deducted_cents AS net)
     INSERT INTO commission_ledger (program_id, partner_id, commission_id, currency, kind, pending_cents, reason)
     SELECT program_id, partner_id, id, currency, 'rejected', -net, $3 FROM changed`,
    [[...sanctions.keys()], [...sanctions.values()], reason],
  );
  return rowCount ?? 0;
}

/** The partners' payouts not yet paid (pending: a Stripe transfer in flight is left to finish). */
export async function openPayoutsOf(client: PoolClient, programId: number, partnerIds: number[]): Promise<{ id: number; partnerId: number }[]> {
  const { rows } = await client.query(
    "SELECT id, partner_id FROM payouts WHERE program_id = $1 AND partner_id = ANY ($2::bigint[]) AND status = 'pending' ORDER BY id",
    [programId, partnerIds],
  );
  return rows.map((r) => ({ id: Number(r.id), partnerId: Number(r.partner_id) }));
}

export async function stampPayoutCanceled(client: PoolClient, payoutId: number, sanctionId: number): Promise<void> {
  await client.query('UPDATE payouts SET canceled_by_sanction_id = $2 WHERE id = $1', [payoutId, sanctionId]);
}

/**
 * Lifts sanctions: exactly the rows each stamped come back. Links it turned off are on again;
 * commissions it rejected (and nobody changed since) return to the stage they had, owed their
 * net as it is now (a refund meanwhile counted). Returns how many of each came back.
 */
export async function liftSanctions(client: PoolClient, sanctionIds: number[], reason: string | null, at: Date): Promise<{ links: number; commissions: number }> {
  if (sanctionIds.length === 0) return { links: 0, commissions: 0 };
  const links = await client.query(
    'UPDATE referral_links SET enabled = true, disabled_by_sanction_id = NULL, updated_at = now() WHERE disabled_by_sanction_id = ANY ($1::bigint[])',
    [sanctionIds],
  );
  linksChanged();
  const commissions = await client.query(
    `WITH restored AS (
       UPDATE commissions SET stage = stage_before_sanction, stage_before_sanction = NULL, rejected_by_sanction_id = NULL, updated_at = now()
        WHERE rejected_by_sanction_id = ANY ($1::bigint[]) AND stage = 'rejected'
        RETURNING id, program_id, partner_id, currency, amount_cents - deducted_cents AS net)
     INSERT INTO commission_ledger (program_id, partner_id, commission_id, currency, kind, pending_cents, reason)
     SELECT program_id, partner_id, id, currency, 'reinstated', net, $2 FROM restored`,
    [sanctionIds, reason ?? 'sanction lifted'],
  );
  await client.query('UPDATE partner_sanctions SET lifted_at = $2, lift_reason = $3 WHERE id = ANY ($1::bigint[])', [sanctionIds, at, reason]);
  return { links: links.rowCount ?? 0, commissions: commissions.rowCount ?? 0 };
}

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

// ---- one partner's page ------------------------------------------------------------------------

/** What the partner page shows besides the profile: links, funnel, money, payouts, sanctions, applications. */
export async function partnerDetails(db: Queryable, programId: number, partnerId: number) {
  const [links, funnel, commissions, payouts, sanctions, applications] = await Promise.all([
    db.query('SELECT id, short_link, enabled, disabled_by_sanction_id, created_at FROM referral_links WHERE program_id = $1 AND partner_id = $2 ORDER BY id', [programId, partnerId]),
    // All time, from the rollups (migration 0028): people who became leads, people who bought.
    db.query(
      `SELECT coalesce(sum(value) FILTER (WHERE measure = 'clicks'), 0)::int AS clicks, coalesce(sum(value) FILTER (WHERE measure = 'leads'), 0)::int AS leads,
              coalesce(sum(value) FILTER (WHERE measure = 'buyers'), 0)::int AS buyers
         FROM page_rollups WHERE program_id = $1 AND partner_id = $2 AND day = 'infinity' AND measure IN ('clicks', 'leads', 'buyers')`,
      [programId, partnerId],
    ),
    db.query(
      `SELECT cs.id, cs.sale_id, s.processor_event_id AS transaction_id, cs.currency, cs.amount_cents, cs.earned_cents, cs.state, cs.created_at, c.terms, c.reward_words
         FROM commission_states cs JOIN commissions c ON c.id = cs.id JOIN sales s ON s.id = cs.sale_id
        WHERE cs.program_id = $1 AND cs.partner_id = $2 ORDER BY cs.id DESC LIMIT 50`,
      [programId, partnerId],
    ),
    db.query('SELECT id, currency, amount_cents, status, reference, paid_at, created_at FROM payouts WHERE program_id = $1 AND partner_id = $2 ORDER BY id DESC LIMIT 50', [programId, partnerId]),
    db.query('SELECT id, kind, reason, status_before, created_at, lifted_at, lift_reason FROM partner_sanctions WHERE program_id = $1 AND partner_id = $2 ORDER BY id DESC', [programId, partnerId]),
    db.query(
      `SELECT id, status, answers, terms_version, terms_accepted_at, host(terms_ip) AS terms_ip, reason, reapply, decided_at, created_at
         FROM partner_applications WHERE program_id = $1 AND partner_id = $2 ORDER BY id DESC`,
      [programId, partnerId],
    ),
  ]);
  return {
    links: links.rows,
    funnel: funnel.rows[0] as { clicks: number; leads: number; buyers: number },
    commissions: commissions.rows.map((r) => ({ ...r, amount_cents: Number(r.amount_cents), earned_cents: Number(r.earned_cents) })),
    payouts: payouts.rows.map((r) => ({ ...r, amount_cents: Number(r.amount_cents) })),
    sanctions: sanctions.rows,
    applications: applications.rows,
  };
}

/** Other enrollments of the same person in the account's programs (the partner page lists them). */
export async function otherEnrollments(db: Queryable, programId: number, partnerId: number) {
  const { rows } = await db.query(
    `SELECT o.id, o.program_id, p.name AS program_name, o.status FROM partners pa JOIN partners o ON o.profile_id = pa.profile_id AND o.id <> pa.id
       JOIN programs p ON p.id = o.program_id WHERE pa.program_id = $1 AND pa.id = $2 ORDER BY o.id`,
    [programId, partnerId],
  );
  return rows as { id: number; program_id: number; program_name: string; status: PartnerStatus }[];
}

// ---- money per currency, from the per-partner rollups ---------------------------------------------

/** A partner's all-time money in one currency (never added across currencies). */
export interface PartnerCurrencyMoney {
  currency: string;
  sales: number;
  revenue_cents: number;
  /** What the commissions earn now, net of refunds (nothing once rejected, reversed or moved; test never). */
  earned_cents: number;
  /** The ledger's balances: awaiting approval, approved and not yet paid (owed), paid. */
  pending_cents: number;
  owed_cents: number;
  paid_cents: number;
  /** Commissions a refund took back whole, and their count by state. */
  reversed: number;
  held_cents: number;
}

/**
 * These partners' money per currency, all time: the rollups' 'infinity' rows of each partner
 * (primary key: program, partner, day), a few rows per link and currency whatever the history.
 */
export async function partnerMoney(db: Queryable, programId: number, partnerIds: number[]): Promise<Map<number, PartnerCurrencyMoney[]>> {
  const out = new Map<number, PartnerCurrencyMoney[]>();
  if (partnerIds.length === 0) return out;
  const { rows } = await db.query(
    `SELECT partner_id, currency,
            coalesce(sum(value) FILTER (WHERE measure = 'sales'), 0)::bigint AS sales,
            coalesce(sum(value) FILTER (WHERE measure = 'revenue'), 0)::bigint AS revenue_cents,
            coalesce(sum(value) FILTER (WHERE measure LIKE 'earned:%' AND measure NOT IN ('earned:test', 'earned:moved')), 0)::bigint AS earned_cents,
            coalesce(sum(value) FILTER (WHERE measure = 'earned:held'), 0)::bigint AS held_cents,
            coalesce(sum(value) FILTER (WHERE measure = 'ledger_pending'), 0)::bigint AS pending_cents,
            coalesce(sum(value) FILTER (WHERE measure = 'ledger_approved'), 0)::bigint AS owed_cents,
            coalesce(sum(value) FILTER (WHERE measure = 'ledger_paid'), 0)::bigint AS paid_cents,
            coalesce(sum(value) FILTER (WHERE measure = 'commissions:reversed'), 0)::bigint AS reversed
       FROM page_rollups
      WHERE program_id = $1 AND partner_id = ANY ($2::bigint[]) AND day = 'infinity' AND currency <> ''
        AND (measure IN ('sales', 'revenue', 'ledger_pending', 'ledger_approved', 'ledger_paid') OR measure LIKE 'earned:%' OR measure = 'commissions:reversed')
      GROUP BY 1, 2 ORDER BY 1, 2`,
    [programId, partnerIds],
  );
  for (const r of rows) {
    const money: PartnerCurrencyMoney = {
      currency: r.currency,
      sales: Number(r.sales),
      revenue_cents: Number(r.revenue_cents),
      earned_cents: Number(r.earned_cents),
      pending_cents: Number(r.pending_cents),
      owed_cents: Number(r.owed_cents),
      paid_cents: Number(r.paid_cents),
      reversed: Number(r.reversed),
      held_cents: Number(r.held_cents),
    };
    // A currency whose every number came back to zero says nothing.
    if (Object.values(money).every((v) => v === 0 || typeof v === 'string')) continue;
    const list = out.get(Number(r.partner_id)) ?? [];
    list.push(money);
    out.set(Number(r.partner_id), list);
  }
  return out;
}

/** The currencies the program has sold in (its whole-program rows), so money columns can sort by each. */
export async function programCurrencies(db: Queryable, programId: number): Promise<string[]> {
  const { rows } = await db.query(
    `SELECT DISTINCT currency FROM page_rollups WHERE program_id = $1 AND partner_id = -1 AND measure = 'revenue' AND currency <> '' ORDER BY currency`,
    [programId],
  );
  return rows.map((r) => r.currency as string);
}

/** One partner's links with their all-time clicks, leads and sales (the rollups' per-link rows). */
export async function partnerLinkNumbers(db: Queryable, programId: number, partnerId: number) {
  const { rows } = await db.query(
    `SELECT l.id, l.short_link, l.enabled, l.disabled_by_sanction_id, l.created_at,
            coalesce(t.clicks, 0)::int AS clicks, coalesce(t.leads, 0)::int AS leads, coalesce(t.sales, 0)::int AS sales
       FROM referral_links l
       LEFT JOIN (SELECT link_id, sum(value) FILTER (WHERE measure = 'clicks') AS clicks, sum(value) FILTER (WHERE measure = 'leads') AS leads,
                         sum(value) FILTER (WHERE measure = 'sales') AS sales
                    FROM page_rollups WHERE program_id = $1 AND partner_id = $2 AND day = 'infinity' AND measure IN ('clicks', 'leads', 'sales')
                   GROUP BY link_id) t ON t.link_id = l.id
      WHERE l.program_id = $1 AND l.partner_id = $2 ORDER BY l.id`,
    [programId, partnerId],
  );
  return rows.map((r) => ({
    id: Number(r.id), short_link: r.short_link as string, enabled: r.enabled as boolean, disabled_by_sanction_id: r.disabled_by_sanction_id === null ? null : Number(r.disabled_by_sanction_id),
    created_at: r.created_at as Date, clicks: r.clicks as number, leads: r.leads as number, sales: r.sales as number,
  }));
}
