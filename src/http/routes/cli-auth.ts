// CLI login: start, callback, poll (spec §3, §4.6), and the sign-in page behind auth_url.
import express, { type Request, type Response, Router } from 'express';
import { CLI_MESSAGES, confirmationCode } from '../../core/cli-login.js';
import { AffixError, errors } from '../../core/errors.js';
import { completeCliLogin, pollCliLogin, revokeCliLogin, startCliLogin } from '../../app/accounts/cli-sign-in.js';
import { checkPassword } from '../../app/programs/dashboard-pages.js';
import { type IdTokenConfig, createIdTokenVerifier, issueLocalIdToken, issuerSignInUrl } from '../../platform/id-tokens.js';
import { formBody } from '../input-guard.js';
import { limitedPasswordCheck } from '../sign-in-limit.js';
import { pageHeaders } from '../kit/security.js';
import { readBearer } from '../auth.js';
import { failsWith } from '../context.js';
import { type HttpDeps, clock } from '../deps.js';

export const cliFailure = (text: string) => (requestId: string) =>
  new AffixError(500, `${text} (request_id: ${requestId})`, { details: { request_id: requestId } });


export function cliAuthRoutes(deps: HttpDeps): Router {
  const router = Router();
  const idTokens: IdTokenConfig = { publicUrl: deps.config.publicUrl, secretKey: deps.config.secretKey, oidc: deps.config.oidc };
  const verifyIdToken = createIdTokenVerifier(idTokens);

  const signIn = () => ({ pool: deps.pool, now: () => clock(deps) });

  /** Completes a pending session with a verified id_token; the same path for the API and the page. */
  async function completeLogin(stateValue: string, idToken: string, nonce?: string): Promise<{ email: string }> {
    let claims;
    try {
      claims = await verifyIdToken(idToken, nonce);
    } catch (error) {
      throw errors.unauthorized(`Invalid id_token: ${(error as Error).message}`);
    }
    return completeCliLogin(signIn(), stateValue, claims);
  }

  // `affix logout`: the token stops working on the server at once, not only on the laptop.
  router.post('/api/v1/cli/auth/logout', failsWith(cliFailure('Failed to log out')), async (req, res) => {
    const bearer = readBearer(req);
    if (bearer.kind !== 'token') throw errors.unauthorized(CLI_MESSAGES.programsAuthRequired);
    res.json({ data: { revoked: await revokeCliLogin(signIn(), bearer.token) } });
  });

  router.post('/api/v1/cli/auth/start', failsWith(cliFailure('Failed to start auth session')), async (_req, res) => {
    const { state, expiresAt } = await startCliLogin(signIn());
    const base = deps.config.publicUrl;
    res.status(200).json({
      data: {
        state,
        auth_url: `${base}/cli/login?state=${encodeURIComponent(state)}`,
        expires_at: expiresAt.toISOString(),
        poll_url: `${base}/api/v1/cli/auth/poll?state=${encodeURIComponent(state)}`,
      },
    });
  });

  router.post('/api/v1/cli/auth/callback', failsWith(cliFailure('Auth callback failed')), async (req, res) => {
    const { state: stateValue, id_token: idToken } = req.body as Record<string, unknown>;
    if (typeof stateValue !== 'string' || !stateValue || typeof idToken !== 'string' || !idToken) {
      throw errors.badRequest(CLI_MESSAGES.missingCallbackFields);
    }
    const { email } = await completeLogin(stateValue, idToken);
    res.json({ data: { status: 'signed_in', email } });
  });

  router.get('/api/v1/cli/auth/poll', failsWith(cliFailure('Failed to poll auth session')), async (req, res) => {
    const stateValue = req.query.state;
    if (typeof stateValue !== 'string' || !stateValue) throw errors.badRequest(CLI_MESSAGES.missingState);
    res.json({ data: await pollCliLogin(signIn(), stateValue) });
  });

  // The page auth_url opens. With an OpenID Connect issuer: a redirect there (implicit flow,
  // form_post), whose id_token comes back to /cli/oidc/callback. Otherwise: local sign-in.
  router.use(['/cli/login', '/cli/oidc'], pageHeaders());
  router.get('/cli/login', async (req, res) => {
    const stateValue = typeof req.query.state === 'string' ? req.query.state : '';
    if (!deps.config.oidc) return void res.type('html').send(loginPage(stateValue, null));
    res.redirect(302, await issuerSignInUrl(deps.config.oidc, `${deps.config.publicUrl}/cli/oidc/callback`, stateValue));
  });
  router.post('/cli/oidc/callback', ...formBody('20kb'), async (req: Request, res: Response) => {
    const { state: stateValue = '', id_token: idToken = '', error: issuerError } = req.body as Record<string, string>;
    if (issuerError) return void res.status(400).type('html').send(page('Sign-in failed', `<p class="error" role="alert">${escapeHtml(String(issuerError))}</p>`));
    try {
      await completeLogin(String(stateValue), String(idToken), String(stateValue));
    } catch (error) {
      if (!(error instanceof AffixError)) throw error;
      return void res.status(error.status).type('html').send(page('Sign-in failed', `<p class="error" role="alert">${escapeHtml(error.message)}</p>`));
    }
    res.type('html').send(signedInPage());
  });
  router.post('/cli/login', ...formBody('10kb'), async (req: Request, res: Response) => {
    const { state: stateValue = '', email = '', password = '' } = req.body as Record<string, string>;
    const fail = (status: number, message: string) => res.status(status).type('html').send(loginPage(stateValue, message));
    const verdict = await limitedPasswordCheck(deps.pool, res, String(email), clock(deps), () => checkPassword(deps.pool, String(email), String(password)));
    if (verdict.kind === 'limited') return fail(429, verdict.message);
    if (verdict.kind === 'wrong') return fail(401, 'Wrong email or password.');
    if (verdict.kind === 'suspended') return fail(403, errors.accountBlocked().message);
    try {
      await completeLogin(String(stateValue), await issueLocalIdToken(idTokens, verdict.email));
    } catch (error) {
      if (error instanceof AffixError) return fail(error.status, error.message);
      throw error;
    }
    res.type('html').send(signedInPage());
  });
  return router;
}

const signedInPage = () => page('Signed in', '<p role="status">You are signed in. Return to your terminal: <code>affix</code> finishes on its own.</p>');

const escapeHtml = (value: string) =>
  value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · Affix</title>
<style>body{font-family:system-ui,sans-serif;max-width:24rem;margin:4rem auto;padding:0 1rem}label{display:block;margin-top:1rem}
input{width:100%;padding:.5rem;font-size:1rem}button{margin-top:1.5rem;padding:.6rem 1.2rem;font-size:1rem}.error{color:#b00020}</style>
</head><body><h1>${escapeHtml(title)}</h1>${body}</body></html>`;
}

function loginPage(stateValue: string, error: string | null): string {
  return page(
    'Sign in to Affix',
    `${error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : ''}
<p>Signing in here lets the <code>affix</code> command that showed you this link manage your programs (create programs and API keys, read their status) for 30 days.</p>
<p>Confirm that your terminal shows <strong class="code">${confirmationCode(stateValue)}</strong>. If it does not, or you did not just run <code>affix login</code>, close this page: someone else is asking for access.</p>
<form method="post" action="/cli/login">
<input type="hidden" name="state" value="${escapeHtml(stateValue)}">
<label for="email">Email</label><input id="email" name="email" type="email" autocomplete="username" required autofocus>
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit">Sign in</button>
</form>
<p><a href="/dashboard/password/forgot">Forgot password?</a></p>`,
  );
}
