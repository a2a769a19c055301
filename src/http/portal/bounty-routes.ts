// The portal's Bounties page and its submission form, on the portal's router (after its session
// check): scoped to the signed-in partner's enrollment (another partner's id answers 404).
import type { Request, RequestHandler, Response, Router } from 'express';
import { partnerBounties, submitToBounty } from '../../app/money/bounties.js';
import { ownPartner, type PortalReadDeps } from '../../app/partners/portal.js';
import type { ManagementDeps } from '../../app/programs/management.js';
import { AffixError } from '../../core/errors.js';
import type { Html } from '../kit/html.js';
import { bountiesPage } from './bounty-page.js';

export interface BountyRouteKit {
  form: RequestHandler[];
  send: (res: Response, status: number, title: string, body: Html, flash?: string | null) => void;
  app: () => ManagementDeps;
  reading: (req: Request) => PortalReadDeps;
}

export function registerBountyRoutes(router: Router, { form, send, app, reading }: BountyRouteKit): void {
  const show = async (req: Request, res: Response, status: number, flash: string | null, errors: Record<string, string> = {}, typed: Record<string, string> = {}) => {
    const partner = await ownPartner(reading(req), res.locals.partnerEmail, Number(req.params.partnerId));
    const data = await partnerBounties(app(), partner);
    send(res, status, `Bounties: ${partner.programName}`, bountiesPage({ partnerId: partner.partnerId, programName: partner.programName, ...data }, errors, typed), flash);
  };
  router.get('/portal/programs/:partnerId/bounties', async (req, res) => {
    await show(req, res, 200, req.query.done === 'submitted' ? 'Submitted: the brand reviews it and you hear from them by mail.' : null);
  });
  router.post('/portal/programs/:partnerId/bounties/:bountyId/submissions', ...form, async (req, res) => {
    const partner = await ownPartner(reading(req), res.locals.partnerEmail, Number(req.params.partnerId));
    const bountyId = Number(req.params.bountyId);
    const content = String((req.body as Record<string, unknown>).content ?? '');
    try {
      await submitToBounty(app(), partner, bountyId, { content });
    } catch (error) {
      if (!(error instanceof AffixError) || (error.status !== 400 && error.status !== 409)) throw error;
      const message = error.status === 400 ? (error.init.fields?.content ?? error.message) : error.message;
      return show(req, res, error.status, null, { [`content_${bountyId}`]: message }, { [`content_${bountyId}`]: content });
    }
    res.redirect(303, `/portal/programs/${partner.partnerId}/bounties?done=submitted`);
  });
}
