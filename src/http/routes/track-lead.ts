import { isIP } from 'node:net';
import { Router } from 'express';
import { MESSAGES, errors } from '../../core/errors.js';
import { trackLead } from '../../core/track-lead.js';
import { programKeyAuth } from '../auth.js';
import { failsWith, state } from '../context.js';
import { browserCors } from '../cors.js';
import { type HttpDeps, clock } from '../deps.js';
import { sendJson } from '../respond.js';
import { parseLeadBody } from '../schemas.js';

const leadIp = (body: unknown, browserIp: string | null): string | null => {
  const given = (body as { customer_ip?: unknown } | null)?.customer_ip;
  if (typeof given === 'string' && isIP(given)) return given;
  return browserIp && isIP(browserIp) ? browserIp : null;
};

export function trackLeadRoute(deps: HttpDeps): Router {
  const router = Router();
  const path = '/api/v1/track/lead';
  router.options(path, browserCors(deps.pool, () => clock(deps)));
  router.post(
    path,
    failsWith(() => errors.internal(MESSAGES.leadFailed)),
    browserCors(deps.pool, () => clock(deps)),
    programKeyAuth(deps.store, 'lead', deps.config.docsUrl),
    async (req, res) => {
      const body = parseLeadBody(req.body);
      const result = await trackLead(deps.store, {
        keyProgramId: state(res).apiKey?.programId ?? null,
        clickId: body.click_id,
        customerKey: body.customer_key,
        email: body.email,
        customerName: body.customer_name,
        bodyProgramId: body.program_id,
        eventName: body.event_name,
        additionalData: body.additional_data,
        origin: req.headers.origin ?? null,
        // The browser's own address in browser mode; a backend may pass its customer's.
        ip: leadIp(req.body, state(res).apiKey ? null : (req.ip ?? null)),
        now: clock(deps),
      });
      state(res).logFields = { programId: result.programId, provisional: result.provisional, settled: result.settled };
      // The lead is recorded; its reward failed and was rolled back (the lead answers 200: it was tracked).
      if (result.rewardFailed !== undefined) {
        state(res).log.error({ err: result.rewardFailed, programId: result.programId, customerId: result.customerId }, MESSAGES.commissionFailed);
        state(res).logFields = { ...state(res).logFields, commission: 'commission_failed' };
      }
      sendJson(
        res,
        200,
        { success: true, message: 'Lead tracked successfully', ...(result.provisional ? { provisional: true } : {}) },
        deps.config.docsUrl,
      );
    },
  );
  return router;
}
