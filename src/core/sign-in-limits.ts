// The sign-in limit's rules (docs/team.md "Sign-in limits"): only wrong passwords count; they are
// limited per client IP, per (address, client IP), and per address whatever the IP with a slower
// window that a right password from a place the person recently signed in from still passes.
import { RATE_LIMITS, type RateLimitHit, type RateLimitRule, type RequestCount, overLimit, requestCount, retryAfterSeconds } from './limits.js';
import { hashEmail, sha256 } from './secrets.js';

/** A place (address and client IP) a person signed in from stays known this long. */
export const KNOWN_PLACE_MS = 30 * 86_400_000;

const emailKey = (email: string) => hashEmail(email).toString('base64url');

/** The counters one password attempt touches: the IP always, the address (with and without the IP) when one was given. */
export function signInCounts(ip: string, email: string, at: Date): { ip: RequestCount; place: RequestCount | null; account: RequestCount | null } {
  const key = email.trim() ? emailKey(email) : null;
  return {
    ip: requestCount(RATE_LIMITS.signInPerIp, `ip:${ip}`, at),
    place: key ? requestCount(RATE_LIMITS.signInPerAccountAndIp, `email-ip:${key}:${ip}`, at) : null,
    account: key ? requestCount(RATE_LIMITS.signInPerAccount, `email:${key}`, at) : null,
  };
}

/** A place's digest: the sign-in address and the client IP together (neither is stored readable). */
export const signInPlace = (email: string, ip: string): Buffer => sha256(`${email.trim().toLowerCase()}\n${ip}`);

export type SignInGate = { kind: 'check' } | { kind: 'refuse'; retryAfterSeconds: number };

interface Counted {
  rule: RateLimitRule;
  hit: RateLimitHit;
}

/**
 * With this attempt counted: refused while the IP or the (address, IP) pair is over its limit;
 * while only the address is over, checked only from a known place (a right password passes).
 */
export function signInGate(counted: { ip: Counted; place: Counted | null; account: Counted | null }, knownPlace: boolean, at: Date): SignInGate {
  const over = [counted.ip, counted.place].filter((c): c is Counted => c !== null && overLimit(c.rule, c.hit));
  if (counted.account && overLimit(counted.account.rule, counted.account.hit) && !knownPlace) over.push(counted.account);
  if (over.length === 0) return { kind: 'check' };
  return { kind: 'refuse', retryAfterSeconds: Math.max(...over.map((c) => retryAfterSeconds(c.hit, at))) };
}

/** Whether the account-wide limit is passed (then the place is looked up). */
export const accountOverLimit = (account: Counted | null): boolean => account !== null && overLimit(account.rule, account.hit);
