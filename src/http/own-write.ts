// Whether a page shows the caller's own write: the page a form redirects to (`?done=…`), a
// form's own answer (not a GET), or any page for a short while after the caller's last form
// post (a cookie: the program a form has just created is found on its every page, whichever
// instance answers). Such pages read the primary (src/app/reads/read-side.ts); others may read a replica.
import type { NextFunction, Request, Response } from 'express';

const OWN_WRITE_COOKIE = 'affix_own_write';

/** How long after a form post the caller's pages read the primary: longer than a healthy replica's lag. */
export const OWN_WRITE_WINDOW_MS = 30_000;

/**
 * Marks the caller as having just written (placed after a form's checks, before its handler):
 * until when their pages read the primary. Only the caller's own reads move: the cookie is
 * theirs, and forging it only sends their reads to the primary, as `?done=` does.
 */
export const markOwnWrite = (path: string, secure: boolean, now: () => Date) => (_req: Request, res: Response, next: NextFunction) => {
  res.cookie(OWN_WRITE_COOKIE, String(now().getTime() + OWN_WRITE_WINDOW_MS), { httpOnly: true, sameSite: 'lax', secure, path, maxAge: OWN_WRITE_WINDOW_MS });
  next();
};

export const showsOwnWrite = (req: Request, now: Date): boolean =>
  (req.query as Record<string, unknown>).done !== undefined || req.method !== 'GET' || Number(req.cookies?.[OWN_WRITE_COOKIE]) > now.getTime();
