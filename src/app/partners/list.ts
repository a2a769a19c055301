// The partner list of a program (search, filters, sort, keyset pages) and the CSV exports of
// partners and of applications, a chunk per page as it is read.
import { readSide } from '../reads/read-side.js';
import { z } from 'zod';
import { csvField } from '../../core/csv.js';
import { errors } from '../../core/errors.js';
import { PARTNER_STATUSES, type PartnerStatus } from '../../core/partners.js';
import * as applications from '../../db/partners/applications.js';
import * as partnerListDb from '../../db/partners/list.js';
import { CURRENCY_CODE } from '../money/payout-settings.js';
import { type ManagementDeps, parseInput } from '../programs/management.js';
import { type Scope, programInScope, roleOf } from '../accounts/scope.js';
import { searchMatchesPeople } from '../../core/permissions.js';

// ---- the list ----------------------------------------------------------------------------------

export const listQuery = z.object({
  q: z.string().trim().max(320).optional(),
  status: z.enum(PARTNER_STATUSES, { error: `status must be one of: ${PARTNER_STATUSES.join(', ')}.` }).optional().or(z.literal('').transform(() => undefined)),
  group_id: z.coerce.number().int().positive().optional().or(z.literal('').transform(() => undefined)),
  tag: z.string().trim().max(40).optional(),
  sort: z.enum(partnerListDb.PARTNER_SORTS, { error: `sort must be one of: ${partnerListDb.PARTNER_SORTS.join(', ')}.` }).optional().or(z.literal('').transform(() => undefined)),
  direction: z.enum(['asc', 'desc']).optional().or(z.literal('').transform(() => undefined)),
  currency: z.literal('').transform(() => undefined).or(CURRENCY_CODE).optional(),
  after: z.string().max(300).optional(),
  limit: z.coerce.number().int().min(1).max(500).optional(),
});

/** A list's, export's or bulk action's filter, searched as the caller's role may (searchMatchesPeople). */
export function partnerFilter(scope: Scope, f: { q?: string; status?: PartnerStatus; group_id?: number; tag?: string } | undefined): partnerListDb.PartnerFilter {
  return { q: f?.q || null, matchesPeople: searchMatchesPeople(roleOf(scope)), status: f?.status ?? null, groupId: f?.group_id ?? null, tag: f?.tag || null };
}

const cursorOf = (value: unknown, id: number) => Buffer.from(JSON.stringify([value instanceof Date ? value.toISOString() : value, id])).toString('base64url');

function readCursor(cursor: string | undefined): [string | number, number] | null {
  if (!cursor) return null;
  try {
    const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(parsed) && parsed.length === 2 && ['string', 'number'].includes(typeof parsed[0]) && Number.isSafeInteger(parsed[1])) return parsed as [string | number, number];
  } catch {
    // fall through
  }
  throw errors.invalid('after must be the next_cursor of a previous page', { after: 'This page link is out of date; start from the first page.' });
}

/** One page of partners: search, filters, sort by a number, keyset pagination (`next_cursor`). */
export async function listPartners(deps: ManagementDeps, scope: Scope, programId: number, query: unknown) {
  await programInScope(deps, scope, programId);
  const q = parseInput(listQuery, query);
  const sort = q.sort ?? 'created';
  const limit = q.limit ?? 50;
  const filter = partnerFilter(scope, q);
  const rows = await partnerListDb.listPartners(deps.pool, programId, filter, {
    sort,
    direction: q.direction ?? (sort === 'name' ? 'asc' : 'desc'),
    currency: q.currency ?? 'USD',
    after: readCursor(q.after),
    limit: limit + 1,
  });
  const page = rows.slice(0, limit);
  const last = page[page.length - 1] as (partnerListDb.PartnerListRow & { sort_value: unknown }) | undefined;
  return {
    partners: page.map(({ sort_value: _s, ...row }: any) => row as partnerListDb.PartnerListRow),
    next_cursor: rows.length > limit && last ? cursorOf(last.sort_value, last.id) : null,
    filter: { q: filter.q, status: filter.status, groupId: filter.groupId, tag: filter.tag, sort, currency: q.currency ?? 'USD' },
  };
}

/**
 * The partners a filter matches as CSV (formula-safe, every row): the header, then a chunk per
 * page of 1,000 as it is read. The caller's scope and the filter are checked before the first
 * chunk, so a refusal is an ordinary error response.
 */
export async function* exportPartnersCsv(deps: ManagementDeps, scope: Scope, programId: number, query: unknown): AsyncGenerator<string> {
  await programInScope(deps, scope, programId);
  const q = parseInput(listQuery, query);
  const filter = partnerFilter(scope, q);
  yield `${['partner_id', 'name', 'email', 'status', 'group', 'tags', 'referral_codes', 'created_at'].join(',')}\r\n`;
  for await (const rows of partnerListDb.partnerExportPages(readSide(deps).pool, programId, filter)) {
    yield rows.map((r) => `${[r.id, r.name, r.email, r.status, r.group_slug, r.tags.join(';'), r.codes, r.created_at].map(csvField).join(',')}\r\n`).join('');
  }
}

/** CSV of the program's applications with their answers and stored terms acceptance, a chunk per page of 1,000 as it is read. */
export async function* exportApplicationsCsv(deps: ManagementDeps, scope: Scope, programId: number): AsyncGenerator<string> {
  await programInScope(deps, scope, programId);
  yield `${['application_id', 'partner_id', 'name', 'email', 'status', 'group', 'answers', 'terms_version', 'terms_accepted_at', 'terms_ip', 'reason', 'auto_decided', 'created_at'].join(',')}\r\n`;
  for (let after = 0; ; ) {
    const rows = await applications.listApplications(readSide(deps).pool, programId, { afterId: after, limit: 1000 });
    yield rows
      .map((r) => `${[r.id, r.partner_id, r.name, r.email, r.status, r.group_name, JSON.stringify(r.answers), r.terms_version, r.terms_accepted_at, r.terms_ip, r.reason, r.auto_decided, r.created_at].map(csvField).join(',')}\r\n`)
      .join('');
    if (rows.length < 1000) return;
    after = rows[rows.length - 1]!.id;
  }
}
