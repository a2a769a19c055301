// The partner portal (/portal): sign-in by emailed one-time link, then the partner's own numbers
// across every program that invited them. Sessions are random tokens (digests in PostgreSQL) in
// an HttpOnly cookie scoped to /portal; every form carries a CSRF token; cross-site posts are refused.
import { readSide } from '../../app/reads/read-side.js';
import cookieParser from 'cookie-parser';
import { type NextFunction, type Request, type Response, Router } from 'express';
import {
  type PortalDeps,
  type PortalReadDeps,
  createOwnLink,
  endPartnerSession,
  ownPartner,
  partnerOfSession,
  portalDeepLink,
  portalLink,
  portalOverview,
  portalProgram,
  requestSignInLink,
  setOwnPayoutDetails,
  signInWithLink,
} from '../../app/partners/portal.js';
import { AffixError } from '../../core/errors.js';
import { type AppDeps, clock } from '../deps.js';
import { fieldErrors } from '../kit/forms.js';
import { type Html, type PageBrand, html, page } from '../kit/html.js';
import { programBrand } from '../../app/programs/brand.js';
import type { Brand } from '../../core/brand.js';
import { brandBanner } from './brand-banner.js';
import { mailPreferences, saveMailPreferences } from '../../app/outbound/mail.js';
import { csrfGuard, pageHeaders, sameOriginPosts } from '../kit/security.js';
import { formBody } from '../input-guard.js';
import { failureInWords, logFailure, toAffixError } from '../respond.js';
import { limitSignIn } from '../sign-in-limit.js';
import { countPartnerLinkRequest } from '../../app/accounts/access.js';
import { confirmSignInPage, linkSentPage, overviewPage, portalHeader, programPage, signInPage } from './pages.js';
import { addReferralRoutes } from './referrals-routes.js';
import { registerBountyRoutes } from './bounty-routes.js';
import { registerPayoutRoutes } from './payout-routes.js';
import { registerTaxRoutes } from './tax-routes.js';
import { registerStripeExpressRoutes } from './stripe-express-routes.js';
import { stripeExpressSummary } from './stripe-express-page.js';
import { expressSummaryOf } from '../../app/money/partner-stripe-accounts.js';
import { expressAccountClient } from '../../platform/stripe-accounts.js';
import { brandedQrSvg } from './branded-qr.js';
import { errorPage, mailSettings } from '../kit/components.js';
import { markOwnWrite, showsOwnWrite } from '../own-write.js';
import { hostOwnerOf } from '../brand-host.js';
import { hostOrigin, shownLinkUrl } from '../../core/domains.js';

export const PORTAL_COOKIE = 'affix_portal';
const NEUTRAL: PageBrand = { name: 'Partner portal' };

const DONE: Record<string, string> = { link: 'Link created.', payout: 'Payout details saved.', mail: 'Mail settings saved.' };

export function portalRoutes(deps: AppDeps): Router {
  const router = Router();
  const { pool, config } = deps;
  const secure = config.publicUrl.startsWith('https://');
  const csrf = csrfGuard({ secret: config.secretKey, sessionCookie: PORTAL_COOKIE, secure, cookieName: 'affix_portal_csrf' });
  // A form post that passed its checks: the partner's next pages read the primary for a while (own-write.ts).
  const wrote = markOwnWrite('/portal', secure, () => clock(deps));
  const form = [...formBody('20kb'), csrf.check, wrote];
  const base = () => ({ pool, secretBox: deps.secretBox ?? null, now: () => clock(deps), reads: deps.reads });
  // On a brand's own portal host: only that brand's programs, and mailed links back to that host.
  const app = (req: Request): PortalDeps & PortalReadDeps => {
    const brand = hostOwnerOf(req.res!);
    return { ...base(), publicUrl: brand ? hostOrigin(req.hostname) : config.publicUrl, brandAccountId: brand?.accountId ?? null };
  };
  // Partners' Stripe Express onboarding, on the platform's Stripe account (STRIPE_SECRET_KEY).
  const stripeExpress = config.stripeSecretKey ? expressAccountClient(config.stripeSecretKey) : null;
  const expressDeps = (req: Request) => ({ ...app(req), stripe: stripeExpress, serviceUrl: config.publicUrl });
  /** The partner's numbers: from the replica when there is one, unless the page shows their own write (a form's answer or redirect). */
  const reading = (req: Request) => readSide(app(req), showsOwnWrite(req, clock(deps)));
  router.use('/portal', cookieParser(), pageHeaders(), sameOriginPosts(config.publicUrl));

  // A program's pages carry its brand; the rest (sign-in, the list of a partner's programs across brands) a neutral name.
  const send = (res: Response, status: number, title: string, body: Html, flash: string | null = null, brand: PageBrand = (res.locals.programBrand as PageBrand | undefined) ?? NEUTRAL) => {
    const email = res.locals.partnerEmail as string | undefined;
    const header = email ? portalHeader(email) : html``;
    res.status(status).type('html').send(csrf.protect(res.req, res, page(title, body, { header, flash, brand })));
  };

  router.get('/portal/login', (_req, res) => send(res, 200, 'Partner sign-in', signInPage(null)));
  router.post(
    '/portal/login',
    ...form,
    limitSignIn(pool, (_req, res, message) => send(res, 429, 'Partner sign-in', signInPage(message)), () => clock(deps), countPartnerLinkRequest),
    async (req, res) => {
      const email = String((req.body as Record<string, unknown>).email ?? '').trim();
      try {
        await requestSignInLink(app(req), { email });
      } catch (error) {
        if (!(error instanceof AffixError) || error.status !== 400) throw error;
        return send(res, 400, 'Partner sign-in', signInPage(error.init.fields?.email ?? error.message, email));
      }
      send(res, 200, 'Check your mail', linkSentPage());
    },
  );
  // The mailed link shows a button: mail scanners that open links do not use up the sign-in.
  router.get('/portal/auth', (req, res) => send(res, 200, 'Partner sign-in', confirmSignInPage(String(req.query.token ?? ''))));
  router.post('/portal/auth', ...form, async (req, res) => {
    const session = await signInWithLink(app(req), String((req.body as Record<string, unknown>).token ?? ''));
    if (!session) return send(res, 400, 'Partner sign-in', signInPage('This sign-in link expired or was already used. Ask for a new one.'));
    res.cookie(PORTAL_COOKIE, session.token, { httpOnly: true, sameSite: 'lax', secure, path: '/portal', maxAge: session.ttlMs });
    res.redirect(303, '/portal');
  });

  router.use('/portal', async (req: Request, res: Response, next: NextFunction) => {
    const token = req.cookies?.[PORTAL_COOKIE];
    const email = typeof token === 'string' ? await partnerOfSession(pool, token, clock(deps)) : null;
    if (!email) return void res.redirect(303, '/portal/login');
    // A partner's own numbers and payout details: never kept by a browser or a shared cache.
    res.setHeader('Cache-Control', 'no-store');
    res.locals.partnerEmail = email;
    next();
  });
  // Every page of one of the partner's programs (referrals, payouts, statements) carries that
  // program's brand; an id that is not the partner's stays neutral, and its route answers 404.
  router.use('/portal/programs/:partnerId', async (req: Request, res: Response, next: NextFunction) => {
    const partner = await ownPartner(reading(req), res.locals.partnerEmail, Number(req.params.partnerId)).catch(() => null);
    if (partner) res.locals.programBrand = await programBrand(reading(req).pool, partner.programId);
    next();
  });

  const overview = async (res: Response, status = 200, errs: Record<string, string> = {}, flash: string | null = null) => {
    const mails = await mailPreferences(pool, res.locals.partnerEmail, 'partner');
    const settings = mailSettings('/portal/mail', `Mails to ${res.locals.partnerEmail}`, mails, 'Sign-in links, decisions on your applications and payouts sent always reach you.');
    send(res, status, 'Your partner programs', html`${overviewPage(await portalOverview(reading(res.req), res.locals.partnerEmail), errs)}${settings}`, flash);
  };
  router.get('/portal', (req, res) => overview(res, 200, {}, DONE[String(req.query.done)] ?? null));

  // ---- one program of the partner's: links and their numbers, the link builder, payouts, terms ----
  const BUILDER_FIELDS = ['link_id', 'path', 'sub_id', 'utm_source', 'utm_medium', 'utm_campaign'] as const;
  const programView = async (req: Request, res: Response, status = 200, errs: Record<string, string> = {}, flash: string | null = null, typed?: Record<string, string>) => {
    const partnerId = Number(req.params.partnerId);
    const data = await portalProgram(reading(req), res.locals.partnerEmail, partnerId);
    // Read once for every page of the program, before its route (the middleware below the session check).
    const brand = res.locals.programBrand as Brand;
    const qr = new Map(await Promise.all(data.links.map(async (l) => [l.linkId, await brandedQrSvg(shownLinkUrl(data.partner, l.shortLink), brand.name)] as const)));
    const query = req.query as Record<string, string | undefined>;
    const builderValues = Object.fromEntries(BUILDER_FIELDS.map((name) => [name, typeof query[name] === 'string' ? query[name]! : '']));
    let built = null;
    let fields = errs;
    // The builder is a GET form: its answer is this page with the link made (or its problems).
    if (query.link_id !== undefined) {
      try {
        const made = await portalDeepLink(app(req), res.locals.partnerEmail, partnerId, builderValues);
        built = { ...made, qr: await brandedQrSvg(made.url, brand.name) };
      } catch (error) {
        fields = { ...fields, ...fieldErrors(error) };
        status = 400;
      }
    }
    const stripeSummary = stripeExpressSummary(await expressSummaryOf({ ...expressDeps(req), pool: reading(req).pool }, data.partner.programId, partnerId), partnerId);
    send(res, status, data.partner.programName, html`${brandBanner(brand)}${programPage({ data, fieldErrors: fields, built, builderValues, qr, typed, stripeSummary })}`, flash, brand);
  };
  router.get('/portal/programs/:partnerId', (req, res) => programView(req, res, 200, {}, DONE[String(req.query.done)] ?? null));
  router.post('/portal/programs/:partnerId/links', ...form, async (req, res) => {
    const partnerId = Number(req.params.partnerId);
    try {
      await createOwnLink(app(req), res.locals.partnerEmail, partnerId, { short_link: (req.body as Record<string, unknown>)[`short_link_${partnerId}`] });
    } catch (error) {
      return programView(req, res, 400, fieldErrors(error, { short_link: `short_link_${partnerId}`, form: `short_link_${partnerId}` }));
    }
    res.redirect(303, `/portal/programs/${partnerId}?done=link#links`);
  });
  router.post('/portal/programs/:partnerId/payout-details', ...form, async (req, res) => {
    const partnerId = Number(req.params.partnerId);
    const body = req.body as Record<string, unknown>;
    try {
      await setOwnPayoutDetails(app(req), res.locals.partnerEmail, partnerId, { payout_method: body.payout_method || undefined, payout_reference: body[`payout_reference_${partnerId}`] });
    } catch (error) {
      const errs = fieldErrors(error, { payout_method: `payout_method_${partnerId}`, payout_reference: `payout_reference_${partnerId}`, form: `payout_reference_${partnerId}` });
      return programView(req, res, 400, errs, null, Object.fromEntries(Object.entries(body).map(([k, v]) => [k, String(v)])));
    }
    res.redirect(303, `/portal/programs/${partnerId}?done=payout#payout-details`);
  });
  router.get('/portal/programs/:partnerId/links/:linkId/qr.svg', async (req, res) => {
    const link = await portalLink(app(req), res.locals.partnerEmail, Number(req.params.partnerId), Number(req.params.linkId));
    res.type('image/svg+xml').attachment(`${link.shortLink}-qr.svg`).send(await brandedQrSvg(link.url, (res.locals.programBrand as Brand).name));
  });
  router.post('/portal/mail', ...formBody('20kb', ['on']), csrf.check, wrote, async (req, res) => {
    await saveMailPreferences(pool, res.locals.partnerEmail, 'partner', ([] as unknown[]).concat((req.body as Record<string, unknown>).on ?? []).map(String));
    res.redirect(303, '/portal?done=mail');
  });
  router.post('/portal/logout', ...form, async (req, res) => {
    await endPartnerSession(pool, String(req.cookies?.[PORTAL_COOKIE] ?? ''));
    res.clearCookie(PORTAL_COOKIE, { path: '/portal' });
    res.redirect(303, '/portal/login');
  });

  addReferralRoutes(router, { reading, send });
  // The invoice and tax details forms: their "Share with …" boxes arrive as a list.
  const shareForm = [...formBody('20kb', ['share']), csrf.check, wrote];
  registerPayoutRoutes(router, { form, send, app: base, reading, shareForm, writing: app });
  registerTaxRoutes(router, { form: shareForm, send, app });
  registerBountyRoutes(router, { form, send, app: base, reading });
  registerStripeExpressRoutes(router, { form, send, app: expressDeps });

  // A portal address that does not exist: a page, not JSON.
  router.use('/portal', () => {
    throw new AffixError(404, 'There is no such page');
  });

  router.use('/portal', (thrown: unknown, _req: Request, res: Response, next: (error: unknown) => void) => {
    if (res.headersSent) return next(thrown);
    const error = toAffixError(thrown, res, '20kb');
    logFailure(res, deps.logger, thrown, error);
    const title = error.status === 404 ? 'Not found' : error.status >= 500 ? 'Something went wrong' : 'Not allowed';
    send(res, error.status, title, errorPage(error.status === 500 ? failureInWords(res) : error.message, { href: '/portal', words: 'Back' }));
  });
  return router;
}
