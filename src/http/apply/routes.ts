// The public application pages (/apply/<program>[/<group>]): the program's terms and rewards and
// the form. No session, no cookie: posts must come from this site; each IP may apply a few
// times a minute; the answer to an application is the same whoever sends it.
import { type Request, type Response, Router } from 'express';
import { APPLICATION_RECEIVED, apply, applicationPage } from '../../app/partners/applications.js';
import { AffixError } from '../../core/errors.js';
import { RATE_LIMITS } from '../../core/limits.js';
import { type AppDeps, clock } from '../deps.js';
import { fieldErrors } from '../kit/forms.js';
import { page } from '../kit/html.js';
import { pageHeaders, sameOriginPosts } from '../kit/security.js';
import { formBody } from '../input-guard.js';
import { byClientIp, rateLimit } from '../rate-limit.js';
import { applicationForm, receivedPage } from './pages.js';
import { programBrand } from '../../app/programs/brand.js';
import { hostOwnerOf } from '../brand-host.js';

export function applyRoutes(deps: AppDeps): Router {
  const router = Router();
  const app = () => {
    const base = { pool: deps.pool, secretBox: deps.secretBox ?? null, now: () => clock(deps) };
    return { ...base, mailLinks: { publicUrl: deps.config.publicUrl } };
  };
  const limit = rateLimit(deps.pool, RATE_LIMITS.apply, byClientIp, () => clock(deps));
  router.use('/apply', pageHeaders(), sameOriginPosts(deps.config.publicUrl));

  const show = async (req: Request, res: Response, status: number, values: Record<string, string> = {}, errors: Record<string, string> = {}, notice: string | null = null) => {
    let found;
    try {
      found = await applicationPage(app(), String(req.params.program), req.params.group ? String(req.params.group) : undefined);
      // On a brand's own host, its program's page only: another's is the same 404 as none.
      if (hostOwnerOf(res) && found.program.programId !== hostOwnerOf(res)!.programId) throw new AffixError(404, 'This application page does not exist');
    } catch (error) {
      // A person followed a link: a page that says so, not JSON.
      if (!(error instanceof AffixError) || error.status !== 404) throw error;
      return res.status(404).type('html').send(page('No application page here', receivedPage(`${error.message}. Check the link the brand gave you.`)));
    }
    const brand = (await programBrand(deps.pool, found.program.programId))!;
    const title = `Become a partner of ${brand.name}`;
    res.status(status).type('html').send(page(title, applicationForm(found, req.originalUrl.split('?')[0]!, values, errors, notice, brand), { brand }));
  };

  const paths = ['/apply/:program', '/apply/:program/:group'];
  for (const path of paths) {
    router.get(path, (req, res) => show(req, res, 200));
    router.post(path, ...formBody('50kb'), async (req, res) => {
      const body = req.body as Record<string, string>;
      try {
        await new Promise<void>((resolve, reject) => limit(req, res, () => resolve()).catch(reject));
      } catch (error) {
        if (error instanceof AffixError && error.status === 429) return show(req, res, 429, body, {}, 'Too many applications from your network in a minute: wait a minute and send again.');
        throw error;
      }
      const host = hostOwnerOf(res);
      if (host) {
        const found = await applicationPage(app(), String(req.params.program), req.params.group ? String(req.params.group) : undefined).catch(() => null);
        if (!found || found.program.programId !== host.programId) return show(req, res, 404);
      }
      try {
        await apply(app(), String(req.params.program), req.params.group ? String(req.params.group) : undefined, body, req.ip ?? null);
      } catch (error) {
        if (error instanceof AffixError && error.status === 404) return show(req, res, 404);
        if (!(error instanceof AffixError) || error.status !== 400) throw error;
        return show(req, res, 400, body, fieldErrors(error), 'Some answers need another look: see the messages beside them.');
      }
      // The answer carries the brand too (the same for every application: nothing about the address).
      const found = await applicationPage(app(), String(req.params.program), req.params.group ? String(req.params.group) : undefined).catch(() => null);
      const brand = found ? await programBrand(deps.pool, found.program.programId) : null;
      res.status(200).type('html').send(page('Application received', receivedPage(APPLICATION_RECEIVED), brand ? { brand } : {}));
    });
  }
  return router;
}
