// The brand's details on its partners' payout statements (legal name, address, tax id): a small
// page under Payouts. Empty, a statement names the program alone.
import type { Request, RequestHandler, Response, Router } from 'express';
import type { ManagementDeps } from '../../app/programs/management.js';
import type { Scope } from '../../app/accounts/scope.js';
import { statementDetailsOf, updateStatementDetails } from '../../app/money/payout-statements.js';
import { fieldErrors } from '../kit/forms.js';
import { type Html, field, html, raw } from '../kit/html.js';
import { sectionUrl, withProgramNav } from './program-page.js';

export interface StatementDetailsKit {
  form: RequestHandler[];
  app: () => ManagementDeps;
  scope: (res: Response) => Scope;
  ownProgram: (req: Request, res: Response) => Promise<number>;
  send: (res: Response, status: number, title: string, body: Html, flash?: string | null) => void;
}

function statementDetailsForm(action: string, values: { legal_name: string; address: string; tax_id: string; number_prefix: string }, fe: Record<string, string>, payoutsUrl: string): Html {
  return html`<section id="statement-details"><h2>Statement details</h2>
<p>What your partners' payout statements say about you (each partner prints or saves a statement per payout from their portal; you open yours from Payouts). Empty, a statement names the program alone. With your VAT or tax id, a statement is a self-billing invoice. Statements are numbered when paid, one series without gaps for all your programs.</p>
<form method="post" action="${action}" novalidate>
${field('legal_name', 'Legal name (your company as it invoices)', values.legal_name, fe, 'autocomplete="organization"')}
<label for="address">Address (one per line)</label>
<textarea id="address" name="address" rows="4" ${fe.address ? raw('aria-invalid="true" aria-describedby="address-error"') : ''}>${values.address}</textarea>
${fe.address ? html`<p class="error" id="address-error">${fe.address}</p>` : ''}
${field('tax_id', 'VAT or tax id (with it, a statement is a self-billing invoice)', values.tax_id, fe)}
${field('number_prefix', 'Number prefix, like ACME-2026- (one series for all your programs; applies to numbers issued from now on)', values.number_prefix, fe, 'autocomplete="off"')}
<div><button type="submit">Save statement details</button></div></form>
<p><a href="${payoutsUrl}#payout-settings">Back to Payouts</a></p></section>`;
}

export function registerStatementDetailsRoutes(router: Router, kit: StatementDetailsKit): void {
  const { form, app, scope, ownProgram, send } = kit;
  const path = '/dashboard/programs/:id/payouts/statement-details';
  const show = async (req: Request, res: Response, status: number, fe: Record<string, string>, typed?: Record<string, string>, flash: string | null = null) => {
    const id = await ownProgram(req, res);
    const current = await statementDetailsOf(app(), scope(res), id);
    const values = typed ? { legal_name: typed.legal_name ?? '', address: typed.address ?? '', tax_id: typed.tax_id ?? '', number_prefix: typed.number_prefix ?? '' }
      : { legal_name: current.legalName, address: current.address, tax_id: current.taxId, number_prefix: current.numberPrefix };
    const url = `${sectionUrl(id, 'payouts')}/statement-details`;
    send(res, status, 'Statement details', withProgramNav(id, 'payouts', statementDetailsForm(url, values, fe, sectionUrl(id, 'payouts')), fe), flash);
  };
  router.get(path, (req, res) => show(req, res, 200, {}, undefined, req.query.done === 'saved' ? 'Statement details saved: statements numbered from now on show them (an issued statement keeps its own).' : null));
  router.post(path, ...form, async (req, res) => {
    const id = await ownProgram(req, res);
    const body = req.body as Record<string, unknown>;
    const typed = { legal_name: String(body.legal_name ?? ''), address: String(body.address ?? ''), tax_id: String(body.tax_id ?? ''), number_prefix: String(body.number_prefix ?? '') };
    try {
      await updateStatementDetails(app(), scope(res), id, typed);
    } catch (error) {
      return show(req, res, 400, fieldErrors(error, { form: 'legal_name', body: 'legal_name' }), typed);
    }
    res.redirect(303, `${sectionUrl(id, 'payouts')}/statement-details?done=saved`);
  });
}
