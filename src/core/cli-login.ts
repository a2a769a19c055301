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

// The CLI's messages live in the one catalogue (errors.ts); re-exported for the CLI routes.
export { CLI_MESSAGES, invalidEventType } from './errors.js';

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
