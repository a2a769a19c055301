// A program's logo at /brand-logos/<program>/<sha256> (issue 44, item 1): public (the apply page
// and the portal show it), served with the type read from its bytes when it was stored, never
// sniffed again, never run as a document (a sandbox and no sources), kept a year (the address
// changes with the logo).
import { Router } from 'express';
import { logoAt } from '../app/programs/brand.js';
import { errors } from '../core/errors.js';
import type { AppDeps } from './deps.js';

export function brandLogoRoutes(deps: AppDeps): Router {
  const router = Router();
  router.get('/brand-logos/:programId/:sha256', async (req, res) => {
    const logo = await logoAt(deps.pool, Number(req.params.programId), String(req.params.sha256));
    if (!logo) throw errors.notFound('There is no such logo');
    res.setHeader('Content-Type', logo.type);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Content-Security-Policy', "default-src 'none'; sandbox");
    res.setHeader('Cache-Control', 'public, max-age=31536000, immutable');
    res.setHeader('Cross-Origin-Resource-Policy', 'cross-origin');
    res.end(logo.bytes);
  });
  return router;
}
