// Events Affix sends to the brand's endpoints (docs/webhooks.md): their names, and the retry
// schedule of a delivery. Each is written in the transaction of the change that causes it.

export const OUTBOUND_EVENT_TYPES = [
  'lead.created',
  'sale.created',
  'commission.created',
  'commission.approved',
  'commission.reversed',
  'commission.released',
  'commission.rejected',
  'refund.applied',
  'payout.paid',
  'partner.applied',
  'partner.approved',
  'partner.rejected',
  'partner.group_changed',
  'partner.archived',
  'partner.unarchived',
  'partner.banned',
  'partner.unbanned',
] as const;
export type OutboundEventType = (typeof OUTBOUND_EVENT_TYPES)[number];

export const isOutboundEventType = (value: string): value is OutboundEventType =>
  (OUTBOUND_EVENT_TYPES as readonly string[]).includes(value);

/** One change, told to every endpoint of the program that listens to its type. */
export interface OutboundEvent {
  programId: number;
  type: OutboundEventType;
  /** True for test-mode sales and what follows from them. */
  test: boolean;
  /** The ids a brand reconciles with (sale_id, transaction_id, commission_id, partner_id, …). */
  data: Record<string, unknown>;
}

/**
 * Seconds to wait before each retry after a failed attempt: about 27 hours in all, the way
 * Standard Webhooks senders space them. After the last, the delivery has failed.
 */
export const DEFAULT_RETRY_SCHEDULE_SECONDS: readonly number[] = [30, 120, 600, 1800, 3600, 7200, 14_400, 28_800, 43_200];

/** When the next attempt is due after `failedAttempts` failures, or null once the schedule is spent. */
export function nextAttemptAt(failedAttempts: number, now: Date, schedule: readonly number[] = DEFAULT_RETRY_SCHEDULE_SECONDS): Date | null {
  const wait = schedule[failedAttempts - 1];
  return wait === undefined ? null : new Date(now.getTime() + wait * 1000);
}

export type AttemptVerdict = 'delivered' | 'retry' | 'gone';

/** 2xx delivers; 410 Gone asks us to stop sending (the endpoint is turned off); anything else retries. */
export function attemptVerdict(status: number | null): AttemptVerdict {
  if (status !== null && status >= 200 && status < 300) return 'delivered';
  return status === 410 ? 'gone' : 'retry';
}

/** The body every endpoint receives (Standard Webhooks' recommended shape). */
export const outboundBody = (event: { type: OutboundEventType; test: boolean; data: Record<string, unknown> }, at: Date): string =>
  JSON.stringify({ type: event.type, timestamp: at.toISOString(), test: event.test, data: event.data });
