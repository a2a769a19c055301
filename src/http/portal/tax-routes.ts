// The portal's tax details page: the signed-in person's own, kept per sign-in email.
import type { RequestHandler, Response, Router } from 'express';
import type { ManagementDeps } from '../../app/programs/management.js';
import { saveTaxDetails, taxDetailsOf } from '../../app/money/tax-details.js';
import { fieldErrors } from '../kit/forms.js';
import type { Html } from '../kit/html.js';
import { taxDetailsPage } from './tax-pages.js';

export interface TaxRouteKit {
  form: RequestHandler[];
  send: (res: Response, status: number, title: string, body: Html, flash?: string | null) => void;
  app: () => ManagementDeps;
}

const FIELDS = ['legal_name', 'country', 'address', 'us_person', 'tin_kind', 'tin', 'certify', 'foreign_name', 'foreign_citizenship', 'foreign_signed_on', 'foreign_signature'];

export function registerTaxRoutes(router: Router, kit: TaxRouteKit): void {
  const { form, send, app } = kit;
  const today = () => app().now().toISOString().slice(0, 10);
  // The page of one's own tax details reads the primary: it shows a write just made.
  router.get('/portal/tax-details', async (req, res) => {
    const saved = await taxDetailsOf(app(), res.locals.partnerEmail);
    send(res, 200, 'Tax details', taxDetailsPage(saved, {}, undefined, today()), req.query.done === 'tax' ? 'Tax details saved.' : null);
  });
  router.post('/portal/tax-details', ...form, async (req, res) => {
    const body = req.body as Record<string, unknown>;
    const input = Object.fromEntries(FIELDS.flatMap((name) => (body[name] === undefined ? [] : [[name, String(body[name])]])));
    try {
      await saveTaxDetails(app(), res.locals.partnerEmail, input);
    } catch (error) {
      // The TIN typed is never sent back into the page.
      const { tin: _tin, ...typed } = input;
      const saved = await taxDetailsOf(app(), res.locals.partnerEmail);
      return send(res, 400, 'Tax details', taxDetailsPage(saved, fieldErrors(error, { form: 'legal_name', body: 'legal_name' }), typed, today()));
    }
    res.redirect(303, '/portal/tax-details?done=tax');
  });
}
