// Stripe webhooks: verify the signature on the raw body, then store the event and enqueue its
// job in one transaction. No attribution happens here; the workers do it.
import { stripeEventEnqueuer } from '../../platform/queue.js';
import express, { type Request, type Response, Router } from 'express';
import Stripe from 'stripe';
import { z } from 'zod';
import { AffixError, errors } from '../../core/errors.js';
import { type NewInboxEvent, noteStripeDelivery, programByStripeAccount, programWebhookSecret, storeEvent } from '../../db/webhook-events.js';
import { isHandledStripeEvent } from '../../core/stripe/event-types.js';
import { stripeObjectIds } from '../../core/stripe/read-objects.js';
import { state } from '../context.js';
import type { HttpDeps } from '../deps.js';

const TOLERANCE_SECONDS = 300;

/** Ids and names Stripe sends are short printable ASCII; anything else is not a Stripe event. */
const stripeToken = z.string().regex(/^[\x21-\x7e]{1,255}$/);

/** The envelope every Stripe event has; the object inside is read by the workers. */
const signedEventSchema = z.object({
  id: stripeToken,
  type: stripeToken,
  livemode: z.boolean().optional(),
  api_version: stripeToken.nullish(),
  account: stripeToken.nullish(),
  data: z.object({ object: z.record(z.string(), z.unknown()) }),
});

function verify(req: Request, secret: string): Stripe.Event {
  const signature = req.headers['stripe-signature'];
  if (typeof signature !== 'string' || !signature) throw errors.badRequest('Missing Stripe-Signature header');
  if (!Buffer.isBuffer(req.body)) throw errors.badRequest('Webhook body must be the raw request body');
  let event: unknown;
  try {
    event = Stripe.webhooks.constructEvent(req.body, signature, secret, TOLERANCE_SECONDS);
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

function routing(event: Stripe.Event): Pick<NewInboxEvent, 'status' | 'reason' | 'waitingFor'> {
  return isHandledStripeEvent(event.type)
    ? { status: 'queued', reason: null, waitingFor: null }
    : { status: 'ignored', reason: `event type ${event.type} is not handled`, waitingFor: null };
}

/**
 * A Connect event whose account is not bound yet (payments during onboarding): kept, and
 * routed and queued when the account is bound, while its payload is kept.
 */
function unboundAccount(event: Stripe.Event, retentionDays: number): Pick<NewInboxEvent, 'status' | 'reason' | 'waitingFor'> {
  if (!event.account) return { status: 'ignored', reason: 'event has no account', waitingFor: null };
  if (!isHandledStripeEvent(event.type)) return routing(event);
  return {
    status: 'ignored',
    reason: `no program is connected to account ${event.account} yet; processed when one is`,
    waitingFor: { id: event.account, days: retentionDays },
  };
}

async function accept(
  deps: HttpDeps,
  req: Request,
  res: Response,
  event: Stripe.Event,
  inbox: Omit<NewInboxEvent, 'stripeEventId' | 'type' | 'livemode' | 'apiVersion' | 'payload' | 'rawBody' | 'objectIds'>,
) {
  const stored = await storeEvent(deps.pool, stripeEventEnqueuer(deps.queue!), {
    stripeEventId: event.id,
    type: event.type,
    livemode: event.livemode === true,
    apiVersion: event.api_version ?? null,
    payload: event,
    rawBody: req.body as Buffer,
    objectIds: stripeObjectIds(event),
    ...inbox,
  });
  state(res).log.info(
    { stripeEventId: event.id, type: event.type, inboxId: stored.id, duplicate: stored.duplicate, status: stored.status },
    'stripe event received',
  );
  res.status(200).json({ received: true, id: stored.id, duplicate: stored.duplicate, status: stored.status });
}

export function stripeWebhookRoutes(deps: HttpDeps): Router {
  const router = Router();
  const raw = express.raw({ type: () => true, limit: '1mb' });
  const requireQueue = (_req: Request, _res: Response, next: () => void) => {
    if (!deps.queue) throw new AffixError(503, 'Webhook intake is not running on this instance');
    next();
  };

  // A brand's own Stripe account: verified with the program's signing secret.
  router.post('/api/v1/webhooks/stripe/:programId', requireQueue, raw, async (req, res) => {
    const programId = /^\d{1,15}$/.test(String(req.params.programId)) ? Number(req.params.programId) : null;
    const settings = programId === null ? null : await programWebhookSecret(deps.pool, programId);
    if (!settings) throw errors.notFound('Program not found');
    if (!settings.webhookSecretSealed || !deps.secretBox) {
      throw errors.badRequest('Stripe is not connected for this program: set its webhook signing secret first');
    }
    let event: Stripe.Event;
    try {
      event = verify(req, deps.secretBox.open(settings.webhookSecretSealed));
    } catch (error) {
      await noteStripeDelivery(deps.pool, settings.programId, (error as Error).message).catch(() => undefined);
      throw error;
    }
    await noteStripeDelivery(deps.pool, settings.programId, null);
    await accept(deps, req, res, event, { endpoint: 'program', programId: settings.programId, account: event.account ?? null, ...routing(event) });
  });

  // One Connect endpoint for connected accounts: verified with the platform secret, routed by event.account.
  router.post('/api/v1/webhooks/stripe', requireQueue, raw, async (req, res) => {
    if (!deps.config.stripeConnectWebhookSecret) {
      throw errors.badRequest('The Connect endpoint is not configured: set STRIPE_CONNECT_WEBHOOK_SECRET');
    }
    const event = verify(req, deps.config.stripeConnectWebhookSecret);
    const programId = event.account ? await programByStripeAccount(deps.pool, event.account) : null;
    const route = programId === null ? unboundAccount(event, deps.config.webhookRetentionDays) : routing(event);
    if (programId !== null) await noteStripeDelivery(deps.pool, programId, null);
    await accept(deps, req, res, event, { endpoint: 'connect', programId, account: event.account ?? null, ...route });
  });
  return router;
}
