// CORS for the two browser routes (click, browser-mode lead). The browser is let in only for
// origins some program lists; the core then refuses origins the link's own program does not list.
// The tracker names its program in the query (`?program_id=`): a preflight from an origin that
// program does not list is kept as the program's last refusal, which its set-up checklist shows
// (the answer is the same either way, so nobody learns another program's origins from it).
import type { NextFunction, Request, Response } from 'express';
import type { Pool } from '../db/infra/pool.js';
import { noteTrackerOrigin, originListed } from '../app/accounts/access.js';

const EXPOSED = 'X-Request-ID, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After';

/** The answer depends on the Origin header (caches must key on it). */
function varyOnOrigin(res: Response): void {
  const current = res.getHeader('Vary');
  if (current === undefined) res.setHeader('Vary', 'Origin');
  else if (!/(^|,)\s*(origin|\*)\s*(,|$)/i.test(String(current))) res.setHeader('Vary', `${String(current)}, Origin`);
}

export function browserCors(pool: Pool, now: () => Date = () => new Date()) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    if (await answerBrowserCors(pool, req, res, now)) next();
  };
}

/** The CORS headers for the request's origin; a preflight is answered here (false: nothing more to do). */
export async function answerBrowserCors(pool: Pool, req: Pick<Request, 'method' | 'headers'> & { query?: Request['query'] }, res: Response, now: () => Date): Promise<boolean> {
  const origin = req.headers.origin;
  varyOnOrigin(res);
  const allowed = origin ? await originListed(pool, origin) : false;
  if (allowed && origin) {
    res.setHeader('Access-Control-Allow-Origin', origin);
    res.setHeader('Access-Control-Expose-Headers', EXPOSED);
  }
  if (req.method !== 'OPTIONS') return true;
  // The tracker names its program: a refused origin is kept as that program's last refusal (set-up page).
  const programId = Number(req.query?.program_id);
  if (origin && Number.isSafeInteger(programId) && programId > 0) await noteTrackerOrigin(pool, programId, origin, now());
  if (allowed) {
    res.setHeader('Access-Control-Allow-Methods', 'POST, OPTIONS');
    res.setHeader('Access-Control-Allow-Headers', 'Content-Type');
    res.setHeader('Access-Control-Max-Age', '600');
  }
  res.statusCode = 204;
  res.end();
  return false;
}
