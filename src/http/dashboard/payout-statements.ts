// The brand's copy of a payout's statement (the self-billing invoice it issues for its partner),
// opened from the Payouts page: the page to print or save as PDF, and the CSV. Another program's
// payout answers the same 404 as none.
import type { Request, Response, Router } from 'express';
import type { ManagementDeps } from '../../app/programs/management.js';
import type { Scope } from '../../app/accounts/scope.js';
import { programPayout, programStatementCsv } from '../../app/money/payout-statements.js';
import type { Html } from '../kit/html.js';
import { brandStatementPage, statementHeading } from '../portal/payout-pages.js';
import { sectionUrl } from './program-page.js';

export interface PayoutStatementKit {
  app: () => ManagementDeps;
  scope: (res: Response) => Scope;
  ownProgram: (req: Request, res: Response) => Promise<number>;
  send: (res: Response, status: number, title: string, body: Html, flash?: string | null) => void;
}

export function registerPayoutStatementRoutes(router: Router, kit: PayoutStatementKit): void {
  const { app, scope, ownProgram, send } = kit;
  router.get('/dashboard/programs/:id/payouts/:payoutId/statement', async (req, res) => {
    const id = await ownProgram(req, res);
    const view = await programPayout(app(), scope(res), id, Number(req.params.payoutId));
    send(res, 200, statementHeading(view), brandStatementPage(view, sectionUrl(id, 'payouts')));
  });
  router.get('/dashboard/programs/:id/payouts/:payoutId/statement.csv', async (req, res) => {
    const id = await ownProgram(req, res);
    const csv = await programStatementCsv(app(), scope(res), id, Number(req.params.payoutId));
    res.type('text/csv').attachment(`affix-payout-${Number(req.params.payoutId)}-statement.csv`).send(csv);
  });
}
