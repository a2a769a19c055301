// Discounts for referred buyers (docs/discounts.md): the admin API (a group's discount, its codes
// on demand, the processors' API keys), and the public lookup behind the tracker's getDiscount().
import { type Request, Router } from 'express';
import * as discounts from '../../app/partners/discounts.js';
import type { ManagementDeps } from '../../app/programs/management.js';
import { operatorFrom } from '../../app/accounts/scope.js';
import type { AppDeps } from '../deps.js';
import { wire } from '../wire.js';

type IdParam = (req: Request, name?: string) => number;
const operator = (req: Request) => operatorFrom(req.ip);

export function adminDiscountRoutes(router: Router, deps: AppDeps, app: () => ManagementDeps, idParam: IdParam): void {
  const base = '/api/v1/admin/programs/:id';
  const withKey = () => ({ ...app(), stripeSecretKey: deps.config.stripeSecretKey });
  router.get(`${base}/discounts`, async (req, res) => {
    res.json({ data: wire(await discounts.listGroupDiscounts(app(), operator(req), idParam(req))) });
  });
  router.put(`${base}/groups/:groupId/discount`, async (req, res) => {
    res.json({ data: wire(await discounts.setGroupDiscount(withKey(), operator(req), idParam(req), idParam(req, 'groupId'), req.body)) });
  });
  router.delete(`${base}/groups/:groupId/discount`, async (req, res) => {
    await discounts.removeGroupDiscount(app(), operator(req), idParam(req), idParam(req, 'groupId'));
    res.status(204).end();
  });
  router.post(`${base}/groups/:groupId/discount/codes`, async (req, res) => {
    res.status(202).json({ data: await discounts.issueGroupCodes(app(), operator(req), idParam(req), idParam(req, 'groupId')) });
  });
  router.put(`${base}/processor-api-keys/:processor`, async (req, res) => {
    res.json({ data: await discounts.saveProcessorApiKey(app(), operator(req), idParam(req), String(req.params.processor), req.body) });
  });
}

/** Seconds a browser or CDN may keep a lookup: a discount changed shows within this. */
export const DISCOUNT_LOOKUP_MAX_AGE = 300;

/**
 * GET /api/v1/discount?program_id=&code=: the code and words of the discount a visitor of this
 * referral link code is offered, or null. Public and cacheable by anyone: it says nothing the
 * link itself does not (no partner's name or id), so any origin may read it.
 */
export function discountLookupRoute(deps: AppDeps): Router {
  const router = Router();
  router.get('/api/v1/discount', async (req, res) => {
    res.setHeader('Access-Control-Allow-Origin', '*');
    const found = await discounts.discountForVisitor(deps, req.query.program_id, req.query.code);
    res.setHeader('Cache-Control', `public, max-age=${DISCOUNT_LOOKUP_MAX_AGE}`);
    res.json({ data: found });
  });
  return router;
}
