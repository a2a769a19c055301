// Spec §8 limits, in one place.
export interface RateLimitRule {
  /** Counter name; routes that share a name share a budget. */
  bucket: string;
  limit: number;
  windowSeconds: number;
}

/** The fixed window `now` falls in: every instance with a synchronized clock counts in the same one. */
export function rateLimitWindow(now: Date, windowSeconds: number): { start: Date; end: Date } {
  const size = windowSeconds * 1000;
  const start = Math.floor(now.getTime() / size) * size;
  return { start: new Date(start), end: new Date(start + size) };
}

/** One request to count: its rule, the counter's key (the rule's bucket and the subject), the window. */
export interface RequestCount {
  rule: RateLimitRule;
  counter: string;
  windowStart: Date;
  windowEnd: Date;
  at: Date;
}

export function requestCount(rule: RateLimitRule, subject: string, at: Date): RequestCount {
  const window = rateLimitWindow(at, rule.windowSeconds);
  return { rule, counter: `${rule.bucket}:${subject}`, windowStart: window.start, windowEnd: window.end, at };
}

/** The counter after a request was counted: its hits in the window, and when the window ends. */
export interface RateLimitHit {
  hits: number;
  resetAt: Date;
}

export const overLimit = (rule: RateLimitRule, hit: RateLimitHit): boolean => hit.hits > rule.limit;

/** Whole seconds until the window ends, at least one. */
export const retryAfterSeconds = (hit: RateLimitHit, at: Date): number => Math.max(1, Math.ceil((hit.resetAt.getTime() - at.getTime()) / 1000));

export const RATE_LIMITS = {
  click: { bucket: 'track_click', limit: 60, windowSeconds: 60 },
  lead: { bucket: 'track_lead', limit: 30, windowSeconds: 60 },
  saleAndRefund: { bucket: 'track_sale_refund', limit: 120, windowSeconds: 60 },
  readiness: { bucket: 'readiness', limit: 30, windowSeconds: 60 },
  cli: { bucket: 'cli', limit: 60, windowSeconds: 60 },
  /** The assistant (MCP) endpoint, per API key (ours; the spec is silent). */
  assistant: { bucket: 'assistant', limit: 120, windowSeconds: 60 },
  /** Wrong passwords on every sign-in form (CLI page, dashboard), ours: per client IP ... */
  signInPerIp: { bucket: 'sign_in_ip', limit: 10, windowSeconds: 60 },
  /** ... per address and client IP together (someone else's guesses never lock a person out) ... */
  signInPerAccountAndIp: { bucket: 'sign_in_account_ip', limit: 10, windowSeconds: 900 },
  /** ... and per address whatever the IP, slower: many IPs cannot guess one password (src/core/sign-in-limits.ts). */
  signInPerAccount: { bucket: 'sign_in_address_hour', limit: 50, windowSeconds: 3600 },
  /** Password reset requests, per client IP (the answer is the same for every address). */
  passwordResetPerIp: { bucket: 'password_reset_ip', limit: 5, windowSeconds: 900 },
  /** Partner sign-in links, per client IP and address together: someone else's requests never lock a partner out. */
  partnerLinkPerIpAndAddress: { bucket: 'partner_link_ip_address', limit: 5, windowSeconds: 900 },
  /**
   * Mail a stranger can trigger by posting an address (portal sign-in links, application
   * received), per recipient address whatever the client address: 5 per clock hour, so never more
   * than 10 in any 60 minutes (two windows side by side). Over it the answer is the same; no mail.
   */
  mailPerAddress: { bucket: 'mail_address', limit: 5, windowSeconds: 3600 },
  /** Partner applications on the public pages, per client IP (ours). */
  apply: { bucket: 'apply', limit: 5, windowSeconds: 60 },
} as const satisfies Record<string, RateLimitRule>;

export const OCCURRED_AT_MAX_AGE_MS = 30 * 86_400_000;
export const OCCURRED_AT_MAX_AHEAD_MS = 5 * 60_000;
