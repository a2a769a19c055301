// Admin API for bounties (docs/rewards.md "Bounties"): create, list and archive them; list,
// approve and reject submissions. Mounted on the admin router, behind its token.
import type { Request, Router } from 'express';
import type { ManagementDeps } from '../../app/programs/management.js';
import { operatorFrom } from '../../app/accounts/scope.js';
import * as bounties from '../../app/money/bounties.js';

type IdParam = (req: Request, name?: string) => number;
const operator = (req: Request) => operatorFrom(req.ip);
const STATUSES = new Set(['pending', 'approved', 'rejected']);

export function adminBountyRoutes(router: Router, app: () => ManagementDeps, idParam: IdParam): void {
  const base = '/api/v1/admin/programs/:id/bounties';
  router.get(base, async (req, res) => {
    const list = await bounties.listBounties(app(), operator(req), idParam(req), { archived: req.query.archived === 'true' });
    res.json({ data: list.map(bounties.bountyAnswer) });
  });
  router.post(base, async (req, res) => {
    res.status(201).json({ data: bounties.bountyAnswer(await bounties.createBounty(app(), operator(req), idParam(req), req.body)) });
  });
  router.post(`${base}/:bountyId/archive`, async (req, res) => {
    res.json({ data: bounties.bountyAnswer(await bounties.archiveBounty(app(), operator(req), idParam(req), idParam(req, 'bountyId'))) });
  });
  router.get('/api/v1/admin/programs/:id/bounty-submissions', async (req, res) => {
    const status = typeof req.query.status === 'string' && STATUSES.has(req.query.status) ? (req.query.status as 'pending') : undefined;
    const bountyId = typeof req.query.bounty_id === 'string' && /^\d+$/.test(req.query.bounty_id) ? Number(req.query.bounty_id) : undefined;
    const list = await bounties.listSubmissions(app(), operator(req), idParam(req), { status, bountyId });
    res.json({ data: list.map(bounties.submissionAnswer) });
  });
  router.post('/api/v1/admin/programs/:id/bounty-submissions/:submissionId/approve', async (req, res) => {
    res.json({ data: bounties.submissionAnswer(await bounties.approveSubmission(app(), operator(req), idParam(req), idParam(req, 'submissionId'))) });
  });
  router.post('/api/v1/admin/programs/:id/bounty-submissions/:submissionId/reject', async (req, res) => {
    res.json({ data: bounties.submissionAnswer(await bounties.rejectSubmission(app(), operator(req), idParam(req), idParam(req, 'submissionId'), req.body)) });
  });
}
