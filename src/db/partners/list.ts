// The partner list of a program: filtered, sorted and paged reads, the ids a bulk action
// matches, and the export's pages. Every read is scoped by program.
import type { PartnerStatus } from '../../core/partners.js';
import type { Pool, PoolClient } from '../infra/pool.js';

type Queryable = Pool | PoolClient;

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
