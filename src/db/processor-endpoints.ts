// A program's endpoint at Paddle or Lemon Squeezy: its sealed signing secret, sandbox flag and
// last signature failure (migration 0029).
import type { Pool, PoolClient } from './pool.js';

type Queryable = Pool | PoolClient;
export type ConnectedProcessor = 'paddle' | 'lemonsqueezy';

export interface ProcessorEndpoint {
  programId: number;
  secretSealed: string;
  sandbox: boolean;
}

export async function processorEndpoint(db: Queryable, programId: number, processor: ConnectedProcessor): Promise<ProcessorEndpoint | null> {
  const { rows } = await db.query('SELECT program_id, webhook_secret_sealed, sandbox FROM processor_endpoints WHERE program_id = $1 AND processor = $2', [programId, processor]);
  return rows[0] ? { programId: Number(rows[0].program_id), secretSealed: rows[0].webhook_secret_sealed, sandbox: rows[0].sandbox } : null;
}

/** Saves the secret (sealed) and the sandbox flag; a secret left out keeps the saved one. */
export async function saveProcessorEndpoint(db: Queryable, programId: number, processor: ConnectedProcessor, change: { secretSealed?: string; sandbox?: boolean }): Promise<boolean> {
  const { rowCount } = await db.query(
    `INSERT INTO processor_endpoints (program_id, processor, webhook_secret_sealed, sandbox)
     SELECT $1, $2, $3, coalesce($4, false) WHERE $3::text IS NOT NULL
     ON CONFLICT (program_id, processor) DO UPDATE
        SET webhook_secret_sealed = coalesce($3, processor_endpoints.webhook_secret_sealed), sandbox = coalesce($4, processor_endpoints.sandbox),
            last_signature_error = CASE WHEN $3::text IS NULL THEN processor_endpoints.last_signature_error END, updated_at = now()`,
    [programId, processor, change.secretSealed ?? null, change.sandbox ?? null],
  );
  if ((rowCount ?? 0) > 0) return true;
  // No secret yet and none given: only the flag, on an endpoint that exists.
  const updated = await db.query('UPDATE processor_endpoints SET sandbox = coalesce($3, sandbox), updated_at = now() WHERE program_id = $1 AND processor = $2', [programId, processor, change.sandbox ?? null]);
  return (updated.rowCount ?? 0) > 0;
}

export async function noteProcessorSignatureFailure(db: Queryable, programId: number, processor: ConnectedProcessor, message: string): Promise<void> {
  await db.query('UPDATE processor_endpoints SET last_signature_error = $3, last_signature_error_at = now() WHERE program_id = $1 AND processor = $2', [programId, processor, message]);
}

/** What the set-up page shows: secret saved, sandbox, the last failure, the last event received. */
export async function processorEndpointStatus(db: Queryable, programId: number, processor: ConnectedProcessor) {
  const { rows } = await db.query(
    `SELECT e.sandbox, e.last_signature_error, e.last_signature_error_at,
            (SELECT max(w.received_at) FROM webhook_events w WHERE w.program_id = $1 AND w.processor = $2) AS last_event_at
       FROM (SELECT 1) one LEFT JOIN processor_endpoints e ON e.program_id = $1 AND e.processor = $2`,
    [programId, processor],
  );
  const r = rows[0];
  return { secretSet: r.sandbox !== null, sandbox: r.sandbox === true, lastSignatureError: r.last_signature_error as string | null, lastSignatureErrorAt: r.last_signature_error_at as Date | null, lastEventAt: r.last_event_at as Date | null };
}
