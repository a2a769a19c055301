// Mail kinds, who gets them, which carry one-click unsubscribe, and the unsubscribe token: an
// HMAC of (address, kind, expiry) with the service's secret key, so a token stops one kind for
// one address and nothing else, and stops working when it expires.
import { createHmac, timingSafeEqual } from 'node:crypto';

export const MAIL_KINDS = {
  // To partners
  partner_sign_in: { to: 'partner', essential: true, words: 'Sign-in links' },
  partner_invitation: { to: 'partner', essential: true, words: 'Invitations to a program' },
  application_received: { to: 'partner', essential: true, words: 'Application received' },
  application_approved: { to: 'partner', essential: true, words: 'Application approved' },
  application_rejected: { to: 'partner', essential: true, words: 'Application rejected' },
  commission_digest: { to: 'partner', essential: false, words: 'Daily summary of commissions earned' },
  payout_sent: { to: 'partner', essential: true, words: 'Payout sent' },
  payout_failed: { to: 'partner', essential: true, words: 'Payout failed or returned' },
  partner_banned: { to: 'partner', essential: true, words: 'Removed from a program' },
  payout_details_reminder: { to: 'partner', essential: false, words: 'Reminders to add payout details' },
  tax_details_reminder: { to: 'partner', essential: false, words: 'Reminders to add tax details' },
  bounty_awarded: { to: 'partner', essential: true, words: 'Bounty awarded' },
  bounty_approved: { to: 'partner', essential: true, words: 'Bounty submission approved' },
  bounty_rejected: { to: 'partner', essential: true, words: 'Bounty submission rejected' },
  // To the brand's team
  member_invitation: { to: 'manager', essential: true, words: 'Invitations to a team' },
  password_reset: { to: 'manager', essential: true, words: 'Password reset links' },
  // To the brand's managers
  new_application: { to: 'manager', essential: false, words: 'New partner applications' },
  commission_held: { to: 'manager', essential: false, words: 'Commissions held for fraud review' },
  payout_run_ready: { to: 'manager', essential: false, words: 'Payout run ready to pay' },
  endpoint_disabled: { to: 'manager', essential: true, words: 'Webhook endpoint turned off' },
  daily_summary: { to: 'manager', essential: false, optIn: true, words: "Daily summary of yesterday's numbers (off unless you turn it on)" },
} as const;
/** Kinds sent only to those who asked for them. */
export const isOptIn = (kind: MailKind): boolean => 'optIn' in MAIL_KINDS[kind];
export type MailKind = keyof typeof MAIL_KINDS;
export const isMailKind = (value: string): value is MailKind => Object.hasOwn(MAIL_KINDS, value);

/**
 * Mail a person waits for (a link they asked for, or need to get in): sent before every notice,
 * whatever the backlog of notices (docs/architecture.md, "Fairness between brands").
 */
const URGENT_KINDS: ReadonlySet<string> = new Set<MailKind>(['partner_sign_in', 'partner_invitation', 'member_invitation', 'password_reset']);
export const isUrgent = (kind: string): boolean => URGENT_KINDS.has(kind);

/** Attempts at a mail before it is given up (the row then says `failed`). */
export const MAIL_ATTEMPTS = 8;

/**
 * After a failed attempt (the `attempts`-th), the wait before the next: 30 s, doubling (about an
 * hour in all); null when the mail is given up.
 */
export const mailRetryDelayMs = (attempts: number): number | null => (attempts >= MAIL_ATTEMPTS ? null : 30_000 * 2 ** (Math.max(attempts, 1) - 1));

/** Which of the team hear each managers' kind (the account's own address always does). */
export const MANAGER_ROLES: Partial<Record<MailKind, readonly ('owner' | 'admin' | 'finance' | 'viewer')[]>> = {
  new_application: ['owner', 'admin'],
  commission_held: ['owner', 'finance'],
  payout_run_ready: ['owner', 'finance'],
  endpoint_disabled: ['owner', 'admin'],
  daily_summary: ['owner', 'admin', 'finance'],
};

/** An unsubscribe link works this long (a mail read months later asks the person to sign in instead). */
export const UNSUBSCRIBE_TTL_MS = 60 * 86_400_000;

const sign = (secret: string, payload: string) => createHmac('sha256', `affix-unsubscribe:${secret}`).update(payload).digest('base64url');

export function unsubscribeToken(secret: string, email: string, kind: MailKind, expiresAt: Date): string {
  const payload = Buffer.from(JSON.stringify({ e: email.toLowerCase(), k: kind, x: Math.floor(expiresAt.getTime() / 1000) })).toString('base64url');
  return `${payload}.${sign(secret, payload)}`;
}

export type UnsubscribeVerdict = { ok: true; email: string; kind: MailKind } | { ok: false; reason: 'invalid' | 'expired' };

/** Exactly what unsubscribeToken writes: base64url payload, one dot, the 43-character base64url MAC. */
const TOKEN_SHAPE = /^([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]{43})$/;

export function readUnsubscribeToken(secret: string, token: string, now: Date): UnsubscribeVerdict {
  // The exact token only: anything added to it (`<token>.x`, spaces) makes it another, invalid, token.
  const [, payload = '', mac = ''] = TOKEN_SHAPE.exec(token) ?? [];
  const expected = Buffer.from(sign(secret, payload));
  const given = Buffer.from(mac);
  if (!payload || given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, reason: 'invalid' };
  let parsed: { e?: unknown; k?: unknown; x?: unknown };
  try {
    parsed = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    return { ok: false, reason: 'invalid' };
  }
  if (typeof parsed.e !== 'string' || typeof parsed.k !== 'string' || !isMailKind(parsed.k) || typeof parsed.x !== 'number') return { ok: false, reason: 'invalid' };
  if (parsed.x * 1000 <= now.getTime()) return { ok: false, reason: 'expired' };
  return { ok: true, email: parsed.e, kind: parsed.k };
}

/** A mail as the outbox stores it (src/db/outbound/mail-outbox.ts). */
export interface OutgoingMail {
  programId: number | null;
  kind: MailKind;
  to: string;
  /** Shown as the sender's name: the program's (the address stays the service's). */
  senderName: string | null;
  subject: string;
  body: string;
  canUnsubscribe: boolean;
  /** One mail per change: the same key again writes nothing. */
  dedupeKey: string;
}

/** Builds a mail of `kind`: essential kinds carry no unsubscribe. */
export const mail = (kind: MailKind, fields: Omit<OutgoingMail, 'kind' | 'canUnsubscribe'>): OutgoingMail => ({
  ...fields,
  kind,
  canUnsubscribe: !MAIL_KINDS[kind].essential,
});

/** The footer and headers a non-essential mail carries (RFC 8058 one-click, RFC 2369 List-Unsubscribe). */
export function unsubscribeParts(unsubscribeUrl: string, kind: MailKind): { footer: string; headers: Record<string, string> } {
  return {
    footer: `\n--\nYou get this mail because of your partner or program settings. Stop "${MAIL_KINDS[kind].words}" mails: ${unsubscribeUrl}\n`,
    headers: { 'List-Unsubscribe': `<${unsubscribeUrl}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' },
  };
}

/** The brand's managers hear of a commission held for fraud review (written with the commission). */
export const heldCommissionMail = (programId: number, commissionId: number, source: string, reasons: readonly string[]): Omit<OutgoingMail, 'to'> => ({
  programId,
  kind: 'commission_held',
  senderName: 'Affix',
  // `source` says what it was made for: "sale txn_1", "lead cus_9".
  subject: `A commission was held for review (${source})`,
  body: `Commission ${commissionId} of ${source} is held: ${reasons.map((r) => r.replaceAll('_', ' ')).join(', ')}.\nIt is never approved on its own: release it or reject it: {{affix}}/dashboard/programs/${programId}/payouts?stage=held\n`,
  canUnsubscribe: !MAIL_KINDS.commission_held.essential,
  dedupeKey: `commission_held:${commissionId}`,
});
