// The checks every door makes before its own work: request counters (spec §8 limits and the
// sign-in attempt limit), browser origins, dashboard sessions, database readiness.
import { randomBytes } from 'node:crypto';
import { RATE_LIMITS, type RateLimitHit, type RateLimitRule, type RequestCount, overLimit, retryAfterSeconds } from '../core/limits.js';
import { hashEmail } from '../core/secrets.js';
import { createDashboardSession, dashboardSessionAccount } from '../db/dashboard.js';
import { databaseAnswers } from '../db/health.js';
import { originListedByAnyProgram } from '../db/origins.js';
import type { Pool, PoolClient } from '../db/pool.js';
import { countRequestAlone, hitRateLimit } from '../db/rate-limit.js';

/** One request counted in PostgreSQL (shared by every instance). */
export const countRequest = (pool: Pool, count: RequestCount): Promise<RateLimitHit> => countRequestAlone(pool, count);

/**
 * One password attempt, counted per client IP and per account (the email's digest) whatever
 * the IP. Returns the seconds to wait when either limit is passed, else null.
 */
export async function countSignInAttempt(pool: Pool, ip: string, email: string, at: Date): Promise<number | null> {
  const checks: [RateLimitRule, string][] = [[RATE_LIMITS.signInPerIp, `ip:${ip}`]];
  if (email) checks.push([RATE_LIMITS.signInPerAccount, `email:${hashEmail(email).toString('base64url')}`]);
  return retryAfterOfFirstOver(pool, checks, at);
}

/** Counts each (rule, subject) and answers the seconds to wait for the first one over its limit, or null. */
async function retryAfterOfFirstOver(pool: Pool, checks: [RateLimitRule, string][], at: Date): Promise<number | null> {
  const hits = await Promise.all(checks.map(([rule, subject]) => hitRateLimit(pool, rule, subject, at)));
  const over = hits.findIndex((hit, index) => overLimit(checks[index]![0], hit));
  return over === -1 ? null : retryAfterSeconds(hits[over]!, at);
}

/**
 * A partner asks for a sign-in link: per IP, and per IP and address together (never per address
 * alone: requests from elsewhere must not lock the partner out; a mailed link is not counted).
 */
export async function countPartnerLinkRequest(pool: Pool, ip: string, email: string, at: Date): Promise<number | null> {
  const checks: [RateLimitRule, string][] = [
    [RATE_LIMITS.signInPerIp, `ip:${ip}`],
    [RATE_LIMITS.partnerLinkPerIpAndAddress, `ip-email:${ip}:${hashEmail(email).toString('base64url')}`],
  ];
  return retryAfterOfFirstOver(pool, checks, at);
}

/**
 * The per-address cap on mail a stranger can trigger by posting an address (RATE_LIMITS.mailPerAddress):
 * counts one such mail to `email` (by its digest, whatever the client address) and answers whether
 * it may be sent. Call it for every request that would mail the address, and answer the same
 * either way: over the cap, only the mail is left out. In a transaction, pass its client.
 */
export async function mayMailAddress(db: Pool | PoolClient, email: string, at: Date): Promise<boolean> {
  const hit = await hitRateLimit(db, RATE_LIMITS.mailPerAddress, `email:${hashEmail(email).toString('base64url')}`, at);
  return !overLimit(RATE_LIMITS.mailPerAddress, hit);
}

/** Browsers are let in only from origins some program lists (the link's own program checks again). */
export const originListed = (pool: Pool, origin: string) => originListedByAnyProgram(pool, origin);

export const databaseReady = (pool: Pool, timeoutMs: number) => databaseAnswers(pool, timeoutMs);

const SESSION_TTL_MS = 12 * 3600_000;

/** A new dashboard session: a random token for the browser, its digest in PostgreSQL. */
export async function openDashboardSession(pool: Pool, accountId: number, now: Date, memberId: number | null = null): Promise<{ token: string; ttlMs: number }> {
  const token = randomBytes(32).toString('base64url');
  await createDashboardSession(pool, token, accountId, new Date(now.getTime() + SESSION_TTL_MS), memberId);
  return { token, ttlMs: SESSION_TTL_MS };
}

export const dashboardAccount = (pool: Pool, token: string) => dashboardSessionAccount(pool, token);
