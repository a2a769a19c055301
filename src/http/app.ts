// The express application: request context, JSON parsing, routes, one error handler.
import type { RequestListener } from 'node:http';
import { fileURLToPath } from 'node:url';
import express, { type NextFunction, type Request, type Response } from 'express';
import { openApiDocument } from './openapi.js';
import { errors } from '../core/errors.js';
import { trackerScript, trackerScriptGzip } from '../platform/tracker-bundle.js';
import { type AppDeps, type HttpDeps, clock } from './deps.js';
import { databaseReady } from '../app/accounts/access.js';
import { replicaReady } from '../app/reads/read-side.js';
import { assertJsonObject, refuseUnstorableBody } from './input-guard.js';
import { answerFailure, beginRequest } from './request-life.js';
import { limitInBytes } from './direct/body.js';
import { type Trust, isOrdinaryClick, serveClick } from './direct/click.js';
import { serveWebhook, webhookRoute } from './direct/webhooks.js';
import { rateLimits } from './rate-limit.js';
import { brandHostCheck, brandHosts, requestHostname, serviceHosts } from './brand-host.js';
import { type BrandHostRouter, brandHostRouter } from '../app/programs/domains.js';
import { adminRoutes } from './routes/admin.js';
import { OWN_BODY_PATH } from './routes/admin-partners.js';
import { cliAuthRoutes } from './routes/cli-auth.js';
import { cliProgramRoutes } from './routes/cli-programs.js';
import { mcpRoutes } from './routes/mcp.js';
import { createMailer } from '../platform/mailer.js';
import { portalRoutes } from './portal/routes.js';
import { applyRoutes } from './apply/routes.js';
import { brandLogoRoutes } from './brand-logo.js';
import { mailRoutes } from './mail/routes.js';
import { dashboardRoutes } from './dashboard/routes.js';
import { discountLookupRoute } from './routes/discount-routes.js';
import { readinessRoute } from './routes/readiness.js';
import { type ReceiveWebhook, intakeDeps, processorWebhookRoutes, webhookIntake } from './routes/processor-webhooks.js';
import { TRACK_CLICK_PATH, trackClickHandlers, trackClickPreflight } from './routes/track-click.js';
import { trackLeadRoute } from './routes/track-lead.js';
import { trackRefundRoute } from './routes/track-refund.js';
import { trackSaleRoute } from './routes/track-sale.js';

const READY_TIMEOUT_MS = 1_000;

const DOCS_DIR = fileURLToPath(new URL('../../docs/', import.meta.url));

function requestContext(deps: HttpDeps) {
  return (req: Request, res: Response, next: NextFunction) => {
    beginRequest(deps, req, req.path, res);
    next();
  };
}

/** The Express app and its webhook intake, which the direct path shares (one inbox writer and secret cache for both ways in). */
export interface BuiltApp {
  app: express.Express;
  receiveWebhook: ReceiveWebhook;
  /** The brand hosts' lookup the app routes by. */
  hosts?: BrandHostRouter;
}

/**
 * The server's request listener: the ordinary click and webhook delivery served directly
 * (direct/), every other request by the Express app, whose own routes take their other shapes.
 */
export function requestListener(deps: HttpDeps, { app, receiveWebhook: receive, hosts }: BuiltApp = createApp(deps)): RequestListener {
  const clickLimit = limitInBytes(deps.config.bodyLimit);
  const webhookLimit = limitInBytes(deps.config.webhookBodyLimit);
  const trust = app.get('trust proxy fn') as Trust;
  const own = serviceHosts(deps.config.publicUrl);
  // Tracking and webhooks stay on the service's own host: another host's go through the app's host routing (brand-host.ts).
  const ownHost = (req: Parameters<RequestListener>[0]) => !hosts?.mayHaveHosts() || own.has(requestHostname(req.headers));
  return (req, res) => {
    if (isOrdinaryClick(req, clickLimit) && ownHost(req)) return void serveClick(deps, trust, req, res);
    const webhook = webhookRoute(req, webhookLimit);
    if (webhook && ownHost(req)) return void serveWebhook(deps, receive, webhook, req, res);
    app(req, res);
  };
}

export function createApp(given: HttpDeps): BuiltApp {
  const deps: AppDeps = { ...given, mailer: given.mailer ?? createMailer(given.config.mail, given.logger), hosts: brandHostRouter(given.pool) };
  const app = express();
  app.disable('x-powered-by');
  // No ETag: the API's answers are not cached, and hashing every body cost more than the JSON itself.
  app.set('etag', false);
  app.set('trust proxy', deps.config.trustProxy);
  app.use(requestContext(deps));
  // A brand's own hosts serve their portal or links only; unknown hosts nothing (brand-host.ts).
  app.use(brandHosts(deps.pool, deps.hosts!, deps.config.publicUrl));
  const limits = rateLimits(deps.pool, () => clock(deps));
  const json = express.json({ limit: deps.config.bodyLimit, strict: false });
  const objectBody = (req: Request, _res: Response, next: NextFunction) => {
    if (req.body === undefined) req.body = {};
    assertJsonObject(req.body);
    next();
  };
  // The busiest route (every visit through every partner's link) first, with the same counting
  // and parsing as every route below: Express then tries one layer for it rather than twenty.
  app.post(TRACK_CLICK_PATH, limits, json, refuseUnstorableBody, objectBody, ...trackClickHandlers(deps));
  // One intake (inbox writer, secret cache) for Express's webhook routes, the direct path and the dashboard's test event.
  const intake = intakeDeps(deps);
  const receiveWebhook = webhookIntake(deps, intake);
  // Before the JSON parser: signatures are verified on the raw body.
  app.use(processorWebhookRoutes(deps, receiveWebhook));
  // GET /cli/status answers 200, 401 and 429 without X-Request-ID (spec §7); its 500 has one.
  app.get('/api/v1/cli/status', (_req: Request, res: Response, next: NextFunction) => {
    res.removeHeader('X-Request-ID');
    next();
  });
  app.use(limits);
  // The partners' bulk route parses its own, larger body behind the admin token (admin-partners.ts).
  app.use((req: Request, res: Response, next: NextFunction) => (OWN_BODY_PATH.test(req.path) ? next() : json(req, res, next)), refuseUnstorableBody);
  app.use(objectBody);

  // Liveness: the process answers (no database: a restart would not bring it back).
  app.get('/healthz', (_req, res) => {
    res.json({ ok: true });
  });
  // Readiness: the database answers within a second; never hangs.
  app.get('/readyz', async (_req, res) => {
    const [ready, replica] = await Promise.all([databaseReady(deps.pool, READY_TIMEOUT_MS), replicaReady(deps.reads, READY_TIMEOUT_MS)]);
    // The replica is reported, never a reason to take the instance out: writes and sign-ins never need it.
    res.status(ready ? 200 : 503).json({ ok: ready, database: ready ? 'ok' : 'unavailable', ...(replica ? { read_replica: replica } : {}) });
  });
  app.get('/brand-hosts/check', brandHostCheck(deps.hosts!));
  app.use('/docs', express.static(DOCS_DIR, { index: false }));
  // The API reference, made once from the routes' zod schemas.
  const reference = openApiDocument(deps.config.publicUrl);
  app.get('/api/v1/openapi.json', (_req, res) => {
    res.json(reference);
  });
  // The peer service's script path serves the same script: brands moving over change only the host.
  app.get(['/js/affix-tracker.js', '/js/affitor-tracker.js'], async (req, res) => {
    res.type('application/javascript');
    // Loaded by any site that runs a program: public, cacheable for a short while.
    res.setHeader('Cache-Control', 'public, max-age=300');
    res.setHeader('Cross-Origin-Resource-Policy', 'cross-origin');
    res.vary('Accept-Encoding');
    if (req.acceptsEncodings('gzip') === 'gzip') {
      res.setHeader('Content-Encoding', 'gzip');
      return void res.send(await trackerScriptGzip());
    }
    res.send(await trackerScript());
  });

  // A newcomer opening the service's address lands on the dashboard (its sign-in page to a stranger).
  app.get('/', (_req, res) => {
    res.redirect(302, '/dashboard');
  });
  app.use(trackClickPreflight(deps));
  app.use(trackLeadRoute(deps));
  app.use(trackSaleRoute(deps));
  app.use(trackRefundRoute(deps));
  app.use(readinessRoute(deps));
  app.use(discountLookupRoute(deps));
  app.use(adminRoutes(deps));
  app.use(mcpRoutes(deps));
  app.use(dashboardRoutes(deps, intake));
  app.use(portalRoutes(deps));
  app.use(applyRoutes(deps));
  app.use(brandLogoRoutes(deps));
  app.use(mailRoutes(deps));
  app.use(cliAuthRoutes(deps));
  app.use(cliProgramRoutes(deps));

  app.use((req: Request) => {
    throw errors.notFound(`Route not found: ${req.method} ${req.path}`);
  });

  app.use((error: unknown, _req: Request, res: Response, _next: NextFunction) => answerFailure(deps, error, res));
  return { app, receiveWebhook, hosts: deps.hosts };
}
