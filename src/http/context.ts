// Per-request state kept on res.locals, typed in one place.
import type { NextFunction, Request, Response } from 'express';
import type { AuthenticatedKey } from '../core/api-keys.js';
import type { AffixError } from '../core/errors.js';
import type { RequestCount } from '../core/limits.js';
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
  /** A rate-limit count left to the route's write statement; settled once counted. */
  pendingCount?: { count: RequestCount; settled: boolean };
  /** The route's own 500 (e.g. "Click tracking failed"); CLI routes quote the request id. */
  failure?: (requestId: string) => AffixError;
}

export const state = (res: Response): RequestState => res.locals as RequestState;

/**
 * A request's state, as res.locals: its logger is made when first used (most requests only
 * write their one line at the end). A class, so the lazy logger is a getter on the prototype
 * and the object keeps fast properties.
 */
export class RequestLocals implements RequestState {
  errorCodes?: boolean;
  logFields?: Record<string, unknown>;
  apiKey?: AuthenticatedKey;
  pendingCount?: RequestState['pendingCount'];
  failure?: RequestState['failure'];
  private made?: Logger;

  constructor(
    private readonly logger: Logger,
    readonly requestId: string,
  ) {}

  get log(): Logger {
    return (this.made ??= this.logger.child({ requestId: this.requestId }));
  }

  /** The request's own logger if something made it (it names the request), else undefined. */
  get madeLog(): Logger | undefined {
    return this.made;
  }
}

/** Names the route's own 500 (spec §7), used when anything unexpected fails. */
export const failsWith = (failure: (requestId: string) => AffixError) => (_req: Request, res: Response, next: NextFunction) => {
  state(res).failure = failure;
  next();
};
