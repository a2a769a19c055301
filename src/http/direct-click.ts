// POST /api/v1/track/click served by node:http directly: the busiest route (every visit through
// every partner's link). Express's own handling cost several times the bare server's CPU per
// request (README, Benchmarks: `npm run bench:click`), so the ordinary click skips it and runs
// the very steps of Express's route (request-life.ts, rate-limit.ts, cors.ts, auth.ts,
// routes/track-click.ts) in the same order. A request of any other shape (another content type,
// charset or encoding, no length, a body over the limit) goes through Express's route.
import type { IncomingMessage, ServerResponse } from 'node:http';
import proxyaddr from 'proxy-addr';
import { MESSAGES, errors } from '../core/errors.js';
import { acceptProgramKey } from './auth.js';
import { state } from './context.js';
import { answerBrowserCors } from './cors.js';
import { type HttpDeps, clock } from './deps.js';
import { assertJsonObject, assertStorable } from './input-guard.js';
import { pendRouteCount } from './rate-limit.js';
import { answerFailure, asResponse, beginRequest } from './request-life.js';
import { TRACK_CLICK_PATH, answerClick } from './routes/track-click.js';

type Trust = (address: string, hop: number) => boolean;

const UNITS: Record<string, number> = { b: 1, kb: 1024, mb: 1024 * 1024 };

/** AFFIX_BODY_LIMIT in bytes as body-parser reads it ("100kb"); null for a spelling left to body-parser alone. */
export function limitInBytes(limit: string): number | null {
  const match = /^(\d+)\s*(b|kb|mb)?$/i.exec(limit.trim());
  return match ? Number(match[1]) * UNITS[(match[2] ?? 'b').toLowerCase()]! : null;
}

/** True when the request is an ordinary click this path serves (see the file's header). */
export function servedDirectly(req: IncomingMessage, limitBytes: number): boolean {
  if (req.method !== 'POST') return false;
  const url = req.url ?? '';
  if (url !== TRACK_CLICK_PATH && !url.startsWith(`${TRACK_CLICK_PATH}?`)) return false;
  const { headers } = req;
  if (headers['transfer-encoding'] !== undefined) return false;
  if (headers['content-encoding'] !== undefined && headers['content-encoding'].toLowerCase() !== 'identity') return false;
  const length = headers['content-length'];
  if (length === undefined || !/^\d{1,9}$/.test(length) || Number(length) > limitBytes) return false;
  const type = (headers['content-type'] ?? '').toLowerCase().split(';').map((part) => part.trim());
  if (type[0] !== 'application/json') return false;
  // Only a charset body-parser would read as UTF-8 too.
  return type.slice(1).every((parameter) => !parameter.startsWith('charset=') || /^charset="?utf-8"?$/.test(parameter));
}

/** The body as body-parser's JSON parser gives it (strict off), its failure shaped like body-parser's. */
function readJson(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('error', reject);
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      if (text.length === 0) return resolve({});
      try {
        resolve(JSON.parse(text));
      } catch (error) {
        reject(Object.assign(error as Error, { type: 'entity.parse.failed', status: 400 }));
      }
    });
  });
}

/** Serves one ordinary click; never throws (a failure is answered from the catalogue). */
export async function serveClickDirectly(deps: HttpDeps, trust: Trust, req: IncomingMessage, raw: ServerResponse): Promise<void> {
  const res = asResponse(raw);
  beginRequest(deps, req, TRACK_CLICK_PATH, raw);
  try {
    const view = { method: 'POST', path: TRACK_CLICK_PATH, headers: req.headers, ip: proxyaddr(req, trust), body: undefined as unknown };
    pendRouteCount(view, res, clock(deps));
    view.body = await readJson(req);
    assertStorable(view.body);
    assertJsonObject(view.body);
    state(res).failure = () => errors.internal(MESSAGES.clickFailed);
    if (!(await answerBrowserCors(deps.pool, view, res))) return;
    await acceptProgramKey(deps.store, 'click', view, res, deps.config.docsUrl);
    await answerClick(deps, view, res);
  } catch (error) {
    await answerFailure(deps, error, res);
  }
}
