// The signed-in partner's referrals (issue 44): their customers, the sales and commissions those
// made with the day each can be paid, clicks per day and per sub-ID, and the same as CSV. Every
// read goes through ownPartner: another partner's or program's id is the same 404 as none.
import { COMMISSIONS_CSV_HEADER, REFERRALS_CSV_HEADER, SUB_IDS_CSV_HEADER, commissionCsvLine, referralCsvLines, subIdCsvLine } from '../../core/referrals.js';
import { dailyCounts } from '../../db/reads/page-rollups.js';
import * as referrals from '../../db/partners/referrals.js';
import type { ManagementDeps } from '../programs/management.js';
import { type PortalReadDeps, ownPartner } from './portal.js';

/** Rows per page of the lists; per statement of the CSV. */
export const REFERRALS_PAGE = 50;
const CSV_PAGE = 500;
/** Daily clicks: the last 30 days; sub-IDs: their clicks of the last 90 days, the 100 most clicked. */
const DAILY_DAYS = 30;
const SUB_ID_DAYS = 90;
const SUB_ID_ROWS = 100;

/** A page cursor from the query string: a positive id, or null (the first page). */
const cursor = (value: unknown): number | null => {
  const id = Number(value);
  return Number.isSafeInteger(id) && id > 0 ? id : null;
};

export async function portalReferrals(deps: PortalReadDeps, email: string, partnerId: number, query: { customers_before?: unknown; commissions_before?: unknown }) {
  const partner = await ownPartner(deps, email, partnerId);
  const now = deps.now();
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const [customers, commissions, daily, subIds, label] = await Promise.all([
    referrals.referredCustomers(deps.pool, partner.partnerId, { beforeId: cursor(query.customers_before), limit: REFERRALS_PAGE + 1 }),
    referrals.partnerCommissions(deps.pool, partner.partnerId, { beforeId: cursor(query.commissions_before), limit: REFERRALS_PAGE + 1 }),
    dailyCounts(deps.pool, partner.programId, { from: new Date(today - (DAILY_DAYS - 1) * 86_400_000), to: new Date(today + 86_400_000), partnerId: partner.partnerId }),
    referrals.subIdNumbers(deps.pool, partner.partnerId, new Date(today - SUB_ID_DAYS * 86_400_000), SUB_ID_ROWS),
    referrals.customerLabelOf(deps.pool, partner.programId),
  ]);
  const page = <T extends { id: number }>(rows: T[]) => ({ rows: rows.slice(0, REFERRALS_PAGE), next: rows.length > REFERRALS_PAGE ? rows[REFERRALS_PAGE - 1]!.id : null });
  return {
    partner,
    /** What the brand lets the partner see of each customer (core/referrals.ts customerShown). */
    label,
    customers: page(customers),
    commissions: page(commissions),
    daily,
    subIds: { since: new Date(today - SUB_ID_DAYS * 86_400_000), rows: subIds },
    firstPage: cursor(query.customers_before) === null && cursor(query.commissions_before) === null,
  };
}

/** referrals.csv: a line per customer and currency, newest customer first, read a page at a time. */
export async function* referralsCsv(deps: PortalReadDeps, email: string, partnerId: number): AsyncGenerator<string> {
  const partner = await ownPartner(deps, email, partnerId);
  const label = await referrals.customerLabelOf(deps.pool, partner.programId);
  yield REFERRALS_CSV_HEADER;
  for (let beforeId: number | null = null; ; ) {
    const rows = await referrals.referredCustomers(deps.pool, partner.partnerId, { beforeId, limit: CSV_PAGE });
    if (rows.length) yield rows.map((row) => referralCsvLines(row, label)).join('');
    if (rows.length < CSV_PAGE) return;
    beforeId = rows[rows.length - 1]!.id;
  }
}

/** commissions.csv: a line per commission with its sale, state and the day it can be paid. */
export async function* commissionsCsv(deps: PortalReadDeps, email: string, partnerId: number): AsyncGenerator<string> {
  const partner = await ownPartner(deps, email, partnerId);
  const label = await referrals.customerLabelOf(deps.pool, partner.programId);
  yield COMMISSIONS_CSV_HEADER;
  for (let beforeId: number | null = null; ; ) {
    const rows = await referrals.partnerCommissions(deps.pool, partner.partnerId, { beforeId, limit: CSV_PAGE });
    if (rows.length) yield rows.map((row) => commissionCsvLine(row, label)).join('');
    if (rows.length < CSV_PAGE) return;
    beforeId = rows[rows.length - 1]!.id;
  }
}

/** sub-ids.csv: the sub-ID table of the page, every sub-ID of the same 90 days (at most 10,000, most clicked first). */
export async function* subIdsCsv(deps: PortalReadDeps, email: string, partnerId: number): AsyncGenerator<string> {
  const partner = await ownPartner(deps, email, partnerId);
  yield SUB_IDS_CSV_HEADER;
  const now = deps.now();
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const rows = await referrals.subIdNumbers(deps.pool, partner.partnerId, new Date(today - SUB_ID_DAYS * 86_400_000), 10_000);
  if (rows.length) yield rows.map(subIdCsvLine).join('');
}
