// Brands' webhook endpoints, their deliveries and attempts. Reads and changes are scoped by program.
import type { OutboundEventType } from '../../core/outbound-events.js';
import type { Pool, PoolClient } from '../infra/pool.js';
import { type OutboundQueue, queueDeliveries } from './messages.js';

type Queryable = Pool | PoolClient;

export interface EndpointRow {
  id: number;
  programId: number;
  url: string;
  eventTypes: OutboundEventType[];
  enabled: boolean;
  disabledReason: string | null;
  disabledAt: Date | null;
  previousSecretUntil: Date | null;
  createdAt: Date;
  delivered: number;
  failed: number;
  pending: number;
}

const ENDPOINT_SELECT = `SELECT e.id, e.program_id, e.url, e.event_types, e.enabled, e.disabled_reason, e.disabled_at, e.previous_secret_until, e.created_at,
         n.delivered, n.failed, n.pending
    FROM webhook_endpoints e
    CROSS JOIN LATERAL (SELECT count(*) FILTER (WHERE d.status = 'delivered')::int AS delivered, count(*) FILTER (WHERE d.status = 'failed')::int AS failed,
                               count(*) FILTER (WHERE d.status = 'pending')::int AS pending
                          FROM webhook_deliveries d WHERE d.endpoint_id = e.id) n`;

const toEndpoint = (row: any): EndpointRow => ({
  id: Number(row.id),
  programId: Number(row.program_id),
  url: row.url,
  eventTypes: row.event_types,
  enabled: row.enabled,
  disabledReason: row.disabled_reason,
  disabledAt: row.disabled_at,
  previousSecretUntil: row.previous_secret_until,
  createdAt: row.created_at,
  delivered: row.delivered,
  failed: row.failed,
  pending: row.pending,
});

export async function insertEndpoint(db: Queryable, programId: number, url: string, eventTypes: OutboundEventType[], sealedSecret: string): Promise<EndpointRow> {
  const { rows } = await db.query(
    'INSERT INTO webhook_endpoints (program_id, url, event_types, secret_sealed) VALUES ($1, $2, $3, $4) RETURNING id',
    [programId, url, eventTypes, sealedSecret],
  );
  return (await getEndpoint(db, programId, Number(rows[0].id)))!;
}

export async function listEndpoints(db: Queryable, programId: number): Promise<EndpointRow[]> {
  const { rows } = await db.query(`${ENDPOINT_SELECT} WHERE e.program_id = $1 ORDER BY e.id`, [programId]);
  return rows.map(toEndpoint);
}

export async function getEndpoint(db: Queryable, programId: number, endpointId: number): Promise<EndpointRow | null> {
  const { rows } = await db.query(`${ENDPOINT_SELECT} WHERE e.program_id = $1 AND e.id = $2`, [programId, endpointId]);
  return rows[0] ? toEndpoint(rows[0]) : null;
}

export async function updateEndpoint(
  db: Queryable,
  programId: number,
  endpointId: number,
  patch: { url?: string; eventTypes?: OutboundEventType[]; enabled?: boolean },
): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE webhook_endpoints SET url = coalesce($3, url), event_types = coalesce($4, event_types),
            enabled = coalesce($5, enabled),
            disabled_reason = CASE WHEN $5 IS NULL THEN disabled_reason WHEN $5 THEN NULL ELSE 'Turned off by the brand' END,
            disabled_at = CASE WHEN $5 IS NULL THEN disabled_at WHEN $5 THEN NULL ELSE now() END
      WHERE program_id = $1 AND id = $2`,
    [programId, endpointId, patch.url ?? null, patch.eventTypes ?? null, patch.enabled ?? null],
  );
  return (rowCount ?? 0) > 0;
}

export async function deleteEndpoint(db: Queryable, programId: number, endpointId: number): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM webhook_endpoints WHERE program_id = $1 AND id = $2', [programId, endpointId]);
  return (rowCount ?? 0) > 0;
}

/** The new secret signs from now on; the old one too until `previousUntil`. */
export async function rotateSecret(db: Queryable, programId: number, endpointId: number, sealedSecret: string, previousUntil: Date): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE webhook_endpoints SET previous_secret_sealed = secret_sealed, previous_secret_until = $4, secret_sealed = $3
      WHERE program_id = $1 AND id = $2`,
    [programId, endpointId, sealedSecret, previousUntil],
  );
  return (rowCount ?? 0) > 0;
}

export async function disableEndpoint(db: Queryable, endpointId: number, reason: string): Promise<void> {
  await db.query('UPDATE webhook_endpoints SET enabled = false, disabled_reason = $2, disabled_at = now() WHERE id = $1 AND enabled', [endpointId, reason]);
}

/** Everything one attempt needs: the delivery, its message and its endpoint (secrets sealed). */
export interface DeliveryWork {
  deliveryId: number;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  messageId: string;
  type: OutboundEventType;
  test: boolean;
  data: Record<string, unknown>;
  createdAt: Date;
  endpointId: number;
  programId: number;
  url: string;
  enabled: boolean;
  secretSealed: string;
  previousSecretSealed: string | null;
  previousSecretUntil: Date | null;
}

export async function deliveryWork(db: Queryable, deliveryId: number, options: { lock?: boolean } = {}): Promise<DeliveryWork | null> {
  const { rows } = await db.query(
    `SELECT d.id, d.status, d.attempts, m.id AS message_id, m.type, m.test, m.data, m.created_at, e.id AS endpoint_id, e.program_id, e.url, e.enabled,
            e.secret_sealed, e.previous_secret_sealed, e.previous_secret_until
       FROM webhook_deliveries d JOIN webhook_messages m ON m.id = d.message_id JOIN webhook_endpoints e ON e.id = d.endpoint_id
      WHERE d.id = $1 ${options.lock ? 'FOR UPDATE OF d' : ''}`,
    [deliveryId],
  );
  const row = rows[0];
  if (!row) return null;
  return {
    deliveryId: Number(row.id),
    status: row.status,
    attempts: row.attempts,
    messageId: row.message_id,
    type: row.type,
    test: row.test,
    data: row.data,
    createdAt: row.created_at,
    endpointId: Number(row.endpoint_id),
    programId: Number(row.program_id),
    url: row.url,
    enabled: row.enabled,
    secretSealed: row.secret_sealed,
    previousSecretSealed: row.previous_secret_sealed,
    previousSecretUntil: row.previous_secret_until,
  };
}

export interface AttemptRecord {
  attemptedAt: Date;
  statusCode: number | null;
  excerpt: string;
  durationMs: number;
}

/** Records an attempt and the delivery's new state; a retry gets its job, due at `retryAt`. */
export async function recordAttempt(
  client: PoolClient,
  queue: OutboundQueue,
  deliveryId: number,
  attempt: AttemptRecord,
  next: { status: 'delivered' | 'failed' } | { status: 'pending'; retryAt: Date },
): Promise<void> {
  await client.query(
    `WITH attempt AS (
       INSERT INTO webhook_attempts (delivery_id, attempted_at, status_code, response_excerpt, duration_ms) VALUES ($1, $2, $3, $4, $5)
     )
     UPDATE webhook_deliveries SET attempts = attempts + 1, status = $6,
            next_attempt_at = $7, delivered_at = CASE WHEN $6 = 'delivered' THEN $2 ELSE delivered_at END
      WHERE id = $1`,
    [deliveryId, attempt.attemptedAt, attempt.statusCode, attempt.excerpt, attempt.durationMs, next.status, next.status === 'pending' ? next.retryAt : null],
  );
  if (next.status === 'pending') await queueDeliveries(client, queue, [deliveryId], next.retryAt);
}

export interface DeliveryLogRow {
  deliveryId: number;
  messageId: string;
  type: OutboundEventType;
  test: boolean;
  data: Record<string, unknown>;
  messageCreatedAt: Date;
  status: string;
  attempts: number;
  nextAttemptAt: Date | null;
  createdAt: Date;
  lastStatusCode: number | null;
  lastExcerpt: string | null;
  lastDurationMs: number | null;
  lastAttemptAt: Date | null;
}

export async function deliveryLog(db: Queryable, programId: number, endpointId: number, limit = 50): Promise<DeliveryLogRow[]> {
  const { rows } = await db.query(
    `SELECT d.id, d.message_id, m.type, m.test, m.data, m.created_at AS message_created_at, d.status, d.attempts, d.next_attempt_at, d.created_at,
            a.status_code, a.response_excerpt, a.duration_ms, a.attempted_at
       FROM webhook_deliveries d JOIN webhook_messages m ON m.id = d.message_id JOIN webhook_endpoints e ON e.id = d.endpoint_id
       LEFT JOIN LATERAL (SELECT * FROM webhook_attempts WHERE delivery_id = d.id ORDER BY id DESC LIMIT 1) a ON true
      WHERE e.program_id = $1 AND e.id = $2
      ORDER BY d.id DESC LIMIT $3`,
    [programId, endpointId, limit],
  );
  return rows.map((row) => ({
    deliveryId: Number(row.id),
    messageId: row.message_id,
    type: row.type,
    test: row.test,
    data: row.data,
    messageCreatedAt: row.message_created_at,
    status: row.status,
    attempts: row.attempts,
    nextAttemptAt: row.next_attempt_at,
    createdAt: row.created_at,
    lastStatusCode: row.status_code,
    lastExcerpt: row.response_excerpt,
    lastDurationMs: row.duration_ms,
    lastAttemptAt: row.attempted_at,
  }));
}

/** A replay: a new delivery of the same message (same webhook-id) to the same endpoint, queued now. */
export async function replayDelivery(client: PoolClient, queue: OutboundQueue, programId: number, deliveryId: number): Promise<number | null> {
  const { rows } = await client.query(
    `INSERT INTO webhook_deliveries (message_id, endpoint_id, next_attempt_at)
     SELECT d.message_id, d.endpoint_id, now() FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
      WHERE d.id = $2 AND e.program_id = $1
     RETURNING id`,
    [programId, deliveryId],
  );
  if (!rows[0]) return null;
  const id = Number(rows[0].id);
  await queueDeliveries(client, queue, [id], null);
  return id;
}
