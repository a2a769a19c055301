// Stripe's door: verify the signature on the raw body, then store the event and enqueue its job
// in one transaction. No attribution happens here; the workers do it.
import Stripe from 'stripe';
import { z } from 'zod';
import { errors } from '../core/errors.js';
import { isHandledStripeEvent } from '../core/stripe/event-types.js';
import { stripeObjectIds } from '../core/stripe/read-objects.js';
import type { Pool } from '../db/pool.js';
import { InboxWriter } from '../db/inbox-writer.js';
import { signatureFailureInWords } from '../core/stripe/signature-failure.js';
import { type NewInboxEvent, type ProgramStripeSettings, type StoredEvent, noteSignatureFailure, programByStripeAccount, programWebhookSecret } from '../db/webhook-events.js';
import { PROCESSOR_EVENTS_JOB_QUEUE } from '../core/queue-names.js';
import type { SecretBox } from '../platform/secret-box.js';
import { TtlCache } from '../platform/ttl-cache.js';

const TOLERANCE_SECONDS = 300;

/** A program's signing secret, opened (null: none set, or no key to open it with). */
interface ProgramSecret {
  programId: number;
  secret: string | null;
}

/**
 * Programs' signing secrets, read and opened at most every few seconds per process: a webhook
 * then costs one round trip and no decryption. A signature that fails against a cached secret
 * is checked again against the stored one, so a new secret works at once.
 */
export const secretCache = () => new TtlCache<number, ProgramSecret | null>(5_000);

/** One per process: the inbox rows of concurrent deliveries are written together. */
export const inboxWriter = (pool: Pool) => new InboxWriter(pool, PROCESSOR_EVENTS_JOB_QUEUE);

export interface IntakeDeps {
  pool: Pool;
  /** Writes each inbox row with its job (concurrent deliveries together). */
  inbox: InboxWriter;
  secrets: ReturnType<typeof secretCache>;
  secretBox: SecretBox | null;
  /** The platform's Connect endpoint secret, when Connect is configured. */
  connectSecret: string | null;
  retentionDays: number;
  /** How old a Paddle signature may be (default PADDLE_TOLERANCE_SECONDS). */
  paddleToleranceSeconds?: number;
}

/** What came over the wire, untouched: Stripe signs these exact bytes. */
export interface SignedDelivery {
  rawBody: unknown;
  signature: unknown;
}

export type Received = StoredEvent & { eventKey: string; type: string };

/** Ids and names Stripe sends are short printable ASCII; anything else is not a Stripe event. */
const stripeToken = z.string().regex(/^[\x21-\x7e]{1,255}$/);

/** The envelope every Stripe event has; the object inside is read by the workers. */
export const signedEventSchema = z.object({
  id: stripeToken,
  type: stripeToken,
  livemode: z.boolean().optional(),
  api_version: stripeToken.nullish(),
  account: stripeToken.nullish(),
  // Only "an object": the workers read what is inside (no walk over its keys here).
  data: z.object({ object: z.custom<Record<string, unknown>>((value) => typeof value === 'object' && value !== null && !Array.isArray(value)) }),
});

function verify({ rawBody, signature }: SignedDelivery, secret: string): Stripe.Event {
  if (typeof signature !== 'string' || !signature) throw errors.badRequest('Missing Stripe-Signature header');
  if (!Buffer.isBuffer(rawBody)) throw errors.badRequest('Webhook body must be the raw request body');
  let event: unknown;
  try {
    event = Stripe.webhooks.constructEvent(rawBody, signature, secret, TOLERANCE_SECONDS);
  } catch (error) {
    throw errors.badRequest(`Webhook signature verification failed: ${(error as Error).message}`);
  }
  // Correctly signed, so Stripe will retry it for days: a clear 400 tells whoever reads the
  // endpoint's log in Stripe's dashboard why it was refused.
  const parsed = signedEventSchema.safeParse(event);
  if (!parsed.success) {
    const fields = [...new Set(parsed.error.issues.map((issue) => issue.path.join('.') || 'body'))].join(', ');
    throw errors.badRequest(`Signed payload is not a Stripe event (check: ${fields})`);
  }
  return event as Stripe.Event;
}

type Routing = Pick<NewInboxEvent, 'status' | 'reason' | 'waitingFor'>;

function routing(event: Stripe.Event): Routing {
  return isHandledStripeEvent(event.type)
    ? { status: 'queued', reason: null, waitingFor: null }
    : { status: 'ignored', reason: `event type ${event.type} is not handled`, waitingFor: null };
}

/**
 * A Connect event whose account is not bound yet (payments during onboarding): kept, and
 * routed and queued when the account is bound, while its payload is kept.
 */
function unboundAccount(event: Stripe.Event, retentionDays: number): Routing {
  if (!event.account) return { status: 'ignored', reason: 'event has no account', waitingFor: null };
  if (!isHandledStripeEvent(event.type)) return routing(event);
  return {
    status: 'ignored',
    reason: `no program is connected to account ${event.account} yet; processed when one is`,
    waitingFor: { id: event.account, days: retentionDays },
  };
}

async function store(deps: IntakeDeps, delivery: SignedDelivery, event: Stripe.Event, inbox: Pick<NewInboxEvent, 'endpoint' | 'programId'> & Routing): Promise<Received> {
  const stored = await deps.inbox.store({
    eventKey: event.id,
    type: event.type,
    livemode: event.livemode === true,
    apiVersion: event.api_version ?? null,
    rawBody: delivery.rawBody as Buffer,
    objectIds: stripeObjectIds(event),
    account: event.account ?? null,
    ...inbox,
  });
  return { ...stored, eventKey: event.id, type: event.type };
}

/** A brand's own Stripe account: verified with the program's signing secret. */
export async function receiveProgramEvent(deps: IntakeDeps, programRef: string, delivery: SignedDelivery): Promise<Received> {
  const programId = /^\d{1,15}$/.test(programRef) ? Number(programRef) : null;
  if (programId === null) throw errors.notFound('Program not found');
  const load = async (id: number): Promise<ProgramSecret | null> => {
    const stored = await programWebhookSecret(deps.pool, id);
    return stored && { programId: stored.programId, secret: opened(deps, stored) };
  };
  let settings = await deps.secrets.get(programId, load);
  let event: Stripe.Event;
  try {
    event = verify(delivery, programSecret(settings));
  } catch {
    // The secret may have just changed (or the program was created): the stored one decides.
    deps.secrets.forget(programId);
    settings = await deps.secrets.get(programId, load);
    const secret = programSecret(settings);
    try {
      event = verify(delivery, secret);
    } catch (error) {
      // The dashboard's live check shows the last failure; a failure to note it changes nothing.
      await noteSignatureFailure(deps.pool, settings!.programId, signatureFailureInWords((error as Error).message)).catch(() => undefined);
      throw error;
    }
  }
  return store(deps, delivery, event, { endpoint: 'program', programId: settings!.programId, ...routing(event) });
}

function opened(deps: IntakeDeps, stored: ProgramStripeSettings): string | null {
  return stored.webhookSecretSealed && deps.secretBox ? deps.secretBox.open(stored.webhookSecretSealed) : null;
}

function programSecret(settings: ProgramSecret | null): string {
  if (!settings) throw errors.notFound('Program not found');
  if (!settings.secret) throw errors.badRequest('Stripe is not connected for this program: set its webhook signing secret first');
  return settings.secret;
}

/** One Connect endpoint for connected accounts: verified with the platform secret, routed by event.account. */
export async function receiveConnectEvent(deps: IntakeDeps, delivery: SignedDelivery): Promise<Received> {
  if (!deps.connectSecret) throw errors.badRequest('The Connect endpoint is not configured: set STRIPE_CONNECT_WEBHOOK_SECRET');
  const event = verify(delivery, deps.connectSecret);
  const programId = event.account ? await programByStripeAccount(deps.pool, event.account) : null;
  const route = programId === null ? unboundAccount(event, deps.retentionDays) : routing(event);
  return store(deps, delivery, event, { endpoint: 'connect', programId, ...route });
}
