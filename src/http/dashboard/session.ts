// Dashboard sign-in: the same accounts and passwords as the CLI's sign-in page; the session
// lives in PostgreSQL and the browser holds only a random token (HttpOnly, SameSite=Lax).
import { randomBytes } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import { createDashboardSession, dashboardSessionAccount } from '../../db/dashboard.js';
import type { Pool } from '../../db/pool.js';

export const SESSION_COOKIE = 'affix_dashboard';
const SESSION_TTL_MS = 12 * 3600_000;

export async function startSession(pool: Pool, res: Response, accountId: number, secure: boolean): Promise<void> {
  const token = randomBytes(32).toString('base64url');
  await createDashboardSession(pool, token, accountId, new Date(Date.now() + SESSION_TTL_MS));
  res.cookie(SESSION_COOKIE, token, { httpOnly: true, sameSite: 'lax', secure, path: '/dashboard', maxAge: SESSION_TTL_MS });
}

/** Loads the signed-in account, or sends the browser to the sign-in page. */
export function requireAccount(pool: Pool) {
  return async (req: Request, res: Response, next: NextFunction) => {
    const token = req.cookies?.[SESSION_COOKIE];
    const account = typeof token === 'string' ? await dashboardSessionAccount(pool, token) : null;
    if (!account) return void res.redirect(303, '/dashboard/login');
    res.locals.account = account;
    next();
  };
}
