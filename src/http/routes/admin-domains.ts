// Admin API for a program's own hosts (docs/domains.md): the same as the dashboard's Settings →
// Domains (src/app/programs/domains.ts: its checks, "taken", its audit entry), as JSON.
import type { Request, Router } from 'express';
import type { ManagementDeps } from '../../app/programs/management.js';
import { operatorFrom } from '../../app/accounts/scope.js';
import { domainsView, patchProgramDomains, programDomainsOf } from '../../app/programs/domains.js';
import type { AppDeps } from '../deps.js';

const operator = (req: Request) => operatorFrom(req.ip);

export function adminDomainRoutes(router: Router, deps: AppDeps, app: () => ManagementDeps, idParam: (req: Request) => number): void {
  const path = '/api/v1/admin/programs/:id/domains';
  // The service's own host is never a brand's (as in the dashboard).
  const serviceHost = new URL(deps.config.publicUrl).hostname;
  router.get(path, async (req, res) => {
    res.json({ data: domainsView(await programDomainsOf(app(), operator(req), idParam(req))) });
  });
  router.patch(path, async (req, res) => {
    res.json({ data: domainsView(await patchProgramDomains({ ...app(), hosts: deps.hosts }, operator(req), idParam(req), req.body, serviceHost)) });
  });
}
