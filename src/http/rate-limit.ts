// Spec §8 rate limits, counted in PostgreSQL, answered before the body is even parsed: a
// malformed or oversized body counts like any other request.
import type { NextFunction, Request, Response } from 'express';
import { errors } from '../core/errors.js';
import { RATE_LIMITS, type RateLimitRule } from '../core/limits.js';
import { sha256 } from '../core/secrets.js';
import type { Pool } from '../db/pool.js';
import { countRequest } from '../app/access.js';
import { readBearer } from './auth.js';
import { state } from './context.js';

export type RateLimitSubject = (req: Request) => string;

export const byClientIp: RateLimitSubject = (req) => `ip:${req.ip ?? 'unknown'}`;

/** Per API key (a digest of the presented token, never the token), falling back to the client IP. */
export const byApiKey: RateLimitSubject = (req) => {
  const bearer = readBearer(req);
  return bearer.kind === 'token' ? `key:${sha256(bearer.token).toString('base64url')}` : byClientIp(req);
};

export function rateLimit(pool: Pool, rule: RateLimitRule, subject: RateLimitSubject, now: () => Date = () => new Date()) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    let hit;
    const at = now();
    try {
      hit = await countRequest(pool, rule, subject(req), at);
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
      throw errors.rateLimited(Math.max(1, resetSeconds - Math.floor(at.getTime() / 1000)));
    }
    next();
  };
}

interface LimitedRoute {
  method: string;
  /** Exact path, or a prefix ending in '/'. */
  path: string;
  rule: RateLimitRule;
  subject: RateLimitSubject;
}

const LIMITED_ROUTES: LimitedRoute[] = [
  { method: 'POST', path: '/api/v1/track/click', rule: RATE_LIMITS.click, subject: byClientIp },
  { method: 'POST', path: '/api/v1/track/lead', rule: RATE_LIMITS.lead, subject: byClientIp },
  // One budget for both (spec §8: "120 combined").
  { method: 'POST', path: '/api/v1/track/sale', rule: RATE_LIMITS.saleAndRefund, subject: byApiKey },
  { method: 'POST', path: '/api/v1/track/refund', rule: RATE_LIMITS.saleAndRefund, subject: byApiKey },
  { method: 'GET', path: '/api/v1/programs/me/readiness', rule: RATE_LIMITS.readiness, subject: byApiKey },
  { method: 'POST', path: '/mcp', rule: RATE_LIMITS.assistant, subject: byApiKey },
  { method: '*', path: '/api/v1/cli/', rule: RATE_LIMITS.cli, subject: byApiKey },
];

const matches = (route: LimitedRoute, req: Request) =>
  (route.method === '*' || route.method === req.method) &&
  (route.path.endsWith('/') ? req.path.startsWith(route.path) : req.path === route.path);

/** Every limited route's counter, in one place, mounted before the body parser. */
export function rateLimits(pool: Pool, now: () => Date) {
  const limiters = LIMITED_ROUTES.map((route) => ({ route, limiter: rateLimit(pool, route.rule, route.subject, now) }));
  return (req: Request, res: Response, next: NextFunction): Promise<void> | void => {
    const found = limiters.find(({ route }) => matches(route, req));
    return found ? found.limiter(req, res, next) : next();
  };
}
