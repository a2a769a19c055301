// Admin API for reward rule sets (docs/rewards.md): read them, write a draft, backtest it, publish it.
// Mounted on the admin router, behind its token. The answers are snake_case already; a rule set
// is answered as it is written (docs/rewards.md), the same names in and out.
import type { Request, Router } from 'express';
import type { ManagementDeps } from '../../app/programs/management.js';
import { operatorFrom } from '../../app/accounts/scope.js';
import * as rewardRules from '../../app/money/reward-rules.js';
import { backtest, backtestPeriod } from '../../app/money/backtest.js';

type IdParam = (req: Request, name?: string) => number;
const operator = (req: Request) => operatorFrom(req.ip);

export function adminRewardRuleRoutes(router: Router, app: () => ManagementDeps, idParam: IdParam): void {
  const base = '/api/v1/admin/programs/:id/reward-rules';
  router.get(base, async (req, res) => {
    res.json({ data: await rewardRules.listRuleSets(app(), operator(req), idParam(req)) });
  });
  router.put(`${base}/draft`, async (req, res) => {
    res.json({ data: await rewardRules.putDraft(app(), operator(req), idParam(req), req.body) });
  });
  router.post(`${base}/publish`, async (req, res) => {
    res.status(201).json({ data: await rewardRules.publishDraft(app(), operator(req), idParam(req), req.body) });
  });
  // A read: nothing is written (docs/rewards.md, Backtest).
  router.post(`${base}/backtest`, async (req, res) => {
    const deps = app();
    res.json({ data: await backtest(deps, operator(req), idParam(req), backtestPeriod(deps, req.body)) });
  });
}
