// POST /api/v1/track/sale: the request's fields -> core trackSale -> the spec's answer.
import { Router } from 'express';
import { MESSAGES, errors } from '../../core/errors.js';
import { type TrackSaleInput, type TrackSaleResult, trackSale } from '../../core/track-sale.js';
import { type PurchaseFacts, countryCode } from '../../core/sale-facts.js';
import { programKeyAuth } from '../auth.js';
import { failsWith, state } from '../context.js';
import { type HttpDeps, clock } from '../deps.js';
import { sendJson } from '../respond.js';
import { parseSaleBody } from '../schemas.js';

type SaleBody = ReturnType<typeof parseSaleBody>;

/** The rules' facts as sent; a subscription_interval the server SDK sends names the interval when interval does not. */
function purchaseFacts(body: SaleBody): PurchaseFacts {
  return {
    productIds: body.product_id ? [body.product_id] : [],
    priceIds: body.price_id ? [body.price_id] : [],
    interval: body.interval ?? (body.subscription_interval === 'monthly' ? 'month' : body.subscription_interval === 'annual' ? 'year' : null),
    country: countryCode(body.country),
  };
}

function toInput(body: SaleBody, programId: number, now: Date): TrackSaleInput {
  return {
    programId,
    transactionId: body.transaction_id,
    customerKey: body.customer_key,
    clickId: body.click_id,
    promoCode: body.promo_code ?? null,
    amountCents: body.amount_cents,
    currency: body.currency,
    occurredAt: body.occurred_at,
    provider: body.provider ?? null,
    providerPaymentId: body.provider_payment_id ?? null,
    livemode: body.livemode ?? null,
    test: body.testMode,
    saleType: body.sale_type ?? null,
    isRecurring: body.is_recurring ?? false,
    subscriptionId: body.subscription_id,
    subscriptionInterval: body.subscription_interval ?? null,
    eventName: body.event_name,
    taxCents: body.tax_cents ?? null,
    source: 'api',
    details: body.additional_data ?? {},
    purchase: purchaseFacts(body),
    now,
  };
}

function answer(result: TrackSaleResult, testMode: boolean): Record<string, unknown> {
  if (!result.attributed) {
    return {
      success: true,
      attributed: false,
      reason: result.reason,
      click_age_days: result.clickAgeDays,
      window_days: result.windowDays,
      sale_id: null,
      commission_id: null,
    };
  }
  return {
    success: true,
    sale_id: result.saleId,
    commission_id: result.commissionId,
    message: 'Sale tracked successfully',
    transaction_id: result.transactionId,
    attributed: true,
    attribution_step: result.attributionStep,
    commission_amount_cents: result.commissionCents,
    // Present when there is no commission: why (not_first_sale, duration_ended, test_mode).
    ...(result.commissionReason ? { commission_reason: result.commissionReason } : {}),
    test_mode: testMode,
  };
}

export function trackSaleRoute(deps: HttpDeps): Router {
  const router = Router();
  router.post(
    '/api/v1/track/sale',
    failsWith(() => errors.internal(MESSAGES.saleFailed)),
    programKeyAuth(deps.store, 'sale', deps.config.docsUrl),
    async (req, res) => {
      const now = clock(deps);
      const key = state(res).apiKey!;
      const body = parseSaleBody(req.body, now);
      const result = await trackSale(deps.store, toInput(body, key.programId, now));
      state(res).logFields = result.attributed
        ? { saleId: result.saleId, commissionId: result.commissionId, attributionStep: result.attributionStep }
        : { notAttributed: result.reason, clickAgeDays: result.clickAgeDays };
      sendJson(res, 200, answer(result, body.testMode), deps.config.docsUrl);
    },
  );
  return router;
}
