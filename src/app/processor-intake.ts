// Paddle's and Lemon Squeezy's doors: verify the signature on the raw body, read the envelope with
// the processor's adapter, then store the event and enqueue its job in one transaction (the same
// inbox and writer as Stripe's). No attribution happens here; the workers do it.
import { errors } from '../core/errors.js';
import { verifyLemonSqueezySignature } from '../core/lemonsqueezy/signature.js';
import { verifyPaddleSignature } from '../core/paddle/signature.js';
import { ADAPTERS } from '../core/adapters.js';
import { type ProcessorAdapter, namespacedEventId } from '../core/processor-port.js';
import { type ConnectedProcessor, noteProcessorSignatureFailure, processorEndpoint } from '../db/processor-endpoints.js';
import type { IntakeDeps, Received, SignedDelivery } from './webhook-intake.js';

interface Door {
  adapter: ProcessorAdapter;
  verify: (rawBody: Buffer, signature: unknown, secret: string, now: Date, deps: IntakeDeps) => void;
  name: string;
}

const DOORS: Record<ConnectedProcessor, Door> = {
  paddle: { adapter: ADAPTERS.paddle, verify: (raw, signature, secret, now, deps) => verifyPaddleSignature(raw, signature, secret, now, deps.paddleToleranceSeconds), name: 'Paddle' },
  lemonsqueezy: { adapter: ADAPTERS.lemonsqueezy, verify: (raw, signature, secret) => verifyLemonSqueezySignature(raw, signature, secret), name: 'Lemon Squeezy' },
};

export async function receiveProcessorEvent(deps: IntakeDeps, processor: ConnectedProcessor, programRef: string, delivery: SignedDelivery, now: Date): Promise<Received> {
  const door = DOORS[processor];
  const programId = /^\d{1,15}$/.test(programRef) ? Number(programRef) : null;
  if (programId === null) throw errors.notFound('Program not found');
  const endpoint = await processorEndpoint(deps.pool, programId, processor);
  if (!endpoint) throw errors.notFound(`Program not found, or ${door.name} is not set up for it: save its signing secret first`);
  if (!deps.secretBox) throw errors.badRequest(`Set AFFIX_SECRET_KEY to open the ${door.name} signing secret`);
  if (!Buffer.isBuffer(delivery.rawBody)) throw errors.badRequest('Webhook body must be the raw request body');
  try {
    door.verify(delivery.rawBody, delivery.signature, deps.secretBox.open(endpoint.secretSealed), now, deps);
  } catch (error) {
    // The set-up page shows the last failure; a failure to note it changes nothing.
    await noteProcessorSignatureFailure(deps.pool, programId, processor, (error as Error).message).catch(() => undefined);
    throw error;
  }
  let body: unknown;
  try {
    body = JSON.parse(delivery.rawBody.toString('utf8'));
  } catch {
    throw errors.badRequest(`Signed payload is not JSON: not a ${door.name} webhook`);
  }
  const envelope = door.adapter.envelope(body, { sandbox: endpoint.sandbox });
  const handled = door.adapter.handledTypes.includes(envelope.type);
  const stored = await deps.inbox.store({
    eventKey: namespacedEventId(processor, envelope.eventId),
    endpoint: 'program',
    programId,
    account: null,
    type: envelope.type,
    livemode: envelope.livemode,
    apiVersion: null,
    rawBody: delivery.rawBody,
    status: handled ? 'queued' : 'ignored',
    reason: handled ? null : `event type ${envelope.type} is not handled`,
    objectIds: envelope.objectIds.slice(0, 16),
    waitingFor: null,
  });
  return { ...stored, eventKey: namespacedEventId(processor, envelope.eventId), type: envelope.type };
}
