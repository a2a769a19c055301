// The processors' webhook deliveries served by node:http directly (body.ts says why): a burst of
// them is what the intake must take at its ceiling. The same steps as Express's routes
// (routes/processor-webhooks.ts): the queue's presence, the raw body, the intake, the answer.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { HttpDeps } from '../deps.js';
import { answerFailure, asResponse, beginRequest } from '../request-life.js';
import { type ReceiveWebhook, type WebhookSource, answerReceived, assertIntakeRunning } from '../routes/processor-webhooks.js';
import { hasPlainBody, pathOf, readBody } from './body.js';

export interface WebhookRoute {
  source: WebhookSource;
  programId: string | null;
  path: string;
}

// A program id of plain characters only: one that needs decoding is left to Express's router.
const ROUTE = /^\/api\/v1\/webhooks\/(stripe|paddle|lemonsqueezy)(?:\/([A-Za-z0-9_-]+))?$/;

/** The delivery's route when this path serves it (see body.ts), else null. */
export function webhookRoute(req: IncomingMessage, limitBytes: number | null): WebhookRoute | null {
  if (req.method !== 'POST') return null;
  const path = pathOf(req);
  const match = ROUTE.exec(path);
  if (!match || !hasPlainBody(req.headers, limitBytes)) return null;
  const source = match[1] as WebhookSource;
  const programId = match[2] ?? null;
  // Only Stripe has a route without a program (Connect's one endpoint).
  if (programId === null && source !== 'stripe') return null;
  return { source, programId, path };
}

/** Serves one delivery; never throws (a failure is answered from the catalogue). */
export async function serveWebhook(deps: HttpDeps, receive: ReceiveWebhook, route: WebhookRoute, req: IncomingMessage, raw: ServerResponse): Promise<void> {
  const res = asResponse(raw);
  beginRequest(deps, req, route.path, raw);
  try {
    assertIntakeRunning(deps);
    answerReceived(res, await receive(route.source, route.programId, await readBody(req), req.headers));
  } catch (error) {
    await answerFailure(deps, error, res);
  }
}
