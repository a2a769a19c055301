// The program's own host names (Settings → Domains): partners.brand.com for the partner portal,
// go.brand.com for partners' short links. What DNS and the reverse proxy need: docs/domains.md.
import type { Request, RequestHandler, Response, Router } from 'express';
import type { ManagementDeps } from '../../app/programs/management.js';
import type { Scope } from '../../app/accounts/scope.js';
import { type BrandHostRouter, programDomainsOf, updateProgramDomains } from '../../app/programs/domains.js';
import { fieldErrors } from '../kit/forms.js';
import { type Html, field, html } from '../kit/html.js';
import { sectionUrl, withProgramNav } from './program-page.js';

export interface DomainsKit {
  form: RequestHandler[];
  app: () => ManagementDeps;
  scope: (res: Response) => Scope;
  ownProgram: (req: Request, res: Response) => Promise<number>;
  send: (res: Response, status: number, title: string, body: Html, flash?: string | null) => void;
  publicUrl: string;
  hosts?: BrandHostRouter;
}

function domainsForm(action: string, values: { portal_host: string; links_host: string }, fe: Record<string, string>, serviceHost: string, settingsUrl: string): Html {
  return html`<section id="domains"><h2>Your own domains</h2>
<p>Serve your partner portal and your partners' links from hosts of your own. First point each host at <code>${serviceHost}</code> with a CNAME record in your DNS; the host then needs a TLS certificate where Affix is served (see the <a href="/docs/domains.md">domains guide</a>). Empty: Affix's own addresses.</p>
<form method="post" action="${action}" novalidate>
${field('portal_host', 'Partner portal host (like partners.example.com)', values.portal_host, fe, 'autocomplete="off" spellcheck="false"')}
${field('links_host', 'Short-link host (like go.example.com)', values.links_host, fe, 'autocomplete="off" spellcheck="false"')}
<div><button type="submit">Save domains</button></div></form>
<p><a href="${settingsUrl}">Back to Settings</a></p></section>`;
}

export function registerDomainsRoutes(router: Router, kit: DomainsKit): void {
  const { form, app, scope, ownProgram, send } = kit;
  const serviceHost = new URL(kit.publicUrl).hostname;
  const path = '/dashboard/programs/:id/settings/domains';
  const show = async (req: Request, res: Response, status: number, fe: Record<string, string>, typed?: Record<string, string>, flash: string | null = null) => {
    const id = await ownProgram(req, res);
    const current = await programDomainsOf(app(), scope(res), id);
    const values = typed ? { portal_host: typed.portal_host ?? '', links_host: typed.links_host ?? '' } : { portal_host: current.portal ?? '', links_host: current.links ?? '' };
    send(res, status, 'Your own domains', withProgramNav(id, 'settings', domainsForm(`${sectionUrl(id, 'settings')}/domains`, values, fe, serviceHost, sectionUrl(id, 'settings')), fe), flash);
  };
  router.get(path, (req, res) => show(req, res, 200, {}, undefined, req.query.done === 'saved' ? 'Domains saved: partners see them within a minute.' : null));
  router.post(path, ...form, async (req, res) => {
    const id = await ownProgram(req, res);
    const body = req.body as Record<string, unknown>;
    const typed = { portal_host: String(body.portal_host ?? ''), links_host: String(body.links_host ?? '') };
    try {
      await updateProgramDomains({ ...app(), hosts: kit.hosts }, scope(res), id, typed, serviceHost);
    } catch (error) {
      return show(req, res, 400, fieldErrors(error, { form: 'portal_host', body: 'portal_host' }), typed);
    }
    res.redirect(303, `${sectionUrl(id, 'settings')}/domains?done=saved`);
  });
}
