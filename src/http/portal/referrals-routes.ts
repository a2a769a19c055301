// The referrals page and its CSV downloads, on the portal's router (after its session check,
// before its 404): every one scoped to the signed-in partner's enrollment by src/app/referrals.
import type { Request, Response, Router } from 'express';
import { commissionsCsv, portalReferrals, referralsCsv, subIdsCsv } from '../../app/partners/referrals.js';
import type { ManagementDeps } from '../../app/programs/management.js';
import type { PortalReadDeps } from '../../app/partners/portal.js';
import { sendCsv } from '../csv-stream.js';
import type { Html } from '../kit/html.js';
import { referralsPage } from './referrals-page.js';

export interface PortalPageContext {
  /** The deps a read uses (the replica when there is one). */
  reading: (req: Request) => PortalReadDeps;
  send: (res: Response, status: number, title: string, body: Html) => void;
}

export function addReferralRoutes(router: Router, { reading, send }: PortalPageContext): void {
  const ids = (req: Request) => ({ email: req.res!.locals.partnerEmail as string, partnerId: Number(req.params.partnerId) });
  router.get('/portal/programs/:partnerId/referrals', async (req, res) => {
    const { email, partnerId } = ids(req);
    const data = await portalReferrals(reading(req), email, partnerId, req.query);
    send(res, 200, `Your referrals: ${data.partner.programName}`, referralsPage(data, req.query));
  });
  router.get('/portal/programs/:partnerId/referrals.csv', async (req, res) => {
    const { email, partnerId } = ids(req);
    await sendCsv(res, `referrals-${partnerId}.csv`, referralsCsv(reading(req), email, partnerId));
  });
  router.get('/portal/programs/:partnerId/commissions.csv', async (req, res) => {
    const { email, partnerId } = ids(req);
    await sendCsv(res, `commissions-${partnerId}.csv`, commissionsCsv(reading(req), email, partnerId));
  });
  router.get('/portal/programs/:partnerId/sub-ids.csv', async (req, res) => {
    const { email, partnerId } = ids(req);
    await sendCsv(res, `sub-ids-${partnerId}.csv`, subIdsCsv(reading(req), email, partnerId));
  });
}
