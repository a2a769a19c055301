// One attempt limit for every password form (the CLI sign-in page and the dashboard), counted
// in PostgreSQL: per client IP, and per account (the email's digest) whatever the IP.
import type { NextFunction, Request, Response } from 'express';
import type { Pool } from '../db/pool.js';
import { countSignInAttempt } from '../app/access.js';
import { state } from './context.js';

export type RefuseSignIn = (req: Request, res: Response, message: string, retryAfterSeconds: number) => void;

/** After the form body is parsed. Counts every attempt; a refusal is rendered by the form's own page. */
export function limitSignIn(pool: Pool, refuse: RefuseSignIn, now: () => Date = () => new Date(), count: typeof countSignInAttempt = countSignInAttempt) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const email = typeof req.body?.email === 'string' ? req.body.email : '';
    let seconds;
    try {
      seconds = await count(pool, req.ip ?? 'unknown', email, now());
    } catch (error) {
      state(res).log.error({ err: error }, 'sign-in attempt counter unavailable');
      return next();
    }
    if (seconds === null) return next();
    res.setHeader('Retry-After', String(seconds));
    refuse(req, res, `Too many sign-in attempts. Try again in ${seconds} seconds.`, seconds);
  };
}
