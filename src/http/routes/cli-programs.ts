// CLI endpoints behind a login token (init, programs) or a program key (status, test-event).
import { type NextFunction, type Request, type Response, Router } from 'express';
import { CLI_MESSAGES, invalidEventType } from '../../core/cli-login.js';
import { AffixError, MESSAGES, errors } from '../../core/errors.js';
import { describeCommission } from '../../core/programs.js';
import { createProgram, issueKey } from '../../app/programs/management.js';
import type { SyntheticEventType } from '../../core/synthetic-events.js';
import { cliProgramStatus, cliPrograms, loginTokenVerdict, runTestEvents } from '../../app/programs/cli-programs.js';
import { programKeyAuth, readBearer } from '../auth.js';
import { failsWith, state } from '../context.js';
import { type HttpDeps, clock } from '../deps.js';
import { sendJson } from '../respond.js';
import { cliFailure } from './cli-auth.js';
import { CLI_ROUTES, type Role, allows, permissionOf } from '../../core/permissions.js';

type TokenFlavour = 'init' | 'programs';
const tokenMessages = {
  init: { missing: CLI_MESSAGES.initAuthRequired, invalid: CLI_MESSAGES.initInvalidToken, noUser: CLI_MESSAGES.initUserNotFound },
  programs: { missing: CLI_MESSAGES.programsAuthRequired, invalid: CLI_MESSAGES.programsInvalidToken, noUser: CLI_MESSAGES.programsUserNotFound },
};

function loginTokenAuth(deps: HttpDeps, flavour: TokenFlavour) {
  return async (req: Request, res: Response, next: NextFunction) => {
    const messages = tokenMessages[flavour];
    const bearer = readBearer(req);
    if (bearer.kind === 'absent' || bearer.kind === 'malformed') throw errors.unauthorized(messages.missing);
    const verdict = await loginTokenVerdict(deps.pool, bearer.kind === 'token' ? bearer.token : null);
    if (verdict.kind === 'invalid') throw errors.unauthorized(messages.invalid);
    if (verdict.kind === 'no_user') throw errors.unauthorized(messages.noUser);
    if (verdict.kind === 'suspended') throw errors.accountBlocked();
    // The token acts as its member: the one permission map decides (src/core/permissions.ts).
    const permission = permissionOf(CLI_ROUTES, req.method, req.route?.path ?? req.path);
    if (!permission || !allows(verdict.role, permission)) throw errors.forbidden(`Your role (${verdict.role}) does not allow this`);
    res.locals.accountId = verdict.accountId;
    res.locals.role = verdict.role;
    res.locals.cliActor = { type: 'cli_token', id: verdict.memberId === null ? `account:${verdict.accountId}` : String(verdict.memberId), label: verdict.email, ip: req.ip ?? null };
    next();
  };
}

/** Spec §5 rule 2: a program key acts on its own program; naming another one is a 403. */
function assertKeysProgram(requested: unknown, programId: number): void {
  if (requested !== undefined && requested !== null && String(requested) !== String(programId)) throw errors.forbidden(MESSAGES.programMismatch);
}


export function cliProgramRoutes(deps: HttpDeps): Router {
  const router = Router();
  const { pool, config } = deps;
  const cli = () => ({ pool, store: deps.store, now: () => clock(deps) });

  router.post('/api/v1/cli/init', failsWith(cliFailure('Failed to create program')), loginTokenAuth(deps, 'init'), async (req, res) => {
    const body = req.body as Record<string, unknown>;
    const accountId = res.locals.accountId as number;
    if (body.advertiser_id !== undefined && body.advertiser_id !== null && String(body.advertiser_id) !== String(accountId)) {
      throw errors.forbidden(CLI_MESSAGES.advertiserMismatch);
    }
    // The same use cases as the dashboard and the admin API: one rule for a new program.
    const management = { pool, secretBox: deps.secretBox ?? null, now: () => clock(deps) };
    const scope = { kind: 'account' as const, accountId, role: res.locals.role as Role, actor: res.locals.cliActor };
    const program = await createProgram(management, accountId, body, scope);
    const { apiKey } = await issueKey(management, scope, program.id);
    state(res).log.info({ programId: program.id, accountId }, 'program created from the CLI');
    res.status(201).json({
      data: {
        program_id: program.id,
        api_key: apiKey,
        advertiser_id: accountId,
        name: program.name,
        domain: program.domain,
        commission: describeCommission(program.commission_type, program.commission_rate, program.duration_months),
        commission_type: program.commission_type,
        commission_rate: program.commission_rate,
        cookie_window_days: program.attribution_window_days,
        duration_months: program.duration_months,
        allowed_origins: program.allowed_origins,
        api_base_url: config.publicUrl,
      },
    });
  });

  router.get('/api/v1/cli/programs', failsWith(cliFailure('Failed to list programs')), loginTokenAuth(deps, 'programs'), async (_req, res) => {
    const programs = await cliPrograms(pool, res.locals.accountId as number);
    res.json({
      data: programs.map((p) => ({
        id: p.id,
        name: p.name,
        domain: p.domain,
        status: 'active',
        commission: describeCommission(p.commission_type, p.commission_rate, p.duration_months),
        commission_type: p.commission_type,
        commission_rate: Number(p.commission_rate),
        partners: p.partners,
        created_at: p.created_at,
      })),
    });
  });

  router.get('/api/v1/cli/status', failsWith(cliFailure('Failed to get status')), programKeyAuth(deps.store, 'cli', config.docsUrl), async (req, res) => {
    const programId = state(res).apiKey!.programId;
    assertKeysProgram(req.query.program_id, programId);
    const { facts, counts } = await cliProgramStatus(cli(), programId);
    sendJson(
      res,
      200,
      {
        data: {
          program_id: programId,
          name: facts?.name,
          domain: facts?.domain,
          dns_verified: false,
          stripe_connected: facts?.stripe_connected ?? false,
          stripe_charges_enabled: facts?.stripe_charges_enabled ?? false,
          recent_events: { clicks_24h: counts.clicks24h, leads_24h: counts.leads24h, sales_24h: counts.sales24h },
          active_partners: facts?.active_partners ?? 0,
          pending_commissions: facts?.pending_commissions ?? 0,
          // Browser clicks are refused from any other origin: the first thing to check.
          allowed_origins: facts?.allowed_origins ?? [],
        },
      },
      config.docsUrl,
    );
  });

  router.post(
    '/api/v1/cli/test-event',
    (req, res, next) => {
      const chain = (req.body as Record<string, unknown>)?.type === 'chain';
      return failsWith(cliFailure(chain ? 'Failed to run synthetic chain' : 'Failed to process test event'))(req, res, next);
    },
    programKeyAuth(deps.store, 'cli', config.docsUrl),
    async (req, res) => {
      const body = req.body as Record<string, unknown>;
      const programId = state(res).apiKey!.programId;
      assertKeysProgram(body.program_id, programId);
      const chain = body.type === 'chain';
      if (!chain && !['click', 'lead', 'sale'].includes(String(body.event_type))) throw errors.badRequest(invalidEventType(body.event_type));
      const result = await runTestEvents(cli(), programId, chain ? 'sale' : (body.event_type as SyntheticEventType), chain);
      const shortLink = result.shortLink;
      const body200 = chain
        ? { type: 'chain', short_code: shortLink, customer_key: result.customerKey, verdict: result.verdict, attributed: result.attributed }
        : { received: true, event_id: result.eventIds[body.event_type as SyntheticEventType], attributed: result.attributed, message: `Test ${String(body.event_type)} recorded (test mode, no commission).` };
      sendJson(res, 200, { data: body200 }, config.docsUrl);
    },
  );

  router.post('/api/v1/cli/stripe-connect', (_req, _res) => {
    throw new AffixError(410, CLI_MESSAGES.stripeConnectRetired);
  });
  return router;
}
