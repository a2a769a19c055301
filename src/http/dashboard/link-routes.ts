// A program's referral links made and switched on or off from the dashboard's Links page.
import type { Router } from 'express';
import { createLink, setLinkEnabled } from '../../app/programs/management.js';
import { fieldErrors } from '../kit/forms.js';
import type { ProgramKit } from './route-kit.js';

export function registerLinkRoutes(router: Router, kit: ProgramKit): void {
  const { form, app, scope, ownProgram, programPage, back } = kit;
  router.post('/dashboard/programs/:id/links', ...form, async (req, res) => {
    const id = await ownProgram(req, res);
    try {
      await createLink(app(), scope(res), id, req.body);
    } catch (error) {
      const fields = fieldErrors(error, { partner_id: 'link_partner' });
      return programPage(req, res, 'links', { status: (error as { status: number }).status, fieldErrors: fields });
    }
    back(res, id, 'link', 'links');
  });

  router.post('/dashboard/programs/:id/links/:linkId/toggle', ...form, async (req, res) => {
    const id = await ownProgram(req, res);
    await setLinkEnabled(app(), scope(res), Number(req.params.linkId), (req.body as Record<string, string>).enabled === 'true', id);
    back(res, id, 'toggled', 'links');
  });
}
