// The checks every door makes before its own work: request counters (spec §8 limits and the
// sign-in attempt limits), browser origins, dashboard sessions, database readiness.
import { randomBytes } from 'node:crypto';
import { RATE_LIMITS, type RateLimitHit, type RateLimitRule, type RequestCount, overLimit, retryAfterSeconds } from '../../core/limits.js';
import { hashEmail } from '../../core/secrets.js';
import { createDashboardSession, dashboardSessionAccount } from '../../db/accounts/dashboard-sessions.js';
import { databaseAnswers } from '../../db/infra/health.js';
import { originListedByAnyProgram, recordRefusedOrigin } from '../../db/programs/allowed-origins.js';
import type { Pool, PoolClient } from '../../db/infra/pool.js';
import { countRequestAlone, hitRateLimit, uncountRequest } from '../../db/infra/rate-limit.js';
import { KNOWN_PLACE_MS, accountOverLimit, signInCounts, signInGate, signInPlace } from '../../core/sign-in-limits.js';
import { pruneSignInPlaces, rememberSignInPlace, signedInFromSince } from '../../db/accounts/sign-in-places.js';

/** One request counted in PostgreSQL (shared by every instance). */
export const countRequest = (pool: Pool, count: RequestCount): Promise<RateLimitHit> => countRequestAlone(pool, count);

export type SignInAttempt = { kind: 'refused'; retryAfterSeconds: number } | { kind: 'open'; counts: RequestCount[]; place: Buffer | null };

/**
 * A password attempt begins: counted as a failure up front (parallel guesses cannot slip past),
 * then refused or let through to the password check by the rules of src/core/sign-in-limits.ts.
 */
export async function startSignInAttempt(pool: Pool, ip: string, email: string, at: Date): Promise<SignInAttempt> {
  const counts = signInCounts(ip, email, at);
  const hit = (count: RequestCount | null) => (count ? countRequestAlone(pool, count).then((h) => ({ rule: count.rule, hit: h })) : Promise.resolve(null));
  const [ipHit, placeHit, accountHit] = await Promise.all([hit(counts.ip), hit(counts.place), hit(counts.account)]);
  const place = email.trim() ? signInPlace(email, ip) : null;
  const known = accountOverLimit(accountHit) && place !== null && (await signedInFromSince(pool, place, new Date(at.getTime() - KNOWN_PLACE_MS)));
  const gate = signInGate({ ip: ipHit!, place: placeHit, account: accountHit }, known, at);
  const counted = [counts.ip, counts.place, counts.account].filter((c): c is RequestCount => c !== null);
  // A refused attempt checked no password: taken back, so that refusals at one IP never add up to the address-wide limit.
  if (gate.kind === 'refuse') {
    await Promise.all(counted.map((count) => uncountRequest(pool, count)));
    return { kind: 'refused', retryAfterSeconds: gate.retryAfterSeconds };
  }
  return { kind: 'open', counts: counted, place };
}

/** The password was right: the attempt is not counted after all; a sign-in makes the place known. */
export async function passwordWasRight(pool: Pool, attempt: SignInAttempt & { kind: 'open' }, signedIn: boolean, at: Date): Promise<void> {
  await Promise.all(attempt.counts.map((count) => uncountRequest(pool, count)));
  if (signedIn && attempt.place) await rememberSignInPlace(pool, attempt.place, at);
}

/** Proof of the mailbox (a password reset) makes the place known, as a sign-in does. */
export const rememberPlace = (pool: Pool, email: string, ip: string, at: Date) => rememberSignInPlace(pool, signInPlace(email, ip), at);

/** Housekeeping: places not signed in from for longer than they stay known. */
export const forgetOldSignInPlaces = (pool: Pool, now: Date) => pruneSignInPlaces(pool, new Date(now.getTime() - KNOWN_PLACE_MS));

/** A password reset request: per client IP (refused visibly: it says nothing of the address). */
export const countPasswordResetRequest = (pool: Pool, ip: string, _email: string, at: Date): Promise<number | null> =>
  retryAfterOfFirstOver(pool, [[RATE_LIMITS.passwordResetPerIp, `ip:${ip}`]], at);

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

/** The browser asked, for the tracker of `programId`, from an origin: kept if that program does not list it. */
export const noteTrackerOrigin = (pool: Pool, programId: number, origin: string, now: Date) => recordRefusedOrigin(pool, programId, origin, now);

export const databaseReady = (pool: Pool, timeoutMs: number) => databaseAnswers(pool, timeoutMs);

const SESSION_TTL_MS = 12 * 3600_000;

/** A new dashboard session: a random token for the browser, its digest in PostgreSQL. */
export async function openDashboardSession(pool: Pool, accountId: number, now: Date, memberId: number | null = null): Promise<{ token: string; ttlMs: number }> {
  const token = randomBytes(32).toString('base64url');
  await createDashboardSession(pool, token, accountId, new Date(now.getTime() + SESSION_TTL_MS), memberId);
  return { token, ttlMs: SESSION_TTL_MS };
}

export const dashboardAccount = (pool: Pool, token: string) => dashboardSessionAccount(pool, token);
