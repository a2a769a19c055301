// The processors' webhook inbox, whichever processor sent the event: its states and how long an
// event waits for what it needs.
/**
 * How long an event that cannot be attributed yet waits for what it needs. A subscription
 * payment waits for its checkout (a processor sends both within a second; a day is generous and
 * keeps an unreferred customer's old payments from being claimed by a much later referral).
 * A Connect event waits for its account to be bound (onboarding can take days): as long as
 * its payload is kept.
 */
export const WAIT_FOR_CUSTOMER_DAYS = 1;

/**
 * How long a payment that carries our metadata, and that no click, lead or customer matches yet,
 * waits for one before its last attempt (AFFIX_ATTRIBUTION_WAIT_MINUTES). A lead recorded
 * meanwhile ends the wait at once.
 */
export const DEFAULT_ATTRIBUTION_WAIT_MINUTES = 60;

export interface Waiting {
  /** A processor's customer (Stripe's cus_, or a namespaced one) or a Connect account (acct_). */
  id: string;
  days: number;
}

/** What happened to a stored event: queued -> processed | ignored | failed, or retrying -> parked | dead. */
export type InboxStatus = 'queued' | 'retrying' | 'processed' | 'ignored' | 'failed' | 'parked' | 'dead';
export const INBOX_STATUSES: readonly InboxStatus[] = ['queued', 'retrying', 'processed', 'ignored', 'failed', 'parked', 'dead'];
