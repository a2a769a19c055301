// Admin API (bearer AFFIX_ADMIN_TOKEN): manage accounts, programs, partners, links and keys
// until the dashboard exists. Platform envelope throughout.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { type NextFunction, type Request, type Response, Router } from 'express';
import { z } from 'zod';
import { AffixError, errors } from '../../core/errors.js';
import { parseNewProgram, parseProgramUpdate } from '../../core/programs.js';
import { sha256 } from '../../core/secrets.js';
import * as admin from '../../db/admin.js';
import { setAccountPassword } from '../../db/cli.js';
import { isUniqueViolation } from '../../db/pool.js';
import { hashPassword } from '../../passwords.js';
import { INBOX_STATUSES, type InboxStatus, getEvent, listEvents, requeueEvent } from '../../db/webhook-events.js';
import { readBearer } from '../auth.js';
import type { HttpDeps } from '../deps.js';

const parse = <S extends z.ZodType>(schema: S, body: unknown): z.output<S> => {
  const result = schema.safeParse(body ?? {});
  if (!result.success) {
    const issue = result.error.issues[0]!;
    throw errors.badRequest(issue.path.length ? `${issue.path.join('.')}: ${issue.message}` : issue.message);
  }
  return result.data;
};

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

const accountSchema = z.object({
  email: z.string().email(),
  name: z.string().max(255).nullish(),
  password: z.string().min(8, 'password must be at least 8 characters').max(200).optional(),
});
const accountUpdateSchema = z.object({
  suspended: z.boolean().optional(),
  password: z.string().min(8, 'password must be at least 8 characters').max(200).optional(),
});
const partnerSchema = z.object({ name: z.string().trim().min(1).max(255), email: z.string().email().nullish() });
const linkSchema = z.object({
  partner_id: z.number().int().positive(),
  short_link: z
    .string()
    .regex(/^[A-Za-z0-9_-]{3,64}$/, 'short_link must be 3 to 64 letters, digits, - or _')
    .nullish(),
});
const enabledSchema = z.object({ enabled: z.boolean() });
const rotationSchema = z.object({ rotate_by: z.iso.datetime({ offset: true }) });
const stripeSchema = z.object({
  webhook_secret: z.string().regex(/^whsec_\S+$/, 'webhook_secret must be a Stripe signing secret (whsec_...)').nullish(),
  account_id: z.string().regex(/^acct_\w+$/, 'account_id must be a Stripe account id (acct_...)').nullish(),
  livemode_only_commissions: z.boolean().optional(),
});
const eventsQuery = z.object({
  status: z.enum(INBOX_STATUSES as [InboxStatus, ...InboxStatus[]]).optional(),
  program_id: z.coerce.number().int().positive().optional(),
  stripe_id: z.string().regex(/^[a-z]{2,6}_[A-Za-z0-9_]{1,200}$/, 'expected a Stripe id such as evt_…, cs_…, in_…, ch_…, pi_…, du_…').optional(),
  limit: z.coerce.number().int().min(1).max(500).default(50),
});

/** An inbox event by its number, or by its Stripe event id (evt_…). */
const eventRef = (req: Request): number | string => {
  const value = String(req.params.id);
  if (/^evt_[A-Za-z0-9_]{1,200}$/.test(value)) return value;
  return idParam(req);
};

export function adminRoutes(deps: HttpDeps): Router {
  const router = Router();
  const { pool } = deps;
  router.use('/api/v1/admin', adminAuth(deps.config.adminToken));

  const programOr404 = async (programId: number) => {
    const program = await admin.getProgram(pool, programId);
    if (!program) throw errors.notFound('Program not found');
    return program;
  };

  router.post('/api/v1/admin/accounts', async (req, res) => {
    const body = parse(accountSchema, req.body);
    const account = await admin.createAccount(pool, body.email, body.name ?? null);
    if (!account) throw new AffixError(409, 'An account with this email already exists');
    if (body.password) await setAccountPassword(pool, account.id, await hashPassword(body.password));
    res.status(201).json({ data: account });
  });

  router.patch('/api/v1/admin/accounts/:id', async (req, res) => {
    const body = parse(accountUpdateSchema, req.body);
    const accountId = idParam(req);
    if (body.password && !(await setAccountPassword(pool, accountId, await hashPassword(body.password)))) {
      throw errors.notFound('Account not found');
    }
    const account = body.suspended === undefined ? await admin.getAccount(pool, accountId) : await admin.setAccountSuspended(pool, accountId, body.suspended);
    if (!account) throw errors.notFound('Account not found');
    res.json({ data: account });
  });

  router.post('/api/v1/admin/programs', async (req, res) => {
    const raw = bodyObject(req);
    const accountId = raw.account_id;
    if (typeof accountId !== 'number' || !(await admin.accountExists(pool, accountId))) {
      throw errors.badRequest('account_id must be the id of an existing account');
    }
    const program = await admin.insertProgram(pool, accountId, parseNewProgram(raw));
    res.status(201).json({ data: program });
  });

  router.get('/api/v1/admin/programs/:id', async (req, res) => {
    const program = await programOr404(idParam(req));
    res.json({ data: { ...program, api_keys: await admin.listKeys(pool, program.id) } });
  });

  router.patch('/api/v1/admin/programs/:id', async (req, res) => {
    const program = await admin.updateProgram(pool, idParam(req), parseProgramUpdate(bodyObject(req)));
    if (!program) throw errors.notFound('Program not found');
    res.json({ data: program });
  });

  router.post('/api/v1/admin/programs/:id/partners', async (req, res) => {
    const program = await programOr404(idParam(req));
    const body = parse(partnerSchema, req.body);
    res.status(201).json({ data: await admin.insertPartner(pool, program.id, body.name, body.email ?? null) });
  });

  router.post('/api/v1/admin/programs/:id/links', async (req, res) => {
    const program = await programOr404(idParam(req));
    const body = parse(linkSchema, req.body);
    if (!(await admin.partnerInProgram(pool, body.partner_id, program.id))) {
      throw errors.badRequest('partner_id must be a partner of this program');
    }
    const shortLink = body.short_link ?? randomBytes(5).toString('hex');
    const link = await admin.insertLink(pool, program.id, body.partner_id, shortLink);
    if (!link) throw new AffixError(409, `short_link ${shortLink} is already taken`);
    res.status(201).json({ data: { ...link, url: `https://${program.domain}/?aff=${encodeURIComponent(link.short_link)}` } });
  });

  router.patch('/api/v1/admin/links/:id', async (req, res) => {
    const body = parse(enabledSchema, req.body);
    const link = await admin.setLinkEnabled(pool, idParam(req), body.enabled);
    if (!link) throw errors.notFound('Referral link not found');
    res.json({ data: link });
  });

  router.post('/api/v1/admin/programs/:id/keys', async (req, res) => {
    const program = await programOr404(idParam(req));
    const issued = await admin.issueApiKey(pool, program.id);
    res.status(201).json({ data: { ...issued.key, api_key: issued.apiKey } });
  });

  router.get('/api/v1/admin/programs/:id/keys', async (req, res) => {
    const program = await programOr404(idParam(req));
    res.json({ data: await admin.listKeys(pool, program.id) });
  });

  router.post('/api/v1/admin/keys/:id/regenerate', async (req, res) => {
    const issued = await admin.regenerateApiKey(pool, idParam(req));
    if (!issued) throw errors.notFound('API key not found or already revoked');
    res.status(201).json({ data: { ...issued.key, api_key: issued.apiKey } });
  });

  router.post('/api/v1/admin/keys/:id/rotation', async (req, res) => {
    const body = parse(rotationSchema, req.body);
    const key = await admin.markKeyForRotation(pool, idParam(req), new Date(body.rotate_by));
    if (!key) throw errors.notFound('API key not found or already revoked');
    res.json({ data: key });
  });

  router.patch('/api/v1/admin/programs/:id/stripe', async (req, res) => {
    const program = await programOr404(idParam(req));
    const body = parse(stripeSchema, req.body);
    if (body.webhook_secret && !deps.secretBox) {
      throw errors.badRequest('Set AFFIX_SECRET_KEY to store Stripe signing secrets');
    }
    try {
      const settings = await admin.updateProgramStripe(pool, program.id, {
        ...(body.webhook_secret !== undefined ? { sealedSecret: body.webhook_secret ? deps.secretBox!.seal(body.webhook_secret) : null } : {}),
        ...(body.account_id !== undefined ? { accountId: body.account_id } : {}),
        livemodeOnlyCommissions: body.livemode_only_commissions,
      });
      res.json({ data: { ...settings, webhook_url: `${deps.config.publicUrl}/api/v1/webhooks/stripe/${program.id}` } });
    } catch (error) {
      if (isUniqueViolation(error)) throw new AffixError(409, 'That Stripe account is connected to another program');
      throw error;
    }
  });

  router.get('/api/v1/admin/webhook-events', async (req, res) => {
    const query = parse(eventsQuery, req.query);
    res.json({ data: await listEvents(pool, { status: query.status, programId: query.program_id, stripeId: query.stripe_id, limit: query.limit }) });
  });

  router.get('/api/v1/admin/webhook-events/:id', async (req, res) => {
    const event = await getEvent(pool, eventRef(req));
    if (!event) throw errors.notFound('Webhook event not found');
    res.json({ data: event });
  });

  router.post('/api/v1/admin/webhook-events/:id/replay', async (req, res) => {
    if (!deps.queue) throw new AffixError(503, 'The job queue is not running on this instance');
    const ref = eventRef(req);
    const id = typeof ref === 'number' ? ref : (await getEvent(pool, ref))?.id;
    const event = id === undefined ? null : await requeueEvent(pool, deps.queue, id);
    if (!event) throw errors.notFound('Webhook event not found');
    res.json({ data: event });
  });

  return router;
}
