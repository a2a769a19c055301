// Admin API for partners (docs/partners.md): the list, one partner, edits, actions (each a bulk
// action of one), bulk actions, groups, overrides, applications, import and export. Mounted on
// the admin router, behind its token.
import express, { type Request, type Router } from 'express';
import * as applications from '../../app/partners/applications.js';
import * as brand from '../../app/programs/brand.js';
import { adminDomainRoutes } from './admin-domains.js';
import type { ManagementDeps } from '../../app/programs/management.js';
import { operatorFrom } from '../../app/accounts/scope.js';
import { importPartners } from '../../app/partners/import.js';
import * as partnerBulkActions from '../../app/partners/bulk-actions.js';
import * as partnerList from '../../app/partners/list.js';
import * as partnerEnrollments from '../../app/partners/enrollments.js';
import * as partnerGroups from '../../app/partners/groups.js';
import { commissionBulk } from '../../app/money/commission-lifecycle.js';
import { PARTNER_ACTIONS, type PartnerAction } from '../../core/partners.js';
import type { AppDeps } from '../deps.js';
import { sendCsv } from '../csv-stream.js';
import { wire } from '../wire.js';
import { refuseUnstorableBody } from '../input-guard.js';
import { decodeCsvBytes } from '../../core/csv-encoding.js';
import { requestPartnerBulk, showBulkAction } from '../../app/partners/bulk-action-jobs.js';

type IdParam = (req: Request, name?: string) => number;

/**
 * The bulk route takes up to MAX_BULK_IDS ids (100,000 of 15 digits, quoted, are under 2 MB): it
 * parses its own body, after the admin token is checked; the app's JSON parser passes it by.
 */
export const BULK_BODY_LIMIT = '4mb';
/**
 * The import's JSON form {csv, dry_run} carries a file of up to 20,000,000 characters (its schema):
 * JSON escaping (each quote and line break two characters) and UTF-8 letters of two or three
 * bytes make the body larger than the file, so it too parses its own body.
 */
export const IMPORT_JSON_BODY_LIMIT = '50mb';
export const IMPORT_FILE_BODY_LIMIT = '20mb';
export const OWN_BODY_PATH = /^\/api\/v1\/admin\/programs\/[^/]+\/partners\/(bulk|import)\/?$/i;
const operator = (req: Request) => operatorFrom(req.ip);

/** The verbs of POST /partners/:partnerId/<verb>: each is the bulk action of that name on one partner. */
const VERBS: Record<string, PartnerAction> = { ...Object.fromEntries(PARTNER_ACTIONS.map((a) => [a, a])), move: 'move_group' };

export function adminPartnerRoutes(router: Router, deps: AppDeps, app: () => ManagementDeps, idParam: IdParam): void {
  const base = '/api/v1/admin/programs/:id';
  const withMail = (): partnerBulkActions.PartnerDeps => ({ ...app(), mailLinks: { publicUrl: deps.config.publicUrl } });

  router.get(`${base}/partners`, async (req, res) => {
    res.json({ data: wire(await partnerList.listPartners(app(), operator(req), idParam(req), req.query)) });
  });
  router.post(`${base}/partners`, async (req, res) => {
    res.status(201).json({ data: wire(await partnerEnrollments.addPartner(app(), operator(req), idParam(req), req.body)) });
  });
  router.get(`${base}/partners.csv`, async (req, res) => {
    await sendCsv(res, `partners-${idParam(req)}.csv`, partnerList.exportPartnersCsv(app(), operator(req), idParam(req), req.query));
  });
  // Small selections answer with the report; large ones 202 with the bulk action to poll (docs/partners.md).
  router.post(`${base}/partners/bulk`, express.json({ limit: BULK_BODY_LIMIT, strict: false }), refuseUnstorableBody, async (req, res) => {
    const programId = idParam(req);
    const answer = await requestPartnerBulk(withMail(), operator(req), programId, req.body);
    if ('done' in answer) return void res.json({ data: wire(answer.done) });
    const statusUrl = `/api/v1/admin/programs/${programId}/bulk-actions/${answer.queued.id}`;
    res.status(202).location(statusUrl).json({ data: wire({ ...answer.queued, statusUrl }) });
  });
  router.get(`${base}/bulk-actions/:bulkId`, async (req, res) => {
    res.json({ data: wire(await showBulkAction(app(), operator(req), idParam(req), idParam(req, 'bulkId'))) });
  });
  // The file as the body (text/csv, up to 20 MB, ?dry_run=true; its bytes decoded by their byte
  // order mark, else as UTF-8), or JSON {csv, dry_run, group_mapping, ignore_columns} up to 50 MB (docs/api.md).
  router.post(
    `${base}/partners/import`,
    express.raw({ type: ['text/csv', 'text/plain'], limit: IMPORT_FILE_BODY_LIMIT }),
    express.json({ limit: IMPORT_JSON_BODY_LIMIT, strict: false }),
    refuseUnstorableBody,
    async (req, res) => {
      // With the file as the body, the mapping comes in the query: group_mapping as JSON, ignore_columns comma-separated.
      const q = req.query;
      const body = Buffer.isBuffer(req.body) ? { csv: decodeCsvBytes(req.body), dry_run: q.dry_run, group_mapping: q.group_mapping, ignore_columns: q.ignore_columns } : (req.body ?? {});
      res.json({ data: await importPartners(app(), operator(req), idParam(req), body) });
    },
  );
  router.get(`${base}/partners/:partnerId`, async (req, res) => {
    res.json({ data: wire(await partnerEnrollments.partnerPage(app(), operator(req), idParam(req), idParam(req, 'partnerId'))) });
  });
  router.patch(`${base}/partners/:partnerId`, async (req, res) => {
    res.json({ data: wire(await partnerEnrollments.editPartner(app(), operator(req), idParam(req), idParam(req, 'partnerId'), req.body)) });
  });
  router.put(`${base}/partners/:partnerId/override`, async (req, res) => {
    res.json({ data: wire(await partnerGroups.setOverride(app(), operator(req), idParam(req), idParam(req, 'partnerId'), req.body)) });
  });
  router.delete(`${base}/partners/:partnerId/override`, async (req, res) => {
    res.json({ data: wire(await partnerGroups.removeOverride(app(), operator(req), idParam(req), idParam(req, 'partnerId'))) });
  });
  router.post(`${base}/partners/:partnerId/:verb`, async (req, res, next) => {
    const action = VERBS[String(req.params.verb)];
    if (!action) return next();
    res.json({ data: wire(await partnerBulkActions.partnerActionOfOne(withMail(), operator(req), idParam(req), idParam(req, 'partnerId'), action, req.body)) });
  });

  router.get(`${base}/groups`, async (req, res) => {
    res.json({ data: wire(await partnerGroups.listGroups(app(), operator(req), idParam(req))) });
  });
  router.post(`${base}/groups`, async (req, res) => {
    res.status(201).json({ data: wire(await partnerGroups.createGroup(app(), operator(req), idParam(req), req.body)) });
  });
  router.put(`${base}/groups/:groupId`, async (req, res) => {
    res.json({ data: wire(await partnerGroups.updateGroup(app(), operator(req), idParam(req), idParam(req, 'groupId'), req.body)) });
  });

  router.get(`${base}/applications`, async (req, res) => {
    res.json({ data: wire(await applications.listApplications(app(), operator(req), idParam(req), req.query)) });
  });
  router.get(`${base}/applications.csv`, async (req, res) => {
    await sendCsv(res, `applications-${idParam(req)}.csv`, partnerList.exportApplicationsCsv(app(), operator(req), idParam(req)));
  });
  router.get(`${base}/application-settings`, async (req, res) => {
    res.json({ data: wire(await applications.applicationSettings(app(), operator(req), idParam(req))) });
  });
  router.patch(`${base}/application-settings`, async (req, res) => {
    res.json({ data: wire(await applications.updateApplicationSettings(app(), operator(req), idParam(req), req.body)) });
  });
  // The brand partners see (the logo is uploaded in the dashboard: a file, not JSON).
  router.get(`${base}/brand`, async (req, res) => {
    res.json({ data: await brand.brandView(app(), operator(req), idParam(req)) });
  });
  router.patch(`${base}/brand`, async (req, res) => {
    await brand.updateBrand(app(), operator(req), idParam(req), req.body);
    res.json({ data: await brand.brandView(app(), operator(req), idParam(req)) });
  });
  adminDomainRoutes(router, deps, app, idParam);

  router.post(`${base}/commissions/bulk`, async (req, res) => {
    res.json({ data: wire(await commissionBulk(app(), operator(req), idParam(req), req.body)) });
  });
}
