// A person's own things (docs/team.md): their sign-ins page (mail, password, their own CLI tokens
// and sessions), a forgotten password (public), and ending a member's sessions from the team page.
import type { Request, RequestHandler, Response, Router } from 'express';
import { mailPreferences, saveMailPreferences } from '../../app/outbound/mail.js';
import { type PasswordDeps, changePassword, checkOwnPassword, requestPasswordReset, resetLinkOpen, resetPassword } from '../../app/accounts/passwords.js';
import { endOwnSession, endSignInsOfPerson, ownSignIns, revokeOwnCliToken } from '../../app/accounts/sign-ins.js';
import type { Scope } from '../../app/accounts/scope.js';
import { countPasswordResetRequest } from '../../app/accounts/access.js';
import type { Person } from '../../db/accounts/sign-ins.js';
import type { Pool } from '../../db/infra/pool.js';
import { limitSignIn, limitedPasswordCheck } from '../sign-in-limit.js';
import { signInsPage } from './account-pages.js';
import { forgotPasswordPage, resetGonePage, resetPasswordPage } from './password-pages.js';
import { fieldErrors } from '../kit/forms.js';
import type { Html } from '../kit/html.js';
import { SESSION_COOKIE } from './session.js';

export interface AccountRouteKit {
  pool: Pool;
  form: RequestHandler[];
  /** A form whose named fields are lists (ticked boxes of one name). */
  listForm: (...lists: string[]) => RequestHandler[];
  send: (res: Response, status: number, title: string, body: Html, flash?: string | null) => void;
  scope: (res: Response) => Scope;
  now: () => Date;
  publicUrl: string;
}

const ACCOUNT_DONE: Record<string, string> = { revoked: 'Revoked.', mail: 'Mail settings saved.', password: 'Password changed: your other sessions and your CLI tokens ended.' };

const personOf = (res: Response): Person => ({ accountId: res.locals.account.id, memberId: res.locals.account.memberId });
const sessionToken = (req: Request): string | null => (typeof req.cookies?.[SESSION_COOKIE] === 'string' ? req.cookies[SESSION_COOKIE] : null);

/** Forgot password: before sign-in. */
export function registerPasswordResetRoutes(router: Router, kit: AccountRouteKit): void {
  const { form, send } = kit;
  const deps = (): PasswordDeps => ({ pool: kit.pool, now: kit.now, publicUrl: kit.publicUrl });
  router.get('/dashboard/password/forgot', (_req, res) => send(res, 200, 'Reset your password', forgotPasswordPage({}, false)));
  const limit = limitSignIn(kit.pool, (_req, res, message) => send(res, 429, 'Reset your password', forgotPasswordPage({ form: message }, false)), kit.now, countPasswordResetRequest);
  router.post('/dashboard/password/forgot', ...form, limit, async (req, res) => {
    try {
      await requestPasswordReset(deps(), { email: (req.body as Record<string, unknown>).email }, req.ip ?? null);
    } catch (error) {
      return send(res, 400, 'Reset your password', forgotPasswordPage(fieldErrors(error), false, String((req.body as Record<string, unknown>).email ?? '')));
    }
    send(res, 200, 'Reset your password', forgotPasswordPage({}, true));
  });
  router.get('/dashboard/password/reset', async (req, res) => {
    const token = String(req.query.token ?? '');
    if (!(await resetLinkOpen(deps(), token))) return send(res, 400, 'Reset your password', resetGonePage());
    send(res, 200, 'Reset your password', resetPasswordPage(token, {}));
  });
  router.post('/dashboard/password/reset', ...form, async (req, res) => {
    const body = req.body as Record<string, unknown>;
    const token = String(body.token ?? '');
    try {
      await resetPassword(deps(), token, { password: body.password }, req.ip ?? null);
    } catch (error) {
      const errs = fieldErrors(error);
      if (errs.password) return send(res, 400, 'Reset your password', resetPasswordPage(token, errs));
      return send(res, 400, 'Reset your password', resetGonePage());
    }
    // The browser's own session (if any) ended with the others: sign in with the new password.
    res.clearCookie(SESSION_COOKIE, { path: '/dashboard' });
    res.redirect(303, '/dashboard/login?done=reset');
  });
}

/** The signed-in person's page and the team page's "End sessions". */
export function registerAccountRoutes(router: Router, kit: AccountRouteKit): void {
  const { form, send, scope, pool } = kit;
  const deps = { pool, now: kit.now };
  const accountPage = async (req: Request, res: Response, status = 200, passwordErrors: Record<string, string> = {}) => {
    const { cliTokens, sessions } = await ownSignIns(pool, personOf(res), sessionToken(req));
    const mails = await mailPreferences(pool, res.locals.account.email, 'manager');
    const flash = status === 200 ? (ACCOUNT_DONE[String(req.query.done)] ?? null) : null;
    send(res, status, 'Sign-ins', signInsPage(res.locals.account.email, mails, cliTokens, sessions, passwordErrors), flash);
  };
  router.get('/dashboard/account', (req, res) => accountPage(req, res));
  router.post('/dashboard/account/mail', ...kit.listForm('on'), async (req, res) => {
    await saveMailPreferences(pool, res.locals.account.email, 'manager', ([] as unknown[]).concat((req.body as Record<string, unknown>).on ?? []).map(String));
    res.redirect(303, '/dashboard/account?done=mail');
  });
  router.post('/dashboard/account/tokens/:tokenId/revoke', ...form, async (req, res) => {
    await revokeOwnCliToken(deps, scope(res), personOf(res), Number(req.params.tokenId));
    res.redirect(303, '/dashboard/account?done=revoked');
  });
  router.post('/dashboard/account/sessions/:sessionId/revoke', ...form, async (req, res) => {
    await endOwnSession(deps, scope(res), personOf(res), Number(req.params.sessionId));
    res.redirect(303, '/dashboard/account?done=revoked');
  });
  router.post('/dashboard/account/password', ...form, async (req, res) => {
    const body = req.body as Record<string, unknown>;
    const person = personOf(res);
    // The current password is checked behind the same limits as a sign-in: a stolen session cannot guess it.
    const verdict = await limitedPasswordCheck(pool, res, res.locals.account.email, kit.now(), () => checkOwnPassword(pool, person, String(body.current_password ?? '')));
    if (verdict.kind === 'limited') return accountPage(req, res, 429, { form: verdict.message });
    if (verdict.kind === 'wrong') return accountPage(req, res, 400, { current_password: 'This is not your current password.' });
    try {
      await changePassword({ pool, now: kit.now, publicUrl: kit.publicUrl }, person, scope(res).actor!, { password: body.password }, sessionToken(req));
    } catch (error) {
      return accountPage(req, res, 400, fieldErrors(error));
    }
    res.redirect(303, '/dashboard/account?done=password');
  });
  router.post('/dashboard/team/:memberId/sign-ins/end', ...form, async (req, res) => {
    await endSignInsOfPerson(deps, scope(res) as Scope & { kind: 'account' }, res.locals.account.role, String(req.params.memberId));
    res.redirect(303, '/dashboard/team?done=ended');
  });
}
