// Spec §8 rate limits, counted in PostgreSQL, answered before the endpoint runs.
import type { NextFunction, Request, Response } from 'express';
import { errors } from '../core/errors.js';
import type { RateLimitRule } from '../core/limits.js';
import { sha256 } from '../core/secrets.js';
import type { Pool } from '../db/pool.js';
import { hitRateLimit } from '../db/rate-limit.js';
import { readBearer } from './auth.js';
import { state } from './context.js';

export type RateLimitSubject = (req: Request) => string;

export const byClientIp: RateLimitSubject = (req) => `ip:${req.ip ?? 'unknown'}`;

/** Per API key (a digest of the presented token, never the token), falling back to the client IP. */
export const byApiKey: RateLimitSubject = (req) => {
  const bearer = readBearer(req);
  return bearer.kind === 'token' ? `key:${sha256(bearer.token).toString('base64url')}` : byClientIp(req);
};

export function rateLimit(pool: Pool, rule: RateLimitRule, subject: RateLimitSubject) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    let hit;
    try {
      hit = await hitRateLimit(pool, rule, subject(req));
    } catch (error) {
      // Counting must not take the API down with it: log and let the request through.
      state(res).log.error({ err: error, bucket: rule.bucket }, 'rate limit counter unavailable');
      return next();
    }
    const resetSeconds = Math.ceil(hit.resetAt.getTime() / 1000);
    res.setHeader('X-RateLimit-Limit', String(rule.limit));
    res.setHeader('X-RateLimit-Remaining', String(Math.max(0, rule.limit - hit.hits)));
    res.setHeader('X-RateLimit-Reset', String(resetSeconds));
    if (hit.hits > rule.limit) {
      throw errors.rateLimited(Math.max(1, resetSeconds - Math.floor(Date.now() / 1000)));
    }
    next();
  };
}
