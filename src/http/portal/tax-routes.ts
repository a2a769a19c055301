// The portal's tax details page: the signed-in person's own, kept per sign-in email, and the
// enrollments they share them with.
import type { Request, RequestHandler, Response, Router } from 'express';
import type { PortalReadDeps } from '../../app/partners/portal.js';
import { saveTaxDetails, taxDetailsOf } from '../../app/money/tax-details.js';
import { shareChoicesOf, tickedShares } from '../../app/money/partner-detail-shares.js';
import { fieldErrors } from '../kit/forms.js';
import type { Html } from '../kit/html.js';
import { taxDetailsPage } from './tax-pages.js';

export interface TaxRouteKit {
  /** A form whose ticked `share` boxes arrive as a list. */
  form: RequestHandler[];
  send: (res: Response, status: number, title: string, body: Html, flash?: string | null) => void;
  /** The primary, with the brand of a brand's own portal host (its programs alone are listed to share with). */
  app: (req: Request) => PortalReadDeps;
}

const FIELDS = ['legal_name', 'country', 'address', 'us_person', 'tin_kind', 'tin', 'certify', 'foreign_name', 'foreign_citizenship', 'foreign_signed_on', 'foreign_signature'];

export function registerTaxRoutes(router: Router, kit: TaxRouteKit): void {
  const { form, send, app } = kit;
  const today = (req: Request) => app(req).now().toISOString().slice(0, 10);
  // The page of one's own tax details reads the primary: it shows a write just made.
  router.get('/portal/tax-details', async (req, res) => {
    const [saved, choices] = await Promise.all([taxDetailsOf(app(req), res.locals.partnerEmail), shareChoicesOf(app(req), res.locals.partnerEmail)]);
    send(res, 200, 'Tax details', taxDetailsPage(saved, {}, undefined, today(req), choices, null), req.query.done === 'tax' ? 'Tax details saved.' : null);
  });
  router.post('/portal/tax-details', ...form, async (req, res) => {
    const body = req.body as Record<string, unknown>;
    const input = Object.fromEntries(FIELDS.flatMap((name) => (body[name] === undefined ? [] : [[name, String(body[name])]])));
    try {
      await saveTaxDetails(app(req), res.locals.partnerEmail, { ...input, share: body.share });
    } catch (error) {
      // The TIN typed is never sent back into the page.
      const { tin: _tin, ...typed } = input;
      const [saved, choices] = await Promise.all([taxDetailsOf(app(req), res.locals.partnerEmail), shareChoicesOf(app(req), res.locals.partnerEmail)]);
      return send(res, 400, 'Tax details', taxDetailsPage(saved, fieldErrors(error, { form: 'legal_name', body: 'legal_name' }), typed, today(req), choices, tickedShares(body.share)));
    }
    res.redirect(303, '/portal/tax-details?done=tax');
  });
}
