// Admin API for partners' tax details (docs/payouts.md, "Tax details"): the threshold settings,
// the partners a run would hold back, their reminder, and the year-end export (audited).
import type { Request, Router } from 'express';
import type { ManagementDeps } from '../../app/programs/management.js';
import { operatorFrom } from '../../app/accounts/scope.js';
import * as taxDetails from '../../app/money/tax-details.js';
import type { AppDeps } from '../deps.js';
import { sendCsv } from '../csv-stream.js';
import { wire } from '../wire.js';

type IdParam = (req: Request, name?: string) => number;
const operator = (req: Request) => operatorFrom(req.ip);

export function adminTaxRoutes(router: Router, deps: AppDeps, app: () => ManagementDeps, idParam: IdParam): void {
  const base = '/api/v1/admin/programs/:id';
  router.get(`${base}/tax-settings`, async (req, res) => {
    res.json({ data: await taxDetails.taxSettingsOf(app(), operator(req), idParam(req)) });
  });
  router.patch(`${base}/tax-settings`, async (req, res) => {
    res.json({ data: await taxDetails.updateTaxSettings(app(), operator(req), idParam(req), req.body) });
  });
  router.get(`${base}/tax-details/missing`, async (req, res) => {
    res.json({ data: wire(await taxDetails.partnersNeedingTaxDetails(app(), operator(req), idParam(req))) });
  });
  router.post(`${base}/tax-details/remind`, async (req, res) => {
    res.json({ data: wire(await taxDetails.remindTaxDetails({ ...app(), mailLinks: { publicUrl: deps.config.publicUrl } }, operator(req), idParam(req), req.body)) });
  });
  router.get(`${base}/tax-export`, async (req, res) => {
    const { year, csv } = await taxDetails.yearEndExport(app(), operator(req), idParam(req), req.query);
    // It holds TINs: never kept by a cache on the way.
    res.set('Cache-Control', 'no-store');
    await sendCsv(res, `affix-tax-${year}.csv`, (async function* () { yield csv; })());
  });
}
