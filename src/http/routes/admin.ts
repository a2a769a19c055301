// Admin API (bearer AFFIX_ADMIN_TOKEN): manage accounts, programs, partners, links and keys
// until the dashboard exists. Platform envelope throughout.
import { timingSafeEqual } from 'node:crypto';
import { type NextFunction, type Request, type Response, Router } from 'express';
import { z } from 'zod';
import { NO_CONTROL_CHARACTERS, hasControlCharacter } from '../../core/names.js';
import { errors } from '../../core/errors.js';
import { sha256 } from '../../core/secrets.js';
import { INBOX_STATUSES, type InboxStatus } from '../../core/inbox.js';
import { PROCESSORS } from '../../core/processor-names.js';
import { isConnectedProcessor, processorSetup, setProcessorSettings } from '../../app/inbox/processor-settings.js';
import { processorEventEnqueuer } from '../../platform/queue.js';
import { adminPartnerRoutes } from './admin-partners.js';
import { securedRouter } from '../guard.js';
import { ADMIN_ROUTES } from '../../core/permissions.js';
import { auditCsv, auditLog } from '../../app/accounts/audit-log.js';
import { sendCsv } from '../csv-stream.js';
import { type ManagementDeps, parseInput, createAccount, listInboxEvents, showInboxEvent, updateAccount, createLink, createProgram, issueKey, listKeys, markKeyForRotation, regenerateKey, replayEvent, setLinkEnabled, setStripeSettings, updateProgram } from '../../app/programs/management.js';
import { OPERATOR, operatorFrom, programInScope } from '../../app/accounts/scope.js';
import { readBearer } from '../auth.js';
import { adminMoneyRoutes } from './admin-money.js';
import { adminTaxRoutes } from './admin-tax.js';
import { adminDiscountRoutes } from './discount-routes.js';
import { adminRewardRuleRoutes } from './admin-reward-rules-routes.js';
import { adminBountyRoutes } from './admin-bounty-routes.js';
import { type AppDeps, clock } from '../deps.js';

const idParam = (req: Request, name = 'id'): number => {
  const value = req.params[name];
  if (typeof value !== 'string' || !/^\d{1,15}$/.test(value)) throw errors.notFound(`${name} must be a numeric id`);
  return Number(value);
};

const bodyObject = (req: Request): Record<string, unknown> => (req.body ?? {}) as Record<string, unknown>;

function adminAuth(adminToken: string | undefined) {
  const expected = adminToken ? sha256(adminToken) : null;
  return (req: Request, _res: Response, next: NextFunction) => {
    if (!expected) throw errors.unauthorized('Admin API is disabled. Set AFFIX_ADMIN_TOKEN to enable it.');
    const bearer = readBearer(req);
    if (bearer.kind !== 'token' || !timingSafeEqual(sha256(bearer.token), expected)) {
      throw errors.unauthorized('Invalid admin token');
    }
    next();
  };
}

export const accountSchema = z.object({
  email: z.string().email(),
  name: z
    .string()
    .max(255)
    .refine((text) => !hasControlCharacter(text), `An account name ${NO_CONTROL_CHARACTERS}.`)
    .nullish(),
  password: z.string().min(8, 'password must be at least 8 characters').max(200).optional(),
});
export const accountUpdateSchema = z.object({
  suspended: z.boolean().optional(),
  password: z.string().min(8, 'password must be at least 8 characters').max(200).optional(),
});
export const enabledSchema = z.object({ enabled: z.boolean() });
export const rotationSchema = z.object({ rotate_by: z.iso.datetime({ offset: true }) });
export const eventsQuery = z.object({
  status: z.enum(INBOX_STATUSES as [InboxStatus, ...InboxStatus[]]).optional(),
  program_id: z.coerce.number().int().positive().optional(),
  processor: z.enum(PROCESSORS).optional(),
  stripe_id: z.string().regex(/^[a-z]{2,6}_[A-Za-z0-9_]{1,200}$/, 'expected a Stripe id such as evt_…, cs_…, in_…, ch_…, pi_…, du_…').optional(),
  limit: z.coerce.number().int().min(1).max(500).default(50),
});

/** An inbox event by its number, or by its Stripe event id (evt_…). */
const eventRef = (req: Request): number | string => {
  const value = String(req.params.id);
  if (/^evt_[A-Za-z0-9_]{1,200}$/.test(value)) return value;
  return idParam(req);
};

const operator = (req: Request) => operatorFrom(req.ip);

export function adminRoutes(deps: AppDeps): Router {
  // Behind the admin token (the operator), and through the one guard: a route missing from the map cannot be registered.
  const unguarded = Router();
  unguarded.use('/api/v1/admin', adminAuth(deps.config.adminToken));
  const router = securedRouter(unguarded, ADMIN_ROUTES, () => 'operator');
  const app = (): ManagementDeps => ({ pool: deps.pool, secretBox: deps.secretBox ?? null, now: () => clock(deps), reads: deps.reads });

  router.post('/api/v1/admin/accounts', async (req, res) => {
    res.status(201).json({ data: await createAccount(app(), parseInput(accountSchema, req.body)) });
  });

  router.patch('/api/v1/admin/accounts/:id', async (req, res) => {
    res.json({ data: await updateAccount(app(), idParam(req), parseInput(accountUpdateSchema, req.body)) });
  });

  router.post('/api/v1/admin/programs', async (req, res) => {
    const raw = bodyObject(req);
    res.status(201).json({ data: await createProgram(app(), raw.account_id, raw, operator(req)) });
  });

  router.get('/api/v1/admin/programs/:id', async (req, res) => {
    const program = await programInScope(app(), operator(req), idParam(req));
    res.json({ data: { ...program, api_keys: await listKeys(app(), operator(req), program.id) } });
  });

  router.patch('/api/v1/admin/programs/:id', async (req, res) => {
    res.json({ data: await updateProgram(app(), operator(req), idParam(req), bodyObject(req)) });
  });

  router.post('/api/v1/admin/programs/:id/links', async (req, res) => {
    res.status(201).json({ data: await createLink(app(), operator(req), idParam(req), req.body) });
  });

  router.patch('/api/v1/admin/links/:id', async (req, res) => {
    const body = parseInput(enabledSchema, req.body);
    res.json({ data: await setLinkEnabled(app(), operator(req), idParam(req), body.enabled) });
  });

  router.post('/api/v1/admin/programs/:id/keys', async (req, res) => {
    const issued = await issueKey(app(), operator(req), idParam(req));
    res.status(201).json({ data: { ...issued.key, api_key: issued.apiKey } });
  });

  router.get('/api/v1/admin/programs/:id/keys', async (req, res) => {
    res.json({ data: await listKeys(app(), operator(req), idParam(req)) });
  });

  router.post('/api/v1/admin/keys/:id/regenerate', async (req, res) => {
    const issued = await regenerateKey(app(), operator(req), idParam(req));
    res.status(201).json({ data: { ...issued.key, api_key: issued.apiKey } });
  });

  router.post('/api/v1/admin/keys/:id/rotation', async (req, res) => {
    const body = parseInput(rotationSchema, req.body);
    res.json({ data: await markKeyForRotation(app(), operator(req), idParam(req), new Date(body.rotate_by)) });
  });

  router.patch('/api/v1/admin/programs/:id/stripe', async (req, res) => {
    const settings = await setStripeSettings(app(), operator(req), idParam(req), req.body);
    res.json({ data: { ...settings, webhook_url: `${deps.config.publicUrl}/api/v1/webhooks/stripe/${settings.program_id}` } });
  });

  const processorParam = (req: Request) => {
    const processor = String(req.params.processor);
    if (!isConnectedProcessor(processor)) throw errors.notFound('Processor not found: paddle or lemonsqueezy (Stripe has its own route)');
    return processor;
  };
  router.get('/api/v1/admin/programs/:id/processors/:processor', async (req, res) => {
    res.json({ data: await processorSetup({ ...app(), publicUrl: deps.config.publicUrl }, operator(req), idParam(req), processorParam(req)) });
  });
  router.patch('/api/v1/admin/programs/:id/processors/:processor', async (req, res) => {
    res.json({ data: await setProcessorSettings({ ...app(), publicUrl: deps.config.publicUrl }, operator(req), idParam(req), processorParam(req), req.body) });
  });

  router.get('/api/v1/admin/webhook-events', async (req, res) => {
    const query = parseInput(eventsQuery, req.query);
    res.json({ data: await listInboxEvents(app(), { status: query.status, programId: query.program_id, stripeId: query.stripe_id, processor: query.processor, limit: query.limit }) });
  });

  router.get('/api/v1/admin/webhook-events/:id', async (req, res) => {
    res.json({ data: await showInboxEvent(app(), eventRef(req)) });
  });

  router.post('/api/v1/admin/webhook-events/:id/replay', async (req, res) => {
    const enqueue = deps.queue ? processorEventEnqueuer(deps.queue) : null;
    res.json({ data: await replayEvent({ ...app(), enqueue }, operator(req), eventRef(req)) });
  });

  router.get('/api/v1/admin/audit-log', async (req, res) => {
    res.json({ data: await auditLog(app(), OPERATOR, req.query) });
  });
  router.get('/api/v1/admin/audit-log.csv', async (req, res) => {
    await sendCsv(res, 'affix-audit.csv', auditCsv(app(), OPERATOR, req.query));
  });

  adminMoneyRoutes(router, deps, app, idParam);
  adminTaxRoutes(router, deps, app, idParam);
  adminPartnerRoutes(router, deps, app, idParam);
  adminDiscountRoutes(router, deps, app, idParam);
  adminRewardRuleRoutes(router, app, idParam);
  adminBountyRoutes(router, app, idParam);
  return unguarded;
}
