// The sign-in limits in front of every password form (the CLI sign-in page, the dashboard's
// sign-in and password change), counted in PostgreSQL: only wrong passwords count (the rules:
// src/core/sign-in-limits.ts). limitSignIn counts every request of a form that checks no password.
import type { NextFunction, Request, Response } from 'express';
import type { Pool } from '../db/infra/pool.js';
import { passwordWasRight, startSignInAttempt } from '../app/accounts/access.js';
import { state } from './context.js';

export type RefuseSignIn = (req: Request, res: Response, message: string, retryAfterSeconds: number) => void;
type CountAttempt = (pool: Pool, ip: string, email: string, at: Date) => Promise<number | null>;

export const tooManyAttempts = (seconds: number) => `Too many sign-in attempts. Try again in ${seconds} seconds.`;

/** After the form body is parsed. Counts every request; a refusal is rendered by the form's own page. */
export function limitSignIn(pool: Pool, refuse: RefuseSignIn, now: () => Date, count: CountAttempt) {
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
    refuse(req, res, tooManyAttempts(seconds), seconds);
  };
}

export type Limited = { kind: 'limited'; message: string };

/**
 * A password check behind the limits: `check` runs only when the limits let it (else a refusal,
 * with Retry-After set); a verdict other than `wrong` is not counted, `signed_in` makes the place known.
 */
export async function limitedPasswordCheck<V extends { kind: string }>(pool: Pool, res: Response, email: string, at: Date, check: () => Promise<V>): Promise<V | Limited> {
  const ip = res.req.ip ?? 'unknown';
  let attempt;
  try {
    attempt = await startSignInAttempt(pool, ip, email, at);
  } catch (error) {
    state(res).log.error({ err: error }, 'sign-in attempt counter unavailable');
    return check();
  }
  if (attempt.kind === 'refused') {
    res.setHeader('Retry-After', String(attempt.retryAfterSeconds));
    return { kind: 'limited', message: tooManyAttempts(attempt.retryAfterSeconds) };
  }
  const verdict = await check();
  if (verdict.kind !== 'wrong') await passwordWasRight(pool, attempt, verdict.kind === 'signed_in', at).catch((error) => state(res).log.error({ err: error }, 'sign-in attempt counter unavailable'));
  return verdict;
}
