// The portal's payout pages: one payout with its lines, its printable statement, and the
// partner's invoice details. Another partner's payout answers the same 404 as none.
import type { Request, RequestHandler, Response, Router } from 'express';
import type { ManagementDeps } from '../../app/programs/management.js';
import type { PortalReadDeps } from '../../app/partners/portal.js';
import { invoiceDetailsOf, partnerPayout, partnerStatementCsv, saveInvoiceDetails } from '../../app/money/payout-statements.js';
import { fieldErrors } from '../kit/forms.js';
import type { Html } from '../kit/html.js';
import { invoiceDetailsPage, payoutPage, statementHeading, statementPage } from './payout-pages.js';

export interface PayoutRouteKit {
  form: RequestHandler[];
  send: (res: Response, status: number, title: string, body: Html, flash?: string | null) => void;
  app: () => ManagementDeps;
  /** The replica unless the page shows the partner's own write. */
  reading: (req: Request) => PortalReadDeps;
}

/** Where the invoice form goes back to: a statement of the portal, nothing else. */
const statementPath = (value: unknown) => (typeof value === 'string' && /^\/portal\/programs\/\d{1,18}\/payouts\/\d{1,18}\/statement$/.test(value) ? value : null);

export function registerPayoutRoutes(router: Router, kit: PayoutRouteKit): void {
  const { form, send, app, reading } = kit;
  const base = (partnerId: number) => `/portal/programs/${partnerId}`;

  router.get('/portal/programs/:partnerId/payouts/:payoutId', async (req, res) => {
    const partnerId = Number(req.params.partnerId);
    const view = await partnerPayout(reading(req), res.locals.partnerEmail, partnerId, Number(req.params.payoutId));
    send(res, 200, `Payout ${view.payout.id} · ${view.payout.programName}`, payoutPage(view, base(partnerId)));
  });
  router.get('/portal/programs/:partnerId/payouts/:payoutId/statement', async (req, res) => {
    const partnerId = Number(req.params.partnerId);
    const view = await partnerPayout(reading(req), res.locals.partnerEmail, partnerId, Number(req.params.payoutId));
    send(res, 200, statementHeading(view), statementPage(view, base(partnerId)), req.query.done === 'invoice' ? 'Invoice details saved: they are on this statement and every other.' : null);
  });

  router.get('/portal/programs/:partnerId/payouts/:payoutId/statement.csv', async (req, res) => {
    const csv = await partnerStatementCsv(reading(req), res.locals.partnerEmail, Number(req.params.partnerId), Number(req.params.payoutId));
    res.type('text/csv').attachment(`affix-payout-${Number(req.params.payoutId)}-statement.csv`).send(csv);
  });

  router.get('/portal/invoice-details', async (req, res) => {
    const values = await invoiceDetailsOf(reading(req), res.locals.partnerEmail);
    send(res, 200, 'Invoice details', invoiceDetailsPage(values, {}, statementPath(req.query.back)), req.query.done === 'invoice' ? 'Invoice details saved: they appear on every statement.' : null);
  });
  router.post('/portal/invoice-details', ...form, async (req, res) => {
    const body = req.body as Record<string, unknown>;
    const back = statementPath(body.back);
    try {
      await saveInvoiceDetails(app(), res.locals.partnerEmail, { name: body.name, address: body.address, country: body.country, tax_id: body.tax_id });
    } catch (error) {
      const typed = Object.fromEntries(Object.entries(body).map(([k, v]) => [k, String(v)]));
      return send(res, 400, 'Invoice details', invoiceDetailsPage(null, fieldErrors(error, { form: 'name', body: 'name' }), back, typed));
    }
    res.redirect(303, back ? `${back}?done=invoice` : '/portal/invoice-details?done=invoice');
  });
}
