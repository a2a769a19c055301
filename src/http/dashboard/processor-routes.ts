// A program's payment processors: Paddle's and Lemon Squeezy's webhook settings, Stripe's signing
// secret, and a Stripe Connect account bound through Stripe's OAuth.
import type { Router } from 'express';
import { errors } from '../../core/errors.js';
import { setStripeSettings } from '../../app/programs/management.js';
import { isConnectedProcessor, setProcessorSettings } from '../../app/inbox/processor-settings.js';
import { connectCallbackPath, finishStripeConnect, startStripeConnect } from '../../app/inbox/stripe-connect.js';
import { fieldErrors } from '../kit/forms.js';
import type { ProgramKit } from './route-kit.js';

export function registerProcessorRoutes(router: Router, kit: ProgramKit): void {
  const { form, app, scope, ownProgram, programPage, back } = kit;
  const { config } = kit.deps;

  router.post('/dashboard/programs/:id/processors/:processor', ...form, async (req, res) => {
    const id = await ownProgram(req, res);
    const processor = String(req.params.processor);
    if (!isConnectedProcessor(processor)) throw errors.notFound('There is no such page');
    const body = req.body as Record<string, string>;
    const secret = String(body.webhook_secret ?? '').trim();
    try {
      await setProcessorSettings({ ...app(), publicUrl: config.publicUrl }, scope(res), id, processor, { ...(secret ? { webhook_secret: secret } : {}), ...(processor === 'paddle' ? { sandbox: body.sandbox === 'true' } : {}) });
    } catch (error) {
      return programPage(req, res, processor, { status: 400, fieldErrors: fieldErrors(error) });
    }
    back(res, id, processor, processor);
  });

  // The signing secret of the brand's own endpoint proves ownership by itself. A Connect account
  // is bound only through Stripe's OAuth (below), never by typing its id.
  router.post('/dashboard/programs/:id/stripe', ...form, async (req, res) => {
    const id = await ownProgram(req, res);
    const secret = String((req.body as Record<string, string>).webhook_secret ?? '').trim();
    try {
      if (!secret) throw errors.invalid('Paste the signing secret', { webhook_secret: 'Paste the signing secret (whsec_…) of this endpoint in Stripe: nothing was saved.' });
      await setStripeSettings(app(), scope(res), id, { webhook_secret: secret });
    } catch (error) {
      return programPage(req, res, 'stripe', { status: 400, fieldErrors: fieldErrors(error) });
    }
    back(res, id, 'stripe', 'stripe');
  });

  const connectDeps = () => ({ pool: kit.deps.pool, settings: config.stripeConnect, publicUrl: config.publicUrl, now: kit.now });
  router.get('/dashboard/programs/:id/stripe/connect', async (req, res) => {
    const id = await ownProgram(req, res);
    res.redirect(303, await startStripeConnect(connectDeps(), id, res.locals.account.id));
  });
  router.get(connectCallbackPath, async (req, res) => {
    const query = (name: string) => (typeof req.query[name] === 'string' ? (req.query[name] as string) : '');
    const connected = await finishStripeConnect(
      connectDeps(),
      { state: query('state'), code: query('code'), error: query('error') || undefined, errorDescription: query('error_description') || undefined },
      scope(res),
    );
    back(res, connected.programId, 'connected', 'stripe');
  });
}
