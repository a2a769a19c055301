// Spec §8 rate limits, counted in PostgreSQL. Every request to a limited route counts, a
// malformed or oversized body like any other. Most routes count before the body is parsed; the
// click counts in its own write statement (one round trip less), and when it fails before that
// statement, the error handler counts it (`countIfNotCounted`): over the limit, the answer is 429.
import type { NextFunction, Request, Response } from 'express';
import { type AffixError, errors } from '../core/errors.js';
import { RATE_LIMITS, type RateLimitHit, type RateLimitRule, type RequestCount, overLimit, requestCount, retryAfterSeconds } from '../core/limits.js';
import { sha256 } from '../core/secrets.js';
import type { Pool } from '../db/infra/pool.js';
import { countRequest } from '../app/accounts/access.js';
import { readBearer } from './auth.js';
import { state } from './context.js';

/** What a request's count is kept by: the parts of a request a subject may read. */
export type CountedRequest = Pick<Request, 'method' | 'path' | 'ip' | 'headers'>;

export type RateLimitSubject = (req: CountedRequest) => string;

export const byClientIp: RateLimitSubject = (req) => `ip:${req.ip ?? 'unknown'}`;

/** Per API key (a digest of the presented token, never the token), falling back to the client IP. */
export const byApiKey: RateLimitSubject = (req) => {
  const bearer = readBearer(req);
  return bearer.kind === 'token' ? `key:${sha256(bearer.token).toString('base64url')}` : byClientIp(req);
};

/** The X-RateLimit-* headers for a counted request; over the limit, the 429 to answer with. */
function answerCount(res: Response, count: RequestCount, hit: RateLimitHit): AffixError | null {
  res.setHeader('X-RateLimit-Limit', String(count.rule.limit));
  res.setHeader('X-RateLimit-Remaining', String(Math.max(0, count.rule.limit - hit.hits)));
  res.setHeader('X-RateLimit-Reset', String(Math.ceil(hit.resetAt.getTime() / 1000)));
  return overLimit(count.rule, hit) ? errors.rateLimited(retryAfterSeconds(hit, count.at)) : null;
}

/** Counts on its own; a counter that cannot be reached lets the request through (logged). */
async function countAlone(pool: Pool, res: Response, count: RequestCount): Promise<AffixError | null> {
  let hit;
  try {
    hit = await countRequest(pool, count);
  } catch (error) {
    // Counting must not take the API down with it.
    state(res).log.error({ err: error, bucket: count.rule.bucket }, 'rate limit counter unavailable');
    return null;
  }
  return answerCount(res, count, hit);
}

export function rateLimit(pool: Pool, rule: RateLimitRule, subject: RateLimitSubject, now: () => Date = () => new Date()) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const refused = await countAlone(pool, res, requestCount(rule, subject(req), now()));
    if (refused) throw refused;
    next();
  };
}

/** Leaves the count to the route's write statement: `takeRequestCount` hands it over. */
function countWithRoute(rule: RateLimitRule, subject: RateLimitSubject, now: () => Date) {
  return (req: Request, res: Response, next: NextFunction): void => {
    pendCount(rule, subject, req, res, now());
    next();
  };
}

function pendCount(rule: RateLimitRule, subject: RateLimitSubject, req: CountedRequest, res: Response, at: Date): void {
  state(res).pendingCount = { count: requestCount(rule, subject(req), at), settled: false };
}

/** For a route its write statement counts (the click), served outside Express: its count, left pending. */
export function pendRouteCount(req: CountedRequest, res: Response, at: Date): void {
  const route = LIMITED_ROUTES.find((candidate) => candidate.countedByRoute && matches(candidate, req));
  if (!route) throw new Error(`no route counted by its statement at ${req.method} ${req.path}`);
  pendCount(route.rule, route.subject, req, res, at);
}

/** The request's count for the route's statement to take, if its route counts that way. */
export const takeRequestCount = (res: Response): RequestCount | undefined => state(res).pendingCount?.count;

/**
 * After the route's statement counted the request: sets the headers, and returns the 429 to
 * answer with when the count was over its limit (the statement then wrote nothing else).
 */
export function settleRequestCount(res: Response, hit: RateLimitHit | null): AffixError | null {
  const pending = state(res).pendingCount;
  if (!pending || !hit) return null;
  pending.settled = true;
  return answerCount(res, pending.count, hit);
}

/** For the error handler: a request whose route failed before its statement counted it is counted now. */
export async function countIfNotCounted(pool: Pool, res: Response): Promise<AffixError | null> {
  const pending = state(res).pendingCount;
  if (!pending || pending.settled || res.headersSent) return null;
  pending.settled = true;
  return countAlone(pool, res, pending.count);
}

interface LimitedRoute {
  method: string;
  /** Exact path, or a prefix ending in '/'. */
  path: string;
  rule: RateLimitRule;
  subject: RateLimitSubject;
  /** Counted by the route's own write statement rather than before the body is parsed. */
  countedByRoute?: true;
}

const LIMITED_ROUTES: LimitedRoute[] = [
  { method: 'POST', path: '/api/v1/track/click', rule: RATE_LIMITS.click, subject: byClientIp, countedByRoute: true },
  { method: 'POST', path: '/api/v1/track/lead', rule: RATE_LIMITS.lead, subject: byClientIp },
  // One budget for both (spec §8: "120 combined").
  { method: 'POST', path: '/api/v1/track/sale', rule: RATE_LIMITS.saleAndRefund, subject: byApiKey },
  { method: 'POST', path: '/api/v1/track/refund', rule: RATE_LIMITS.saleAndRefund, subject: byApiKey },
  { method: 'GET', path: '/api/v1/programs/me/readiness', rule: RATE_LIMITS.readiness, subject: byApiKey },
  { method: 'POST', path: '/mcp', rule: RATE_LIMITS.assistant, subject: byApiKey },
  { method: '*', path: '/api/v1/cli/', rule: RATE_LIMITS.cli, subject: byApiKey },
];

const matches = (route: LimitedRoute, req: Pick<Request, 'method' | 'path'>) =>
  (route.method === '*' || route.method === req.method) &&
  (route.path.endsWith('/') ? req.path.startsWith(route.path) : req.path === route.path);

/** Every limited route's counter, in one place, mounted before the body parser. */
export function rateLimits(pool: Pool, now: () => Date) {
  const limiters = LIMITED_ROUTES.map((route) => ({
    route,
    limiter: route.countedByRoute ? countWithRoute(route.rule, route.subject, now) : rateLimit(pool, route.rule, route.subject, now),
  }));
  return (req: Request, res: Response, next: NextFunction): Promise<void> | void => {
    const found = limiters.find(({ route }) => matches(route, req));
    return found ? found.limiter(req, res, next) : next();
  };
}
