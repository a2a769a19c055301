import { type Request, type RequestHandler, type Response, Router } from 'express';
import { MESSAGES, errors } from '../../core/errors.js';
import { trackClick } from '../../core/track-click.js';
import { programKeyAuth } from '../auth.js';
import { failsWith, state } from '../context.js';
import { browserCors } from '../cors.js';
import { type HttpDeps, clock } from '../deps.js';
import { sendJson } from '../respond.js';
import { settleRequestCount, takeRequestCount } from '../rate-limit.js';
import { parseClickBody } from '../schemas.js';

export const TRACK_CLICK_PATH = '/api/v1/track/click';

/** The browser's preflight for the click. */
export function trackClickPreflight(deps: HttpDeps): Router {
  return Router().options(TRACK_CLICK_PATH, browserCors(deps.pool, () => clock(deps)));
}

/** POST /track/click's own chain, after the request's parsing and counting (app.ts mounts it). */
export function trackClickHandlers(deps: HttpDeps): RequestHandler[] {
  return [
    failsWith(() => errors.internal(MESSAGES.clickFailed)),
    browserCors(deps.pool, () => clock(deps)),
    programKeyAuth(deps.store, 'click', deps.config.docsUrl),
    (req, res) => answerClick(deps, req, res),
  ];
}

/** Records the click the parsed body names and answers it (spec §4.1); Express's route and the direct path share it. */
export async function answerClick(deps: HttpDeps, req: Pick<Request, 'body' | 'headers' | 'ip'>, res: Response): Promise<void> {
  const body = parseClickBody(req.body);
  const outcome = await trackClick(deps.store, {
    affiliateUrl: body.affiliate_url,
    pageUrl: body.page_url,
    referrerUrl: body.referrer_url,
    existingClickId: body.existing_click_id,
    additionalData: body.additional_data,
    keyProgramId: state(res).apiKey?.programId ?? null,
    origin: req.headers.origin ?? null,
    ip: req.ip ?? null,
    userAgent: body.user_agent ?? req.headers['user-agent'] ?? null,
    details: {
      page_title: body.page_title,
      session_id: body.session_id,
      screen_resolution: body.screen_resolution,
      viewport_size: body.viewport_size,
      language: body.language,
      timezone: body.timezone,
    },
    now: clock(deps),
    count: takeRequestCount(res),
  });
  const refused = settleRequestCount(res, outcome.counted);
  if (outcome.limited) throw refused; // the 429: over its limit, the statement wrote no click
  const result = outcome.click;
  // On the request's own log line (one line per request).
  state(res).logFields = { programId: result.programId, keptExistingClick: result.keptExistingClick };
  sendJson(
    res,
    200,
    {
      success: true,
      click_id: result.clickId,
      partner_code: result.partnerCode,
      cookie_window_days: result.cookieWindowDays,
    },
    deps.config.docsUrl,
  );
}
