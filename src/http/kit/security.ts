// Browser-facing pages (dashboard, CLI sign-in): CSRF tokens on every form (csrf-csrf, double
// submit bound to the session), a Sec-Fetch-Site / Origin check, and security headers (helmet:
// CSP with the hashes of our one inline style and script, frame-ancestors 'none').
import { createHash, randomBytes } from 'node:crypto';
import { doubleCsrf } from 'csrf-csrf';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import helmet from 'helmet';
import { errors } from '../../core/errors.js';
import { INLINE_SCRIPT, INLINE_STYLE } from './html.js';

export const CSRF_FIELD = '_csrf';

const hash = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

export function pageHeaders(): RequestHandler {
  return helmet({
    contentSecurityPolicy: {
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'", hash(INLINE_SCRIPT)],
        // SVG charts carry presentation style attributes.
        styleSrc: ["'self'", "'unsafe-inline'"],
        frameAncestors: ["'none'"],
        formAction: ["'self'", 'https:'],
        upgradeInsecureRequests: null,
      },
    },
    frameguard: { action: 'deny' },
    // Not helmet's no-referrer: with it, browsers send `Origin: null` on form posts, which the
    // origin check rightly refuses.
    referrerPolicy: { policy: 'same-origin' },
  });
}

export interface CsrfGuard {
  /** Checks the posted token (after the form body is parsed). */
  check: RequestHandler;
  /**
   * Checks the token of an upload before its body is read: from the query string (the form's
   * action URL, which works without JavaScript) or an `X-CSRF-Token` header, never the body.
   */
  checkBeforeBody: RequestHandler;
  /** Puts a hidden token field into every POST form of a page; an upload form's action URL carries it instead. */
  protect(req: Request, res: Response, html: string): string;
}

/**
 * Double-submit tokens bound to the dashboard session (or to "anonymous" on the sign-in page).
 * The secret is AFFIX_SECRET_KEY, shared by every instance; without one, each process makes its
 * own (forms then work only against the instance that served them: set the key in production).
 */
export function csrfGuard(options: { secret: string | undefined; sessionCookie: string; secure: boolean; cookieName?: string }): CsrfGuard {
  const secret = options.secret ?? randomBytes(32).toString('base64url');
  // One token, one cookie: two readers of where the request carries it.
  const shared = {
    getSecret: () => secret,
    getSessionIdentifier: (req: Request) => (typeof req.cookies?.[options.sessionCookie] === 'string' ? req.cookies[options.sessionCookie] : 'anonymous'),
    cookieName: `${options.secure ? '__Host-' : ''}${options.cookieName ?? 'affix_csrf'}`,
    cookieOptions: { sameSite: 'lax', path: '/', secure: options.secure, httpOnly: true },
    errorConfig: { statusCode: 403, message: 'This form expired or did not come from this site. Reload the page and try again.' },
  } as const;
  const inBody = doubleCsrf({ ...shared, getCsrfTokenFromRequest: (req) => (typeof req.body?.[CSRF_FIELD] === 'string' ? req.body[CSRF_FIELD] : undefined) });
  const beforeBody = doubleCsrf({
    ...shared,
    getCsrfTokenFromRequest: (req) => {
      const inQuery = req.query?.[CSRF_FIELD];
      const inHeader = req.headers['x-csrf-token'];
      return typeof inQuery === 'string' ? inQuery : typeof inHeader === 'string' ? inHeader : undefined;
    },
  });
  return {
    check: inBody.doubleCsrfProtection,
    checkBeforeBody: beforeBody.doubleCsrfProtection,
    protect(req, res, html) {
      if (!html.includes('method="post"')) return html;
      const token = inBody.generateCsrfToken(req, res);
      return html.replace(/<form\b[^>]*method="post"[^>]*>/g, (tag) =>
        tag.includes('enctype="multipart/form-data"')
          ? tag.replace(/action="([^"]*)"/, (_all, action: string) => `action="${action}${action.includes('?') ? '&amp;' : '?'}${CSRF_FIELD}=${token}"`)
          : `${tag}<input type="hidden" name="${CSRF_FIELD}" value="${token}">`,
      );
    },
  };
}

/**
 * Defence in depth beside the token: browsers say where a request comes from. A cross-site
 * fetch metadata header, an `Origin` of another site, `null` or garbage: refused.
 */
export function sameOriginPosts(publicUrl: string) {
  const own = new URL(publicUrl).origin;
  return (req: Request, _res: Response, next: NextFunction) => {
    if (req.method !== 'POST') return next();
    const site = req.headers['sec-fetch-site'];
    if (site === 'cross-site' || site === 'same-site') throw errors.forbidden('Cross-site form post refused');
    const origin = req.headers.origin;
    const host = req.headers.host;
    if (origin && origin !== own && !(host && hostOf(origin) === host)) throw errors.forbidden('Cross-site form post refused');
    next();
  };
}

/** `Origin: null` (sandboxed frames, some redirects) and garbage have no host: cross-site. */
function hostOf(origin: string): string | null {
  try {
    return new URL(origin).host || null;
  } catch {
    return null;
  }
}
