// The portal's Stripe Express onboarding: the page, "Connect with Stripe" (a form post: it makes
// an account), and the two addresses Stripe sends the partner back to (refresh and return).
import type { Request, RequestHandler, Response, Router } from 'express';
import { type ExpressDeps, continueExpressOnboarding, expressAccountView, expressPaths, expressReturn, startExpressOnboarding } from '../../app/money/partner-stripe-accounts.js';
import { fieldErrors } from '../kit/forms.js';
import type { Html } from '../kit/html.js';
import { stripeExpressPage } from './stripe-express-page.js';

export interface StripeExpressKit {
  form: RequestHandler[];
  send: (res: Response, status: number, title: string, body: Html, flash?: string | null) => void;
  /** The primary always: the page shows what the partner's own click or Stripe's answer just changed. */
  app: (req: Request) => ExpressDeps;
}

const TITLE = 'Get paid with Stripe';

export function registerStripeExpressRoutes(router: Router, kit: StripeExpressKit): void {
  const { form, send, app } = kit;
  const page = async (req: Request, res: Response, status = 200, errs: Record<string, string> = {}, typedCountry?: string) => {
    const view = await expressAccountView(app(req), res.locals.partnerEmail, Number(req.params.partnerId));
    const flash = req.query.done === 'stripe' ? 'Back from Stripe: this is where your account stands.' : null;
    send(res, status, TITLE, stripeExpressPage(view, errs, typedCountry), flash);
  };
  router.get('/portal/programs/:partnerId/stripe', (req, res) => page(req, res));
  router.post('/portal/programs/:partnerId/stripe/connect', ...form, async (req, res) => {
    const country = (req.body as Record<string, unknown>).country;
    let url: string;
    try {
      url = await startExpressOnboarding(app(req), res.locals.partnerEmail, Number(req.params.partnerId), { country });
    } catch (error) {
      // A refusal beside the country; Stripe out of reach is the error page's (502).
      return page(req, res, 400, fieldErrors(error, { form: 'country' }), typeof country === 'string' ? country : undefined);
    }
    // Stripe's hosted onboarding (a one-time link: never logged, never stored).
    res.redirect(303, url);
  });
  router.get('/portal/programs/:partnerId/stripe/refresh', async (req, res) => {
    const partnerId = Number(req.params.partnerId);
    const url = await continueExpressOnboarding(app(req), res.locals.partnerEmail, partnerId);
    res.redirect(303, url ?? expressPaths(partnerId).page);
  });
  router.get('/portal/programs/:partnerId/stripe/return', async (req, res) => {
    const partnerId = Number(req.params.partnerId);
    await expressReturn(app(req), res.locals.partnerEmail, partnerId);
    res.redirect(303, `${expressPaths(partnerId).page}?done=stripe`);
  });
}
