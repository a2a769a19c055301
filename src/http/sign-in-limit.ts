// One attempt limit for every password form (the CLI sign-in page and the dashboard), counted
// in PostgreSQL: per client IP, and per account (the email's digest) whatever the IP.
import type { NextFunction, Request, Response } from 'express';
import { RATE_LIMITS } from '../core/limits.js';
import { hashEmail } from '../core/secrets.js';
import type { Pool } from '../db/pool.js';
import { hitRateLimit } from '../db/rate-limit.js';
import { state } from './context.js';

export type RefuseSignIn = (req: Request, res: Response, message: string, retryAfterSeconds: number) => void;

/** After the form body is parsed. Counts every attempt; a refusal is rendered by the form's own page. */
export function limitSignIn(pool: Pool, refuse: RefuseSignIn, now: () => Date = () => new Date()) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const email = typeof req.body?.email === 'string' ? req.body.email : '';
    const at = now();
    const checks = [hitRateLimit(pool, RATE_LIMITS.signInPerIp, `ip:${req.ip ?? 'unknown'}`, at)];
    if (email) checks.push(hitRateLimit(pool, RATE_LIMITS.signInPerAccount, `email:${hashEmail(email).toString('base64url')}`, at));
    let hits;
    try {
      hits = await Promise.all(checks);
    } catch (error) {
      state(res).log.error({ err: error }, 'sign-in attempt counter unavailable');
      return next();
    }
    const rules = [RATE_LIMITS.signInPerIp, RATE_LIMITS.signInPerAccount];
    const over = hits.findIndex((hit, index) => hit.hits > rules[index]!.limit);
    if (over === -1) return next();
    const seconds = Math.max(1, Math.ceil((hits[over]!.resetAt.getTime() - at.getTime()) / 1000));
    res.setHeader('Retry-After', String(seconds));
    refuse(req, res, `Too many sign-in attempts. Try again in ${seconds} seconds.`, seconds);
  };
}
