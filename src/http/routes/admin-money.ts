// Admin API for money owed to partners (docs/payouts.md) and webhooks to the brand
// (docs/webhooks.md). Mounted on the admin router, behind its token.
import type { Request, Router } from 'express';
import type { ManagementDeps } from '../../app/programs/management.js';
import { operatorFrom } from '../../app/accounts/scope.js';
import * as payoutRuns from '../../app/money/payout-runs.js';
import { failPayout } from '../../app/money/failed-payouts.js';
import * as payoutProviders from '../../app/money/payout-providers.js';
import * as commissionLifecycle from '../../app/money/commission-lifecycle.js';
import * as payoutConfig from '../../app/money/payout-settings.js';
import { invitePartner } from '../../app/partners/portal.js';
import * as promo from '../../app/partners/promo-codes.js';
import { errors } from '../../core/errors.js';
import * as webhooks from '../../app/outbound/webhook-endpoints.js';
import type { AppDeps } from '../deps.js';
import { sendCsv } from '../csv-stream.js';
import { wire } from '../wire.js';

type IdParam = (req: Request, name?: string) => number;
const operator = (req: Request) => operatorFrom(req.ip);

export function adminMoneyRoutes(router: Router, deps: AppDeps, app: () => ManagementDeps, idParam: IdParam): void {
  const base = '/api/v1/admin/programs/:id';
  const hooks = (): webhooks.WebhookDeps => ({ ...app(), outbound: deps.config.outbound });

  router.get(`${base}/balances`, async (req, res) => {
    res.json({ data: wire(await payoutRuns.balances(app(), operator(req), idParam(req))) });
  });
  router.get(`${base}/commissions`, async (req, res) => {
    res.json({ data: wire(await commissionLifecycle.commissions(app(), operator(req), idParam(req), req.query)) });
  });
  router.post(`${base}/commissions/:commissionId/approve`, async (req, res) => {
    res.json({ data: wire(await commissionLifecycle.approveCommission(app(), operator(req), idParam(req), idParam(req, 'commissionId'), req.body)) });
  });
  router.post(`${base}/commissions/:commissionId/unapprove`, async (req, res) => {
    res.json({ data: wire(await commissionLifecycle.unapproveCommission(app(), operator(req), idParam(req), idParam(req, 'commissionId'), req.body)) });
  });
  router.post(`${base}/commissions/:commissionId/release`, async (req, res) => {
    res.json({ data: wire(await commissionLifecycle.releaseCommission(app(), operator(req), idParam(req), idParam(req, 'commissionId'), req.body)) });
  });
  router.post(`${base}/commissions/:commissionId/reject`, async (req, res) => {
    res.json({ data: wire(await commissionLifecycle.rejectCommission(app(), operator(req), idParam(req), idParam(req, 'commissionId'), req.body)) });
  });
  router.get(`${base}/payout-settings`, async (req, res) => {
    res.json({ data: wire(await payoutConfig.payoutSettings(app(), operator(req), idParam(req))) });
  });
  router.patch(`${base}/payout-settings`, async (req, res) => {
    res.json({ data: wire(await payoutConfig.updatePayoutSettings(app(), operator(req), idParam(req), req.body)) });
  });
  router.patch(`${base}/partners/:partnerId/payout-details`, async (req, res) => {
    res.json({ data: wire(await payoutConfig.setPayoutDetails(app(), operator(req), idParam(req), idParam(req, 'partnerId'), req.body)) });
  });
  router.post(`${base}/payouts/run`, async (req, res) => {
    res.status(201).json({ data: wire(await payoutRuns.runPayouts(app(), operator(req), idParam(req))) });
  });
  router.post(`${base}/payouts/remind`, async (req, res) => {
    const reminderDeps = { ...app(), mailLinks: { publicUrl: deps.config.publicUrl } };
    res.json({ data: wire(await payoutRuns.remindPayoutDetails(reminderDeps, operator(req), idParam(req), req.body)) });
  });
  router.get(`${base}/payouts`, async (req, res) => {
    res.json({ data: wire(await payoutRuns.listPayouts(app(), operator(req), idParam(req))) });
  });
  router.post(`${base}/payouts/:payoutId/paid`, async (req, res) => {
    res.json({ data: wire(await payoutRuns.markPayoutPaid(app(), operator(req), idParam(req), idParam(req, 'payoutId'), req.body)) });
  });
  router.post(`${base}/payouts/:payoutId/stripe-transfer`, async (req, res) => {
    const paid = await payoutRuns.payWithStripe({ ...app(), stripeSecretKey: deps.config.stripeSecretKey }, operator(req), idParam(req), idParam(req, 'payoutId'));
    res.json({ data: wire(paid) });
  });
  router.post(`${base}/payouts/:payoutId/cancel`, async (req, res) => {
    res.json({ data: wire(await payoutRuns.cancelPayout(app(), operator(req), idParam(req), idParam(req, 'payoutId'))) });
  });
  router.post(`${base}/payouts/:payoutId/fail`, async (req, res) => {
    const body = (req.body ?? {}) as { reason?: unknown; provider_reference?: unknown };
    const failed = await failPayout(app(), operator(req), idParam(req), idParam(req, 'payoutId'), { reason: body.reason as string, providerReference: body.provider_reference as string | null | undefined });
    res.json({ data: wire(failed) });
  });
  router.post(`${base}/payout-batches/:batchId/pay`, async (req, res) => {
    res.status(202).json({ data: wire(await payoutProviders.payBatchThroughProvider({ ...app(), stripeSecretKey: deps.config.stripeSecretKey }, operator(req), idParam(req), idParam(req, 'batchId'), req.body)) });
  });
  router.get(`${base}/payout-providers`, async (req, res) => {
    res.json({ data: wire(await payoutProviders.providerAccountsOf(app(), operator(req), idParam(req))) });
  });
  router.put(`${base}/payout-providers/:provider`, async (req, res) => {
    res.json({ data: wire(await payoutProviders.saveProviderAccount(app(), operator(req), idParam(req), String(req.params.provider), req.body)) });
  });
  router.get(`${base}/payout-batches/:batchId/export`, async (req, res) => {
    const format = String(req.query.format ?? 'generic');
    await sendCsv(res, `payouts-${req.params.batchId}-${format}.csv`, payoutRuns.payoutExportCsv(app(), operator(req), idParam(req), idParam(req, 'batchId'), format));
  });

  router.post(`${base}/partners/:partnerId/invite`, async (req, res) => {
    const portalDeps = { ...app(), mailer: deps.mailer, publicUrl: deps.config.publicUrl };
    res.json({ data: wire(await invitePartner(portalDeps, operator(req), idParam(req), idParam(req, 'partnerId'))) });
  });
  router.post(`${base}/promo-codes`, async (req, res) => {
    res.status(201).json({ data: wire(await promo.createPromoCode(app(), operator(req), idParam(req), req.body)) });
  });
  router.get(`${base}/promo-codes`, async (req, res) => {
    res.json({ data: wire(await promo.listPromoCodes(app(), operator(req), idParam(req))) });
  });
  router.patch(`${base}/promo-codes/:promoCodeId`, async (req, res) => {
    const active = (req.body as { active?: unknown } | undefined)?.active;
    if (typeof active !== 'boolean') throw errors.invalid('active must be true or false', { active: 'Must be true or false.' });
    await promo.setPromoCodeActive(app(), operator(req), idParam(req), idParam(req, 'promoCodeId'), active);
    res.json({ data: { id: idParam(req, 'promoCodeId'), active } });
  });

  router.post(`${base}/webhook-endpoints`, async (req, res) => {
    const created = await webhooks.createEndpoint(hooks(), operator(req), idParam(req), req.body);
    res.status(201).json({ data: wire({ ...created.endpoint, secret: created.secret }) });
  });
  router.get(`${base}/webhook-endpoints`, async (req, res) => {
    res.json({ data: wire(await webhooks.listEndpoints(app(), operator(req), idParam(req))) });
  });
  router.patch(`${base}/webhook-endpoints/:endpointId`, async (req, res) => {
    res.json({ data: wire(await webhooks.updateEndpoint(app(), operator(req), idParam(req), idParam(req, 'endpointId'), req.body)) });
  });
  router.delete(`${base}/webhook-endpoints/:endpointId`, async (req, res) => {
    await webhooks.deleteEndpoint(app(), operator(req), idParam(req), idParam(req, 'endpointId'));
    res.status(204).end();
  });
  router.post(`${base}/webhook-endpoints/:endpointId/rotate-secret`, async (req, res) => {
    res.json({ data: wire(await webhooks.rotateEndpointSecret(app(), operator(req), idParam(req), idParam(req, 'endpointId'))) });
  });
  router.get(`${base}/webhook-endpoints/:endpointId/deliveries`, async (req, res) => {
    res.json({ data: wire(await webhooks.deliveryLog(app(), operator(req), idParam(req), idParam(req, 'endpointId'))) });
  });
  router.post(`${base}/webhook-deliveries/:deliveryId/replay`, async (req, res) => {
    res.status(201).json({ data: wire(await webhooks.replayDelivery(app(), operator(req), idParam(req), idParam(req, 'deliveryId'))) });
  });
}
