// The requests node:http serves directly (README, Benchmarks: Express's own handling cost about
// four times a bare server's CPU per request): only bodies every parser reads the same way, a
// length given and within the route's limit, no transfer or content encoding. Any other shape
// goes through the Express route, which shares every rule with the direct one.
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';

const UNITS: Record<string, number> = { b: 1, kb: 1024, mb: 1024 * 1024 };

/** A limit as body-parser reads it ("100kb") in bytes; null for a spelling left to body-parser alone. */
export function limitInBytes(limit: string): number | null {
  const match = /^(\d+)\s*(b|kb|mb)?$/i.exec(limit.trim());
  return match ? Number(match[1]) * UNITS[(match[2] ?? 'b').toLowerCase()]! : null;
}

/** A body sent with its length, within `limitBytes`, neither chunked nor compressed. */
export function hasPlainBody(headers: IncomingHttpHeaders, limitBytes: number | null): boolean {
  if (limitBytes === null || headers['transfer-encoding'] !== undefined) return false;
  if (headers['content-encoding'] !== undefined && headers['content-encoding'].toLowerCase() !== 'identity') return false;
  const length = headers['content-length'];
  return length !== undefined && /^\d{1,9}$/.test(length) && Number(length) <= limitBytes;
}

/** The path of a request's URL (its query string dropped). */
export const pathOf = (req: IncomingMessage): string => {
  const url = req.url ?? '';
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
};

/** The whole body. */
export function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('error', reject);
    req.on('end', () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
  });
}
