// One-click unsubscribe (RFC 8058): mail clients POST `List-Unsubscribe=One-Click` to the URL of
// the List-Unsubscribe header, from their own servers (no cookie, no origin to check: the signed,
// expiring token is the proof). A person opening the link sees a button that posts the same.
import express, { type Request, type Response, Router } from 'express';
import { unsubscribeWithToken } from '../../app/outbound/mail.js';
import { AffixError } from '../../core/errors.js';
import { type AppDeps, clock } from '../deps.js';
import { page } from '../kit/html.js';
import { unsubscribeQuestion, unsubscribeRefused, unsubscribed } from './pages.js';
import { pageHeaders } from '../kit/security.js';

export function mailRoutes(deps: AppDeps): Router {
  const router = Router();
  const token = (req: Request) => String(req.query.token ?? '').slice(0, 2000);
  router.use('/mail', pageHeaders());
  router.get('/mail/unsubscribe', (req, res) => {
    res.type('html').send(page('Stop these mails', unsubscribeQuestion(token(req))));
  });
  router.post('/mail/unsubscribe', express.urlencoded({ extended: false, limit: '2kb' }), async (req: Request, res: Response) => {
    try {
      const done = await unsubscribeWithToken({ pool: deps.pool, secretKey: deps.config.secretKey, now: () => clock(deps) }, token(req));
      res.type('html').send(page('Unsubscribed', unsubscribed(done.words)));
    } catch (error) {
      if (!(error instanceof AffixError) || error.status !== 400) throw error;
      res.status(400).type('html').send(page('Unsubscribe', unsubscribeRefused(error.message)));
    }
  });
  return router;
}
