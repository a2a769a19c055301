// Webhooks to the brand: registering endpoints (secret shown once), rotating secrets with an
// overlap, the delivery log and replays, and delivering one message (docs/webhooks.md).
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { errors } from '../../core/errors.js';
import { OUTBOUND_EVENT_TYPES, type OutboundEventType, attemptVerdict, nextAttemptAt, outboundBody } from '../../core/outbound-events.js';
import { DEFAULT_OUTBOUND_QUEUE, queueDeliveries } from '../../db/outbound/messages.js';
import { type PoolClient, withTransaction } from '../../db/infra/pool.js';
import * as endpoints from '../../db/outbound/webhook-endpoints.js';
import type { SecretBox } from '../../platform/secret-box.js';
import { type HostResolver, endpointNameProblem, endpointUrlProblem, sendWebhook } from '../../platform/webhook-sender.js';
import { managerMail, queueForManagers } from './mail.js';
import { SYSTEM, changedFields } from '../../core/audit.js';
import { type ManagementDeps, audit, parseInput } from '../programs/management.js';
import { type Scope, endpointInScope, programInScope } from '../accounts/scope.js';

/** How long an old secret keeps signing after a rotation. */
export const SECRET_OVERLAP_HOURS = 24;
export interface OutboundSettings {
  allowPrivateAddresses: boolean;
  /** The whole attempt, connect to last byte: a receiver that has not answered by then has failed it. */
  timeoutMs: number;
  /** Delivery workers per process. */
  concurrency: number;
  retryScheduleSeconds: readonly number[];
}

/** How many attempts one endpoint may have under way in this process (src/jobs/money-jobs.ts). */
export interface EndpointShare {
  tryEnter(endpointId: number): boolean;
  leave(endpointId: number): void;
}

export interface WebhookDeps extends ManagementDeps {
  outbound: OutboundSettings;
  /** Without it (tests, a replay by hand), an attempt never waits for its endpoint's share. */
  endpointShare?: EndpointShare;
  /** Resolves an endpoint's host name at registration; the host's own resolver unless a test sets one. */
  resolveHost?: HostResolver;
}

/** A delivery whose endpoint has its full share under way waits this long, as a new job, instead of holding a worker. */
export const DEFERRED_DELIVERY_MS = 1_000;

const newSecret = () => `whsec_${randomBytes(24).toString('base64')}`;

function box(deps: ManagementDeps): SecretBox {
  if (!deps.secretBox) throw errors.badRequest('Webhook endpoints need AFFIX_SECRET_KEY: their signing secrets are stored encrypted');
  return deps.secretBox;
}

const eventTypes = z
  .array(z.enum(OUTBOUND_EVENT_TYPES, { error: `Event types are ${OUTBOUND_EVENT_TYPES.join(', ')}.` }), { error: 'Choose at least one event type.' })
  .min(1, 'Choose at least one event type.');

export const endpointInput = (allowPrivate: boolean) =>
  z.object({
    url: z
      .string({ error: 'Give the endpoint URL.' })
      .trim()
      .max(2000, 'A URL is at most 2000 characters.')
      .superRefine((url, ctx) => {
        const problem = endpointUrlProblem(url, allowPrivate);
        if (problem) ctx.addIssue({ code: 'custom', message: `The URL ${problem}.` });
      }),
    // A form sends one value as a string.
    event_types: z.preprocess((value) => (typeof value === 'string' ? [value] : value), eventTypes),
  });

/** Registers an endpoint; the answer carries its signing secret, the only time it is shown. */
export async function createEndpoint(deps: WebhookDeps, scope: Scope, programId: number, input: unknown) {
  await programInScope(deps, scope, programId);
  const parsed = parseInput(endpointInput(deps.outbound.allowPrivateAddresses), input);
  // A name is judged by what it resolves to now too (the connect-time check stays: answers change).
  const nameProblem = await endpointNameProblem(parsed.url, deps.outbound.allowPrivateAddresses, deps.resolveHost);
  if (nameProblem) throw errors.invalid(`url: The URL ${nameProblem}.`, { url: `The URL ${nameProblem}.` });
  const secret = newSecret();
  return withTransaction(deps.pool, async (client) => {
    const endpoint = await endpoints.insertEndpoint(client, programId, parsed.url, parsed.event_types as OutboundEventType[], box(deps).seal(secret));
    await audit(client, scope, [{ programId, action: 'webhook_endpoint.created', objectType: 'webhook_endpoint', objectId: endpoint.id, changes: changedFields(null, { url: parsed.url, event_types: parsed.event_types, secret: 'new' }) }]);
    return { endpoint, secret };
  });
}

export async function listEndpoints(deps: ManagementDeps, scope: Scope, programId: number) {
  await programInScope(deps, scope, programId);
  return endpoints.listEndpoints(deps.pool, programId);
}


export const updateInput = z.object({ enabled: z.boolean({ error: 'enabled must be true or false.' }).optional(), event_types: eventTypes.optional() });

/** Turns an endpoint on or off, or changes what it listens to. Turning it on again clears the notice. */
export async function updateEndpoint(deps: ManagementDeps, scope: Scope, programId: number, endpointId: number, input: unknown) {
  const before = await endpointInScope(deps, scope, programId, endpointId);
  const parsed = parseInput(updateInput, input);
  return withTransaction(deps.pool, async (client) => {
    await endpoints.updateEndpoint(client, programId, endpointId, { enabled: parsed.enabled, eventTypes: parsed.event_types as OutboundEventType[] | undefined });
    const after = (await endpoints.getEndpoint(client, programId, endpointId))!;
    await audit(client, scope, [{ programId, action: 'webhook_endpoint.updated', objectType: 'webhook_endpoint', objectId: endpointId, changes: changedFields({ enabled: before.enabled, event_types: before.eventTypes }, { enabled: after.enabled, event_types: after.eventTypes }) }]);
    return after;
  });
}

export async function deleteEndpoint(deps: ManagementDeps, scope: Scope, programId: number, endpointId: number) {
  const endpoint = await endpointInScope(deps, scope, programId, endpointId);
  await withTransaction(deps.pool, async (client) => {
    await endpoints.deleteEndpoint(client, programId, endpointId);
    await audit(client, scope, [{ programId, action: 'webhook_endpoint.deleted', objectType: 'webhook_endpoint', objectId: endpointId, changes: changedFields({ url: endpoint.url }, { url: null }) }]);
  });
}

/** A new secret, shown once; the old one signs beside it for SECRET_OVERLAP_HOURS. */
export async function rotateEndpointSecret(deps: ManagementDeps, scope: Scope, programId: number, endpointId: number) {
  await endpointInScope(deps, scope, programId, endpointId);
  const secret = newSecret();
  const previousUntil = new Date(deps.now().getTime() + SECRET_OVERLAP_HOURS * 3_600_000);
  await withTransaction(deps.pool, async (client) => {
    await endpoints.rotateSecret(client, programId, endpointId, box(deps).seal(secret), previousUntil);
    await audit(client, scope, [{ programId, action: 'webhook_endpoint.secret_rotated', objectType: 'webhook_endpoint', objectId: endpointId, changes: { secret: { from: 'set', to: 'changed' } } }]);
  });
  return { secret, previousSecretValidUntil: previousUntil };
}

/** Each delivery with the request it sends (the body; headers are signed per attempt) and its last answer. */
export async function deliveryLog(deps: ManagementDeps, scope: Scope, programId: number, endpointId: number) {
  const endpoint = await endpointInScope(deps, scope, programId, endpointId);
  const deliveries = await endpoints.deliveryLog(deps.pool, programId, endpointId);
  return {
    endpoint,
    deliveries: deliveries.map(({ data, test, messageCreatedAt, ...delivery }) => ({
      ...delivery,
      request: { url: endpoint.url, webhookId: delivery.messageId, body: outboundBody({ type: delivery.type, test, data }, messageCreatedAt) },
    })),
  };
}

export async function replayDelivery(deps: ManagementDeps, scope: Scope, programId: number, deliveryId: number) {
  await programInScope(deps, scope, programId);
  const id = Number.isSafeInteger(deliveryId)
    ? await withTransaction(deps.pool, (client) => endpoints.replayDelivery(client, DEFAULT_OUTBOUND_QUEUE, programId, deliveryId))
    : null;
  if (id === null) throw errors.notFound('Delivery not found');
  return { deliveryId: id };
}

export type DeliveryOutcome = 'delivered' | 'retry_scheduled' | 'failed' | 'endpoint_gone' | 'skipped' | 'deferred';

/**
 * One attempt of one delivery (the job's work): sign, POST, record. 2xx delivers; 410 turns the
 * endpoint off; anything else retries on the schedule, and a delivery out of retries (about a
 * day of failures) turns the endpoint off with a notice for the brand.
 */
export async function deliver(deps: WebhookDeps, deliveryId: number): Promise<DeliveryOutcome> {
  const work = await endpoints.deliveryWork(deps.pool, deliveryId);
  if (!work || work.status !== 'pending' || !work.enabled) return 'skipped';
  // One slow brand never holds more than its share of the delivery capacity: the rest waits as a job.
  if (deps.endpointShare && !deps.endpointShare.tryEnter(work.endpointId)) {
    await withTransaction(deps.pool, (client) => queueDeliveries(client, DEFAULT_OUTBOUND_QUEUE, [deliveryId], new Date(deps.now().getTime() + DEFERRED_DELIVERY_MS)));
    return 'deferred';
  }
  try {
    return await attempt(deps, deliveryId, work);
  } finally {
    deps.endpointShare?.leave(work.endpointId);
  }
}

async function attempt(deps: WebhookDeps, deliveryId: number, work: NonNullable<Awaited<ReturnType<typeof endpoints.deliveryWork>>>): Promise<DeliveryOutcome> {
  const secretBox = box(deps);
  const now = deps.now();
  const secrets = [secretBox.open(work.secretSealed)];
  if (work.previousSecretSealed && work.previousSecretUntil && work.previousSecretUntil > now) secrets.push(secretBox.open(work.previousSecretSealed));
  const result = await sendWebhook(
    work.url,
    { id: work.messageId, timestamp: now, body: outboundBody(work, work.createdAt), secrets },
    { allowPrivate: deps.outbound.allowPrivateAddresses, timeoutMs: deps.outbound.timeoutMs, clock: () => deps.now().getTime() },
  );
  const verdict = attemptVerdict(result.status);
  return withTransaction(deps.pool, async (client) => {
    const current = await endpoints.deliveryWork(client, deliveryId, { lock: true });
    if (!current || current.status !== 'pending') return 'skipped';
    const attempt = { attemptedAt: now, statusCode: result.status, excerpt: result.excerpt, durationMs: result.durationMs };
    if (verdict === 'delivered') {
      await endpoints.recordAttempt(client, DEFAULT_OUTBOUND_QUEUE, deliveryId, attempt, { status: 'delivered' });
      return 'delivered';
    }
    if (verdict === 'gone') {
      await endpoints.recordAttempt(client, DEFAULT_OUTBOUND_QUEUE, deliveryId, attempt, { status: 'failed' });
      await turnOff(client, work, 'The endpoint answered 410 Gone: it asked not to receive more events');
      return 'endpoint_gone';
    }
    const retryAt = nextAttemptAt(current.attempts + 1, now, deps.outbound.retryScheduleSeconds);
    if (retryAt) {
      await endpoints.recordAttempt(client, DEFAULT_OUTBOUND_QUEUE, deliveryId, attempt, { status: 'pending', retryAt });
      return 'retry_scheduled';
    }
    await endpoints.recordAttempt(client, DEFAULT_OUTBOUND_QUEUE, deliveryId, attempt, { status: 'failed' });
    await turnOff(client, work, `Every attempt to deliver ${work.messageId} failed (last: ${result.status ?? result.excerpt})`);
    return 'failed';
  });
}

/** Turns the endpoint off and tells the program's managers, in the same transaction. */
async function turnOff(client: PoolClient, work: endpoints.DeliveryWork, reason: string): Promise<void> {
  await endpoints.disableEndpoint(client, work.endpointId, reason);
  await audit(client, { kind: 'operator', actor: SYSTEM('webhook deliveries') }, [
    { programId: work.programId, action: 'webhook_endpoint.turned_off', objectType: 'webhook_endpoint', objectId: work.endpointId, changes: { enabled: { from: true, to: false }, reason: { from: null, to: reason } } },
  ]);
  await queueForManagers(
    client,
    work.programId,
    endpointDisabledMail(work, reason),
  );
}

/** The managers hear that Affix turned an endpoint off; the dashboard's previews show it too. */
export const endpointDisabledMail = (work: { programId: number; endpointId: number; deliveryId: number; url: string }, reason: string) =>
  managerMail('endpoint_disabled', {
    programId: work.programId,
    subject: 'A webhook endpoint was turned off',
    body: `Affix turned off your webhook endpoint ${work.url}: ${reason}.\n\nFix the receiver, then turn it on again and replay what it missed: {{affix}}/dashboard/programs/${work.programId}/webhooks\n`,
    key: `endpoint_disabled:${work.endpointId}:${work.deliveryId}`,
  });
