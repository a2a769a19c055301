// The program's pages (overview, partners, links, activity, Stripe, inbox, keys, settings; payouts and webhooks in money-pages.ts),
// rendered from what src/app/dashboard gathered. No data access here.
import { COMMISSION_STATE_WORDS, type CommissionState } from '../../core/commission-ledger.js';
import { formatMoney } from '../../core/money.js';
import { COMMISSION_TYPE_WORDS, LEAD_AUTH_WORDS, referralUrl } from '../../core/programs.js';
import { COMMISSION_TYPES, type Currency, LEAD_AUTH_VALUES } from '../../core/types.js';
import { PROGRAM_SECTIONS, type ProgramSection, type SectionData, type programPageData } from '../../app/programs/dashboard-pages.js';
import type { ActivityFilter } from '../../db/reads/program-activity.js';
import { discountsSection } from './discounts-page.js';
import { dailyChart, funnelChart } from '../kit/charts.js';
import { type PartnerPagesView, applicationsSection, groupsSection, partnersSection } from './partner-pages.js';
import { auditSection } from './audit-page.js';
import { brandSection } from './brand-page.js';
import type { QuestionRow } from '../../core/application-form.js';
import { type HoldQuestion, type MoneyView, payoutsSection, promoCodesSection, webhooksSection } from './money-pages.js';
import { type Html, errorSummary, field, html, select } from '../kit/html.js';
import { dataTable, idCell, linkText } from '../kit/table.js';
import { processorSection } from './processor-page.js';
import { PROCESSORS, PROCESSOR_NAMES, type ProcessorName } from '../../core/processor-names.js';
import { kpiCards, presetLinks } from './kpi-cards.js';
import { MEASURE_WORDS, RANKINGS, type Ranking } from '../../core/measures.js';
import { readinessSummary, setupSection } from './setup-page.js';
import type { TestEventOutcome } from '../../app/programs/setup-tests.js';
import { humanDate, isoDay as day } from '../kit/components.js';

const DAY = 86_400_000;

/** Long Stripe ids fit a narrow column: the start and the end, the whole id in the title and the copy button. */

/** Dates as people read them: 31 Jan 2099 (UTC, like every time the service stores). */



export interface PageExtra {
  status?: number;
  settingsValues?: Record<string, unknown>;
  settingsErrors?: Record<string, string>;
  newKey?: string | null;
  error?: string | null;
  fieldErrors?: Record<string, string>;
  newSecret?: { endpointId: number; secret: string } | null;
  /** What a refused form held, to show it again. */
  formValues?: Record<string, string>;
  /** What a test event from the set-up page recorded. */
  testOutcome?: TestEventOutcome | null;
  /** A bulk approval that would override holds, asked before it is done (the Payouts page). */
  holdQuestion?: HoldQuestion | null;
  /** The form editor's rows as a refused post left them. */
  questionRows?: QuestionRow[];
}

export type ProgramPageView = Awaited<ReturnType<typeof programPageData>> & {
  now: Date;
  /** The signed-in role may see partners' emails and payout details. */
  people: boolean;
  heldKey: string | null;
  extra: PageExtra;
  filter: ActivityFilter;
  publicUrl: string;
  connectConfigured: boolean;
  /** STRIPE_SECRET_KEY is set: payouts may be paid as Stripe transfers. */
  stripeTransfers: boolean;
};

export function programForm(values: Record<string, unknown>, fieldErrs: Record<string, string>, action: string, submit: string): Html {
    const v = (name: string, fallback = '') => (values[name] === undefined || values[name] === null ? fallback : Array.isArray(values[name]) ? (values[name] as string[]).join(', ') : String(values[name]));
    return html`<form method="post" action="${action}" novalidate>
${field('name', 'Name', v('name'), fieldErrs, 'required class="medium"')}
${field('domain', 'Domain', v('domain'), fieldErrs, 'required class="medium"')}
${select('commission_type', 'Commission type', v('commission_type', 'percent'), [...COMMISSION_TYPES], fieldErrs, COMMISSION_TYPE_WORDS)}
${field('commission_rate', 'Commission rate (a percent like 20, or an amount in the currency like 12.50 for fixed types)', v('commission_rate'), fieldErrs, 'inputmode="decimal" required')}
${field('attribution_window_days', 'Attribution window (days)', v('attribution_window_days', '60'), fieldErrs, 'inputmode="numeric"')}
<div class="recurring-only${fieldErrs.duration_months ? ' has-error' : ''}">${field('duration_months', 'Recurring commission duration (months, empty = forever)', v('duration_months'), fieldErrs, 'inputmode="numeric"')}</div>
${select('lead_auth', 'Who may report signups', v('lead_auth', 'browser_allowed'), [...LEAD_AUTH_VALUES], fieldErrs, LEAD_AUTH_WORDS)}
${field('allowed_origins', 'Allowed browser origins (comma separated)', v('allowed_origins'), fieldErrs, 'placeholder="https://www.example.com" class="long"')}
<div><button type="submit">${submit}</button></div></form>`;
  }


/** The filter as the page's query string (the form's own fields: `to` is the last day shown). */
function filterQuery({ partnerId, from, to, mode }: ActivityFilter): string {
  return `from=${day(from)}&to=${day(new Date(to.getTime() - DAY))}${partnerId ? `&partner=${partnerId}` : ''}&mode=${mode}`;
}

/** Newer / older links that keep the page's filter. */
function activityPager(filter: ActivityFilter, { page, hasOlder }: { page: number; hasOlder: boolean }, base: string): Html {
  const link = (p: number) => `${base}/activity?${filterQuery(filter)}&page=${p}`;
  if (page === 1 && !hasOlder) return html``;
  return html`<nav class="pager" aria-label="Activity pages">Page ${page}
${page > 1 ? html` · <a href="${link(page - 1)}">Newer</a>` : ''}${hasOlder ? html` · <a href="${link(page + 1)}">Older</a>` : ''}</nav>`;
}

const SECTION_LABELS: Record<ProgramSection, string> = {
  overview: 'Overview', setup: 'Set-up', partners: 'Partners', applications: 'Applications', groups: 'Groups', discounts: 'Discounts', links: 'Links', activity: 'Activity',
  payouts: 'Payouts', stripe: 'Stripe', paddle: 'Paddle', lemonsqueezy: 'Lemon Squeezy', inbox: 'Webhook inbox', webhooks: 'Webhooks', keys: 'API keys', audit: 'Audit log', settings: 'Settings', brand: 'Brand',
};

export const sectionUrl = (programId: number, section: ProgramSection) => `/dashboard/programs/${programId}${section === 'overview' ? '' : `/${section}`}`;

export const sectionTitle = (programName: string, section: ProgramSection) => (section === 'overview' ? programName : `${programName}: ${SECTION_LABELS[section]}`);

/**
 * The program's pages in two groups: the daily work first, then set-up, integrations and settings
 * (quieter, on their own row); every section is in exactly one group.
 */
export const NAV_GROUPS: readonly { label: string; sections: readonly ProgramSection[] }[] = [
  { label: 'Daily work', sections: ['overview', 'partners', 'applications', 'groups', 'discounts', 'links', 'payouts', 'activity'] },
  { label: 'Set-up and integrations', sections: ['setup', 'settings', 'brand', 'stripe', 'paddle', 'lemonsqueezy', 'inbox', 'webhooks', 'keys', 'audit'] },
];

/** The program's pages as a navigation bar; the current one marked for screen readers. */
function sectionNav(programId: number, current: ProgramSection): Html {
  const links = (sections: readonly ProgramSection[]) =>
    sections.filter((s) => PROGRAM_SECTIONS.includes(s)).map((s) => html`<li><a href="${sectionUrl(programId, s)}" ${s === current ? html`aria-current="page"` : ''}>${SECTION_LABELS[s]}</a></li>`);
  const [work, setup] = NAV_GROUPS;
  // The second group folds on a phone (open on its own pages); wider screens always show it (CSS).
  return html`<nav class="sections" aria-label="Program pages"><ul class="work" aria-label="${work!.label}">${links(work!.sections)}</ul>
<details class="setup" ${setup!.sections.includes(current) ? html`open` : ''}><summary>${setup!.label}</summary><ul aria-label="${setup!.label}">${links(setup!.sections)}</ul></details></nav>`;
}

type Partners = { partner_id: number; name: string }[];
const distinctPartners = (rows: Partners) => [...new Map(rows.map((l) => [l.partner_id, l.name])).entries()];

/** The period, partner and live/test filter; it submits to the page it sits on. */
function filterForm(action: string, { partnerId, from, to, mode }: ActivityFilter, partners: Partners, events = true): Html {
  return html`<form method="get" action="${action}" class="filter">
<div><label for="from">From</label><input id="from" name="from" type="date" value="${day(from)}"></div>
<div><label for="to">To</label><input id="to" name="to" type="date" value="${day(new Date(to.getTime() - DAY))}"></div>
<div><label for="partner">Partner</label><select id="partner" name="partner"><option value="">All partners</option>${distinctPartners(partners).map(([pid, name]) => html`<option value="${pid}" ${pid === partnerId ? html`selected` : ''}>${name}</option>`)}</select></div>
${events ? html`<div><label for="mode">Events</label><select id="mode" name="mode">${(['all', 'live', 'test'] as const).map((m) => html`<option value="${m}" ${m === mode ? html`selected` : ''}>${{ all: 'Live and test', live: 'Live', test: 'Test' }[m]}</option>`)}</select></div>` : ''}
<div><button type="submit">Show</button></div></form>`;
}

type Of<S extends ProgramSection> = Extract<SectionData, { section: S }>;

function overview(view: ProgramPageView, data: Of<'overview'>): Html {
  const { readiness, kpis, funnel, series } = data;
  const base = sectionUrl(view.program.id, 'overview');
  const days = Math.round((view.filter.to.getTime() - view.filter.from.getTime()) / DAY);
  return html`${readinessSummary(view.program.id, readiness)}
<section id="numbers"><h2>${humanDate(view.filter.from)} – ${humanDate(new Date(view.filter.to.getTime() - DAY))}</h2>
${presetLinks(base, view.filter, view.now)}${filterForm(base, view.filter, data.partners, false)}
<p class="muted">Every number on this page counts these days (UTC), live events only: a sale on the day it happened, a click and a lead on the day they were recorded. Test events are on Activity.</p>
${kpiCards(data, days)}</section>
<section id="charts"><h2>${MEASURE_WORDS.clicks}, ${MEASURE_WORDS.leads.toLowerCase()} and ${MEASURE_WORDS.sales.toLowerCase()} per day</h2>
${dailyChart(series)}${funnelChart(funnel)}
<h3>Money per currency</h3>${kpis.length === 0 ? html`<p class="muted">No sales yet.</p>` : dataTable(
  ['Currency', MEASURE_WORDS.sales, MEASURE_WORDS.revenue, MEASURE_WORDS.commission, 'Awaiting approval', 'Approved', 'Paid'],
  kpis.map((k) => [k.currency, k.sales, ...[k.revenue_cents, k.commission_cents, k.commission_pending_cents, k.commission_approved_cents, k.commission_paid_cents].map((cents) => formatMoney(cents, k.currency as Currency))]),
  { id: 'kpis', caption: 'Money per currency' },
)}</section>
${leaderboardSection(view, data)}`;
}

const RANKING_WORDS: Record<Ranking, string> = { revenue: MEASURE_WORDS.revenue, commission: MEASURE_WORDS.commission, customers: MEASURE_WORDS.customers };

/** The period's top partners by revenue, commission or customers (money ranks in one currency, said in the heading). */
function leaderboardSection(view: ProgramPageView, data: Of<'overview'>): Html {
  const { leaders, rank, rankCurrency } = data.leaderboard;
  const base = sectionUrl(view.program.id, 'overview');
  const keep = `from=${day(view.filter.from)}&to=${day(new Date(view.filter.to.getTime() - DAY))}${view.filter.partnerId ? `&partner=${view.filter.partnerId}` : ''}`;
  const by = (r: Ranking) => (r !== 'customers' && rankCurrency ? `${RANKING_WORDS[r]} (${rankCurrency})` : RANKING_WORDS[r]);
  const money = (items: { currency: string; cents: number }[]) =>
    items.length ? html`${items.map((m, i) => html`${i ? html`<br>` : ''}${formatMoney(m.cents, m.currency as Currency)}`)}` : '–';
  return html`<section id="leaderboard"><h2>Top partners: ${by(rank)}</h2>
<nav class="presets" aria-label="Rank partners by">Rank by: ${RANKINGS.map((r) => html`<a href="${base}?${keep}&rank=${r}#leaderboard" ${r === rank ? html`aria-current="true"` : ''}>${by(r)}</a>`)}</nav>
${leaders.length === 0 ? html`<p class="muted">No partner has numbers between these dates yet.</p>` : dataTable(
  ['Rank', 'Partner', MEASURE_WORDS.clicks, MEASURE_WORDS.leads, MEASURE_WORDS.customers, MEASURE_WORDS.sales, MEASURE_WORDS.revenue, MEASURE_WORDS.commission],
  leaders.map((p, i) => [i + 1, html`<a href="${base}/partners/${p.partnerId}">${p.name}</a>`, p.clicks.toLocaleString('en-US'), p.leads.toLocaleString('en-US'), p.customers.toLocaleString('en-US'), p.sales.toLocaleString('en-US'),
    money(p.money.filter((m) => m.revenueCents !== 0).map((m) => ({ currency: m.currency, cents: m.revenueCents }))),
    money(p.money.filter((m) => m.revenueCents !== 0 || m.commissionCents !== 0).map((m) => ({ currency: m.currency, cents: m.commissionCents })))]),
  { id: 'leaders', caption: `Top partners by ${by(rank)}` },
)}</section>`;
}

function linksSection(view: ProgramPageView, data: Of<'links'>): Html {
  const { program } = view;
  const base = sectionUrl(program.id, 'overview');
  const fe = view.extra.fieldErrors ?? {};
  const partners = distinctPartners(data.partners);
  const links = data.partners.filter((l) => l.link_id);
  return html`<section id="links"><h2>Referral links</h2>
${links.length === 0 ? html`<p>No referral links yet.</p>` : dataTable(['Partner', 'Link', 'State', ''], links.map((l) => [l.name, html`<code title="${referralUrl(program.domain, l.short_link!)}">${linkText(referralUrl(program.domain, l.short_link!))}</code>
<button type="button" data-copy="${referralUrl(program.domain, l.short_link!)}" aria-label="Copy link ${l.short_link}">Copy</button>`,
  l.enabled ? 'on' : 'off', html`<form method="post" action="${base}/links/${l.link_id}/toggle" class="inline"><input type="hidden" name="enabled" value="${l.enabled ? 'false' : 'true'}"><button type="submit">Turn ${l.enabled ? 'off' : 'on'} ${l.short_link}</button></form>`]))}
${partners.length ? html`<form method="post" action="${base}/links"><label for="link_partner">Partner</label><select id="link_partner" name="partner_id">${partners.map(([pid, name]) => html`<option value="${pid}">${name}</option>`)}</select>
${fe.link_partner ? html`<p class="error" id="link_partner-error">${fe.link_partner}</p>` : ''}
${field('short_link', 'Link code (the aff value; empty = random)', '', fe)}<div><button type="submit">Create link</button></div></form>` : html`<p>Add a partner first: <a href="${sectionUrl(program.id, 'partners')}">Partners</a>.</p>`}</section>`;
}

function keysSection(view: ProgramPageView, data: Of<'keys'>): Html {
  const base = sectionUrl(view.program.id, 'overview');
  const fe = view.extra.fieldErrors ?? {};
  return html`${view.heldKey ? html`<section aria-labelledby="new-key"><h2 id="new-key">New API key</h2><p>Copy it now: it is shown only once.</p><p class="key" id="new-key-value">${view.heldKey}</p></section>` : ''}
<section id="keys"><h2>API keys</h2>${dataTable(['Key', 'Created', 'State', ''], data.keys.map((k) => {
  const state = k.revoked_at ? 'revoked' : k.rotate_by ? (k.rotate_by.getTime() > view.now.getTime() ? `warning period until ${humanDate(k.rotate_by)}` : 'retired') : 'active';
  return [html`<code>${k.masked}</code>`, humanDate(k.created_at), state, k.revoked_at ? '' : html`
<a class="button" href="${base}/keys/${k.id}/regenerate">Regenerate ${k.masked}</a>
<form method="post" action="${base}/keys/${k.id}/rotate" class="inline">${field(`rotate_by_${k.id}`, 'Rotate by', '', fe, 'type="date" required')}<button type="submit">Mark for rotation</button></form>`];
}))}
<form method="post" action="${base}/keys"><button type="submit">Create API key</button></form></section>`;
}

function stripeSection(view: ProgramPageView, { stripe }: Of<'stripe'>): Html {
  const base = sectionUrl(view.program.id, 'overview');
  const fe = view.extra.fieldErrors ?? {};
  const at = (value: Date) => `${humanDate(new Date(value))} ${new Date(value).toISOString().slice(11, 16)} UTC`;
  return html`<section id="stripe"><h2>Stripe</h2>
<p>Webhook endpoint to add in Stripe: <code>${view.publicUrl}/api/v1/webhooks/stripe/${view.program.id}</code></p>
<p>Live check: ${stripe.stripe_last_event_at ? html`<span class="ok">last event received ${at(stripe.stripe_last_event_at)}, signature verified</span>` : html`<span class="muted">no event received yet</span>`}
${stripe.stripe_last_signature_error_at ? html`<br><span class="fail">last signature failure ${at(stripe.stripe_last_signature_error_at)}: ${stripe.stripe_last_signature_error}</span>` : ''}</p>
<p>Stripe Connect: ${stripe.stripe_account_id ? html`connected account <code>${stripe.stripe_account_id}</code>` : html`<span class="muted">not connected</span>`}${view.connectConfigured ? html` · <a href="${base}/stripe/connect">${stripe.stripe_account_id ? 'Connect another account with Stripe' : 'Connect with Stripe'}</a>` : html` <span class="muted">(Connect onboarding is not configured on this server)</span>`}</p>
<form method="post" action="${base}/stripe">
${field('webhook_secret', `Signing secret (whsec_…)${stripe.secret_set ? ' — set; enter a new one to replace it' : ''}`, '', fe, 'autocomplete="off" class="long"')}
<div><button type="submit">Save Stripe settings</button></div></form></section>`;
}

function inboxSection(view: ProgramPageView, { inbox, processor }: Of<'inbox'>): Html {
  const base = sectionUrl(view.program.id, 'overview');
  const inboxUrl = sectionUrl(view.program.id, 'inbox');
  const choices: [string | null, string][] = [[null, 'Every processor'], ...PROCESSORS.map((p): [string, string] => [p, PROCESSOR_NAMES[p]])];
  return html`<section id="inbox"><h2>Failed, parked and dead events</h2>
<nav class="tabs" aria-label="Processor">${choices.map(([value, words]) => html`<a href="${value ? `${inboxUrl}?processor=${value}` : inboxUrl}" ${value === processor ? html`aria-current="page"` : ''}>${words}</a>`)}</nav>
${inbox.length === 0 ? html`<p>Nothing waiting.</p>` : dataTable(['Event', 'Processor', 'Type', 'Status', 'Reason', ''], inbox.map((e) => [
  html`${idCell(e.event_key)}
<button type="button" data-copy="${e.event_key}" aria-label="Copy event id ${e.event_key}">Copy</button>`, PROCESSOR_NAMES[e.processor as ProcessorName] ?? e.processor, e.type, `${e.status} (${e.attempts} attempts)`, e.reason ?? '',
  html`<form method="post" action="${base}/events/${e.id}/replay" class="inline"><button type="submit" aria-label="Replay ${e.event_key}">Replay</button></form>`]))}</section>`;
}

/** A refund or chargeback of a sale, as money (restored: a lost dispute given back). */
const refundWords = (refunds: { reason: string; cents: string; restored: boolean }[] | null, currency: Currency) =>
  (refunds ?? []).map((r) => `${r.reason} ${formatMoney(r.cents, currency)}${r.restored ? ' (restored)' : ''}`).join(', ');

/** A long id keeps its start and end in the cell (the whole of it in the title and the CSV). */

function activitySection(view: ProgramPageView, data: Of<'activity'>): Html {
  const url = sectionUrl(view.program.id, 'activity');
  const names = new Map(distinctPartners(data.partners));
  const commission = (e: any) =>
    e.commission_state
      ? `${formatMoney(String(e.commission_cents), e.currency)} (${COMMISSION_STATE_WORDS[e.commission_state as CommissionState]})`
      : e.commission_reason ? `none: ${e.commission_reason.replaceAll('_', ' ')}` : '';
  return html`<section id="activity"><h2>Activity</h2>${filterForm(url, view.filter, data.partners)}
<p><a href="${sectionUrl(view.program.id, 'overview')}/activity.csv?${filterQuery(view.filter)}">Download as CSV</a> (every row of this filter)</p>
<p class="muted">When: a sale's own time (when it happened, as the overview and the statements count it); a click's or a lead's when recorded. The dates and the order go by this time.</p>
${dataTable(['When (UTC)', 'Event', 'Partner', 'Customer', 'Sale', 'Attribution', 'Commission', 'Refunds'], data.events.map((e: any) => [
  html`<time datetime="${new Date(e.occurred_at).toISOString()}">${new Date(e.occurred_at).toISOString().replace('T', ' ').slice(0, 16)}</time>`, `${e.kind}${e.test ? ' (test)' : ''}`, e.partner_id ? names.get(Number(e.partner_id)) ?? '' : '', idCell(e.customer_key),
  e.transaction_id ? html`${idCell(e.transaction_id)}: ${formatMoney(String(e.amount_cents), e.currency)}` : '', e.attribution_step ?? '', commission(e), refundWords(e.refund_list, e.currency)]), { caption: 'Activity' })}
${data.events.length === 0 ? html`<p class="muted">Nothing between these dates.</p>` : ''}
${activityPager(view.filter, data.activityPage, sectionUrl(view.program.id, 'overview'))}</section>`;
}

function settingsSection(view: ProgramPageView): Html {
  const { extra, program } = view;
  return html`<section id="settings"><h2>Settings</h2>${programForm(extra.settingsValues ?? { ...program }, extra.settingsErrors ?? {}, `${sectionUrl(program.id, 'overview')}/settings`, 'Save settings')}
<p><a href="${sectionUrl(program.id, 'settings')}/domains">Your own domains</a>: your partner portal and partners' links on hosts of yours.</p>
<p><a href="${sectionUrl(program.id, 'settings')}/mail-previews">Mail previews</a>: every mail partners and managers get, with sample data, as text and HTML.</p></section>`;
}

const moneyView = (view: ProgramPageView): MoneyView => ({
  programId: view.program.id,
  base: sectionUrl(view.program.id, 'overview'),
  fieldErrors: view.extra.fieldErrors ?? {},
  newSecret: view.extra.newSecret ?? null,
  people: view.people,
  now: view.now,
  holdQuestion: view.extra.holdQuestion ?? null,
  formValues: view.extra.formValues ?? {},
  stripeTransfers: view.stripeTransfers,
});

const partnerView = (view: ProgramPageView): PartnerPagesView => ({
  base: sectionUrl(view.program.id, 'overview'),
  publicUrl: view.publicUrl,
  fieldErrors: view.extra.fieldErrors ?? {},
  values: view.extra.formValues,
  people: view.people,
});

function sectionBody(view: ProgramPageView): Html {
  const data = view.data;
  switch (data.section) {
    case 'overview': return overview(view, data);
    case 'setup': return setupSection({ programId: view.program.id, publicUrl: view.publicUrl, data, outcome: view.extra.testOutcome ?? null, fieldErrors: view.extra.fieldErrors ?? {}, acceptAllCurrencies: view.program.accept_all_currencies });
    case 'partners': return partnersSection(partnerView(view), data);
    case 'applications': return applicationsSection(partnerView(view), data);
    case 'groups': return groupsSection(partnerView(view), data);
    case 'discounts': return discountsSection({ base: sectionUrl(view.program.id, 'overview'), fieldErrors: view.extra.fieldErrors ?? {}, values: view.extra.formValues }, data);
    case 'links': return html`${linksSection(view, data)}${promoCodesSection(moneyView(view), data)}`;
    case 'activity': return activitySection(view, data);
    case 'stripe': return stripeSection(view, data);
    case 'paddle':
    case 'lemonsqueezy': return processorSection({ programId: view.program.id, base: sectionUrl(view.program.id, 'overview'), endpoint: data.endpoint, fieldErrors: view.extra.fieldErrors ?? {} });
    case 'inbox': return inboxSection(view, data);
    case 'keys': return keysSection(view, data);
    case 'payouts': return payoutsSection(moneyView(view), data);
    case 'webhooks': return webhooksSection(moneyView(view), data);
    case 'audit': return auditSection(partnerView(view), data);
    case 'settings': return settingsSection(view);
    case 'brand': return brandSection({ programId: view.program.id, publicUrl: view.publicUrl, data, fieldErrors: view.extra.fieldErrors ?? {}, values: view.extra.formValues, rows: view.extra.questionRows });
  }
}

/** A page under a program's section (one partner, the import): the program's navigation, then the page. */
export const withProgramNav = (programId: number, section: ProgramSection, body: Html, errors: Record<string, string> = {}): Html =>
  html`${sectionNav(programId, section)}${errorSummary(errors)}${body}`;

/** One page of a program: the pages' navigation, an error if any, then the page itself. */
export function programPageBody(view: ProgramPageView): Html {
  return html`${sectionNav(view.program.id, view.data.section)}
${view.extra.error ? html`<p class="error" role="alert">${view.extra.error}</p>` : ''}${errorSummary({ ...view.extra.settingsErrors, ...view.extra.fieldErrors })}
${sectionBody(view)}`;
}
