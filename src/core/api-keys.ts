// Program API key authentication and the rotation rule of spec §5.5.
import { ROTATION_HINT, errors } from './errors.js';
import type { Store } from './ports.js';
import { sha256 } from './secrets.js';

export interface RotationWarning {
  code: 'api_key_rotation_required';
  message: string;
  hint: string;
  rotate_by: string;
  docs_url: string;
}

export interface AuthenticatedKey {
  keyId: number;
  programId: number;
  /** Present while the key is marked for rotation and its deadline has not passed. */
  rotation: { markedAt: Date; rotateBy: Date } | null;
  /** The brand is suspended: tracking still records, management is refused (src/http/auth.ts). */
  accountSuspended: boolean;
}

/**
 * Resolves a bearer token to its program. Unknown or revoked: null (each route words its
 * own 401). Marked and past its deadline: the typed rotation error, on every route.
 */
export async function authenticateApiKey(store: Store, token: string, now: Date, docsUrl: string): Promise<AuthenticatedKey | null> {
  const record = await store.findApiKeyByHash(sha256(token));
  if (!record || record.revokedAt) return null;
  if (record.rotateBy && record.rotationMarkedAt) {
    if (now.getTime() >= record.rotateBy.getTime()) throw errors.rotationRequired(record.rotateBy, docsUrl);
    const rotation = { markedAt: record.rotationMarkedAt, rotateBy: record.rotateBy };
    return { keyId: record.keyId, programId: record.programId, rotation, accountSuspended: record.accountSuspended };
  }
  return { keyId: record.keyId, programId: record.programId, rotation: null, accountSuspended: record.accountSuspended };
}

export function rotationWarning(rotateBy: Date, docsUrl: string): RotationWarning {
  return {
    code: 'api_key_rotation_required',
    message: `This API key must be rotated before ${rotateBy.toISOString()}; after that it stops working.`,
    hint: ROTATION_HINT,
    rotate_by: rotateBy.toISOString(),
    docs_url: docsUrl,
  };
}
