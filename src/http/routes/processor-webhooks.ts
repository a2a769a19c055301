// Processors' webhooks over HTTP (Stripe, Paddle, Lemon Squeezy): the raw body and signature go
// to the intake use case; the answer says what was stored.
import express, { type Request, type Response, Router } from 'express';
import { type IntakeDeps, type Received, inboxWriter, receiveConnectEvent, receiveProgramEvent, secretCache } from '../../app/inbox/webhook-intake.js';
import { AffixError, errors } from '../../core/errors.js';
import type { IncomingHttpHeaders } from 'node:http';
import { state } from '../context.js';
import { writeJson } from '../respond.js';
import { type HttpDeps, clock } from '../deps.js';

/** The answer to a stored delivery; Express's routes and the direct path (direct/webhooks.ts) share it. */
export function answerReceived(res: Response, received: Received): void {
  // On the request's own log line (one line per request).
  state(res).logFields = { eventId: received.eventKey, type: received.type, inboxId: received.id, duplicate: received.duplicate, inboxStatus: received.status };
  writeJson(res, 200, { received: true, id: received.id, duplicate: received.duplicate, status: received.status });
}

/** Deliveries are refused before their body is read on an instance without the job queue. */
export function assertIntakeRunning(deps: HttpDeps): void {
  if (!deps.queue) throw new AffixError(503, 'Webhook intake is not running on this instance');
}

export type WebhookSource = 'stripe' | 'paddle' | 'lemonsqueezy';

/** Hands a delivery to its intake: verified on the raw body, stored with its job. */
export type ReceiveWebhook = (source: WebhookSource, programId: string | null, rawBody: Buffer, headers: IncomingHttpHeaders) => Promise<Received>;

/** The process's one intake: its inbox writer and secret cache, for every route that receives deliveries and the dashboard's test event. */
export function intakeDeps(deps: HttpDeps): IntakeDeps {
  return {
    pool: deps.pool,
    inbox: inboxWriter(deps.pool),
    secrets: secretCache(),
    secretBox: deps.secretBox ?? null,
    connectSecret: deps.config.stripeConnectWebhookSecret ?? null,
    retentionDays: deps.config.webhookRetentionDays,
    paddleToleranceSeconds: deps.config.paddleSignatureToleranceSeconds,
  };
}

/** Where each processor puts its signature. */
const SIGNATURE_HEADER: Record<WebhookSource, string> = { stripe: 'stripe-signature', paddle: 'paddle-signature', lemonsqueezy: 'x-signature' };

/** Hands each delivery to the one intake: verified on the raw body, stored with its job. */
export function webhookIntake(deps: HttpDeps, intake: IntakeDeps = intakeDeps(deps)): ReceiveWebhook {
  return async (source, programId, rawBody, headers) => {
    const delivery = { rawBody, signature: headers[SIGNATURE_HEADER[source]] };
    // Only Stripe has an endpoint without a program: Connect's, routed by the event's account.
    if (source === 'stripe' && programId === null) return receiveConnectEvent(intake, delivery, clock(deps));
    return receiveProgramEvent(intake, source, programId ?? '', delivery, clock(deps));
  };
}

export function processorWebhookRoutes(deps: HttpDeps, receive: ReceiveWebhook = webhookIntake(deps)): Router {
  const router = Router();
  const parseRaw = express.raw({ type: () => true, limit: deps.config.webhookBodyLimit });
  // The size refusal names the limit that applied here, not the JSON API's.
  const raw = (req: Request, res: Response, next: (error?: unknown) => void) =>
    parseRaw(req, res, (error?: unknown) => {
      if ((error as { type?: string } | undefined)?.type === 'entity.too.large') {
        return next(errors.payloadTooLarge(`Webhook body is larger than ${deps.config.webhookBodyLimit} (AFFIX_WEBHOOK_BODY_LIMIT)`));
      }
      next(error);
    });
  const requireQueue = (_req: Request, _res: Response, next: () => void) => {
    assertIntakeRunning(deps);
    next();
  };
  const route = (source: WebhookSource, withProgram: boolean) => async (req: Request, res: Response) => {
    answerReceived(res, await receive(source, withProgram ? String(req.params.programId) : null, req.body, req.headers));
  };
  router.post('/api/v1/webhooks/stripe/:programId', requireQueue, raw, route('stripe', true));
  router.post('/api/v1/webhooks/stripe', requireQueue, raw, route('stripe', false));
  router.post('/api/v1/webhooks/paddle/:programId', requireQueue, raw, route('paddle', true));
  router.post('/api/v1/webhooks/lemonsqueezy/:programId', requireQueue, raw, route('lemonsqueezy', true));
  return router;
}
