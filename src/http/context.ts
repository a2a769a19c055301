// Per-request state kept on res.locals, typed in one place.
import type { NextFunction, Request, Response } from 'express';
import type { AuthenticatedKey } from '../core/api-keys.js';
import type { AffixError } from '../core/errors.js';
import type { Logger } from '../platform/logger.js';

export interface RequestState {
  requestId: string;
  log: Logger;
  /** What the route adds to the request's one log line. */
  logFields?: Record<string, unknown>;
  /** Set by the auth middleware when a program key was accepted. */
  apiKey?: AuthenticatedKey;
  /** sale and refund add `error.code` to every platform error (spec §7). */
  errorCodes?: boolean;
  /** The route's own 500 (e.g. "Click tracking failed"); CLI routes quote the request id. */
  failure?: (requestId: string) => AffixError;
}

export const state = (res: Response): RequestState => res.locals as RequestState;

/** Names the route's own 500 (spec §7), used when anything unexpected fails. */
export const failsWith = (failure: (requestId: string) => AffixError) => (_req: Request, res: Response, next: NextFunction) => {
  state(res).failure = failure;
  next();
};
