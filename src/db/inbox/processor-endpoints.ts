// A program's endpoint at a processor (Stripe, Paddle, Lemon Squeezy): its sealed signing secret,
// sandbox flag and last signature failure (migration 0029; Stripe's since migration 0061).
import type { ProcessorName } from '../../core/processor-port.js';
import type { Pool, PoolClient } from '../infra/pool.js';
import { prepared } from '../infra/prepared.js';

type Queryable = Pool | PoolClient;
export type ConnectedProcessor = 'paddle' | 'lemonsqueezy';

export interface ProcessorEndpoint {
  programId: number;
  secretSealed: string;
  sandbox: boolean;
}

/** What the intake reads per delivery: the program, and its endpoint at the processor if set up (null: no such program). */
export interface IntakeEndpoint {
  programId: number;
  endpoint: Omit<ProcessorEndpoint, 'programId'> | null;
}

export async function endpointForIntake(db: Queryable, programId: number, processor: ProcessorName): Promise<IntakeEndpoint | null> {
  const { rows } = await db.query(prepared(
    `SELECT p.id, e.webhook_secret_sealed, e.sandbox
       FROM programs p LEFT JOIN processor_endpoints e ON e.program_id = p.id AND e.processor = $2
      WHERE p.id = $1`,
    [programId, processor],
  ));
  const row = rows[0];
  if (!row) return null;
  return { programId: Number(row.id), endpoint: row.webhook_secret_sealed === null ? null : { secretSealed: row.webhook_secret_sealed, sandbox: row.sandbox } };
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

/** The set-up pages show the last failure; the last verified event is read from the inbox itself (no row locked per event). */
export async function noteProcessorSignatureFailure(db: Queryable, programId: number, processor: ProcessorName, message: string): Promise<void> {
  await db.query('UPDATE processor_endpoints SET last_signature_error = $3, last_signature_error_at = now() WHERE program_id = $1 AND processor = $2', [programId, processor, message.slice(0, 300)]);
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
