// Processors' webhooks over HTTP (Stripe, Paddle, Lemon Squeezy): the raw body and signature go
// to the intake use case; the answer says what was stored.
import express, { type Request, type Response, Router } from 'express';
import { type IntakeDeps, type Received, inboxWriter, receiveConnectEvent, receiveProgramEvent, secretCache } from '../../app/webhook-intake.js';
import { receiveProcessorEvent } from '../../app/processor-intake.js';
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

/** One intake (its inbox writer and secret cache) for every route that receives deliveries. */
export function webhookIntake(deps: HttpDeps): ReceiveWebhook {
  const secrets = secretCache();
  const inbox = inboxWriter(deps.pool);
  const intake = (): IntakeDeps => ({
    pool: deps.pool,
    inbox,
    secrets,
    secretBox: deps.secretBox ?? null,
    connectSecret: deps.config.stripeConnectWebhookSecret ?? null,
    retentionDays: deps.config.webhookRetentionDays,
    paddleToleranceSeconds: deps.config.paddleSignatureToleranceSeconds,
  });
  return async (source, programId, rawBody, headers) => {
    // The same inbox and writer for every processor; each signs its own way.
    if (source === 'stripe') {
      const delivery = { rawBody, signature: headers['stripe-signature'] };
      return programId === null ? receiveConnectEvent(intake(), delivery) : receiveProgramEvent(intake(), programId, delivery);
    }
    const signature = source === 'paddle' ? headers['paddle-signature'] : headers['x-signature'];
    return receiveProcessorEvent(intake(), source, programId ?? '', { rawBody, signature }, clock(deps));
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
