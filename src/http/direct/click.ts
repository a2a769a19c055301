// POST /api/v1/track/click served by node:http directly (body.ts says why): the busiest route,
// every visit through every partner's link. It runs the very steps of Express's route
// (request-life.ts, rate-limit.ts, cors.ts, auth.ts, routes/track-click.ts) in the same order;
// another content type or charset goes through Express's route.
import type { IncomingMessage, ServerResponse } from 'node:http';
import proxyaddr from 'proxy-addr';
import { MESSAGES, errors } from '../../core/errors.js';
import { acceptProgramKey } from '../auth.js';
import { state } from '../context.js';
import { answerBrowserCors } from '../cors.js';
import { type HttpDeps, clock } from '../deps.js';
import { assertJsonObject, assertStorable } from '../input-guard.js';
import { pendRouteCount } from '../rate-limit.js';
import { answerFailure, asResponse, beginRequest } from '../request-life.js';
import { TRACK_CLICK_PATH, answerClick } from '../routes/track-click.js';
import { hasPlainBody, pathOf, readBody } from './body.js';

export type Trust = (address: string, hop: number) => boolean;

/** True when the request is an ordinary click this path serves (see the file's header). */
export function isOrdinaryClick(req: IncomingMessage, limitBytes: number | null): boolean {
  if (req.method !== 'POST' || pathOf(req) !== TRACK_CLICK_PATH || !hasPlainBody(req.headers, limitBytes)) return false;
  const type = (req.headers['content-type'] ?? '').toLowerCase().split(';').map((part) => part.trim());
  if (type[0] !== 'application/json') return false;
  // Only a charset body-parser would read as UTF-8 too.
  return type.slice(1).every((parameter) => !parameter.startsWith('charset=') || /^charset="?utf-8"?$/.test(parameter));
}

/** The body as body-parser's JSON parser gives it (strict off), its failure shaped like body-parser's. */
async function readJson(req: IncomingMessage): Promise<unknown> {
  const text = (await readBody(req)).toString('utf8');
  if (text.length === 0) return {};
  try {
    return JSON.parse(text);
  } catch (error) {
    throw Object.assign(error as Error, { type: 'entity.parse.failed', status: 400 });
  }
}

/** Serves one ordinary click; never throws (a failure is answered from the catalogue). */
export async function serveClick(deps: HttpDeps, trust: Trust, req: IncomingMessage, raw: ServerResponse): Promise<void> {
  const res = asResponse(raw);
  beginRequest(deps, req, TRACK_CLICK_PATH, raw);
  try {
    const view = { method: 'POST', path: TRACK_CLICK_PATH, headers: req.headers, ip: proxyaddr(req, trust), body: undefined as unknown };
    pendRouteCount(view, res, clock(deps));
    view.body = await readJson(req);
    assertStorable(view.body);
    assertJsonObject(view.body);
    state(res).failure = () => errors.internal(MESSAGES.clickFailed);
    if (!(await answerBrowserCors(deps.pool, view, res, () => clock(deps)))) return;
    await acceptProgramKey(deps.store, 'click', view, res, deps.config.docsUrl);
    await answerClick(deps, view, res);
  } catch (error) {
    await answerFailure(deps, error, res);
  }
}
