// Every processor's door (Stripe, Paddle, Lemon Squeezy): verify the signature on the raw body
// with the program's endpoint secret, read the envelope with the processor's adapter, then store
// the event and enqueue its job in one transaction. No attribution happens here; the workers do it.
import Stripe from 'stripe';
import { ADAPTERS } from '../../core/adapters.js';
import { AffixError, errors } from '../../core/errors.js';
import { verifyLemonSqueezySignature } from '../../core/lemonsqueezy/signature.js';
import { verifyPaddleSignature } from '../../core/paddle/signature.js';
import { type ProcessorAdapter, type ProcessorEnvelope, type ProcessorName, namespacedEventId } from '../../core/processor-port.js';
import { PROCESSOR_EVENTS_JOB_QUEUE } from '../../core/queue-names.js';
import { signatureFailureInWords } from '../../core/stripe/signature-failure.js';
import { InboxWriter } from '../../db/inbox/inbox-writer.js';
import type { Pool } from '../../db/infra/pool.js';
import { endpointForIntake, noteProcessorSignatureFailure } from '../../db/inbox/processor-endpoints.js';
import { type NewInboxEvent, type StoredEvent, programByStripeAccount } from '../../db/inbox/inbound-events.js';
import type { SecretBox } from '../../platform/secret-box.js';
import { TtlCache } from '../../platform/ttl-cache.js';
import { recordPartnerAccountUpdate } from '../money/partner-stripe-accounts.js';

const STRIPE_TOLERANCE_SECONDS = 300;

/** A program's endpoint at one processor, its secret opened (null: no such program). */
interface OpenedEndpoint {
  programId: number;
  /** False: no endpoint saved for this processor. */
  saved: boolean;
  /** The signing secret, opened (null: none saved, or no key to open it with). */
  secret: string | null;
  sandbox: boolean;
}

/**
 * Programs' endpoints, read and their secrets opened at most every few seconds per process, for
 * every processor: a webhook then costs one round trip and no decryption. A signature that fails
 * against a cached secret is checked again against the stored one, so a new secret works at once.
 */
export const secretCache = () => new TtlCache<string, OpenedEndpoint | null>(5_000);

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

/** What came over the wire, untouched: the processor signs these exact bytes. */
export interface SignedDelivery {
  rawBody: unknown;
  signature: unknown;
}

export type Received = StoredEvent & { eventKey: string; type: string };

/** How one processor signs, and what its refusals say. */
interface Door {
  name: string;
  adapter: ProcessorAdapter;
  /**
   * Checks the signature on the raw bytes (a 400 when it does not hold). Returns the body when
   * checking it read it (Stripe's library parses it), else undefined: it is read after.
   */
  verify(rawBody: unknown, signature: unknown, secret: string, now: Date, deps: IntakeDeps): unknown;
  /** The refusal when the endpoint cannot verify anything: no such program, or no secret to use. */
  unusable(endpoint: OpenedEndpoint | null): AffixError | null;
  /** The last failure as the set-up page shows it. */
  failureInWords(message: string): string;
}

const rawBytes = (rawBody: unknown): Buffer => {
  if (!Buffer.isBuffer(rawBody)) throw errors.badRequest('Webhook body must be the raw request body');
  return rawBody;
};

/** The processors other than Stripe: a program without an endpoint is "not found", as its page says. */
function notSetUp(name: string) {
  return (endpoint: OpenedEndpoint | null): AffixError | null => {
    if (!endpoint?.saved) return errors.notFound(`Program not found, or ${name} is not set up for it: save its signing secret first`);
    if (!endpoint.secret) return errors.badRequest(`Set AFFIX_SECRET_KEY to open the ${name} signing secret`);
    return null;
  };
}

function verifyStripe(rawBody: unknown, signature: unknown, secret: string): unknown {
  if (typeof signature !== 'string' || !signature) throw errors.badRequest('Missing Stripe-Signature header');
  const raw = rawBytes(rawBody);
  try {
    return Stripe.webhooks.constructEvent(raw, signature, secret, STRIPE_TOLERANCE_SECONDS);
  } catch (error) {
    throw errors.badRequest(`Webhook signature verification failed: ${(error as Error).message}`);
  }
}

const DOORS: Record<ProcessorName, Door> = {
  stripe: {
    name: 'Stripe',
    adapter: ADAPTERS.stripe,
    verify: verifyStripe,
    unusable: (endpoint) => {
      if (!endpoint) return errors.notFound('Program not found');
      if (!endpoint.secret) return errors.badRequest('Stripe is not connected for this program: set its webhook signing secret first');
      return null;
    },
    failureInWords: signatureFailureInWords,
  },
  paddle: {
    name: 'Paddle',
    adapter: ADAPTERS.paddle,
    verify: (rawBody, signature, secret, now, deps) => void verifyPaddleSignature(rawBytes(rawBody), signature, secret, now, deps.paddleToleranceSeconds),
    unusable: notSetUp('Paddle'),
    failureInWords: (message) => message,
  },
  lemonsqueezy: {
    name: 'Lemon Squeezy',
    adapter: ADAPTERS.lemonsqueezy,
    verify: (rawBody, signature, secret) => void verifyLemonSqueezySignature(rawBytes(rawBody), signature, secret),
    unusable: notSetUp('Lemon Squeezy'),
    failureInWords: (message) => message,
  },
};

function readBody(door: Door, rawBody: Buffer, parsed: unknown): unknown {
  if (parsed !== undefined) return parsed;
  try {
    return JSON.parse(rawBody.toString('utf8'));
  } catch {
    throw errors.badRequest(`Signed payload is not JSON: not a ${door.name} webhook`);
  }
}

type Routing = Pick<NewInboxEvent, 'status' | 'reason' | 'waitingFor'>;

function routing(door: Door, envelope: ProcessorEnvelope): Routing {
  return door.adapter.handledTypes.includes(envelope.type)
    ? { status: 'queued', reason: null, waitingFor: null }
    : { status: 'ignored', reason: `event type ${envelope.type} is not handled`, waitingFor: null };
}

async function store(deps: IntakeDeps, processor: ProcessorName, rawBody: Buffer, envelope: ProcessorEnvelope, inbox: Pick<NewInboxEvent, 'endpoint' | 'programId'> & Routing): Promise<Received> {
  const eventKey = namespacedEventId(processor, envelope.eventId);
  const stored = await deps.inbox.store({
    eventKey,
    type: envelope.type,
    livemode: envelope.livemode,
    apiVersion: envelope.apiVersion ?? null,
    rawBody,
    objectIds: envelope.objectIds.slice(0, 16),
    account: envelope.account ?? null,
    ...inbox,
  });
  return { ...stored, eventKey, type: envelope.type };
}

/**
 * A delivery to a program's own endpoint at its processor, verified with the secret saved for it.
 * A signature that fails against the cached secret is checked once more against the stored one
 * (the secret may have just changed, or the endpoint been saved); a failure then is noted for the
 * set-up page.
 */
export async function receiveProgramEvent(deps: IntakeDeps, processor: ProcessorName, programRef: string, delivery: SignedDelivery, now: Date): Promise<Received> {
  const door = DOORS[processor];
  const programId = /^\d{1,15}$/.test(programRef) ? Number(programRef) : null;
  if (programId === null) throw errors.notFound('Program not found');
  const key = `${processor}:${programId}`;
  const load = async (): Promise<OpenedEndpoint | null> => {
    const stored = await endpointForIntake(deps.pool, programId, processor);
    if (!stored) return null;
    const sealed = stored.endpoint?.secretSealed ?? null;
    return { programId: stored.programId, saved: sealed !== null, secret: sealed && deps.secretBox ? deps.secretBox.open(sealed) : null, sandbox: stored.endpoint?.sandbox ?? false };
  };
  const usable = (endpoint: OpenedEndpoint | null): OpenedEndpoint & { secret: string } => {
    const refusal = door.unusable(endpoint);
    if (refusal) throw refusal;
    return endpoint as OpenedEndpoint & { secret: string };
  };
  let endpoint = await deps.secrets.get(key, load);
  let parsed: unknown;
  try {
    parsed = door.verify(delivery.rawBody, delivery.signature, usable(endpoint).secret, now, deps);
  } catch {
    deps.secrets.forget(key);
    endpoint = await deps.secrets.get(key, load);
    const secret = usable(endpoint).secret;
    try {
      parsed = door.verify(delivery.rawBody, delivery.signature, secret, now, deps);
    } catch (error) {
      // A failure to note it changes nothing.
      await noteProcessorSignatureFailure(deps.pool, endpoint!.programId, processor, door.failureInWords((error as Error).message)).catch(() => undefined);
      throw error;
    }
  }
  const rawBody = delivery.rawBody as Buffer;
  const envelope = door.adapter.envelope(readBody(door, rawBody, parsed), { sandbox: endpoint!.sandbox });
  return store(deps, processor, rawBody, envelope, { endpoint: 'program', programId: endpoint!.programId, ...routing(door, envelope) });
}

/**
 * A Connect event whose account is not bound yet (payments during onboarding): kept, and
 * routed and queued when the account is bound, while its payload is kept.
 */
function unboundAccount(door: Door, envelope: ProcessorEnvelope, retentionDays: number): Routing {
  if (!envelope.account) return { status: 'ignored', reason: 'event has no account', waitingFor: null };
  if (!door.adapter.handledTypes.includes(envelope.type)) return routing(door, envelope);
  return {
    status: 'ignored',
    reason: `no program is connected to account ${envelope.account} yet; processed when one is`,
    waitingFor: { id: envelope.account, days: retentionDays },
  };
}

/** Stripe's one Connect endpoint for connected accounts: verified with the platform secret, routed by event.account. */
export async function receiveConnectEvent(deps: IntakeDeps, delivery: SignedDelivery, now: Date): Promise<Received> {
  if (!deps.connectSecret) throw errors.badRequest('The Connect endpoint is not configured: set STRIPE_CONNECT_WEBHOOK_SECRET');
  const door = DOORS.stripe;
  const parsed = door.verify(delivery.rawBody, delivery.signature, deps.connectSecret, now, deps);
  const rawBody = delivery.rawBody as Buffer;
  const body = readBody(door, rawBody, parsed);
  const envelope = door.adapter.envelope(body, { sandbox: false });
  // A partner's Express account (not a brand's): its state is stored at once (src/app/money/partner-stripe-accounts.ts).
  const partnerAccount = await recordPartnerAccountUpdate(deps.pool, body as Stripe.Event);
  if (partnerAccount) return store(deps, 'stripe', rawBody, envelope, { endpoint: 'connect', programId: partnerAccount.programId, status: 'processed', reason: partnerAccount.reason, waitingFor: null });
  const programId = envelope.account ? await programByStripeAccount(deps.pool, envelope.account) : null;
  const route = programId === null ? unboundAccount(door, envelope, deps.retentionDays) : routing(door, envelope);
  return store(deps, 'stripe', rawBody, envelope, { endpoint: 'connect', programId, ...route });
}
