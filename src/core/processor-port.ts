// What the workers need from any payment processor, as plain facts. Each processor is one
// adapter: it reads its own events (envelope and meaning) and nothing else; attribution, the
// first-paid-sale rule, refunds, disputes, the ledger, fraud holds and outbound events are the
// core's (src/core/processor.ts), the same for all.
import type { ProcessorChargebackAdjustment, ProcessorDispute, ProcessorPayment, ProcessorRefund } from './processor.js';

import type { ProcessorName } from './processor-names.js';

export { PROCESSORS, PROCESSOR_NAMES, type ProcessorName, isProcessor } from './processor-names.js';

type ForProgram<T> = Omit<T, 'programId'>;

/** What one stored event means. */
export type ProcessorFact =
  /** A paid payment: a sale when it can be attributed. */
  | { kind: 'payment'; payment: ForProgram<ProcessorPayment> }
  /** A checkout that paid nothing yet (a trial, a subscription's checkout): binds the processor's customer to the referral, no sale. */
  | { kind: 'bind'; checkout: Pick<ProcessorPayment, 'metadata' | 'email' | 'processorCustomerId' | 'promotionRefs'> }
  /** Money given back (a refund or a credit). */
  | { kind: 'refund'; refund: ForProgram<ProcessorRefund> }
  /** A refund that failed after it was counted: its deduction is given back. */
  | { kind: 'refund_failed'; refund: { refundId: string; amountCents: number; paymentIds: string[]; status: string } }
  /** A chargeback: deducted while open or lost, restored when won. */
  | { kind: 'dispute'; dispute: ForProgram<ProcessorDispute>; effect: 'deduct' | 'restore'; why: string }
  /** One chargeback adjustment with its own id and amount (Paddle): taken, or given back. */
  | { kind: 'chargeback_adjustment'; adjustment: ForProgram<ProcessorChargebackAdjustment>; why: string }
  /** Which payment settled which transaction (a refund may name either). */
  | { kind: 'payment_link'; transactionId: string; paymentIds: string[] }
  | { kind: 'ignored'; reason: string };

/** The envelope of a signed delivery: what the inbox stores beside the body. */
export interface ProcessorEnvelope {
  /** Unique per processor event; redeliveries carry the same one (stored namespaced by processor). */
  eventId: string;
  type: string;
  livemode: boolean;
  /** The processor's object ids the event names, for support's look-ups. */
  objectIds: string[];
  /** The connected account that sent it, when the processor has them (Stripe Connect's acct_). */
  account?: string | null;
  /** The processor's API version of the payload, when it says. */
  apiVersion?: string | null;
}

export interface ProcessorAdapter {
  readonly name: ProcessorName;
  /** The event types acted on; others are stored as ignored. */
  readonly handledTypes: readonly string[];
  /** The events a brand selects on its endpoint, in the processor's words. */
  readonly eventsToSelect: readonly string[];
  /** Reads the envelope of a verified body; an AffixError 400 when it is not this processor's event. */
  envelope(event: unknown, options: { sandbox: boolean }): ProcessorEnvelope;
  /**
   * What the stored event means; `stored.livemode` is what the intake read from the envelope (a
   * processor whose payloads carry no live/test flag has it from the endpoint's setting). Throws
   * an AffixError 400 for a value that cannot be used (never retried).
   */
  read(event: unknown, stored: { livemode: boolean }): ProcessorFact;
  /** The processor's customer an attributed event binds (events waiting for it are woken). */
  customerOf(event: unknown): string | null;
}

/** Non-Stripe processors' customer ids are kept namespaced, so two processors' ids never meet. */
export const namespacedCustomer = (processor: ProcessorName, id: string | null): string | null => (id ? `${processor}:${id}` : null);
/** Inbox event ids likewise (Stripe's stay as Stripe sends them). */
export const namespacedEventId = (processor: ProcessorName, id: string) => (processor === 'stripe' ? id : `${processor}:${id}`);
