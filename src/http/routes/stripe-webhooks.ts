// Processors' webhooks over HTTP (Stripe, Paddle, Lemon Squeezy): the raw body and signature go
// to the intake use case; the answer says what was stored.
import express, { type Request, type Response, Router } from 'express';
import { type IntakeDeps, type Received, inboxWriter, receiveConnectEvent, receiveProgramEvent, secretCache } from '../../app/stripe-intake.js';
import { receiveProcessorEvent } from '../../app/processor-intake.js';
import { AffixError, errors } from '../../core/errors.js';
import { state } from '../context.js';
import { type HttpDeps, clock } from '../deps.js';

function answer(res: Response, received: Received): void {
  // On the request's own log line (one line per request).
  state(res).logFields = { eventId: received.stripeEventId, type: received.type, inboxId: received.id, duplicate: received.duplicate, inboxStatus: received.status };
  res.status(200).json({ received: true, id: received.id, duplicate: received.duplicate, status: received.status });
}

export function stripeWebhookRoutes(deps: HttpDeps): Router {
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
    if (!deps.queue) throw new AffixError(503, 'Webhook intake is not running on this instance');
    next();
  };
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
  const delivery = (req: Request) => ({ rawBody: req.body, signature: req.headers['stripe-signature'] });

  router.post('/api/v1/webhooks/stripe/:programId', requireQueue, raw, async (req, res) => {
    answer(res, await receiveProgramEvent(intake(), String(req.params.programId), delivery(req)));
  });
  router.post('/api/v1/webhooks/stripe', requireQueue, raw, async (req, res) => {
    answer(res, await receiveConnectEvent(intake(), delivery(req)));
  });
  // The same inbox and writer for the other processors; each signs its own way.
  router.post('/api/v1/webhooks/paddle/:programId', requireQueue, raw, async (req, res) => {
    answer(res, await receiveProcessorEvent(intake(), 'paddle', String(req.params.programId), { rawBody: req.body, signature: req.headers['paddle-signature'] }, clock(deps)));
  });
  router.post('/api/v1/webhooks/lemonsqueezy/:programId', requireQueue, raw, async (req, res) => {
    answer(res, await receiveProcessorEvent(intake(), 'lemonsqueezy', String(req.params.programId), { rawBody: req.body, signature: req.headers['x-signature'] }, clock(deps)));
  });
  return router;
}
