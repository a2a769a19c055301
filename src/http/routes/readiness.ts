import { Router } from 'express';
import { errors } from '../../core/errors.js';
import { computeReadiness } from '../../core/readiness.js';
import { programKeyAuth } from '../auth.js';
import { failsWith, state } from '../context.js';
import { type HttpDeps, clock } from '../deps.js';
import { sendJson } from '../respond.js';

export function readinessRoute(deps: HttpDeps): Router {
  const router = Router();
  router.get(
    '/api/v1/programs/me/readiness',
    failsWith(errors.readinessFailed),
    programKeyAuth(deps.store, 'readiness', deps.config.docsUrl),
    async (_req, res) => {
      const programId = state(res).apiKey!.programId;
      const facts = await deps.store.readinessFacts(programId, clock(deps));
      sendJson(res, 200, { ...computeReadiness(programId, facts) }, deps.config.docsUrl);
    },
  );
  return router;
}
