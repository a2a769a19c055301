// The brand dashboard: server-rendered pages (keyboard-friendly native forms and links, no client
// build). Every change goes through the same core rules and SQL as the admin API.
import { randomBytes } from 'node:crypto';
import cookieParser from 'cookie-parser';
import express, { type Request, type Response, Router } from 'express';
import { UNAVAILABLE_RETRY_SECONDS, errors } from '../../core/errors.js';
import { parseNewProgram } from '../../core/programs.js';
import { GATE_ORDER } from '../../core/readiness.js';
import { formatMoney } from '../../core/money.js';
import type { Currency } from '../../core/types.js';
import type { ActivityFilter } from '../../db/dashboard.js';
import { COMMISSION_TYPES, LEAD_AUTH_VALUES } from '../../core/types.js';
import { LOGIN_SESSION_TTL_MS } from '../../core/cli-login.js';
import { createIdTokenVerifier, issuerSignInUrl } from '../../platform/id-tokens.js';
import {
  activityCsv,
  accountPrograms,
  accountSignIns,
  checkPassword,
  endAccountSession,
  endBrowserSession,
  finishSingleSignOn,
  programPageData,
  revokeAccountCliToken,
  startSingleSignOn,
} from '../../app/dashboard.js';
import { stripeEventEnqueuer } from '../../platform/queue.js';
import {
  type ManagementDeps,
  type Scope,
  addPartner,
  createLink,
  createProgram,
  issueKey,
  listKeys,
  markKeyForRotation,
  programInScope,
  regenerateKey,
  replayEvent,
  setLinkEnabled,
  setStripeSettings,
  updateProgram,
} from '../../app/management.js';
import { connectCallbackPath, finishStripeConnect, startStripeConnect } from '../../app/stripe-connect.js';
import { formBody } from '../input-guard.js';
import { toAffixError } from '../respond.js';
import { type HttpDeps, clock } from '../deps.js';
import { dailyChart, funnelChart } from './charts.js';
import { fieldErrors, programInput } from './forms.js';
import { type Html, field, html, page, select } from './html.js';
import { csrfGuard, pageHeaders, sameOriginPosts } from './security.js';
import { SESSION_COOKIE, holdNewKey, requireAccount, startSession, takeNewKey } from './session.js';
import { limitSignIn } from '../sign-in-limit.js';

const DONE: Record<string, string> = {
  settings: 'Settings saved.',
  partner: 'Partner added.',
  link: 'Referral link created.',
  toggled: 'Referral link updated.',
  rotation: 'Key marked for rotation.',
  stripe: 'Stripe settings saved.',
  connected: 'Stripe account connected.',
  replayed: 'Event queued again.',
  key: 'API key created: copy it now.',
};

const DAY = 86_400_000;

/** The page's period, partner and live/test filter from its query (default: the last 14 days). */
function activityFilter(q: Record<string, string | undefined>, now: Date): ActivityFilter {
  const from = q.from && !Number.isNaN(Date.parse(q.from)) ? new Date(q.from) : new Date(now.getTime() - 13 * DAY);
  const to = q.to && !Number.isNaN(Date.parse(q.to)) ? new Date(Date.parse(q.to) + DAY) : new Date(now.getTime() + DAY);
  const startOfDay = (d: Date) => new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()));
  return {
    partnerId: q.partner && /^\d+$/.test(q.partner) ? Number(q.partner) : null,
    from: startOfDay(from),
    to: startOfDay(to),
    mode: q.mode === 'live' || q.mode === 'test' ? q.mode : 'all',
  };
}

/** Where on the page each readiness gate is fixed. */
const GATE_SECTION: Record<(typeof GATE_ORDER)[number], string> = {
  api_key: 'keys',
  referral_link: 'partners',
  allowed_origins: 'settings',
  click_tracked: 'partners',
  lead_tracked: 'activity',
  sale_tracked: 'stripe',
};

/** Dates as people read them: 31 Jan 2099 (UTC, like every time the service stores). */
const humanDate = (date: Date) => date.toLocaleDateString('en-GB', { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' });

const PAGE_TITLES: Record<number, string> = { 400: 'Bad request', 404: 'Not found', 409: 'Conflict', 413: 'Too large', 429: 'Too many requests', 502: 'Stripe refused', 503: 'Unavailable' };

export function dashboardRoutes(deps: HttpDeps): Router {
  const router = Router();
  const { pool, config } = deps;
  const secureCookies = config.publicUrl.startsWith('https://');
  // Cookies first: every page, the single sign-on callback included, may carry a CSRF token.
  router.use('/dashboard', cookieParser());
  const csrf = csrfGuard({ secret: config.secretKey, sessionCookie: SESSION_COOKIE, secure: secureCookies });
  const ssoForm = formBody('20kb');
  const form = [...formBody('50kb'), csrf.check];
  const oidc = config.oidc;
  const verifyIdToken = oidc ? createIdTokenVerifier({ publicUrl: config.publicUrl, secretKey: config.secretKey, oidc }) : null;

  // Single sign-on through the same OpenID Connect issuer as the CLI. The state is a 5-minute
  // login session in PostgreSQL (any instance can finish it); the issuer posts the id_token
  // back cross-site, so this route sits before the same-origin check.
  router.post('/dashboard/sso/callback', ...ssoForm, async (req, res) => {
    const { state: stateValue = '', id_token: idToken = '' } = req.body as Record<string, string>;
    if (!verifyIdToken) throw errors.notFound('Single sign-on is not configured');
    const fail = (status: number, message: string) => send(res, status, 'Sign in', loginForm(message));
    let claims;
    try {
      claims = await verifyIdToken(String(idToken), String(stateValue));
    } catch (error) {
      return fail(401, `Sign-in failed: ${(error as Error).message}`);
    }
    const accountId = await finishSingleSignOn(pool, String(stateValue), claims, clock(deps));
    if (!accountId) return fail(400, 'This sign-in link expired or was already used. Try again.');
    if (accountId.suspended) return fail(403, 'Your account has been suspended.');
    await startSession(pool, res, accountId.id, secureCookies);
    res.redirect(303, '/dashboard');
  });

  router.use('/dashboard', pageHeaders(), sameOriginPosts(config.publicUrl));

  const send = (res: Response, status: number, title: string, body: Html, flash?: string | null) =>
    res.status(status).type('html').send(csrf.protect(res.req, res, page(title, body, { email: res.locals.account?.email, flash })));

  // ---- sign-in -------------------------------------------------------------------------------
  const loginForm = (error: string | null, email = '') => html`<section><form method="post" action="/dashboard/login">
${error ? html`<p class="error" role="alert">${error}</p>` : ''}
<label for="email">Email</label><input id="email" name="email" type="email" value="${email}" autocomplete="username" required autofocus>
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required>
<div><button type="submit">Sign in</button></div></form>
${oidc ? html`<p><a href="/dashboard/login/sso">Sign in with single sign-on</a></p>` : ''}
<p class="muted">Same accounts as <code>affix login</code>.</p></section>`;

  router.get('/dashboard/login', (_req, res) => send(res, 200, 'Sign in', loginForm(null)));
  router.get('/dashboard/login/sso', async (_req, res) => {
    if (!oidc) throw errors.notFound('Single sign-on is not configured');
    const stateValue = randomBytes(24).toString('base64url');
    await startSingleSignOn(pool, stateValue, new Date(clock(deps).getTime() + LOGIN_SESSION_TTL_MS));
    res.redirect(302, await issuerSignInUrl(oidc, `${config.publicUrl}/dashboard/sso/callback`, stateValue));
  });
  const limit = limitSignIn(pool, (req, res, message) => send(res, 429, 'Sign in', loginForm(message, String(req.body?.email ?? ''))), () => clock(deps));
  router.post('/dashboard/login', ...form, limit, async (req, res) => {
    const { email = '', password = '' } = req.body as Record<string, string>;
    const verdict = await checkPassword(pool, email, password);
    if (verdict.kind === 'wrong') return send(res, 401, 'Sign in', loginForm('Wrong email or password.', email));
    if (verdict.kind === 'suspended') return send(res, 403, 'Sign in', loginForm('Your account has been suspended.', email));
    // A new session id at every sign-in; a session the browser already held ends here.
    const previous = req.cookies?.[SESSION_COOKIE];
    if (typeof previous === 'string') await endBrowserSession(pool, previous);
    await startSession(pool, res, verdict.accountId, secureCookies);
    res.redirect(303, '/dashboard');
  });
  router.post('/dashboard/logout', ...form, async (req, res) => {
    const token = req.cookies?.[SESSION_COOKIE];
    if (typeof token === 'string') await endBrowserSession(pool, token);
    res.clearCookie(SESSION_COOKIE, { path: '/dashboard' });
    res.redirect(303, '/dashboard/login');
  });

  router.use('/dashboard', requireAccount(pool));

  // ---- programs ------------------------------------------------------------------------------
  const programForm = (values: Record<string, unknown>, fieldErrs: Record<string, string>, action: string, submit: string) => {
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
  };

  async function home(res: Response, status: number, values: Record<string, unknown>, errs: Record<string, string>) {
    const programs = await accountPrograms(pool, res.locals.account.id);
    send(res, status, 'Programs', html`<section><h2>Your programs</h2>
${programs.length === 0 ? html`<p>No programs yet.</p>` : html`<table><thead><tr><th>Program</th><th>Domain</th><th>Commission</th><th>Window</th></tr></thead><tbody>
${programs.map((p) => html`<tr><td><a href="/dashboard/programs/${p.id}">${p.name}</a></td><td>${p.domain}</td><td>${p.commission_rate} ${p.commission_type}</td><td>${p.attribution_window_days} days</td></tr>`)}
</tbody></table>`}</section>
<section><h2>Create a program</h2>${programForm(values, errs, '/dashboard/programs', 'Create program')}</section>`);
  }

  router.get('/dashboard', (_req, res) => home(res, 200, {}, {}));

  // ---- sign-ins: the account's CLI tokens and dashboard sessions, each revocable -------------------
  const when = (date: Date) => new Date(date).toISOString().slice(0, 16).replace('T', ' ');
  router.get('/dashboard/account', async (req, res) => {
    const current = typeof req.cookies?.[SESSION_COOKIE] === 'string' ? req.cookies[SESSION_COOKIE] : null;
    const { cliTokens, sessions } = await accountSignIns(pool, res.locals.account.id, current);
    const flash = req.query.done === 'revoked' ? 'Revoked.' : null;
    send(res, 200, 'Sign-ins', html`<section><h2>CLI login tokens</h2>
${cliTokens.length === 0 ? html`<p>No CLI is signed in.</p>` : html`<table><thead><tr><th>Issued</th><th>Expires</th><th></th></tr></thead><tbody>
${cliTokens.map((t) => html`<tr><td>${when(t.created_at)} UTC</td><td>${when(t.expires_at)} UTC</td><td><form method="post" action="/dashboard/account/tokens/${t.id}/revoke" class="inline"><button type="submit">Revoke token ${t.id}</button></form></td></tr>`)}
</tbody></table>`}</section>
<section><h2>Dashboard sessions</h2><table><thead><tr><th>Started</th><th>Expires</th><th></th></tr></thead><tbody>
${sessions.map((s) => html`<tr><td>${when(s.created_at)} UTC${s.current ? ' (this browser)' : ''}</td><td>${when(s.expires_at)} UTC</td><td>${s.current ? '' : html`<form method="post" action="/dashboard/account/sessions/${s.id}/revoke" class="inline"><button type="submit">End session ${s.id}</button></form>`}</td></tr>`)}
</tbody></table></section>`, flash);
  });
  router.post('/dashboard/account/tokens/:tokenId/revoke', ...form, async (req, res) => {
    await revokeAccountCliToken(pool, res.locals.account.id, Number(req.params.tokenId));
    res.redirect(303, '/dashboard/account?done=revoked');
  });
  router.post('/dashboard/account/sessions/:sessionId/revoke', ...form, async (req, res) => {
    await endAccountSession(pool, res.locals.account.id, Number(req.params.sessionId));
    res.redirect(303, '/dashboard/account?done=revoked');
  });
  router.post('/dashboard/programs', ...form, async (req, res) => {
    const body = req.body as Record<string, unknown>;
    let settings;
    try {
      settings = await createProgram(app(), res.locals.account.id, programInput(body));
    } catch (error) {
      return home(res, 400, body, fieldErrors(error));
    }
    res.redirect(303, `/dashboard/programs/${settings.id}`);
  });

  const app = (): ManagementDeps => ({ pool, secretBox: deps.secretBox ?? null, now: () => clock(deps) });
  const scope = (res: Response): Scope => ({ kind: 'account', accountId: res.locals.account.id });
  const ownProgram = async (req: Request, res: Response): Promise<number> => (await programInScope(app(), scope(res), Number(req.params.id))).id;

  // ---- one program ---------------------------------------------------------------------------
  async function programPage(req: Request, res: Response, extra: { status?: number; settingsValues?: Record<string, unknown>; settingsErrors?: Record<string, string>; newKey?: string | null; error?: string | null; fieldErrors?: Record<string, string> } = {}) {
    const id = Number(req.params.id);
    const now = clock(deps);
    const heldKey = extra.newKey ?? takeNewKey(req, res, deps.secretBox ?? null, id);
    const q = req.query as Record<string, string | undefined>;
    const { partnerId, from: dayFrom, to: dayTo, mode } = activityFilter(q, now);
    const { program, links, keys, stripe, inbox, events, series, readiness, kpis, funnel, partners: partnerRows } = await programPageData(
      { ...app(), store: deps.store },
      scope(res),
      id,
      { partnerId, from: dayFrom, to: dayTo, mode },
    );
    const partners = [...new Map(links.map((l) => [l.partner_id, l.name])).entries()];
    const base = `/dashboard/programs/${id}`;
    const fe = extra.fieldErrors ?? {};
    const day = (d: Date) => d.toISOString().slice(0, 10);
    const body = html`
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
<p>Webhook endpoint to add in Stripe: <code>${config.publicUrl}/api/v1/webhooks/stripe/${id}</code></p>
<p>Live check: ${stripe.stripe_last_event_at ? html`<span class="ok">last event received ${new Date(stripe.stripe_last_event_at).toISOString()}, signature verified</span>` : html`<span class="muted">no event received yet</span>`}
${stripe.stripe_last_signature_error_at ? html`<br><span class="fail">last signature failure ${new Date(stripe.stripe_last_signature_error_at).toISOString()}: ${stripe.stripe_last_signature_error}</span>` : ''}</p>
<p>Stripe Connect: ${stripe.stripe_account_id ? html`connected account <code>${stripe.stripe_account_id}</code>` : html`<span class="muted">not connected</span>`}${config.stripeConnect ? html` · <a href="${base}/stripe/connect">${stripe.stripe_account_id ? 'Connect another account with Stripe' : 'Connect with Stripe'}</a>` : html` <span class="muted">(Connect onboarding is not configured on this server)</span>`}</p>
<form method="post" action="${base}/stripe">
${field('webhook_secret', `Signing secret (whsec_…)${stripe.secret_set ? ' — set; enter a new one to replace it' : ''}`, '', fe, 'autocomplete="off"')}

<div><button type="submit">Save Stripe settings</button></div></form></section>
<section id="inbox"><h2>Webhook inbox: failed, parked and dead events</h2>
${inbox.length === 0 ? html`<p>Nothing waiting.</p>` : html`<table><thead><tr><th>Event</th><th>Type</th><th>Status</th><th>Reason</th><th></th></tr></thead><tbody>
${inbox.map((e) => html`<tr><td>${e.stripe_event_id}</td><td>${e.type}</td><td>${e.status} (${e.attempts} attempts)</td><td>${e.reason ?? ''}</td>
<td><form method="post" action="${base}/events/${e.id}/replay" class="inline"><button type="submit">Replay ${e.stripe_event_id}</button></form></td></tr>`)}</tbody></table>`}</section>
<section id="activity"><h2>Activity</h2><p><a href="${base}/activity.csv?from=${day(dayFrom)}&to=${day(new Date(dayTo.getTime() - DAY))}${partnerId ? `&partner=${partnerId}` : ''}&mode=${mode}">Download as CSV</a></p><table><thead><tr><th>When</th><th>Event</th><th>Customer</th><th>Sale</th><th>Attribution</th><th>Commission</th><th>Refunds</th></tr></thead><tbody>
${events.map((e) => html`<tr><td>${new Date(e.created_at).toISOString().replace('T', ' ').slice(0, 19)}</td><td>${e.kind}${e.test ? ' (test)' : ''}</td><td>${e.customer_key ?? ''}</td>
<td>${e.transaction_id ? `${e.transaction_id}: ${e.amount_cents} ${e.currency}` : ''}</td><td>${e.attribution_step ?? ''}</td>
<td>${e.commission_cents !== null && e.commission_cents !== undefined ? `${e.commission_cents - e.deducted_cents} (${e.commission_status})` : e.commission_reason ? `none: ${e.commission_reason.replaceAll('_', ' ')}` : ''}</td><td>${e.refunds ?? ''}</td></tr>`)}
</tbody></table></section>
<section id="settings"><h2>Settings</h2>${programForm(extra.settingsValues ?? { ...program }, extra.settingsErrors ?? {}, `${base}/settings`, 'Save settings')}</section>`;
    send(res, extra.status ?? 200, program.name, body, extra.status && extra.status >= 400 ? null : DONE[String(q.done)] ?? null);
  }

  router.get('/dashboard/programs/:id', (req, res) => programPage(req, res));

  router.get('/dashboard/programs/:id/activity.csv', async (req, res) => {
    const csv = await activityCsv(app(), scope(res), Number(req.params.id), activityFilter(req.query as Record<string, string | undefined>, clock(deps)));
    res.type('text/csv').attachment(`affix-activity-${req.params.id}.csv`).send(csv);
  });

  const back = (res: Response, id: number, done: string, anchor: string) => res.redirect(303, `/dashboard/programs/${id}?done=${done}#${anchor}`);

  router.post('/dashboard/programs/:id/settings', ...form, async (req, res) => {
    const id = await ownProgram(req, res);
    const body = req.body as Record<string, unknown>;
    try {
      const input = programInput(body);
      if (!input.name || !input.domain) parseNewProgram(input); // the required-field message
      await updateProgram(app(), scope(res), id, input);
    } catch (error) {
      return programPage(req, res, { status: 400, settingsValues: body, settingsErrors: fieldErrors(error) });
    }
    back(res, id, 'settings', 'settings');
  });

  router.post('/dashboard/programs/:id/partners', ...form, async (req, res) => {
    const id = await ownProgram(req, res);
    try {
      await addPartner(app(), scope(res), id, { name: (req.body as Record<string, string>).partner_name ?? '' });
    } catch (error) {
      return programPage(req, res, { status: 400, fieldErrors: fieldErrors(error, { name: 'partner_name' }) });
    }
    back(res, id, 'partner', 'partners');
  });

  router.post('/dashboard/programs/:id/links', ...form, async (req, res) => {
    const id = await ownProgram(req, res);
    try {
      await createLink(app(), scope(res), id, req.body);
    } catch (error) {
      const fields = fieldErrors(error, { partner_id: 'link_partner' });
      return programPage(req, res, { status: (error as { status: number }).status, fieldErrors: fields, error: fields.link_partner ?? null });
    }
    back(res, id, 'link', 'partners');
  });

  router.post('/dashboard/programs/:id/links/:linkId/toggle', ...form, async (req, res) => {
    const id = await ownProgram(req, res);
    const link = await setLinkEnabled(app(), scope(res), Number(req.params.linkId), (req.body as Record<string, string>).enabled === 'true');
    if (link.program_id !== id) throw errors.notFound('Referral link not found');
    back(res, id, 'toggled', 'partners');
  });

  /** Post, redirect, get: the new key is shown once by the page the browser is sent to. */
  const showKeyOnce = (res: Response, id: number, apiKey: string) => {
    if (!deps.secretBox) return void programPage(res.req, res, { newKey: apiKey });
    holdNewKey(res, deps.secretBox, id, apiKey, secureCookies);
    back(res, id, 'key', 'keys');
  };

  // Regenerating revokes the live key at once: a page says so and asks before it happens.
  router.get('/dashboard/programs/:id/keys/:keyId/regenerate', async (req, res) => {
    const id = await ownProgram(req, res);
    const keyId = Number(req.params.keyId);
    const key = (await listKeys(app(), scope(res), id)).find((k) => k.id === keyId && !k.revoked_at);
    if (!key) throw errors.notFound('API key not found');
    send(res, 200, 'Regenerate API key', html`<section><h2>Regenerate ${key.masked}?</h2>
<p class="error">The key <code>${key.masked}</code> stops working at once: every server still using it gets 401 until it has the new key. To switch without downtime, use "Mark for rotation" instead.</p>
<form method="post" action="/dashboard/programs/${id}/keys/${keyId}/regenerate"><div><button type="submit">Yes, revoke ${key.masked} and create a new key</button>
<a href="/dashboard/programs/${id}#keys">Cancel</a></div></form></section>`);
  });

  router.post('/dashboard/programs/:id/keys', ...form, async (req, res) => {
    const id = await ownProgram(req, res);
    const issued = await issueKey(app(), scope(res), id);
    showKeyOnce(res, id, issued.apiKey);
  });

  router.post('/dashboard/programs/:id/keys/:keyId/regenerate', ...form, async (req, res) => {
    const id = await ownProgram(req, res);
    try {
      const issued = await regenerateKey(app(), scope(res), Number(req.params.keyId));
      showKeyOnce(res, id, issued.apiKey);
    } catch (error) {
      if ((error as { status?: number }).status !== 409) throw error;
      await programPage(req, res, { status: 409, error: 'That key was already revoked.' });
    }
  });

  router.post('/dashboard/programs/:id/keys/:keyId/rotate', ...form, async (req, res) => {
    const id = await ownProgram(req, res);
    const date = String((req.body as Record<string, string>)[`rotate_by_${req.params.keyId}`] ?? '');
    const deadline = /^\d{4}-\d{2}-\d{2}$/.test(date) ? new Date(`${date}T00:00:00Z`) : null;
    try {
      await markKeyForRotation(app(), scope(res), Number(req.params.keyId), deadline);
    } catch (error) {
      if ((error as { status?: number }).status !== 400) throw error;
      return programPage(req, res, { status: 400, fieldErrors: { [`rotate_by_${req.params.keyId}`]: 'Choose a date in the future.' } });
    }
    back(res, id, 'rotation', 'keys');
  });

  // The signing secret of the brand's own endpoint proves ownership by itself. A Connect account
  // is bound only through Stripe's OAuth (below), never by typing its id.
  router.post('/dashboard/programs/:id/stripe', ...form, async (req, res) => {
    const id = await ownProgram(req, res);
    const secret = String((req.body as Record<string, string>).webhook_secret ?? '').trim();
    try {
      if (secret) await setStripeSettings(app(), scope(res), id, { webhook_secret: secret });
    } catch (error) {
      return programPage(req, res, { status: 400, fieldErrors: fieldErrors(error) });
    }
    back(res, id, 'stripe', 'stripe');
  });

  const connectDeps = () => ({ pool, settings: config.stripeConnect, publicUrl: config.publicUrl, now: () => clock(deps) });
  router.get('/dashboard/programs/:id/stripe/connect', async (req, res) => {
    const id = await ownProgram(req, res);
    res.redirect(303, await startStripeConnect(connectDeps(), id, res.locals.account.id));
  });
  router.get(connectCallbackPath, async (req, res) => {
    const query = (name: string) => (typeof req.query[name] === 'string' ? (req.query[name] as string) : '');
    const connected = await finishStripeConnect(
      connectDeps(),
      { state: query('state'), code: query('code'), error: query('error') || undefined, errorDescription: query('error_description') || undefined },
      res.locals.account.id,
    );
    back(res, connected.programId, 'connected', 'stripe');
  });

  router.post('/dashboard/programs/:id/events/:eventId/replay', ...form, async (req, res) => {
    const id = await ownProgram(req, res);
    const enqueue = deps.queue ? stripeEventEnqueuer(deps.queue) : null;
    const event = await replayEvent({ ...app(), enqueue }, scope(res), Number(req.params.eventId));
    if (event.program_id !== id) throw errors.notFound('Webhook event not found');
    back(res, id, 'replayed', 'inbox');
  });

  // People get pages, not JSON: refusals as HTML; our own failures go on to the app's handler (logged).
  router.use('/dashboard', (thrown: unknown, _req: Request, res: Response, next: (error: unknown) => void) => {
    const error = toAffixError(thrown, res, '50kb');
    // Our own failures (500) go on to the app's handler and its log; every other answer is a page.
    if (error.status === 500 || res.headersSent) return next(thrown);
    if (error.status === 503) res.setHeader('Retry-After', String(UNAVAILABLE_RETRY_SECONDS));
    send(res, error.status, PAGE_TITLES[error.status] ?? 'Not allowed', html`<section><p class="error" role="alert">${error.message}</p>
<p><a href="/dashboard">Back to your programs</a></p></section>`);
  });
  return router;
}
