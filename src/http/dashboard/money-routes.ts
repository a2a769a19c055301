// The Payouts and Webhooks pages' forms: each posts to a use case of src/app, then redirects
// back to its page (or shows it again with the refusal beside the field).
import type { Request, RequestHandler, Response, Router } from 'express';
import type { ManagementDeps } from '../../app/programs/management.js';
import type { Scope } from '../../app/accounts/scope.js';
import { type PortalDeps, invitePartner } from '../../app/partners/portal.js';
import * as commissionLifecycle from '../../app/money/commission-lifecycle.js';
import * as payoutRuns from '../../app/money/payout-runs.js';
import { failPayout } from '../../app/money/failed-payouts.js';
import * as payoutConfig from '../../app/money/payout-settings.js';
import * as promo from '../../app/partners/promo-codes.js';
import * as webhooks from '../../app/outbound/webhook-endpoints.js';
import type { ProgramSection } from '../../app/programs/dashboard-pages.js';
import { OUTBOUND_EVENT_TYPES } from '../../core/outbound-events.js';
import { fieldErrors, typedMinimums } from '../kit/forms.js';
import type { PageExtra } from './program-page.js';
import { sendCsv } from '../csv-stream.js';
import { sectionUrl } from './program-page.js';
import { formatMoney } from '../../core/money.js';

export interface MoneyRouteKit {
  form: RequestHandler[];
  /** `form` whose named fields are lists (ticked boxes of one name). */
  listForm: (...lists: string[]) => RequestHandler[];
  app: () => ManagementDeps;
  hooks: () => webhooks.WebhookDeps;
  stripeSecretKey: string | undefined;
  portal: () => PortalDeps;
  scope: (res: Response) => Scope;
  ownProgram: (req: Request, res: Response) => Promise<number>;
  programPage: (req: Request, res: Response, section: ProgramSection, extra?: PageExtra) => Promise<void>;
  back: (res: Response, id: number, done: string, section: ProgramSection) => void;
}

export const MONEY_DONE: Record<string, string> = {
  approved: 'Commission approved.',
  unapproved: 'Approval taken back.',
  released: 'Commission released: pending again.',
  rejected: 'Commission rejected: it will not be paid.',
  payout_run: 'Payout batch created: export it, pay, then mark each payout paid.',
  reminded_one: 'Reminder queued: the partner gets a link to add their payout details (at most one a day).',
  reminded: 'Reminders queued: each partner gets a link to add their payout details (at most one a day).',
  reminded_tax: 'Reminders queued: each partner gets a link to add their tax details (at most one a day).',
  paid: 'Payout marked paid.',
  canceled: 'Payout canceled: its balance is payable again.',
  failed: 'Payout marked failed: its balance is owed again and the partner was asked to check their payout details.',
  payout_settings: 'Payout settings saved.',
  provider_send: 'Sending: the payouts are on their way to the provider; each shows here when it is paid or fails.',
  provider_saved: 'Saved. The secret is stored encrypted and will not be shown again.',
  endpoint_toggled: 'Endpoint updated.',
  promo_code: 'Promo code added.',
  invited: 'Sign-in link sent to the partner.',
  promo_toggled: 'Promo code updated.',
  delivery_replayed: 'Delivery queued again.',
};

const text = (req: Request, name: string) => String((req.body as Record<string, unknown>)[name] ?? '').trim();

export function registerMoneyRoutes(router: Router, kit: MoneyRouteKit): void {
  const { form, app, scope, ownProgram, programPage, back } = kit;
  const base = '/dashboard/programs/:id';
  /** Runs a use case; a refusal (400/409) shows the page again with the message beside `field`. */
  const attempt = async (req: Request, res: Response, section: ProgramSection, field: string, fn: () => Promise<unknown>): Promise<boolean> => {
    try {
      await fn();
      return true;
    } catch (error) {
      const fields = fieldErrors(error, { reason: field, reference: field, form: field });
      await programPage(req, res, section, { status: (error as { status: number }).status, fieldErrors: fields });
      return false;
    }
  };

  /** Back to the commissions as they were shown: the same state, partner and days. */
  const backToCommissions = (req: Request, res: Response, id: number, done: string, extra: Record<string, string> = {}) => {
    const source = { ...(req.query as Record<string, unknown>), ...(req.body as Record<string, unknown>) };
    const keep = Object.fromEntries(['stage', 'partner', 'from', 'to'].flatMap((name) => (typeof source[name] === 'string' && source[name] ? [[name, source[name] as string]] : [])));
    res.redirect(303, `${sectionUrl(id, 'payouts')}?${new URLSearchParams({ ...keep, done, ...extra })}#commissions`);
  };

  const reviews = {
    approve: [commissionLifecycle.approveCommission, 'approved'],
    unapprove: [commissionLifecycle.unapproveCommission, 'unapproved'],
    release: [commissionLifecycle.releaseCommission, 'released'],
    reject: [commissionLifecycle.rejectCommission, 'rejected'],
  } as const;
  for (const [verb, [use, done]] of Object.entries(reviews)) {
    // A row's button posts the commissions form (its one reason field, its ticked boxes): one click, no form per row.
    router.post(`${base}/commissions/:commissionId/${verb}`, ...kit.listForm('commission_ids'), async (req, res) => {
      const id = await ownProgram(req, res);
      const commissionId = Number(req.params.commissionId);
      if (await attempt(req, res, 'payouts', 'bulk_reason', () => use(app(), scope(res), id, commissionId, { reason: text(req, 'bulk_reason') }))) {
        backToCommissions(req, res, id, done);
      }
    });
  }

  // ---- commissions in bulk: a bulk approval that would override holds asks first ----------------
  router.post(`${base}/commissions/bulk`, ...kit.listForm('commission_ids'), async (req, res) => {
    const id = await ownProgram(req, res);
    const body = req.body as Record<string, unknown>;
    const ids = ([] as unknown[]).concat(body.commission_ids ?? []).map(Number);
    const action = text(req, 'bulk_action');
    const partner = Number(text(req, 'partner'));
    const all = text(req, 'all_matching') === 'on';
    const hold = text(req, 'hold');
    const pastHoldOnly = text(req, 'past_hold_only') === 'on' || hold === 'respect';
    const stage = text(req, 'stage');
    const filter = {
      state: stage || undefined,
      ...(partner > 0 ? { partner_id: partner } : {}),
      ...(text(req, 'from') ? { from: text(req, 'from') } : {}),
      // `to` is the last day shown: the filter's end is the next midnight (UTC).
      ...(Number.isFinite(Date.parse(`${text(req, 'to')}T00:00:00Z`)) ? { to: new Date(Date.parse(`${text(req, 'to')}T00:00:00Z`) + 86_400_000).toISOString() } : {}),
    };
    try {
      // Ticked ones, keeping holds: only those of them past their hold.
      const selection = all || (pastHoldOnly && !ids.length)
        ? { filter: { ...filter, ...(pastHoldOnly ? { past_hold: true } : {}) } }
        : { commission_ids: pastHoldOnly ? await commissionLifecycle.pastHoldOf(app(), scope(res), id, ids) : ids };
      if (action === 'approve' && hold !== 'override' && !pastHoldOnly) {
        const preview = await commissionLifecycle.approvalPreview(app(), scope(res), id, selection);
        const count = preview.reduce((n, p) => n + p.count, 0);
        const pastHold = preview.reduce((n, p) => n + p.pastHoldCount, 0);
        if (count > pastHold) {
          const words = (pick: (p: (typeof preview)[number]) => number) => preview.filter((p) => pick(p) > 0).map((p) => formatMoney(pick(p), p.currency)).join(' and ');
          const fields: Record<string, string | string[]> = Object.fromEntries(
            ['bulk_action', 'bulk_reason', 'all_matching', 'stage', 'partner', 'from', 'to'].flatMap((name) => (text(req, name) ? [[name, text(req, name)]] : [])),
          );
          if (!all) fields.commission_ids = ids.map(String);
          const holdQuestion = { count, pastHold, inHold: count - pastHold, allWords: words((p) => p.cents), inHoldWords: words((p) => p.cents - p.pastHoldCents), fields };
          return programPage(req, res, 'payouts', { status: 200, holdQuestion, formValues: { bulk_reason: text(req, 'bulk_reason') } });
        }
      }
      const report = await commissionLifecycle.commissionBulk(app(), scope(res), id, { action, ...selection, reason: text(req, 'bulk_reason') });
      backToCommissions(req, res, id, 'bulk', { action: report.action, changed: String(report.changed), skipped: String(report.requested - report.changed) });
    } catch (error) {
      return programPage(req, res, 'payouts', { status: 400, fieldErrors: fieldErrors(error, { reason: 'bulk_reason', commission_ids: 'bulk_reason', action: 'bulk_reason', filter: 'bulk_reason', form: 'bulk_reason' }), formValues: { bulk_reason: text(req, 'bulk_reason') } });
    }
  });

  router.post(`${base}/payouts/run`, ...form, async (req, res) => {
    const id = await ownProgram(req, res);
    let batchId = 0;
    const ran = await attempt(req, res, 'payouts', 'payout_run', async () => {
      batchId = (await payoutRuns.runPayouts(app(), scope(res), id)).batchId;
    });
    // The page says what the run paid and what waits for payout details (src/app/programs/dashboard-pages.ts reads the batch).
    if (ran) res.redirect(303, `${sectionUrl(id, 'payouts')}?done=payout_run&batch=${batchId}`);
  });
  router.post(`${base}/payouts/remind`, ...form, async (req, res) => {
    const id = await ownProgram(req, res);
    const partnerId = text(req, 'partner_id');
    let reminded = 0;
    const ok = await attempt(req, res, 'payouts', 'remind', async () => {
      reminded = (await payoutRuns.remindPayoutDetails({ ...app(), mailLinks: { publicUrl: kit.portal().publicUrl } }, scope(res), id, partnerId === 'all' || !partnerId ? {} : { partner_ids: [partnerId] })).partners;
    });
    if (ok) res.redirect(303, `${sectionUrl(id, 'payouts')}?done=${reminded === 1 ? 'reminded_one' : 'reminded'}#missing-details`);
  });
  router.post(`${base}/payouts/:payoutId/paid`, ...form, async (req, res) => {
    const id = await ownProgram(req, res);
    const payoutId = Number(req.params.payoutId);
    const ok = await attempt(req, res, 'payouts', `reference_${payoutId}`, () =>
      payoutRuns.markPayoutPaid(app(), scope(res), id, payoutId, { reference: text(req, `reference_${payoutId}`) }),
    );
    if (ok) back(res, id, 'paid', 'payouts');
  });
  router.post(`${base}/payouts/:payoutId/stripe-transfer`, ...form, async (req, res) => {
    const id = await ownProgram(req, res);
    const payoutId = Number(req.params.payoutId);
    const ok = await attempt(req, res, 'payouts', `reference_${payoutId}`, () =>
      payoutRuns.payWithStripe({ ...app(), stripeSecretKey: kit.stripeSecretKey }, scope(res), id, payoutId),
    );
    if (ok) back(res, id, 'paid', 'payouts');
  });
  router.post(`${base}/payouts/:payoutId/fail`, ...form, async (req, res) => {
    const id = await ownProgram(req, res);
    const payoutId = Number(req.params.payoutId);
    const ok = await attempt(req, res, 'payouts', `failure_reason_${payoutId}`, () =>
      failPayout(app(), scope(res), id, payoutId, { reason: text(req, `failure_reason_${payoutId}`) }),
    );
    if (ok) back(res, id, 'failed', 'payouts');
  });
  router.post(`${base}/payouts/:payoutId/cancel`, ...form, async (req, res) => {
    const id = await ownProgram(req, res);
    await payoutRuns.cancelPayout(app(), scope(res), id, Number(req.params.payoutId));
    back(res, id, 'canceled', 'payouts');
  });
  router.post(`${base}/payouts/settings`, ...form, async (req, res) => {
    const id = await ownProgram(req, res);
    const body: Record<string, unknown> = Object.fromEntries(
      ['hold_days', 'fraud_min_signup_seconds', 'fraud_max_leads_per_ip', 'fraud_ip_window_minutes', 'partner_link_limit'].map((name) => [name, text(req, name)]),
    );
    body.partners_can_create_links = text(req, 'partners_can_create_links') === 'on' ? 'true' : 'false';
    const save = async () => {
      // Minimums are typed in each currency's own units ("50.00" is $50): converted here, refused beside their field.
      body.payout_minimums_cents = typedMinimums(req.body as Record<string, unknown>, 'payout_minimum_');
      return payoutConfig.updatePayoutSettings(app(), scope(res), id, body);
    };
    if (await attempt(req, res, 'payouts', 'hold_days', save)) back(res, id, 'payout_settings', 'payouts');
  });
  router.get(`${base}/payouts/batches/:batchId/export.csv`, async (req, res) => {
    const format = String(req.query.format ?? 'generic');
    await sendCsv(res, `affix-payouts-${req.params.batchId}-${format}.csv`, payoutRuns.payoutExportCsv(app(), scope(res), Number(req.params.id), Number(req.params.batchId), format));
  });

  router.post(`${base}/partners/:partnerId/invite`, ...form, async (req, res) => {
    const id = await ownProgram(req, res);
    if (await attempt(req, res, 'partners', 'partner_email', () => invitePartner(kit.portal(), scope(res), id, Number(req.params.partnerId)))) back(res, id, 'invited', 'partners');
  });
  router.post(`${base}/promo-codes`, ...form, async (req, res) => {
    const id = await ownProgram(req, res);
    const body = Object.fromEntries(['partner_id', 'code', 'stripe_promotion_code_id', 'stripe_coupon_id'].map((name) => [name, text(req, name)]));
    if (await attempt(req, res, 'links', 'code', () => promo.createPromoCode(app(), scope(res), id, body))) back(res, id, 'promo_code', 'links');
  });
  router.post(`${base}/promo-codes/:promoCodeId/toggle`, ...form, async (req, res) => {
    const id = await ownProgram(req, res);
    await promo.setPromoCodeActive(app(), scope(res), id, Number(req.params.promoCodeId), text(req, 'active') === 'true');
    back(res, id, 'promo_toggled', 'links');
  });

  // The secret is shown once, on the page this post answers (never stored in clear).
  router.post(`${base}/webhooks`, ...form, async (req, res) => {
    const id = await ownProgram(req, res);
    // One checkbox per type (the form guard refuses a field sent twice).
    const eventTypes = OUTBOUND_EVENT_TYPES.filter((type) => text(req, `event_${type}`) === 'on');
    try {
      const created = await webhooks.createEndpoint(kit.hooks(), scope(res), id, { url: text(req, 'url'), event_types: eventTypes });
      await programPage(req, res, 'webhooks', { status: 201, newSecret: { endpointId: created.endpoint.id, secret: created.secret } });
    } catch (error) {
      await programPage(req, res, 'webhooks', { status: 400, fieldErrors: fieldErrors(error) });
    }
  });
  router.post(`${base}/webhooks/:endpointId/toggle`, ...form, async (req, res) => {
    const id = await ownProgram(req, res);
    await webhooks.updateEndpoint(app(), scope(res), id, Number(req.params.endpointId), { enabled: text(req, 'enabled') === 'true' });
    back(res, id, 'endpoint_toggled', 'webhooks');
  });
  router.post(`${base}/webhooks/:endpointId/rotate`, ...form, async (req, res) => {
    const id = await ownProgram(req, res);
    const endpointId = Number(req.params.endpointId);
    const rotated = await webhooks.rotateEndpointSecret(app(), scope(res), id, endpointId);
    await programPage(req, res, 'webhooks', { status: 200, newSecret: { endpointId, secret: rotated.secret } });
  });
  router.post(`${base}/webhooks/deliveries/:deliveryId/replay`, ...form, async (req, res) => {
    const id = await ownProgram(req, res);
    await webhooks.replayDelivery(app(), scope(res), id, Number(req.params.deliveryId));
    back(res, id, 'delivery_replayed', 'webhooks');
  });
}
