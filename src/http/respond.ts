// JSON responses and the spec's two error envelopes (§7), with the rotation warnings of §5.5.
import type { Response } from 'express';
import { rotationWarning } from '../core/api-keys.js';
import { AffixError, MESSAGES, errors } from '../core/errors.js';
import { isDatabaseUnavailable, isRejectedValue } from '../db/infra/errors.js';
import type { Logger } from '../platform/logger.js';
import { state } from './context.js';

const STATUS_NAMES: Record<number, string> = {
  400: 'BadRequestError',
  401: 'UnauthorizedError',
  403: 'ForbiddenError',
  404: 'NotFoundError',
  409: 'ConflictError',
  410: 'GoneError',
  405: 'MethodNotAllowedError',
  413: 'PayloadTooLargeError',
  415: 'UnsupportedMediaTypeError',
  422: 'UnprocessableEntityError',
  429: 'TooManyRequestsError',
  500: 'InternalServerError',
  503: 'ServiceUnavailableError',
};

/** Default `error.code` per status on the routes that always carry one (track/sale, track/refund). */
const DEFAULT_CODES: Record<number, string> = {
  400: 'invalid_request',
  401: 'unauthorized',
  404: 'not_found',
  409: 'duplicate_transaction',
  413: 'payload_too_large',
  422: 'unsupported_currency',
  500: 'internal_error',
  503: 'service_unavailable',
};

/** Sends JSON; a key marked for rotation adds the `warnings` member and its headers. */
export function sendJson(res: Response, status: number, body: Record<string, unknown>, docsUrl: string): void {
  const rotation = state(res).apiKey?.rotation;
  if (rotation) {
    res.setHeader('Deprecation', `@${Math.floor(rotation.markedAt.getTime() / 1000)}`);
    res.setHeader('Sunset', rotation.rotateBy.toUTCString());
    res.setHeader('Link', `<${docsUrl}>; rel="deprecation"`);
    body = { ...body, warnings: [rotationWarning(rotation.rotateBy, docsUrl)] };
  }
  writeJson(res, status, body);
}

/**
 * A JSON answer, written directly rather than through res.json (which turns the text into a
 * Buffer, then writes headers and body as two chunks): one string, one write, Node sets the length.
 */
export function writeJson(res: Response, status: number, body: unknown): void {
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.end(res.req.method === 'HEAD' ? undefined : JSON.stringify(body));
}

export function errorBody(error: AffixError, withCode: boolean): Record<string, unknown> {
  if (error.init.envelope === 'typed') {
    return {
      ...(error.init.legacyTopLevel ?? {}),
      error: { code: error.init.code, message: error.message, ...(error.init.extra ?? {}) },
    };
  }
  const code = error.init.code ?? (withCode ? DEFAULT_CODES[error.status] : undefined);
  return {
    data: null,
    error: {
      status: error.status,
      name: STATUS_NAMES[error.status] ?? 'Error',
      message: error.message,
      details: error.init.details ?? {},
      ...(withCode && code ? { code } : {}),
    },
  };
}

export function sendError(res: Response, error: AffixError, docsUrl: string): void {
  for (const [name, value] of Object.entries(error.init.headers ?? {})) res.setHeader(name, value);
  // Every 500 names its request id, even on routes that otherwise omit it (CLI status).
  if (error.status >= 500) res.setHeader('X-Request-ID', state(res).requestId);
  // A retired key's 401 carries no deprecation notice: the key is already gone.
  if (error.init.code === 'api_key_rotation_required') delete state(res).apiKey;
  sendJson(res, error.status, errorBody(error, state(res).errorCodes === true), docsUrl);
}

/** A parser's limit in bytes as its configuration spells it: 102400 -> "100kb", 8388608 -> "8mb". */
function limitInWords(limitBytes: number): string {
  if (limitBytes % 1_048_576 === 0) return `${limitBytes / 1_048_576}mb`;
  if (limitBytes % 1024 === 0) return `${limitBytes / 1024}kb`;
  return `${limitBytes} bytes`;
}

/** body-parser failures become clear 4xx answers in the platform envelope. */
function bodyParserError(error: unknown, bodyLimit: string): AffixError | null {
  const type = (error as { type?: string } | null)?.type;
  if (type === 'entity.parse.failed') return errors.badRequest('Malformed JSON body');
  if (type === 'entity.too.large') {
    // The limit of the parser that refused it (a form's, the JSON API's), not always the JSON one.
    const limit = (error as { limit?: unknown }).limit;
    return errors.payloadTooLarge(`Request body is larger than ${typeof limit === 'number' ? limitInWords(limit) : bodyLimit}`);
  }
  if (type === 'parameters.too.many') return errors.payloadTooLarge('Too many form fields');
  if (type === 'encoding.unsupported' || type === 'charset.unsupported') {
    return new AffixError(415, 'Unsupported body encoding; send UTF-8 JSON');
  }
  return null;
}

/** Errors from express and its parsers that carry a client status (a malformed %-escape in a path: 400). */
function clientError(error: unknown): AffixError | null {
  const status = (error as { status?: unknown; statusCode?: unknown } | null)?.status ?? (error as { statusCode?: unknown } | null)?.statusCode;
  if (typeof status !== 'number' || status < 400 || status > 499) return null;
  // http-errors marks messages meant for clients as exposable (a CSRF refusal explains itself).
  const exposed = (error as { expose?: unknown }).expose === true && typeof (error as Error).message === 'string';
  const message = exposed && status !== 400 ? (error as Error).message : status === 400 ? 'Bad request' : (STATUS_NAMES[status] ?? 'Client error');
  return new AffixError(status, message, { cause: error });
}

/**
 * Anything thrown, as the answer it deserves: our own errors as they are; a lost or slow
 * database as 503 with Retry-After (nothing was recorded); a value PostgreSQL refused as 400;
 * anything else is a failure of ours: the route's own 500, details in the log only.
 */
export function toAffixError(error: unknown, res: Response, bodyLimit = ''): AffixError {
  if (error instanceof AffixError) return error;
  const known = bodyParserError(error, bodyLimit) ?? clientError(error);
  if (known) return known;
  if (isDatabaseUnavailable(error)) return errors.unavailable(error);
  if (isRejectedValue(error)) return new AffixError(400, MESSAGES.valueRejected, { code: 'invalid_request', cause: error });
  return state(res).failure?.(state(res).requestId) ?? errors.internal('Internal server error');
}

/** Failures logged as the request's line says them: a lost database as a warning, ours as errors with their cause. */
export function logFailure(res: Response, logger: Logger, thrown: unknown, error: AffixError): void {
  const log = state(res).log ?? logger;
  if (error.status === 503) log.warn({ err: thrown }, error.message);
  else if (error.status >= 500) log.error({ err: thrown }, error.message);
}

/** What a page says when we failed: no detail (that is in the log), the request to quote. */
export const failureInWords = (res: Response) =>
  `Something went wrong on our side, and nothing was changed by it. Try again in a moment; if it keeps happening, give us this reference: ${state(res).requestId}.`;
