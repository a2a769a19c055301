// CLI login sessions (spec §3 login rows, §4.6): 5-minute sessions, token handed out once.
import { sha256 } from './secrets.js';

export const LOGIN_SESSION_TTL_MS = 5 * 60_000;
/** Login tokens last 30 days; logging in again issues a new one. */
export const LOGIN_TOKEN_TTL_MS = 30 * 86_400_000;

export type LoginSessionStatus = 'pending' | 'signed_in' | 'consumed';

export interface LoginSession {
  id: number;
  status: LoginSessionStatus;
  expiresAt: Date;
  accountId: number | null;
}

export type CallbackVerdict = 'not_found' | 'expired' | 'accept';

/** The callback completes only a pending session younger than 5 minutes. */
export function callbackVerdict(session: LoginSession | null, now: Date): CallbackVerdict {
  if (!session || session.status !== 'pending') return 'not_found';
  return now.getTime() > session.expiresAt.getTime() ? 'expired' : 'accept';
}

export type PollVerdict = 'not_found' | 'pending' | 'expired' | 'hand_out' | 'consumed';

/** A signed-in session hands its token out on the first poll only. */
export function pollVerdict(session: LoginSession | null, now: Date): PollVerdict {
  if (!session) return 'not_found';
  if (session.status === 'consumed') return 'consumed';
  if (session.status === 'signed_in') return 'hand_out';
  return now.getTime() > session.expiresAt.getTime() ? 'expired' : 'pending';
}

export const CLI_MESSAGES = {
  missingCallbackFields: 'Missing required fields: state, id_token',
  sessionNotFoundOrUsed: 'Session not found or already used',
  sessionExpired: 'Session expired',
  accountSuspended: 'Your account has been suspended.',
  missingState: 'Missing state parameter',
  sessionNotFound: 'Session not found',
  sessionConsumed: 'Session already consumed',
  initAuthRequired: 'Authentication required. Run `affix login` first.',
  initInvalidToken: 'Invalid or expired token. Run `affix login` again.',
  initUserNotFound: 'User not found. Run `affix login` again.',
  noAdvertiser: 'No advertiser found for this account. Run `affix login` again to create one.',
  advertiserMismatch: 'advertiser_id does not match the authenticated account',
  programsAuthRequired: 'Missing Authorization header. Run affix login first.',
  programsInvalidToken: 'Invalid or expired token.',
  programsUserNotFound: 'User not found',
  keyMalformed: 'Missing or malformed Authorization header. Expected: Bearer <api_token>',
  keyMissing: 'Missing API token',
  keyInvalid:
    'Invalid API key. Ask a workspace owner to regenerate it in the dashboard (Settings, API keys); running `affix init` again would create a second program, not fix this key.',
  tooManyChains: 'Too many synthetic chains (max 10/program/hour).',
  stripeConnectRetired: 'This endpoint is retired. Connect Stripe from the dashboard (program Settings, Connect).',
} as const;

export const invalidEventType = (value: unknown) => `Invalid event_type: ${String(value)}. Valid: click, lead, sale`;

const CODE_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789'; // no 0/O, 1/I

/**
 * The code the sign-in page and the terminal both show ("ABCD-1234"), like a device flow: a
 * crafted auth_url (someone else's session) shows a code the victim's terminal does not.
 * Derived from the session's state, so both sides compute it without a round trip.
 */
export function confirmationCode(state: string): string {
  const letters = Array.from(sha256(`affix-cli-login:${state}`).subarray(0, 8), (byte) => CODE_ALPHABET[byte % CODE_ALPHABET.length]!);
  return `${letters.slice(0, 4).join('')}-${letters.slice(4).join('')}`;
}
