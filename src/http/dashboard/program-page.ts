// The program page: readiness, charts and money, partners, keys, Stripe, inbox, activity and
// settings, rendered from what src/app/dashboard gathered. No data access here.
import { formatMoney } from '../../core/money.js';
import { GATE_ORDER } from '../../core/readiness.js';
import { COMMISSION_TYPES, type Currency, LEAD_AUTH_VALUES } from '../../core/types.js';
import type { programPageData } from '../../app/dashboard.js';
import type { ActivityFilter } from '../../db/dashboard.js';
import { dailyChart, funnelChart } from './charts.js';
import { type Html, field, html, select } from './html.js';

const DAY = 86_400_000;

/** Long Stripe ids fit a narrow column: the start and the end, the whole id in the title and the copy button. */
const shortId = (id: string) => (id.length > 18 ? `${id.slice(0, 10)}…${id.slice(-6)}` : id);

/** Dates as people read them: 31 Jan 2099 (UTC, like every time the service stores). */
const humanDate = (date: Date) => date.toLocaleDateString('en-GB', { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' });

/** Where on the page each readiness gate is fixed. */
const GATE_SECTION: Record<(typeof GATE_ORDER)[number], string> = {
  api_key: 'keys',
  referral_link: 'partners',
  allowed_origins: 'settings',
  click_tracked: 'partners',
  lead_tracked: 'activity',
  sale_tracked: 'stripe',
};


export interface PageExtra {
  status?: number;
  settingsValues?: Record<string, unknown>;
  settingsErrors?: Record<string, string>;
  newKey?: string | null;
  error?: string | null;
  fieldErrors?: Record<string, string>;
}

export type ProgramPageView = Awaited<ReturnType<typeof programPageData>> & {
  id: number;
  now: Date;
  heldKey: string | null;
  extra: PageExtra;
  filter: ActivityFilter;
  publicUrl: string;
  connectConfigured: boolean;
};

export function programForm(values: Record<string, unknown>, fieldErrs: Record<string, string>, action: string, submit: string): Html {
    const v = (name: string, fallback = '') => (values[name] === undefined || values[name] === null ? fallback : Array.isArray(values[name]) ? (values[name] as string[]).join(', ') : String(values[name]));
    return html`<form method="post" action="${action}" novalidate>
${field('name', 'Name', v('name'), fieldErrs, 'required')}
${field('domain', 'Domain', v('domain'), fieldErrs, 'required')}
${select('commission_type', 'Commission type', v('commission_type', 'percent'), [...COMMISSION_TYPES], fieldErrs)}
${field('commission_rate', 'Commission rate (percent, or amount for fixed types)', v('commission_rate'), fieldErrs, 'inputmode="decimal" required')}
${field('attribution_window_days', 'Attribution window (days)', v('attribution_window_days', '60'), fieldErrs, 'inputmode="numeric"')}
<div class="recurring-only">${field('duration_months', 'Recurring commission duration (months, empty = forever)', v('duration_months'), fieldErrs, 'inputmode="numeric"')}</div>
${select('lead_auth', 'Lead authentication', v('lead_auth', 'browser_allowed'), [...LEAD_AUTH_VALUES], fieldErrs)}
${field('allowed_origins', 'Allowed browser origins (comma separated)', v('allowed_origins'), fieldErrs, 'placeholder="https://www.example.com"')}
<div><button type="submit">${submit}</button></div></form>`;
  }

const day = (d: Date) => d.toISOString().slice(0, 10);

/** The filter as the page's query string (the form's own fields: `to` is the last day shown). */
function filterQuery({ partnerId, from, to, mode }: ActivityFilter): string {
  return `from=${day(from)}&to=${day(new Date(to.getTime() - DAY))}${partnerId ? `&partner=${partnerId}` : ''}&mode=${mode}`;
}

/** Newer / older links that keep the page's filter. */
function activityPager(view: ProgramPageView, base: string): Html {
  const { page, hasOlder } = view.activityPage;
  const link = (p: number) => `${base}?${filterQuery(view.filter)}&page=${p}#activity`;
  if (page === 1 && !hasOlder) return html``;
  return html`<nav class="pager" aria-label="Activity pages">Page ${page}
${page > 1 ? html` · <a href="${link(page - 1)}">Newer</a>` : ''}${hasOlder ? html` · <a href="${link(page + 1)}">Older</a>` : ''}</nav>`;
}

export function programPageBody(view: ProgramPageView): Html {
  const { program, links, keys, stripe, inbox, events, series, readiness, kpis, funnel, partners: partnerRows, id, now, heldKey, extra } = view;
  const { partnerId, from: dayFrom, to: dayTo, mode } = view.filter;
    const partners = [...new Map(links.map((l) => [l.partner_id, l.name])).entries()];
    const base = `/dashboard/programs/${id}`;
    const fe = extra.fieldErrors ?? {};
  return html`
<nav class="tabs" aria-label="Sections"><a href="#readiness">Readiness</a><a href="#charts">Charts</a><a href="#partners">Partners</a><a href="#keys">API keys</a><a href="#stripe">Stripe</a><a href="#inbox">Webhook inbox</a><a href="#activity">Activity</a><a href="#settings">Settings</a></nav>
${extra.error ? html`<p class="error" role="alert">${extra.error}</p>` : ''}
${heldKey ? html`<section aria-labelledby="new-key"><h2 id="new-key">New API key</h2><p>Copy it now: it is shown only once.</p><p class="key" id="new-key-value">${heldKey}</p></section>` : ''}
<section id="readiness"><h2>Readiness: ${readiness.state}${readiness.blocker ? ` (blocked at ${readiness.blocker})` : ''}</h2>
<table><tbody>${GATE_ORDER.map((name) => html`<tr><th scope="row">${name}</th><td class="${readiness.gates[name].status}">${readiness.gates[name].status}</td><td>${readiness.gates[name].next_action ?? ''}${readiness.gates[name].status === 'fail' ? html` <a href="#${GATE_SECTION[name]}">Go to ${GATE_SECTION[name]}</a>` : ''}</td></tr>`)}</tbody></table>
<p class="muted">Last 24 h: ${readiness.counts_24h.clicks} clicks, ${readiness.counts_24h.leads} leads, ${readiness.counts_24h.sales} sales.</p></section>
<section id="charts"><h2>Clicks → leads → sales</h2>
<form method="get" action="${base}#charts">
<label for="from">From</label><input id="from" name="from" type="date" value="${day(dayFrom)}">
<label for="to">To</label><input id="to" name="to" type="date" value="${day(new Date(dayTo.getTime() - DAY))}">
<label for="partner">Partner</label><select id="partner" name="partner"><option value="">All partners</option>${partners.map(([pid, name]) => html`<option value="${pid}" ${pid === partnerId ? html`selected` : ''}>${name}</option>`)}</select>
<label for="mode">Events</label><select id="mode" name="mode">${['all', 'live', 'test'].map((m) => html`<option value="${m}" ${m === mode ? html`selected` : ''}>${m}</option>`)}</select>
<div><button type="submit">Show</button></div></form>
${dailyChart(series)}${funnelChart(funnel)}
<h3>Money between these dates</h3>${kpis.length === 0 ? html`<p class="muted">No sales yet.</p>` : html`<table id="kpis"><thead><tr><th>Currency</th><th>Sales</th><th>Revenue</th><th>Commission</th><th>Commission owed</th></tr></thead><tbody>
${kpis.map((k) => html`<tr><td>${k.currency}</td><td>${k.sales}</td><td>${formatMoney(k.revenue_cents, k.currency as Currency)}</td><td>${formatMoney(k.commission_cents, k.currency as Currency)}</td><td>${formatMoney(k.commission_pending_cents, k.currency as Currency)}</td></tr>`)}</tbody></table>`}</section>
<section id="partners"><h2>Partners and referral links</h2>
<table id="partner-stats"><thead><tr><th>Partner</th><th>Clicks</th><th>Leads</th><th>Sales</th><th>Revenue</th><th>Commission</th></tr></thead><tbody>
${partnerRows.map((p: any) => html`<tr><td>${p.name}</td><td>${p.clicks}</td><td>${p.leads}</td><td>${p.sales}</td>
<td>${p.by_currency.map((m: any) => formatMoney(m.revenue_cents, m.currency)).join(', ') || '–'}</td><td>${p.by_currency.map((m: any) => formatMoney(m.commission_cents, m.currency)).join(', ') || '–'}</td></tr>`)}</tbody></table>
<table><thead><tr><th>Partner</th><th>Link</th><th>State</th><th></th></tr></thead><tbody>
${links.map((l) => html`<tr><td>${l.name}</td><td>${l.short_link ? html`<code>https://${program.domain}/?aff=${l.short_link}</code>
<button type="button" data-copy="https://${program.domain}/?aff=${l.short_link}" aria-label="Copy link ${l.short_link}">Copy</button>` : html`<span class="muted">no link</span>`}</td>
<td>${l.link_id ? (l.enabled ? 'on' : 'off') : ''}</td><td>${l.link_id ? html`<form method="post" action="${base}/links/${l.link_id}/toggle" class="inline"><input type="hidden" name="enabled" value="${l.enabled ? 'false' : 'true'}"><button type="submit">Turn ${l.enabled ? 'off' : 'on'} ${l.short_link}</button></form>` : ''}</td></tr>`)}
</tbody></table>
<form method="post" action="${base}/partners">${field('partner_name', 'New partner name', '', fe)}<div><button type="submit">Add partner</button></div></form>
${partners.length ? html`<form method="post" action="${base}/links"><label for="link_partner">Partner</label><select id="link_partner" name="partner_id">${partners.map(([pid, name]) => html`<option value="${pid}">${name}</option>`)}</select>
${field('short_link', 'Link code (the aff value; empty = random)', '', fe)}<div><button type="submit">Create link</button></div></form>` : ''}</section>
<section id="keys"><h2>API keys</h2><table><thead><tr><th>Key</th><th>Created</th><th>State</th><th></th></tr></thead><tbody>
${keys.map((k) => {
  const state = k.revoked_at ? 'revoked' : k.rotate_by ? (k.rotate_by.getTime() > now.getTime() ? `warning period until ${humanDate(k.rotate_by)}` : 'retired') : 'active';
  return html`<tr><td><code>${k.masked}</code></td><td>${humanDate(k.created_at)}</td><td>${state}</td><td>${k.revoked_at ? '' : html`
<a class="button" href="${base}/keys/${k.id}/regenerate">Regenerate ${k.masked}</a>
<form method="post" action="${base}/keys/${k.id}/rotate" class="inline">${field(`rotate_by_${k.id}`, 'Rotate by', '', fe, 'type="date" required')}<button type="submit">Mark for rotation</button></form>`}</td></tr>`;
})}</tbody></table>
<form method="post" action="${base}/keys"><button type="submit">Create API key</button></form></section>
<section id="stripe"><h2>Stripe</h2>
<p>Webhook endpoint to add in Stripe: <code>${view.publicUrl}/api/v1/webhooks/stripe/${id}</code></p>
<p>Live check: ${stripe.stripe_last_event_at ? html`<span class="ok">last event received ${new Date(stripe.stripe_last_event_at).toISOString()}, signature verified</span>` : html`<span class="muted">no event received yet</span>`}
${stripe.stripe_last_signature_error_at ? html`<br><span class="fail">last signature failure ${new Date(stripe.stripe_last_signature_error_at).toISOString()}: ${stripe.stripe_last_signature_error}</span>` : ''}</p>
<p>Stripe Connect: ${stripe.stripe_account_id ? html`connected account <code>${stripe.stripe_account_id}</code>` : html`<span class="muted">not connected</span>`}${view.connectConfigured ? html` · <a href="${base}/stripe/connect">${stripe.stripe_account_id ? 'Connect another account with Stripe' : 'Connect with Stripe'}</a>` : html` <span class="muted">(Connect onboarding is not configured on this server)</span>`}</p>
<form method="post" action="${base}/stripe">
${field('webhook_secret', `Signing secret (whsec_…)${stripe.secret_set ? ' — set; enter a new one to replace it' : ''}`, '', fe, 'autocomplete="off"')}

<div><button type="submit">Save Stripe settings</button></div></form></section>
<section id="inbox"><h2>Webhook inbox: failed, parked and dead events</h2>
${inbox.length === 0 ? html`<p>Nothing waiting.</p>` : html`<table><thead><tr><th>Event</th><th>Type</th><th>Status</th><th>Reason</th><th></th></tr></thead><tbody>
${inbox.map((e) => html`<tr><td><code title="${e.stripe_event_id}">${shortId(e.stripe_event_id)}</code>
<button type="button" data-copy="${e.stripe_event_id}" aria-label="Copy event id ${e.stripe_event_id}">Copy</button></td><td>${e.type}</td><td>${e.status} (${e.attempts} attempts)</td><td class="reason">${e.reason ?? ''}</td>
<td><form method="post" action="${base}/events/${e.id}/replay" class="inline"><button type="submit" aria-label="Replay ${e.stripe_event_id}">Replay</button></form></td></tr>`)}</tbody></table>`}</section>
<section id="activity"><h2>Activity</h2><p><a href="${base}/activity.csv?${filterQuery(view.filter)}">Download as CSV</a></p><table><thead><tr><th>When</th><th>Event</th><th>Customer</th><th>Sale</th><th>Attribution</th><th>Commission</th><th>Refunds</th></tr></thead><tbody>
${events.map((e) => html`<tr><td>${new Date(e.created_at).toISOString().replace('T', ' ').slice(0, 19)}</td><td>${e.kind}${e.test ? ' (test)' : ''}</td><td>${e.customer_key ?? ''}</td>
<td>${e.transaction_id ? `${e.transaction_id}: ${e.amount_cents} ${e.currency}` : ''}</td><td>${e.attribution_step ?? ''}</td>
<td>${e.commission_cents !== null && e.commission_cents !== undefined ? `${e.commission_cents - e.deducted_cents} (${e.commission_status})` : e.commission_reason ? `none: ${e.commission_reason.replaceAll('_', ' ')}` : ''}</td><td>${e.refunds ?? ''}</td></tr>`)}
</tbody></table>
${activityPager(view, base)}</section>
<section id="settings"><h2>Settings</h2>${programForm(extra.settingsValues ?? { ...program }, extra.settingsErrors ?? {}, `${base}/settings`, 'Save settings')}</section>`;
}
