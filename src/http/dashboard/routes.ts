// The brand dashboard: server-rendered pages (keyboard-friendly native forms and links, no client
// build). Every change goes through the same core rules and SQL as the admin API. This composer
// builds what every route file shares (route-kit.ts) and registers them in order: the single
// sign-on callback before the same-origin check, sign-in and joining before the session check.
import cookieParser from 'cookie-parser';
import { type Request, type Response, Router } from 'express';
import { UNAVAILABLE_RETRY_SECONDS, errors } from '../../core/errors.js';
import { allows, DASHBOARD_ROUTES } from '../../core/permissions.js';
import { type AccountScope, programInScope } from '../../app/accounts/scope.js';
import { type ManagementDeps } from '../../app/programs/management.js';
import { formBody } from '../input-guard.js';
import { failureInWords, logFailure, toAffixError } from '../respond.js';
import { type AppDeps, clock } from '../deps.js';
import { securedRouter } from '../guard.js';
import { markOwnWrite } from '../own-write.js';
import { errorPage } from '../kit/components.js';
import { type Html, page } from '../kit/html.js';
import { sectionUrl } from './program-page.js';
import { csrfGuard, pageHeaders, sameOriginPosts } from '../kit/security.js';
import { closeUnreadLargeUploads } from './uploads.js';
import { SESSION_COOKIE, requireAccount } from './session.js';
import type { DashboardKit, ProgramKit } from './route-kit.js';
import { registerSignInRoutes, registerSingleSignOnCallback } from './sign-in-routes.js';
import { registerJoinRoutes, registerTeamRoutes } from './team-routes.js';
import { registerAccountRoutes, registerPasswordResetRoutes } from './account-routes.js';
import { programPageSender, registerProgramRoutes } from './program-routes.js';
import { registerLinkRoutes } from './link-routes.js';
import { registerKeyRoutes } from './key-routes.js';
import { registerProcessorRoutes } from './processor-routes.js';
import { registerSetupTestRoutes } from './setup-test-routes.js';
import type { IntakeDeps } from '../../app/inbox/webhook-intake.js';
import { registerMoneyRoutes } from './money-routes.js';
import { registerProviderPayoutRoutes } from './provider-payout-routes.js';
import { registerDiscountRoutes } from './discounts-routes.js';
import { registerRewardsRoutes } from './rewards-routes.js';
import { registerPartnerRoutes } from './partner-routes.js';
import { registerStatementDetailsRoutes } from './statement-details.js';
import { registerPayoutStatementRoutes } from './payout-statements.js';
import { registerTaxPageRoutes } from './tax-page.js';
import { registerBrandRoutes } from './brand-routes.js';
import { registerDomainsRoutes } from './domains-page.js';
import { registerMailPreviewsRoutes } from './mail-previews-page.js';
import { registerBountyPageRoutes } from './bounties-page.js';

const PAGE_TITLES: Record<number, string> = { 500: 'Something went wrong', 400: 'Bad request', 403: 'Not allowed', 404: 'Not found', 409: 'Conflict', 413: 'Too large', 429: 'Too many requests', 502: 'Stripe refused', 503: 'Unavailable' };

/** `intake`: the process's one webhook intake (http/app.ts), for the set-up page's test event. */
export function dashboardRoutes(deps: AppDeps, intake?: IntakeDeps): Router {
  // Every route passes the permission map (src/core/permissions.ts): one guard, reads included.
  const unguarded = Router();
  const router = securedRouter(unguarded, DASHBOARD_ROUTES, (res) => res.locals.account?.role ?? null);
  const { pool, config } = deps;
  const secureCookies = config.publicUrl.startsWith('https://');
  // Cookies first: every page, the single sign-on callback included, may carry a CSRF token.
  router.use('/dashboard', cookieParser(), closeUnreadLargeUploads);
  const csrf = csrfGuard({ secret: config.secretKey, sessionCookie: SESSION_COOKIE, secure: secureCookies });
  // A form post that passed its checks: the caller's next pages read the primary for a while (own-write.ts).
  const wrote = markOwnWrite('/dashboard', secureCookies, () => clock(deps));
  const send = (res: Response, status: number, title: string, body: Html, flash?: string | null) =>
    res.status(status).type('html').send(csrf.protect(res.req, res, page(title, body, { email: res.locals.account?.email, flash, team: res.locals.account ? allows(res.locals.account.role, 'team_sign_ins') : false })));
  const app = (): ManagementDeps => ({ pool, secretBox: deps.secretBox ?? null, now: () => clock(deps), reads: deps.reads });
  const scope = (res: Response): AccountScope => ({
    kind: 'account',
    accountId: res.locals.account.id,
    role: res.locals.account.role,
    actor: { type: 'member', id: String(res.locals.account.memberId ?? `account:${res.locals.account.id}`), label: res.locals.account.email, ip: res.req.ip ?? null },
  });
  const base: DashboardKit = {
    deps,
    secureCookies,
    form: [...formBody('50kb'), csrf.check, wrote],
    listForm: (...lists: string[]) => [...formBody('50kb', lists), csrf.check, wrote],
    send,
    app,
    scope,
    now: () => clock(deps),
  };
  const accountKit = { ...base, pool, publicUrl: config.publicUrl };

  registerSingleSignOnCallback(router, base);
  router.use('/dashboard', pageHeaders(), sameOriginPosts(config.publicUrl));
  registerSignInRoutes(router, base);
  registerJoinRoutes(router, base);
  registerPasswordResetRoutes(router, accountKit);

  router.use('/dashboard', requireAccount(pool));
  const kit: ProgramKit = {
    ...base,
    ownProgram: async (req, res) => (await programInScope(app(), scope(res), Number(req.params.id))).id,
    programPage: programPageSender(base),
    back: (res, id, done, section) => res.redirect(303, `${sectionUrl(id, section)}?done=${done}`),
  };
  registerProgramRoutes(router, kit);
  registerTeamRoutes(router, kit);
  registerAccountRoutes(router, accountKit);
  registerLinkRoutes(router, kit);
  registerKeyRoutes(router, kit);
  registerProcessorRoutes(router, kit);
  registerSetupTestRoutes(router, kit, intake);
  const pageKit = { ...kit, hooks: () => ({ ...app(), outbound: config.outbound }), stripeSecretKey: config.stripeSecretKey, portal: () => ({ ...app(), mailer: deps.mailer, publicUrl: config.publicUrl }) };
  registerMoneyRoutes(router, pageKit);
  registerProviderPayoutRoutes(router, pageKit);
  registerDiscountRoutes(router, pageKit);
  registerRewardsRoutes(router, kit);
  registerPartnerRoutes(router, { ...pageKit, csrfBeforeBody: csrf.checkBeforeBody, publicUrl: config.publicUrl });
  registerStatementDetailsRoutes(router, pageKit);
  registerPayoutStatementRoutes(router, pageKit);
  registerTaxPageRoutes(router, pageKit);
  registerBrandRoutes(router, { ...pageKit, csrfBeforeBody: csrf.checkBeforeBody, publicUrl: config.publicUrl });
  registerDomainsRoutes(router, { ...pageKit, publicUrl: config.publicUrl, hosts: deps.hosts });
  registerMailPreviewsRoutes(router, { ...pageKit, publicUrl: config.publicUrl });
  registerBountyPageRoutes(router, pageKit);

  // A dashboard address that does not exist: a page that says so (a browser asked), not JSON.
  router.use('/dashboard', () => {
    throw errors.notFound('There is no such page');
  });

  // People get pages, not JSON: refusals and our own failures (logged, with the reference to quote) as HTML.
  router.use('/dashboard', (thrown: unknown, _req: Request, res: Response, next: (error: unknown) => void) => {
    if (res.headersSent) return next(thrown);
    const error = toAffixError(thrown, res, '50kb');
    logFailure(res, deps.logger, thrown, error);
    if (error.status === 503) res.setHeader('Retry-After', String(UNAVAILABLE_RETRY_SECONDS));
    const words = error.status === 500 ? failureInWords(res) : error.message;
    send(res, error.status, PAGE_TITLES[error.status] ?? 'Not allowed', errorPage(words, { href: '/dashboard', words: 'Back to your programs' }));
  });
  return unguarded;
}
