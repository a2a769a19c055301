// Dashboard sign-in: the same accounts and passwords as the CLI's sign-in page; the session
// lives in PostgreSQL and the browser holds only a random token (HttpOnly, SameSite=Lax).
import type { NextFunction, Request, Response } from 'express';
import { dashboardAccount, openDashboardSession } from '../../app/accounts/access.js';
import type { Pool } from '../../db/infra/pool.js';
import type { SecretBox } from '../../platform/secret-box.js';

export const SESSION_COOKIE = 'affix_dashboard';

export async function startSession(pool: Pool, res: Response, accountId: number, secure: boolean, now: Date, memberId: number | null = null): Promise<void> {
  const { token, ttlMs } = await openDashboardSession(pool, accountId, now, memberId);
  res.cookie(SESSION_COOKIE, token, { httpOnly: true, sameSite: 'lax', secure, path: '/dashboard', maxAge: ttlMs });
}

/** Loads the signed-in account, or sends the browser to the sign-in page. */
export function requireAccount(pool: Pool) {
  return async (req: Request, res: Response, next: NextFunction) => {
    const token = req.cookies?.[SESSION_COOKIE];
    const account = typeof token === 'string' ? await dashboardAccount(pool, token) : null;
    if (!account) return void res.redirect(303, '/dashboard/login');
    // Signed-in pages hold a brand's data: never kept by a browser or a shared cache.
    res.setHeader('Cache-Control', 'no-store');
    res.locals.account = account;
    next();
  };
}

/**
 * A new API key must be shown exactly once, yet a reload must not create another (post,
 * redirect, get). The key travels through the redirect sealed in a cookie scoped to the
 * program's page, lives two minutes, and is cleared by the page that shows it.
 */
const NEW_KEY_COOKIE = 'affix_new_key';

export function holdNewKey(res: Response, box: SecretBox, programId: number, apiKey: string, secure: boolean): void {
  res.cookie(NEW_KEY_COOKIE, box.seal(apiKey), { httpOnly: true, sameSite: 'strict', secure, path: `/dashboard/programs/${programId}`, maxAge: 120_000 });
}

export function takeNewKey(req: Request, res: Response, box: SecretBox | null, programId: number): string | null {
  const sealed = req.cookies?.[NEW_KEY_COOKIE];
  if (typeof sealed !== 'string' || !box) return null;
  res.clearCookie(NEW_KEY_COOKIE, { path: `/dashboard/programs/${programId}` });
  try {
    return box.open(sealed);
  } catch {
    return null; // sealed with another secret key: nothing to show
  }
}
