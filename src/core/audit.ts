// The audit log's rules (docs/audit.md): who acts, and what a change records. Secrets are never
// recorded, only that they were set or changed.

export const ACTOR_TYPES = ['member', 'cli_token', 'operator', 'system', 'applicant', 'partner'] as const;
export type ActorType = (typeof ACTOR_TYPES)[number];

/** Who made a change: a person signed in to the dashboard, a CLI token, the operator's admin token, a scheduled job. */
export interface Actor {
  type: ActorType;
  id: string | null;
  /** What a reader recognizes (an account's email, "scheduled approval"). */
  label: string | null;
  ip: string | null;
}

export const SYSTEM = (label: string): Actor => ({ type: 'system', id: null, label, ip: null });
export const OPERATOR_ACTOR: Actor = { type: 'operator', id: null, label: 'admin token', ip: null };

export interface AuditEntry {
  programId: number | null;
  action: string;
  objectType: string;
  objectId: string | number | null;
  changes?: Record<string, { from: unknown; to: unknown }>;
}

const SECRET_FIELDS = new Set(['webhook_secret', 'secret', 'secret_sealed', 'stripe_webhook_secret', 'api_key', 'key_hash', 'password', 'password_hash', 'token']);

/**
 * The fields that differ between before and after, as {from, to}; a secret field says only
 * "set" / "changed" / "removed". Fields absent from `after` were not touched.
 */
export function changedFields(before: Record<string, unknown> | null, after: Record<string, unknown>): Record<string, { from: unknown; to: unknown }> {
  const changes: Record<string, { from: unknown; to: unknown }> = {};
  for (const [field, value] of Object.entries(after)) {
    if (value === undefined) continue;
    const was = before ? before[field] : null;
    if (JSON.stringify(was ?? null) === JSON.stringify(value ?? null)) continue;
    changes[field] = SECRET_FIELDS.has(field)
      ? { from: was ? 'set' : null, to: value === null ? 'removed' : was ? 'changed' : 'set' }
      : { from: was instanceof Date ? was.toISOString() : (was ?? null), to: value instanceof Date ? value.toISOString() : value };
  }
  return changes;
}

/**
 * Only changes are recorded: an entry whose changed fields were worked out and came to none (a
 * save that changed nothing) records nothing. An entry without `changes` is an act in itself.
 */
export const recordedEntries = (entries: AuditEntry[]): AuditEntry[] =>
  entries.filter((entry) => entry.changes === undefined || Object.keys(entry.changes).length > 0);
