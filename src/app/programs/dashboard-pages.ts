// What the dashboard reads and the sign-in rules it shares with the CLI sign-in page. Pages
// call these; none of them touches SQL itself.
import { COMMISSION_STATES } from '../../core/commission-ledger.js';
import { csvField } from '../../core/csv.js';
import * as payoutsDb from '../../db/money/commissions-and-payouts.js';
import { providerPanel } from '../money/payout-providers.js';
import * as promoCodesDb from '../../db/partners/promo-codes.js';
import * as endpointsDb from '../../db/outbound/webhook-endpoints.js';
import { callbackVerdict } from '../../core/cli-login.js';
import { errors } from '../../core/errors.js';
import { previousPeriod } from '../../core/periods.js';
import { computeReadiness } from '../../core/readiness.js';
import type { Store } from '../../core/ports.js';
import * as admin from '../../db/programs/programs-links-keys.js';
import { consumeSession, createLoginSession, findAccountForLogin, findOrCreateAccount, withLoginSession } from '../../db/accounts/cli-logins.js';
import { type ActivityFilter, activity, activityPages, inboxForProgram, partnersWithLinks, stripeLiveCheck } from '../../db/reads/program-activity.js';
import { endDashboardSession } from '../../db/accounts/dashboard-sessions.js';
import { dailyCounts, funnelCounts, moneyTotals, partnerTotals } from '../../db/reads/page-rollups.js';
import { RANKINGS, rankPartners } from '../../core/measures.js';
import { discountsPageData } from '../partners/discounts.js';
import { processorStatus } from '../inbox/processor-settings.js';
import { PROCESSORS } from '../../core/processor-names.js';
import type { Pool } from '../../db/infra/pool.js';
import { membersForLogin } from '../../db/accounts/members.js';
import { verifyPassword } from '../../platform/passwords.js';
import { AffixError } from '../../core/errors.js';
import * as applicationsDb from '../../db/partners/applications.js';
import * as groupsDb from '../../db/partners/groups.js';
import * as applications from '../partners/applications.js';
import { brandPageData } from './brand.js';
import { type ManagementDeps } from './management.js';
import { OPERATOR, type Scope, programInScope } from '../accounts/scope.js';
import * as partnerEnrollments from '../partners/enrollments.js';
import * as partnerList from '../partners/list.js';
import * as payoutRuns from '../money/payout-runs.js';
import { heldForTaxDetails } from '../money/tax-details.js';
import { auditLog } from '../accounts/audit-log.js';
import { readSide, staleFigures } from '../reads/read-side.js';

export type PasswordVerdict = { kind: 'signed_in'; accountId: number; email: string; memberId: number | null } | { kind: 'wrong' } | { kind: 'suspended' };

/**
 * One rule for every password form: the same answer for an unknown email and a wrong password.
 * The account's own sign-in first (its owner), then the team members with this email.
 */
export async function checkPassword(pool: Pool, email: string, password: string): Promise<PasswordVerdict> {
  const account = await findAccountForLogin(pool, email);
  if (account && (await verifyPassword(password, account.password_hash ?? null))) {
    return account.suspended ? { kind: 'suspended' } : { kind: 'signed_in', accountId: account.id, email: account.email, memberId: null };
  }
  for (const member of await membersForLogin(pool, email)) {
    if (await verifyPassword(password, member.passwordHash)) {
      return member.suspended ? { kind: 'suspended' } : { kind: 'signed_in', accountId: member.accountId, email: member.email, memberId: member.id };
    }
  }
  if (!account) await verifyPassword(password, null); // the same work for an unknown address
  return { kind: 'wrong' };
}

/** A single sign-on attempt: a one-time login session for `state`, valid `ttlMs`. */
export async function startSingleSignOn(pool: Pool, state: string, expiresAt: Date): Promise<void> {
  await createLoginSession(pool, state, expiresAt);
}

/** The issuer came back with verified claims: consume the state once, find or create the account. */
export async function finishSingleSignOn(pool: Pool, state: string, claims: { email: string; name: string | null }, now: Date) {
  return withLoginSession(pool, state, async (session, client) => {
    if (callbackVerdict(session, now) !== 'accept') return null;
    await consumeSession(client, session!.id);
    return findOrCreateAccount(client, claims.email, claims.name);
  });
}

export const endBrowserSession = (pool: Pool, token: string) => endDashboardSession(pool, token);
export const accountPrograms = (pool: Pool, accountId: number) => admin.listPrograms(pool, accountId);
export const ACTIVITY_PAGE_SIZE = 50;
const CSV_MAX_ROWS = 100_000;
/** The overview's leaderboard: the period's top partners. */
const LEADERBOARD_SIZE = 10;

/** The program's pages, each a URL of its own (`overview` is the program's own URL). */
export const PROGRAM_SECTIONS = ['overview', 'setup', 'partners', 'applications', 'groups', 'discounts', 'links', 'activity', 'payouts', 'stripe', 'paddle', 'lemonsqueezy', 'inbox', 'webhooks', 'keys', 'audit', 'settings', 'brand'] as const;
export type ProgramSection = (typeof PROGRAM_SECTIONS)[number];
export const isProgramSection = (value: string): value is ProgramSection => (PROGRAM_SECTIONS as readonly string[]).includes(value);

type PageDeps = ManagementDeps & { store: Store; publicUrl: string };
/** The page's query string (filters, sort, cursor, stage). */
export type PageQuery = Record<string, string | undefined>;

const DAY_MS = 86_400_000;
const dayOf = (value: string | undefined): Date | undefined => (value && /^\d{4}-\d{2}-\d{2}$/.test(value) && !Number.isNaN(Date.parse(value)) ? new Date(`${value}T00:00:00Z`) : undefined);

/** The commissions table's filter from the page's query: a partner, and days (from and to, both whole UTC days); a malformed one is ignored. */
export function commissionPageFilter(query: PageQuery): { partner_id?: number; from?: Date; to?: Date } {
  const partner = Number(query.partner);
  const to = dayOf(query.to);
  return {
    ...(query.partner && Number.isSafeInteger(partner) && partner > 0 ? { partner_id: partner } : {}),
    ...(dayOf(query.from) ? { from: dayOf(query.from) } : {}),
    ...(to ? { to: new Date(to.getTime() + DAY_MS) } : {}),
  };
}

/** What each page reads, and nothing more; `page` (from 1) pages the activity table. */
const SECTION_DATA = {
  overview: async (deps: PageDeps, id: number, filter: ActivityFilter, _page: number, query: PageQuery) => {
    // The cards compare with as many days just before.
    const before = { ...filter, ...previousPeriod(filter) };
    const [partners, series, facts, kpis, funnel, kpisBefore, funnelBefore, totals] = await Promise.all([
      partnersWithLinks(deps.pool, id),
      dailyCounts(deps.pool, id, filter),
      deps.store.readinessFacts(id, deps.now()),
      moneyTotals(deps.pool, id, filter),
      funnelCounts(deps.pool, id, filter),
      moneyTotals(deps.pool, id, before),
      funnelCounts(deps.pool, id, before),
      partnerTotals(deps.pool, id, filter),
    ]);
    // Money ranks in the period's currency with the most sales (never added across currencies).
    const rankCurrency = [...kpis].sort((a, b) => b.sales - a.sales || a.currency.localeCompare(b.currency))[0]?.currency ?? null;
    const rank = RANKINGS.find((r) => r === query.rank) ?? 'revenue';
    const names = new Map(partners.map((p) => [Number(p.partner_id), p.name]));
    const leaders = rankPartners(totals.filter((t) => filter.partnerId === null || t.partnerId === filter.partnerId), rank, rankCurrency)
      .slice(0, LEADERBOARD_SIZE)
      .map((t) => ({ ...t, name: names.get(t.partnerId) ?? `Partner ${t.partnerId}` }));
    return { partners, series, readiness: computeReadiness(id, facts), kpis, funnel, before: { kpis: kpisBefore, funnel: funnelBefore }, leaderboard: { leaders, rank, rankCurrency } };
  },
  setup: async (deps: PageDeps, id: number) => {
    const [facts, stripe] = await Promise.all([deps.store.readinessFacts(id, deps.now()), stripeLiveCheck(deps.pool, id)]);
    return { readiness: computeReadiness(id, facts), stripe };
  },
  partners: async (deps: PageDeps, id: number, _filter: ActivityFilter, _page: number, query: PageQuery, scope: Scope) => {
    // A query the list refuses (an old cursor, a bad sort) shows the first page with the message.
    // The caller's scope, not the operator's: its role decides what the search may match.
    // Money sorts by a currency the program sells in (USD first when it does), unless the page chose one.
    const currencies = await partnerEnrollments.soldCurrencies(deps, scope, id);
    const currency = query.currency || (currencies.length === 0 || currencies.includes('USD') ? undefined : currencies[0]);
    const list = await partnerList.listPartners(deps, scope, id, { ...query, currency }).catch((error: unknown) => {
      if (!(error instanceof AffixError) || error.status !== 400) throw error;
      return partnerList.listPartners(deps, scope, id, {}).then((first) => ({ ...first, refused: error.message }));
    });
    const [groups, money] = await Promise.all([groupsDb.listGroups(deps.pool, id), partnerEnrollments.partnersMoney(deps, scope, id, list.partners.map((p) => p.id))]);
    return { list, groups, query, money, currencies };
  },
  applications: async (deps: PageDeps, id: number, _filter: ActivityFilter, _page: number, query: PageQuery) => {
    const [list, settings, groups] = await Promise.all([
      applications.listApplications(deps, OPERATOR, id, { status: query.status ?? 'pending', after: query.after }),
      applicationsDb.applicationSettings(deps.pool, id),
      groupsDb.listGroups(deps.pool, id),
    ]);
    return { list, settings, groups, status: query.status ?? 'pending' };
  },
  groups: async (deps: PageDeps, id: number) => ({ groups: await groupsDb.listGroups(deps.pool, id) }),
  links: async (deps: PageDeps, id: number) => {
    const [partners, promoCodes] = await Promise.all([partnersWithLinks(deps.pool, id), promoCodesDb.listPromoCodes(deps.pool, id)]);
    return { partners, promoCodes };
  },
  activity: async (deps: PageDeps, id: number, filter: ActivityFilter, page: number) => {
    const [partners, events] = await Promise.all([
      partnersWithLinks(deps.pool, id),
      activity(deps.pool, id, filter, { limit: ACTIVITY_PAGE_SIZE + 1, offset: (page - 1) * ACTIVITY_PAGE_SIZE }),
    ]);
    return { partners, events: events.slice(0, ACTIVITY_PAGE_SIZE), activityPage: { page, hasOlder: events.length > ACTIVITY_PAGE_SIZE } };
  },
  payouts: async (deps: PageDeps, id: number, _filter: ActivityFilter, page: number, query: PageQuery) => {
    const stage = COMMISSION_STATES.find((s) => s === query.stage) ?? 'pending';
    const commissionFilter = commissionPageFilter(query);
    const now = deps.now();
    const batchId = Number(query.batch);
    const [balances, commissions, payoutRows, settings, approval, runBatch, missingTaxDetails] = await Promise.all([
      payoutsDb.partnerBalances(deps.pool, id),
      payoutsDb.listCommissions(deps.pool, id, { state: stage, ...commissionFilter, limit: 50, offset: (page - 1) * 50 }),
      payoutsDb.listPayouts(deps.pool, id, { limit: 100 }),
      payoutsDb.payoutSettings(deps.pool, id),
      // What "approve everything past its hold" would approve (the filter's partner and dates).
      payoutsDb.approvalSums(deps.pool, id, commissionFilter, now),
      query.done === 'payout_run' && Number.isSafeInteger(batchId) ? payoutsDb.batchTotals(deps.pool, id, batchId).then((totals) => ({ batchId, totals })) : null,
      heldForTaxDetails(deps, id),
    ]);
    return {
      balances, commissions, stage, payouts: payoutRows, payoutSettings: settings!, commissionFilter, approval, runBatch,
      missingDetails: payoutRuns.partnersMissingDetails(balances), missingTaxDetails,
      providers: await providerPanel(deps, id, payoutRows.map((p) => p.id)),
    };
  },
  webhooks: async (deps: PageDeps, id: number) => {
    const endpoints = await endpointsDb.listEndpoints(deps.pool, id);
    const logs = await Promise.all(endpoints.map((e) => endpointsDb.deliveryLog(deps.pool, id, e.id, 10)));
    return { endpoints: endpoints.map((endpoint, i) => ({ endpoint, deliveries: logs[i]! })) };
  },
  stripe: async (deps: PageDeps, id: number) => ({ stripe: await stripeLiveCheck(deps.pool, id) }),
  paddle: async (deps: PageDeps, id: number) => ({ endpoint: await processorStatus(deps, id, 'paddle') }),
  lemonsqueezy: async (deps: PageDeps, id: number) => ({ endpoint: await processorStatus(deps, id, 'lemonsqueezy') }),
  inbox: async (deps: PageDeps, id: number, _filter: ActivityFilter, _page: number, query: PageQuery) => {
    const processor = PROCESSORS.find((p) => p === query.processor) ?? null;
    return { inbox: await inboxForProgram(deps.pool, id, processor), processor };
  },
  keys: async (deps: PageDeps, id: number) => ({ keys: await admin.listKeys(deps.pool, id) }),
  audit: async (deps: PageDeps, id: number, _filter: ActivityFilter, _page: number, query: PageQuery) => {
    const filter = { actor_type: query.actor_type, object_type: query.object_type, action: query.action, before: query.before };
    // The program's entries and the account's own (its team): what a brand reads here.
    const log = await auditLog(deps, OPERATOR, { ...filter, program_id: id, with_account: true, limit: 100 }).catch((error: unknown) => {
      if (!(error instanceof AffixError) || error.status !== 400) throw error;
      return auditLog(deps, OPERATOR, { program_id: id, with_account: true, limit: 100 });
    });
    return { log, auditFilter: filter };
  },
  discounts: async (deps: PageDeps, id: number) => discountsPageData(deps, id),
  settings: async () => ({}),
  brand: async (deps: PageDeps, id: number) => brandPageData(deps.pool, id),
} satisfies Record<ProgramSection, (deps: PageDeps, id: number, filter: ActivityFilter, page: number, query: PageQuery, scope: Scope) => Promise<object>>;

export type SectionData = { [S in ProgramSection]: { section: S } & Awaited<ReturnType<(typeof SECTION_DATA)[S]>> }[ProgramSection];

/**
 * One page of a program, after checking (on the primary) the caller may see the program. Its
 * data come from the replica when there is one, unless the page shows the caller's own write
 * (`afterOwnWrite`: the page a form redirects to); `behindSeconds` says how far they may lag.
 */
export async function programPageData(deps: PageDeps, scope: Scope, programId: number, section: ProgramSection, filter: ActivityFilter, page = 1, query: PageQuery = {}, afterOwnWrite = false) {
  const program = await programInScope(deps, scope, programId);
  const read = readSide(deps, afterOwnWrite);
  const [data, behindSeconds] = await Promise.all([SECTION_DATA[section](read, program.id, filter, page, query, scope), staleFigures(deps, read)]);
  return { program, data: { section, ...data } as SectionData, behindSeconds };
}

// occurred_at: the event's own time, the page's (a sale's when it happened); recorded_at: when Affix recorded it.
const CSV_COLUMNS = [
  'occurred_at', 'kind', 'test', 'customer_key', 'partner_id', 'transaction_id', 'amount_cents', 'currency',
  'attribution_step', 'commission_cents', 'commission_state', 'commission_reason', 'refunds', 'recorded_at',
] as const;

/** The activity table as CSV (the same rows and filter as the page), a chunk per page of 1,000 as it is read. */
export async function* activityCsv(deps: ManagementDeps, scope: Scope, programId: number, filter: ActivityFilter): AsyncGenerator<string> {
  const program = await programInScope(deps, scope, programId);
  yield `${CSV_COLUMNS.join(',')}\r\n`;
  for await (const rows of activityPages(readSide(deps).pool, program.id, filter, CSV_MAX_ROWS)) {
    yield rows.map((row: Record<string, unknown>) => `${CSV_COLUMNS.map((column) => csvField(row[column])).join(',')}\r\n`).join('');
  }
}
