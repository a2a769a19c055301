import { Router } from 'express';
import { MESSAGES, errors } from '../../core/errors.js';
import { trackRefund } from '../../core/track-refund.js';
import { programKeyAuth } from '../auth.js';
import { failsWith, state } from '../context.js';
import type { HttpDeps } from '../deps.js';
import { sendJson } from '../respond.js';
import { parseRefundBody } from '../schemas.js';

export function trackRefundRoute(deps: HttpDeps): Router {
  const router = Router();
  router.post(
    '/api/v1/track/refund',
    failsWith(() => errors.internal(MESSAGES.refundFailed)),
    programKeyAuth(deps.store, 'refund', deps.config.docsUrl),
    async (req, res) => {
      const body = parseRefundBody(req.body);
      const result = await trackRefund(deps.store, {
        programId: state(res).apiKey!.programId,
        transactionId: body.transaction_id,
        refundAmountCents: body.refund_amount_cents ?? undefined,
        refundId: body.refund_id,
        reason: body.reason,
        refundReason: body.refund_reason,
        source: 'api',
      });
      state(res).logFields = { saleId: result.saleId, refundStatus: result.status };
      if (result.status === 'no_commission') {
        sendJson(
          res,
          200,
          { success: true, status: 'no_commission', message: 'This sale has no commission (test sale or not commissionable); nothing to reverse.' },
          deps.config.docsUrl,
        );
        return;
      }
      sendJson(
        res,
        200,
        {
          success: true,
          status: result.status,
          commission_id: result.commissionId,
          deduction_amount_cents: result.deductionCents,
          refund_amount_cents: result.refundCents,
          refunded_total_cents: result.refundedTotalCents,
          commission_remaining_cents: result.commissionRemainingCents,
        },
        deps.config.docsUrl,
      );
    },
  );
  return router;
}
