// The brand dashboard: server-rendered pages (keyboard-friendly native forms and links, no client
// build). Every change goes through the same core rules and SQL as the admin API.
import { randomBytes } from 'node:crypto';
import cookieParser from 'cookie-parser';
import express, { type Request, type Response, Router } from 'express';
import { UNAVAILABLE_RETRY_SECONDS, errors } from '../../core/errors.js';
import { parseNewProgram } from '../../core/programs.js';
import type { ActivityFilter } from '../../db/dashboard.js';
import { LOGIN_SESSION_TTL_MS } from '../../core/cli-login.js';
import { createIdTokenVerifier, issuerSignInUrl } from '../../platform/id-tokens.js';
import {
  activityCsv,
  accountPrograms,
  checkPassword,
  endBrowserSession,
  finishSingleSignOn,
  PROGRAM_SECTIONS,
  type ProgramSection,
  programPageData,
  startSingleSignOn,
} from '../../app/dashboard.js';
import { stripeEventEnqueuer } from '../../platform/queue.js';
import {
  type AccountScope,
  type ManagementDeps,
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
import { failureInWords, logFailure, toAffixError } from '../respond.js';
import { type AppDeps, clock } from '../deps.js';
import { type PageExtra, programPageBody, sectionTitle, sectionUrl } from './program-page.js';
import { fieldErrors, programInput } from './forms.js';
import { MONEY_DONE, registerMoneyRoutes } from './money-routes.js';
import { PARTNER_DONE, bulkDone, registerPartnerRoutes } from './partner-routes.js';
import { registerStatementDetailsRoutes } from './statement-details.js';
import { BRAND_DONE, registerBrandRoutes } from './brand-routes.js';
import { registerDomainsRoutes } from './domains-page.js';
import { registerMailPreviewsRoutes } from './mail-previews-page.js';
import { type Html, html, page } from './html.js';
import { invitationGonePage, joinPage as joinView, loginPage, programsPage, regenerateKeyPage, teamPage as teamView } from '../views/account-pages.js';
import { errorPage } from '../views/components.js';
import { sendTestEvent, sendTestStripeEvent } from '../../app/setup.js';
import { isConnectedProcessor, setProcessorSettings } from '../../app/processors.js';
import { inboxWriter, secretCache } from '../../app/stripe-intake.js';
import { changeRole, invitationFor, inviteMember, joinTeam, listTeam, removeFromTeam } from '../../app/team.js';
import { teamSignIns } from '../../app/sign-ins.js';
import { registerAccountRoutes, registerPasswordResetRoutes } from './account-routes.js';
import { allows } from '../../core/permissions.js';
import { AffixError } from '../../core/errors.js';
import { csrfGuard, pageHeaders, sameOriginPosts } from './security.js';
import { closeUnreadLargeUploads } from './uploads.js';
import { SESSION_COOKIE, holdNewKey, requireAccount, startSession, takeNewKey } from './session.js';
import { sendCsv } from '../csv-stream.js';
import { limitedPasswordCheck } from '../sign-in-limit.js';
import { securedRouter } from '../guard.js';
import { DASHBOARD_ROUTES } from '../../core/permissions.js';
import { markOwnWrite, showsOwnWrite } from '../own-write.js';

const DONE: Record<string, string> = {
  settings: 'Settings saved.',
  currencies: 'Currency setting saved.',
  partner: 'Partner added.',
  link: 'Referral link created.',
  toggled: 'Referral link updated.',
  rotation: 'Key marked for rotation.',
  stripe: 'Stripe settings saved.',
  paddle: 'Paddle settings saved.',
  lemonsqueezy: 'Lemon Squeezy settings saved.',
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



const PAGE_TITLES: Record<number, string> = { 500: 'Something went wrong', 400: 'Bad request', 403: 'Not allowed', 404: 'Not found', 409: 'Conflict', 413: 'Too large', 429: 'Too many requests', 502: 'Stripe refused', 503: 'Unavailable' };

export function dashboardRoutes(deps: AppDeps): Router {
  // Every route passes the permission map (src/core/permissions.ts): one guard, reads included.
  const unguarded = Router();
  const router = securedRouter(unguarded, DASHBOARD_ROUTES, (res) => res.locals.account?.role ?? null);
  const { pool, config } = deps;
  const secureCookies = config.publicUrl.startsWith('https://');
  // Cookies first: every page, the single sign-on callback included, may carry a CSRF token.
  router.use('/dashboard', cookieParser(), closeUnreadLargeUploads);
  const csrf = csrfGuard({ secret: config.secretKey, sessionCookie: SESSION_COOKIE, secure: secureCookies });
  const ssoForm = formBody('20kb');
  // A form post that passed its checks: the caller's next pages read the primary for a while (own-write.ts).
  const wrote = markOwnWrite('/dashboard', secureCookies, () => clock(deps));
  const form = [...formBody('50kb'), csrf.check, wrote];
  /** A form whose `lists` are ticked boxes of one name (the ids of a bulk bar, the mails kept). */
  const listForm = (...lists: string[]) => [...formBody('50kb', lists), csrf.check, wrote];
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
    await startSession(pool, res, accountId.id, secureCookies, clock(deps));
    res.redirect(303, '/dashboard');
  });

  router.use('/dashboard', pageHeaders(), sameOriginPosts(config.publicUrl));

  const send = (res: Response, status: number, title: string, body: Html, flash?: string | null) =>
    res.status(status).type('html').send(csrf.protect(res.req, res, page(title, body, { email: res.locals.account?.email, flash, team: res.locals.account ? allows(res.locals.account.role, 'team_sign_ins') : false })));

  // ---- sign-in -------------------------------------------------------------------------------
  const loginForm = (error: string | null, email = '') => loginPage(error, email, Boolean(oidc));

  router.get('/dashboard/login', (req, res) => send(res, 200, 'Sign in', loginForm(null), req.query.done === 'reset' ? 'Your password was changed: sign in with it.' : null));

  // ---- joining a team: an invited person chooses a password (the link lasts 7 days) -----------
  const teamDeps = () => ({ pool, now: () => clock(deps), publicUrl: config.publicUrl });
  const joinPage = async (res: Response, token: string, status: number, error: string | null) => {
    const invitation = await invitationFor(teamDeps(), token);
    if (!invitation) return send(res, 400, 'Join a team', invitationGonePage());
    send(res, status, 'Join a team', joinView(invitation, token, error));
  };
  router.get('/dashboard/join', (req, res) => joinPage(res, String(req.query.token ?? ''), 200, null));
  router.post('/dashboard/join', ...form, async (req, res) => {
    const token = String((req.body as Record<string, unknown>).token ?? '');
    let joined;
    try {
      joined = await joinTeam(teamDeps(), token, { password: (req.body as Record<string, unknown>).password });
    } catch (error) {
      // Beside the password field, the field's own words (a refused password names no field name).
      const message = error instanceof AffixError && error.status === 400 ? (error.init.fields?.password ?? error.message) : null;
      if (message === null) throw error;
      return joinPage(res, token, 400, message);
    }
    await startSession(pool, res, joined.accountId, secureCookies, clock(deps), joined.memberId);
    res.redirect(303, '/dashboard');
  });
  router.get('/dashboard/login/sso', async (_req, res) => {
    if (!oidc) throw errors.notFound('Single sign-on is not configured');
    const stateValue = randomBytes(24).toString('base64url');
    await startSingleSignOn(pool, stateValue, new Date(clock(deps).getTime() + LOGIN_SESSION_TTL_MS));
    res.redirect(302, await issuerSignInUrl(oidc, `${config.publicUrl}/dashboard/sso/callback`, stateValue));
  });
  router.post('/dashboard/login', ...form, async (req, res) => {
    const { email = '', password = '' } = req.body as Record<string, string>;
    const verdict = await limitedPasswordCheck(pool, res, String(email), clock(deps), () => checkPassword(pool, String(email), String(password)));
    if (verdict.kind === 'limited') return send(res, 429, 'Sign in', loginForm(verdict.message, String(email)));
    if (verdict.kind === 'wrong') return send(res, 401, 'Sign in', loginForm('Wrong email or password.', email));
    if (verdict.kind === 'suspended') return send(res, 403, 'Sign in', loginForm('Your account has been suspended.', email));
    // A new session id at every sign-in; a session the browser already held ends here.
    const previous = req.cookies?.[SESSION_COOKIE];
    if (typeof previous === 'string') await endBrowserSession(pool, previous);
    await startSession(pool, res, verdict.accountId, secureCookies, clock(deps), verdict.memberId);
    res.redirect(303, '/dashboard');
  });
  router.post('/dashboard/logout', ...form, async (req, res) => {
    const token = req.cookies?.[SESSION_COOKIE];
    if (typeof token === 'string') await endBrowserSession(pool, token);
    res.clearCookie(SESSION_COOKIE, { path: '/dashboard' });
    res.redirect(303, '/dashboard/login');
  });

  const accountKit = () => ({ pool, form, listForm, send, scope: (res: Response) => scope(res), now: () => clock(deps), publicUrl: config.publicUrl });
  registerPasswordResetRoutes(router, accountKit());

  router.use('/dashboard', requireAccount(pool));

  // ---- programs ------------------------------------------------------------------------------
  async function home(res: Response, status: number, values: Record<string, unknown>, errs: Record<string, string>) {
    const programs = await accountPrograms(pool, res.locals.account.id);
    send(res, status, 'Programs', programsPage(programs, values, errs));
  }

  router.get('/dashboard', (_req, res) => home(res, 200, {}, {}));

  // ---- the team: members with roles (owners), who is signed in (owners and admins) ------------
  const teamPage = async (req: Request, res: Response, status = 200, errs: Record<string, string> = {}, flash: string | null = null) => {
    const [team, signIns] = await Promise.all([listTeam(teamDeps(), scope(res)), teamSignIns(pool, res.locals.account.id)]);
    send(res, status, 'Team', teamView(team, res.locals.account.memberId === null ? res.locals.account.email : 'the account owner', signIns, res.locals.account.role, errs), flash);
  };
  const TEAM_DONE: Record<string, string> = { invited: 'Invitation sent: the link works for 7 days.', role: 'Role saved.', removed: 'Removed: their sessions ended and their CLI tokens stopped.', ended: 'Their sessions ended and their CLI tokens stopped.' };
  router.get('/dashboard/team', (req, res) => teamPage(req, res, 200, {}, TEAM_DONE[String(req.query.done)] ?? null));
  router.post('/dashboard/team/invite', ...form, async (req, res) => {
    try {
      await inviteMember(teamDeps(), scope(res), req.body, res.locals.account.email);
    } catch (error) {
      return teamPage(req, res, 400, fieldErrors(error, { form: 'email' }));
    }
    res.redirect(303, '/dashboard/team?done=invited');
  });
  router.post('/dashboard/team/:memberId/role', ...form, async (req, res) => {
    try {
      await changeRole(teamDeps(), scope(res), Number(req.params.memberId), req.body);
    } catch (error) {
      return teamPage(req, res, 400, fieldErrors(error, { role: 'email', form: 'email' }));
    }
    res.redirect(303, '/dashboard/team?done=role');
  });
  router.post('/dashboard/team/:memberId/remove', ...form, async (req, res) => {
    await removeFromTeam(teamDeps(), scope(res), Number(req.params.memberId));
    res.redirect(303, '/dashboard/team?done=removed');
  });

  // ---- the person's own sign-ins, mail and password; ending a member's sessions ---------------
  registerAccountRoutes(router, accountKit());
  router.post('/dashboard/programs', ...form, async (req, res) => {
    const body = req.body as Record<string, unknown>;
    let settings;
    try {
      settings = await createProgram(app(), res.locals.account.id, programInput(body), scope(res));
    } catch (error) {
      return home(res, 400, body, fieldErrors(error));
    }
    res.redirect(303, `/dashboard/programs/${settings.id}`);
  });

  const app = (): ManagementDeps => ({ pool, secretBox: deps.secretBox ?? null, now: () => clock(deps), reads: deps.reads });
  /** The signed-in account, acting from this request's address (the audit log records both). */
  const scope = (res: Response): AccountScope => ({
    kind: 'account',
    accountId: res.locals.account.id,
    role: res.locals.account.role,
    actor: { type: 'member', id: String(res.locals.account.memberId ?? `account:${res.locals.account.id}`), label: res.locals.account.email, ip: res.req.ip ?? null },
  });
  const ownProgram = async (req: Request, res: Response): Promise<number> => (await programInScope(app(), scope(res), Number(req.params.id))).id;

  // ---- one program: a page per section -------------------------------------------------------
  async function programPage(req: Request, res: Response, section: ProgramSection, extra: PageExtra = {}) {
    const id = Number(req.params.id);
    const now = clock(deps);
    const heldKey = section === 'keys' ? (extra.newKey ?? takeNewKey(req, res, deps.secretBox ?? null, id)) : null;
    const query = req.query as Record<string, string | undefined>;
    const filter = activityFilter(query, now);
    const requested = Number(query.page);
    const afterOwnWrite = showsOwnWrite(req, now);
    const data = await programPageData({ ...app(), store: deps.store, publicUrl: config.publicUrl }, scope(res), id, section, filter, Number.isSafeInteger(requested) && requested > 0 ? requested : 1, query, afterOwnWrite);
    const people = allows(res.locals.account.role, 'read_people');
    const behind = data.behindSeconds === null ? '' : html`<p class="muted" role="status">Figures may be up to ${data.behindSeconds} s behind.</p>`;
    const body = html`${behind}${programPageBody({ ...data, now, heldKey, extra, filter, publicUrl: config.publicUrl, connectConfigured: Boolean(config.stripeConnect), people })}`;
    const done = DONE[String(query.done)] ?? MONEY_DONE[String(query.done)] ?? PARTNER_DONE[String(query.done)] ?? BRAND_DONE[String(query.done)] ?? (query.done === 'bulk' ? bulkDone(query) : null);
    send(res, extra.status ?? 200, sectionTitle(data.program.name, section), body, extra.status && extra.status >= 400 ? null : done);
  }

  for (const section of PROGRAM_SECTIONS) {
    router.get(section === 'overview' ? '/dashboard/programs/:id' : `/dashboard/programs/:id/${section}`, (req, res) => programPage(req, res, section));
  }

  router.get('/dashboard/programs/:id/activity.csv', async (req, res) => {
    await sendCsv(res, `affix-activity-${req.params.id}.csv`, activityCsv(app(), scope(res), Number(req.params.id), activityFilter(req.query as Record<string, string | undefined>, clock(deps))));
  });

  /** Post, redirect, get: back to the page the form was on, with what was done. */
  const back = (res: Response, id: number, done: string, section: ProgramSection) => res.redirect(303, `${sectionUrl(id, section)}?done=${done}`);

  router.post('/dashboard/programs/:id/settings', ...form, async (req, res) => {
    const id = await ownProgram(req, res);
    const body = req.body as Record<string, unknown>;
    try {
      const input = programInput(body);
      if (!input.name || !input.domain) parseNewProgram(input); // the required-field message
      await updateProgram(app(), scope(res), id, input);
    } catch (error) {
      return programPage(req, res, 'settings', { status: 400, settingsValues: body, settingsErrors: fieldErrors(error) });
    }
    back(res, id, 'settings', 'settings');
  });

  router.post('/dashboard/programs/:id/links', ...form, async (req, res) => {
    const id = await ownProgram(req, res);
    try {
      await createLink(app(), scope(res), id, req.body);
    } catch (error) {
      const fields = fieldErrors(error, { partner_id: 'link_partner' });
      return programPage(req, res, 'links', { status: (error as { status: number }).status, fieldErrors: fields });
    }
    back(res, id, 'link', 'links');
  });

  router.post('/dashboard/programs/:id/links/:linkId/toggle', ...form, async (req, res) => {
    const id = await ownProgram(req, res);
    await setLinkEnabled(app(), scope(res), Number(req.params.linkId), (req.body as Record<string, string>).enabled === 'true', id);
    back(res, id, 'toggled', 'links');
  });

  /** Post, redirect, get: the new key is shown once by the page the browser is sent to. */
  const showKeyOnce = (res: Response, id: number, apiKey: string) => {
    if (!deps.secretBox) return void programPage(res.req, res, 'keys', { newKey: apiKey });
    holdNewKey(res, deps.secretBox, id, apiKey, secureCookies);
    back(res, id, 'key', 'keys');
  };

  // Regenerating revokes the live key at once: a page says so and asks before it happens.
  router.get('/dashboard/programs/:id/keys/:keyId/regenerate', async (req, res) => {
    const id = await ownProgram(req, res);
    const keyId = Number(req.params.keyId);
    const key = (await listKeys(app(), scope(res), id)).find((k) => k.id === keyId && !k.revoked_at);
    if (!key) throw errors.notFound('API key not found');
    send(res, 200, 'Regenerate API key', regenerateKeyPage(id, key));
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
      await programPage(req, res, 'keys', { status: 409, error: 'That key was already revoked.' });
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
      return programPage(req, res, 'keys', { status: 400, fieldErrors: { [`rotate_by_${req.params.keyId}`]: 'Choose a date in the future.' } });
    }
    back(res, id, 'rotation', 'keys');
  });

  router.post('/dashboard/programs/:id/processors/:processor', ...form, async (req, res) => {
    const id = await ownProgram(req, res);
    const processor = String(req.params.processor);
    if (!isConnectedProcessor(processor)) throw errors.notFound('There is no such page');
    const body = req.body as Record<string, string>;
    const secret = String(body.webhook_secret ?? '').trim();
    try {
      await setProcessorSettings({ ...app(), publicUrl: config.publicUrl }, scope(res), id, processor, { ...(secret ? { webhook_secret: secret } : {}), ...(processor === 'paddle' ? { sandbox: body.sandbox === 'true' } : {}) });
    } catch (error) {
      return programPage(req, res, processor, { status: 400, fieldErrors: fieldErrors(error) });
    }
    back(res, id, processor, processor);
  });

  // The signing secret of the brand's own endpoint proves ownership by itself. A Connect account
  // is bound only through Stripe's OAuth (below), never by typing its id.
  router.post('/dashboard/programs/:id/stripe', ...form, async (req, res) => {
    const id = await ownProgram(req, res);
    const secret = String((req.body as Record<string, string>).webhook_secret ?? '').trim();
    try {
      if (!secret) throw errors.invalid('Paste the signing secret', { webhook_secret: 'Paste the signing secret (whsec_…) of this endpoint in Stripe: nothing was saved.' });
      await setStripeSettings(app(), scope(res), id, { webhook_secret: secret });
    } catch (error) {
      return programPage(req, res, 'stripe', { status: 400, fieldErrors: fieldErrors(error) });
    }
    back(res, id, 'stripe', 'stripe');
  });

  // ---- set-up: the currencies a program takes (a program setting, docs/architecture.md, "Currencies") ---------
  router.post('/dashboard/programs/:id/setup/currencies', ...form, async (req, res) => {
    const id = await ownProgram(req, res);
    const choice = String((req.body as Record<string, unknown>).currencies ?? '');
    try {
      if (choice !== 'all' && choice !== 'contract') throw errors.invalid('Choose which currencies to take', { currencies: 'Choose which currencies to take.' });
      await updateProgram(app(), scope(res), id, { accept_all_currencies: choice === 'all' });
    } catch (error) {
      return programPage(req, res, 'setup', { status: 400, fieldErrors: fieldErrors(error) });
    }
    res.redirect(303, `${sectionUrl(id, 'setup')}?done=currencies#currencies`);
  });

  // ---- set-up: test events through the real pipeline, and what they recorded -------------------
  const intake = { pool, inbox: inboxWriter(pool), secrets: secretCache(), secretBox: deps.secretBox ?? null, connectSecret: null, retentionDays: config.webhookRetentionDays };
  router.post('/dashboard/programs/:id/setup/test', ...form, async (req, res) => {
    const id = await ownProgram(req, res);
    const kind = String((req.body as Record<string, unknown>).kind ?? '');
    const setupDeps = { ...app(), store: deps.store };
    try {
      if (kind === 'webhook') {
        if (!deps.queue) throw new AffixError(503, 'Webhook intake is not running on this instance');
        return programPage(req, res, 'setup', { testOutcome: await sendTestStripeEvent({ ...setupDeps, intake }, scope(res), id) });
      }
      if (kind !== 'click' && kind !== 'lead' && kind !== 'sale') throw errors.invalid('Choose a test to send', { test_webhook: 'Choose a test to send.' });
      return programPage(req, res, 'setup', { testOutcome: await sendTestEvent(setupDeps, scope(res), id, kind) });
    } catch (error) {
      return programPage(req, res, 'setup', { status: (error as { status?: number }).status ?? 500, fieldErrors: fieldErrors(error, { form: 'test_webhook' }) });
    }
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
      scope(res),
    );
    back(res, connected.programId, 'connected', 'stripe');
  });

  router.post('/dashboard/programs/:id/events/:eventId/replay', ...form, async (req, res) => {
    const id = await ownProgram(req, res);
    const enqueue = deps.queue ? stripeEventEnqueuer(deps.queue) : null;
    await replayEvent({ ...app(), enqueue }, scope(res), Number(req.params.eventId), id);
    back(res, id, 'replayed', 'inbox');
  });

  const kit = {
    form,
    listForm,
    app,
    hooks: () => ({ ...app(), outbound: config.outbound }),
    stripeSecretKey: config.stripeSecretKey,
    portal: () => ({ ...app(), mailer: deps.mailer, publicUrl: config.publicUrl }),
    scope,
    ownProgram,
    programPage,
    back,
  };
  registerMoneyRoutes(router, kit);
  registerPartnerRoutes(router, { ...kit, send, csrfBeforeBody: csrf.checkBeforeBody, publicUrl: config.publicUrl });
  registerStatementDetailsRoutes(router, { ...kit, send });
  registerBrandRoutes(router, { ...kit, send, csrfBeforeBody: csrf.checkBeforeBody, publicUrl: config.publicUrl });
  registerDomainsRoutes(router, { ...kit, send, publicUrl: config.publicUrl, hosts: deps.hosts });
  registerMailPreviewsRoutes(router, { ...kit, send, publicUrl: config.publicUrl });

  // A dashboard address that does not exist: a page that says so (a browser asked), not JSON.
  router.use('/dashboard', () => {
    throw errors.notFound('There is no such page');
  });

  // People get pages, not JSON: refusals and our own failures (logged, with the reference to quote) as HTML.
  router.use('/dashboard', (thrown: unknown, _req: Request, res: Response, next: (error: unknown) => void) => {
    if (res.headersSent) return next(thrown);
    const error = toAffixError(thrown, res, '50kb');
    logFailure(res, deps.logger, thrown, error);
    if (error.status === 503) res.setHeader('Retry-After', String(UNAVAILABLE_RETRY_SECONDS));
    const words = error.status === 500 ? failureInWords(res) : error.message;
    send(res, error.status, PAGE_TITLES[error.status] ?? 'Not allowed', errorPage(words, { href: '/dashboard', words: 'Back to your programs' }));
  });
  return unguarded;
}
