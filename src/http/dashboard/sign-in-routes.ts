// Signing in to the dashboard: email and password, single sign-on through the same OpenID Connect
// issuer as the CLI, and signing out. A new session id at every sign-in.
import { randomBytes } from 'node:crypto';
import type { Router } from 'express';
import { errors } from '../../core/errors.js';
import { LOGIN_SESSION_TTL_MS } from '../../core/cli-login.js';
import { createIdTokenVerifier, issuerSignInUrl } from '../../platform/id-tokens.js';
import { checkPassword, endBrowserSession, finishSingleSignOn, startSingleSignOn } from '../../app/programs/dashboard-pages.js';
import { formBody } from '../input-guard.js';
import { limitedPasswordCheck } from '../sign-in-limit.js';
import { loginPage } from './account-pages.js';
import type { DashboardKit } from './route-kit.js';
import { SESSION_COOKIE, startSession } from './session.js';

const loginForm = (kit: DashboardKit, error: string | null, email = '') => loginPage(error, email, Boolean(kit.deps.config.oidc));

/**
 * The single sign-on callback. The state is a 5-minute login session in PostgreSQL (any instance
 * can finish it); the issuer posts the id_token back cross-site, so this route is registered
 * before the same-origin check.
 */
export function registerSingleSignOnCallback(router: Router, kit: DashboardKit): void {
  const { pool, config } = kit.deps;
  const oidc = config.oidc;
  const verifyIdToken = oidc ? createIdTokenVerifier({ publicUrl: config.publicUrl, secretKey: config.secretKey, oidc }) : null;
  router.post('/dashboard/sso/callback', ...formBody('20kb'), async (req, res) => {
    const { state: stateValue = '', id_token: idToken = '' } = req.body as Record<string, string>;
    if (!verifyIdToken) throw errors.notFound('Single sign-on is not configured');
    const fail = (status: number, message: string) => kit.send(res, status, 'Sign in', loginForm(kit, message));
    let claims;
    try {
      claims = await verifyIdToken(String(idToken), String(stateValue));
    } catch (error) {
      return fail(401, `Sign-in failed: ${(error as Error).message}`);
    }
    const accountId = await finishSingleSignOn(pool, String(stateValue), claims, kit.now());
    if (!accountId) return fail(400, 'This sign-in link expired or was already used. Try again.');
    if (accountId.suspended) return fail(403, 'Your account has been suspended.');
    await startSession(pool, res, accountId.id, kit.secureCookies, kit.now());
    res.redirect(303, '/dashboard');
  });
}

export function registerSignInRoutes(router: Router, kit: DashboardKit): void {
  const { pool, config } = kit.deps;
  const { send, form } = kit;
  const oidc = config.oidc;
  router.get('/dashboard/login', (req, res) => send(res, 200, 'Sign in', loginForm(kit, null), req.query.done === 'reset' ? 'Your password was changed: sign in with it.' : null));
  router.get('/dashboard/login/sso', async (_req, res) => {
    if (!oidc) throw errors.notFound('Single sign-on is not configured');
    const stateValue = randomBytes(24).toString('base64url');
    await startSingleSignOn(pool, stateValue, new Date(kit.now().getTime() + LOGIN_SESSION_TTL_MS));
    res.redirect(302, await issuerSignInUrl(oidc, `${config.publicUrl}/dashboard/sso/callback`, stateValue));
  });
  router.post('/dashboard/login', ...form, async (req, res) => {
    const { email = '', password = '' } = req.body as Record<string, string>;
    const verdict = await limitedPasswordCheck(pool, res, String(email), kit.now(), () => checkPassword(pool, String(email), String(password)));
    if (verdict.kind === 'limited') return send(res, 429, 'Sign in', loginForm(kit, verdict.message, String(email)));
    if (verdict.kind === 'wrong') return send(res, 401, 'Sign in', loginForm(kit, 'Wrong email or password.', email));
    if (verdict.kind === 'suspended') return send(res, 403, 'Sign in', loginForm(kit, 'Your account has been suspended.', email));
    // A new session id at every sign-in; a session the browser already held ends here.
    const previous = req.cookies?.[SESSION_COOKIE];
    if (typeof previous === 'string') await endBrowserSession(pool, previous);
    await startSession(pool, res, verdict.accountId, kit.secureCookies, kit.now(), verdict.memberId);
    res.redirect(303, '/dashboard');
  });
  router.post('/dashboard/logout', ...form, async (req, res) => {
    const token = req.cookies?.[SESSION_COOKIE];
    if (typeof token === 'string') await endBrowserSession(pool, token);
    res.clearCookie(SESSION_COOKIE, { path: '/dashboard' });
    res.redirect(303, '/dashboard/login');
  });
}
