// The portal's payout pages: one payout with its lines, its printable statement, and the
// partner's invoice details. Another partner's payout answers the same 404 as none.
import type { Request, RequestHandler, Response, Router } from 'express';
import type { ManagementDeps } from '../../app/programs/management.js';
import type { PortalReadDeps } from '../../app/partners/portal.js';
import { invoiceDetailsOf, partnerPayout, partnerStatementCsv, saveInvoiceDetails } from '../../app/money/payout-statements.js';
import { shareChoicesOf, tickedShares } from '../../app/money/partner-detail-shares.js';
import { fieldErrors } from '../kit/forms.js';
import type { Html } from '../kit/html.js';
import { invoiceDetailsPage, payoutPage, statementHeading, statementPage } from './payout-pages.js';

export interface PayoutRouteKit {
  form: RequestHandler[];
  send: (res: Response, status: number, title: string, body: Html, flash?: string | null) => void;
  app: () => ManagementDeps;
  /** The replica unless the page shows the partner's own write. */
  reading: (req: Request) => PortalReadDeps;
  /** The details forms: `form` whose ticked `share` boxes arrive as a list, and the primary with the host's brand. */
  shareForm: RequestHandler[];
  writing: (req: Request) => PortalReadDeps;
}

/** Where the invoice form goes back to: a statement of the portal, nothing else. */
const statementPath = (value: unknown) => (typeof value === 'string' && /^\/portal\/programs\/\d{1,18}\/payouts\/\d{1,18}\/statement$/.test(value) ? value : null);

export function registerPayoutRoutes(router: Router, kit: PayoutRouteKit): void {
  const { send, reading, shareForm, writing } = kit;
  const base = (partnerId: number) => `/portal/programs/${partnerId}`;

  router.get('/portal/programs/:partnerId/payouts/:payoutId', async (req, res) => {
    const partnerId = Number(req.params.partnerId);
    const view = await partnerPayout(reading(req), res.locals.partnerEmail, partnerId, Number(req.params.payoutId));
    send(res, 200, `Payout ${view.payout.id} · ${view.payout.programName}`, payoutPage(view, base(partnerId)));
  });
  router.get('/portal/programs/:partnerId/payouts/:payoutId/statement', async (req, res) => {
    const partnerId = Number(req.params.partnerId);
    const view = await partnerPayout(reading(req), res.locals.partnerEmail, partnerId, Number(req.params.payoutId));
    send(res, 200, statementHeading(view), statementPage(view, base(partnerId)), req.query.done === 'invoice' ? 'Invoice details saved: they are on the statements of the programs you share them with.' : null);
  });

  router.get('/portal/programs/:partnerId/payouts/:payoutId/statement.csv', async (req, res) => {
    const csv = await partnerStatementCsv(reading(req), res.locals.partnerEmail, Number(req.params.partnerId), Number(req.params.payoutId));
    res.type('text/csv').attachment(`affix-payout-${Number(req.params.payoutId)}-statement.csv`).send(csv);
  });

  router.get('/portal/invoice-details', async (req, res) => {
    const [values, choices] = await Promise.all([invoiceDetailsOf(reading(req), res.locals.partnerEmail), shareChoicesOf(reading(req), res.locals.partnerEmail)]);
    const back = statementPath(req.query.back);
    // Come from one program's statement to add them: that program is ticked (the person sees it, and may untick it).
    const from = back ? Number(back.split('/')[3]) : null;
    const ticked = from && choices.some((c) => c.partnerId === from) ? [...choices.filter((c) => c.shared).map((c) => c.partnerId), from] : null;
    send(res, 200, 'Invoice details', invoiceDetailsPage(values, {}, back, choices, ticked), req.query.done === 'invoice' ? 'Invoice details saved: they appear on the statements of the programs you share them with.' : null);
  });
  router.post('/portal/invoice-details', ...shareForm, async (req, res) => {
    const body = req.body as Record<string, unknown>;
    const back = statementPath(body.back);
    try {
      await saveInvoiceDetails(writing(req), res.locals.partnerEmail, { name: body.name, address: body.address, country: body.country, tax_id: body.tax_id, share: body.share });
    } catch (error) {
      const typed = Object.fromEntries(Object.entries(body).filter(([k]) => k !== 'share').map(([k, v]) => [k, String(v)]));
      const choices = await shareChoicesOf(writing(req), res.locals.partnerEmail);
      return send(res, 400, 'Invoice details', invoiceDetailsPage(null, fieldErrors(error, { form: 'name', body: 'name' }), back, choices, tickedShares(body.share), typed));
    }
    res.redirect(303, back ? `${back}?done=invoice` : '/portal/invoice-details?done=invoice');
  });
}
