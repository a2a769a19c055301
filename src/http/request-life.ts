// A request's beginning and end, the same for the Express routes and the one served directly
// (direct-click.ts): its id and state, its one log line, and how a failure is answered.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Response } from 'express';
import { RequestLocals } from './context.js';
import type { HttpDeps } from './deps.js';
import { logFailure, sendError, toAffixError } from './respond.js';
import { countIfNotCounted } from './rate-limit.js';

/** Spec §7: these two add `error.code` to every error, body-parser errors included. */
const ROUTES_WITH_ERROR_CODES = new Set(['/api/v1/track/sale', '/api/v1/track/refund']);

/** The shared functions use node's own response API and `res.locals`; Express's response is that and more. */
export const asResponse = (res: ServerResponse): Response => res as unknown as Response;

/** Gives the request its id and state (res.locals) and writes its one line when it is answered. */
export function beginRequest(deps: Pick<HttpDeps, 'logger'>, req: IncomingMessage, path: string, res: ServerResponse): RequestLocals {
  const requestId = randomUUID();
  const started = process.hrtime.bigint();
  res.setHeader('X-Request-ID', requestId);
  const locals = new RequestLocals(deps.logger, requestId);
  (res as ServerResponse & { locals: unknown }).locals = locals;
  locals.errorCodes = ROUTES_WITH_ERROR_CODES.has(path);
  res.on('finish', () => {
    // The same line whether or not the request's own logger was made.
    const own = locals.madeLog;
    (own ?? deps.logger).info(
      {
        ...(own ? {} : { requestId }),
        method: req.method,
        path,
        status: res.statusCode,
        ms: Number((process.hrtime.bigint() - started) / 1000n) / 1000,
        programId: locals.apiKey?.programId,
        ...locals.logFields,
      },
      'request',
    );
  });
  return locals;
}

/** Every failure's answer: from the one catalogue, logged with its cause. */
export async function answerFailure(deps: HttpDeps, error: unknown, res: Response): Promise<void> {
  const affixError = toAffixError(error, res, deps.config.bodyLimit);
  logFailure(res, deps.logger, error, affixError);
  // A click refused before its statement counted it is counted now; over the limit, 429. Not
  // after a server-side failure: the database is what failed (a lock wait would only double).
  const refused = affixError.status < 500 ? await countIfNotCounted(deps.pool, res) : null;
  if (res.headersSent) return;
  sendError(res, refused ?? affixError, deps.config.docsUrl);
}
