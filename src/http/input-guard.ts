// Input PostgreSQL cannot store is refused at the door with a 400, before any route runs:
// NUL characters and unpaired UTF-16 surrogates in text, and absurdly deep nesting.
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { errors } from '../core/errors.js';
import { unstorableText } from '../core/storable-text.js';

export const MAX_JSON_DEPTH = 32;

/** The first problem in a parsed body, named by its path ("items.2.name contains ..."). */
export function findUnstorable(value: unknown, path: string[] = []): string | null {
  const where = path.length ? path.join('.') : 'body';
  if (path.length > MAX_JSON_DEPTH) return `${where} is nested more than ${MAX_JSON_DEPTH} levels deep`;
  if (typeof value === 'string') {
    const problem = unstorableText(value);
    return problem ? `${where} ${problem}` : null;
  }
  if (typeof value !== 'object' || value === null) return null;
  for (const [key, child] of Object.entries(value)) {
    const keyProblem = unstorableText(key);
    if (keyProblem) return `a field name in ${where} ${keyProblem}`;
    const problem = findUnstorable(child, [...path, key]);
    if (problem) return problem;
  }
  return null;
}

/** The API's bodies are JSON objects (absent: an empty one, as the parsers leave it). */
export function assertJsonObject(body: unknown): void {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw errors.badRequest('Request body must be a JSON object');
  }
}

/** A parsed body with text PostgreSQL cannot store is refused. */
export function assertStorable(body: unknown): void {
  const problem = findUnstorable(body);
  if (problem) throw errors.badRequest(`Request ${problem}`);
}

/** After a body parser: refuses bodies with text PostgreSQL cannot store. */
export function refuseUnstorableBody(req: Request, _res: Response, next: NextFunction): void {
  assertStorable(req.body);
  next();
}

/**
 * After a urlencoded form parser: every field at most once, except the form's lists (the ticked
 * boxes of one name, as many as the page shows), which always arrive as arrays.
 */
export function refuseRepeatedFields(lists: readonly string[] = []): RequestHandler {
  const listed = new Set(lists);
  return (req, _res, next) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const repeated = Object.keys(body).find((name) => Array.isArray(body[name]) && !listed.has(name));
    if (repeated !== undefined) throw errors.badRequest(`The field ${repeated.slice(0, 40)} was sent more than once`);
    for (const name of listed) if (typeof body[name] === 'string') body[name] = [body[name]];
    next();
  };
}

/** Fields a form with lists may send: a page shows at most 500 rows to tick, plus the form's own fields. */
const LIST_FORM_FIELDS = 600;

/**
 * A urlencoded form: each field once (but the names in `lists`, which may repeat), at most 100
 * fields (600 with lists), only storable text.
 */
export function formBody(limit: string, lists: readonly string[] = []): RequestHandler[] {
  return [express.urlencoded({ extended: false, limit, parameterLimit: lists.length ? LIST_FORM_FIELDS : 100 }), refuseRepeatedFields(lists), refuseUnstorableBody];
}
