// Program management use cases, shared by the admin API and the dashboard (and the CLI API for
// programs): the one place their rules live. HTTP translates requests into these calls and
// their errors into answers; the scope says whose programs a caller may touch.
import type { ReadReplica } from '../reads/read-side.js';
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { AffixError, MESSAGES, errors } from '../../core/errors.js';
import { LINK_CODE } from '../../core/link-codes.js';
import { checkUpdateAgainst, parseNewProgram, parseProgramUpdate, referralUrl } from '../../core/programs.js';
import * as admin from '../../db/programs/programs-links-keys.js';
import { partnerInProgram, programOfKey, programOfLink, programOwnedBy } from '../../db/accounts/tenant-scope.js';
import { type Pool, type PoolClient, withTransaction } from '../../db/infra/pool.js';
import { type Actor, type AuditEntry, OPERATOR_ACTOR, changedFields, recordedEntries } from '../../core/audit.js';
import { appendAudit } from '../../db/accounts/audit-log.js';
import { setAccountPassword } from '../../db/accounts/cli-logins.js';
import { type EnqueueInTransaction, type InboxEvent } from '../../db/inbox/inbound-events.js';
import { type EventFilter, getEvent, listEvents, requeueEvent } from '../../db/inbox/event-browsing.js';
import { hashPassword } from '../../platform/passwords.js';
import { OPERATOR, type Scope, keyInScope, programInScope } from '../accounts/scope.js';
import type { SecretBox } from '../../platform/secret-box.js';

/** What an audit entry needs of the caller: whose account, and who (a role is not needed to record). */
export type AuditScope = { kind: 'operator'; actor?: Actor } | { kind: 'account'; accountId: number; actor?: Actor };

export const actorOf = (scope: AuditScope): Actor =>
  scope.actor ?? (scope.kind === 'operator' ? OPERATOR_ACTOR : { type: 'member', id: String(scope.accountId), label: null, ip: null });

/** Appends the change's audit entries in its transaction (src/db/accounts/audit-log.ts); a save that changed nothing records none. */
export const audit = (client: PoolClient | Pool, scope: AuditScope, entries: AuditEntry[]) =>
  appendAudit(client, actorOf(scope), recordedEntries(entries), scope.kind === 'account' ? scope.accountId : null);

export interface ManagementDeps {
  pool: Pool;
  secretBox: SecretBox | null;
  now: () => Date;
  /** A replica for the figures, exports and portal pages that may lag (src/app/reads/read-side.ts); absent, they read `pool`. */
  reads?: ReadReplica;
}

/** Every field's problem at once, keyed by the request's field names (forms put each beside its field). */
export function invalidInput(issues: z.core.$ZodIssue[]): AffixError {
  const fields: Record<string, string> = {};
  for (const issue of issues) {
    const field = issue.path.join('.') || 'body';
    fields[field] ??= issue.message;
  }
  const [field, message] = Object.entries(fields)[0]!;
  return errors.invalid(field === 'body' ? message : `${field}: ${message}`, fields);
}

/** Validates a request body against its schema; refusals name every field (see invalidInput). */
export function parseInput<T>(schema: z.ZodType<T>, input: unknown): T {
  const result = schema.safeParse(input);
  if (!result.success) throw invalidInput(result.error.issues);
  return result.data;
}

// ---- request shapes (the rules themselves): one set for the admin API and the dashboard ----

export const linkInput = z.object({
  partner_id: z.coerce.number({ error: 'Choose a partner of this program.' }).int().positive('Choose a partner of this program.'),
  short_link: z.string().trim().regex(LINK_CODE, MESSAGES.linkCodeFormat).nullish().or(z.literal('').transform(() => null)),
});
export const stripeInput = z.object({
  webhook_secret: z.string().trim().regex(/^whsec_\S+$/, 'The signing secret starts with whsec_.').nullish(),
  account_id: z.string().regex(/^acct_\w+$/, 'A Stripe account id starts with acct_.').nullish(),
  livemode_only_commissions: z.boolean().optional(),
});

// ---- programs ----------------------------------------------------------------------------

export async function createProgram(deps: ManagementDeps, accountId: unknown, input: Record<string, unknown>, scope: Scope = OPERATOR): Promise<admin.ProgramView> {
  if (typeof accountId !== 'number' || !(await admin.accountExists(deps.pool, accountId))) {
    throw errors.invalid('account_id must be the id of an existing account', { account_id: 'Choose an existing account.' });
  }
  const settings = parseNewProgram(input);
  return withTransaction(deps.pool, async (client) => {
    const program = await admin.insertProgram(client, accountId, settings);
    const fields = {
      name: settings.name, domain: settings.domain, commission_type: settings.commissionType, commission_rate: settings.commissionRate,
      duration_months: settings.recurringDurationMonths, attribution_window_days: settings.attributionWindowDays, lead_auth: settings.leadAuth, allowed_origins: settings.allowedOrigins,
      accept_all_currencies: settings.acceptAllCurrencies,
    };
    await audit(client, scope, [{ programId: program.id, action: 'program.created', objectType: 'program', objectId: program.id, changes: changedFields(null, fields) }]);
    return program;
  });
}

export async function updateProgram(deps: ManagementDeps, scope: Scope, programId: number, input: Record<string, unknown>) {
  const current = await programInScope(deps, scope, programId);
  const update = checkUpdateAgainst(current, parseProgramUpdate(input));
  return withTransaction(deps.pool, async (client) => {
    const updated = await admin.updateProgram(client, programId, update);
    if (!updated) throw errors.notFound('Program not found');
    const changes = changedFields(current as unknown as Record<string, unknown>, updated as unknown as Record<string, unknown>);
    await audit(client, scope, [{ programId, action: 'program.updated', objectType: 'program', objectId: programId, changes }]);
    return updated;
  });
}

// ---- partners and links ------------------------------------------------------------------

/** A link code: the brand's, or 10 random hex characters (unguessable, URL-safe). */
/** `partnerLimit`: a link the partner makes in the portal, at most that many per partner (the brand's own are not limited). */
export async function createLink(deps: ManagementDeps, scope: Scope, programId: number, input: unknown, partnerLimit?: number) {
  const program = await programInScope(deps, scope, programId);
  const body = parseInput(linkInput, input);
  if (!(await partnerInProgram(deps.pool, body.partner_id, program.id))) {
    throw errors.invalid('partner_id must be a partner of this program', { partner_id: 'Choose a partner of this program.' });
  }
  const shortLink = body.short_link ?? randomBytes(5).toString('hex');
  const link = await withTransaction(deps.pool, async (client) => {
    const made =
      partnerLimit === undefined
        ? await admin.insertLink(client, program.id, body.partner_id, shortLink)
        : await admin.insertPartnerLink(client, program.id, body.partner_id, shortLink, partnerLimit);
    if (made && made !== 'limit') {
      await audit(client, scope, [{ programId: program.id, action: 'link.created', objectType: 'link', objectId: made.id, changes: changedFields(null, { short_link: made.short_link, partner_id: made.partner_id }) }]);
    }
    return made;
  });
  if (link === 'limit') {
    const message = `You have ${partnerLimit} links, the most this program allows; reuse one or ask the brand for more.`;
    throw new AffixError(409, message, { code: 'link_limit', fields: { short_link: message } });
  }
  if (!link) throw new AffixError(409, `short_link ${shortLink} is already taken`, { fields: { short_link: MESSAGES.linkCodeTaken } });
  return { ...link, url: referralUrl(program.domain, link.short_link) };
}

/** `inProgram`: the page the request came from names the program; a link of another is not found. */
export async function setLinkEnabled(deps: ManagementDeps, scope: Scope, linkId: number, enabled: boolean, inProgram?: number) {
  const programId = Number.isSafeInteger(linkId) ? await programOfLink(deps.pool, linkId) : null;
  if (programId === null || (inProgram !== undefined && programId !== inProgram)) throw errors.notFound('Referral link not found');
  await programInScope(deps, scope, programId).catch(() => {
    throw errors.notFound('Referral link not found');
  });
  return withTransaction(deps.pool, async (client) => {
    const link = (await admin.setLinkEnabled(client, linkId, enabled))!;
    await audit(client, scope, [{ programId, action: enabled ? 'link.enabled' : 'link.disabled', objectType: 'link', objectId: linkId, changes: { enabled: { from: !enabled, to: enabled } } }]);
    return link;
  });
}

// ---- API keys ----------------------------------------------------------------------------


export async function issueKey(deps: ManagementDeps, scope: Scope, programId: number) {
  const program = await programInScope(deps, scope, programId);
  return withTransaction(deps.pool, async (client) => {
    const issued = await admin.issueApiKey(client, program.id);
    await audit(client, scope, [{ programId: program.id, action: 'key.created', objectType: 'api_key', objectId: issued.key.id, changes: { key: { from: null, to: issued.key.masked } } }]);
    return issued;
  });
}

/** Revokes the key at once and issues its replacement. */
export async function regenerateKey(deps: ManagementDeps, scope: Scope, keyId: number) {
  const programId = await keyInScope(deps, scope, keyId);
  return withTransaction(deps.pool, async (client) => {
    const issued = await admin.regenerateApiKey(client, keyId);
    if (!issued) throw new AffixError(409, 'That key was already revoked');
    await audit(client, scope, [
      { programId, action: 'key.revoked', objectType: 'api_key', objectId: keyId },
      { programId, action: 'key.created', objectType: 'api_key', objectId: issued.key.id, changes: { key: { from: null, to: issued.key.masked } } },
    ]);
    return issued;
  });
}

/**
 * The old key keeps working until `rotateBy`, with a warning. Brands plan a rotation (a time in
 * the future); an operator may also give a past time, which retires the key at once.
 */
export async function markKeyForRotation(deps: ManagementDeps, scope: Scope, keyId: number, rotateBy: Date | null) {
  await keyInScope(deps, scope, keyId);
  const planned = rotateBy !== null && !Number.isNaN(rotateBy.getTime()) && rotateBy.getTime() > deps.now().getTime();
  if (!rotateBy || Number.isNaN(rotateBy.getTime()) || (!planned && scope.kind !== 'operator')) {
    throw errors.invalid('rotate_by must be a time in the future', { rotate_by: 'Choose a date in the future.' });
  }
  const programId = await programOfKey(deps.pool, keyId);
  return withTransaction(deps.pool, async (client) => {
    const key = await admin.markKeyForRotation(client, keyId, rotateBy);
    if (!key) throw new AffixError(409, 'That key was already revoked');
    await audit(client, scope, [{ programId, action: 'key.rotation_planned', objectType: 'api_key', objectId: keyId, changes: { rotate_by: { from: null, to: rotateBy.toISOString() } } }]);
    return key;
  });
}

export async function listKeys(deps: ManagementDeps, scope: Scope, programId: number) {
  const program = await programInScope(deps, scope, programId);
  return admin.listKeys(deps.pool, program.id);
}

// ---- Stripe ------------------------------------------------------------------------------

/**
 * The signing secret of the brand's own endpoint proves ownership by itself. A Connect account
 * id is bound by hand only by the operator; brands bind theirs through Stripe's OAuth.
 */
export async function setStripeSettings(deps: ManagementDeps, scope: Scope, programId: number, input: unknown) {
  const program = await programInScope(deps, scope, programId);
  const body = parseInput(stripeInput, input);
  if (body.account_id !== undefined && scope.kind !== 'operator') {
    throw errors.forbidden('Connect accounts are bound through Stripe (Connect with Stripe), not by typing their id');
  }
  if (body.webhook_secret && !deps.secretBox) {
    throw errors.invalid('Set AFFIX_SECRET_KEY to store Stripe signing secrets', { webhook_secret: 'Set AFFIX_SECRET_KEY to store Stripe signing secrets.' });
  }
  return withTransaction(deps.pool, async (client) => {
    const settings = (await admin.updateProgramStripe(client, program.id, {
      ...(body.webhook_secret !== undefined ? { sealedSecret: body.webhook_secret ? deps.secretBox!.seal(body.webhook_secret) : null } : {}),
      ...(body.account_id !== undefined ? { accountId: body.account_id } : {}),
      livemodeOnlyCommissions: body.livemode_only_commissions,
    }))!;
    const changes = changedFields({}, { webhook_secret: body.webhook_secret === undefined ? undefined : body.webhook_secret || null, account_id: body.account_id, livemode_only_commissions: body.livemode_only_commissions });
    await audit(client, scope, [{ programId: program.id, action: 'stripe.updated', objectType: 'program', objectId: program.id, changes }]);
    return settings;
  });
}

// ---- the webhook inbox -------------------------------------------------------------------

/** Requeues a stored event (by number or evt_ id); a brand only its own programs' events. */
export async function replayEvent(
  deps: ManagementDeps & { enqueue: EnqueueInTransaction | null },
  scope: Scope,
  ref: number | string,
  inProgram?: number,
): Promise<InboxEvent> {
  if (!deps.enqueue) throw new AffixError(503, 'The job queue is not running on this instance');
  const event = typeof ref === 'number' && !Number.isSafeInteger(ref) ? null : await getEvent(deps.pool, ref);
  const inPage = event && (inProgram === undefined || event.program_id === inProgram);
  const visible = inPage && (scope.kind === 'operator' || (event.program_id !== null && (await programOwnedBy(deps.pool, event.program_id, scope.accountId))));
  const requeued = visible ? await requeueEvent(deps.pool, deps.enqueue, event.id) : null;
  if (!requeued) throw errors.notFound('Webhook event not found');
  return requeued;
}

export async function listInboxEvents(deps: ManagementDeps, filter: EventFilter) {
  return listEvents(deps.pool, filter);
}

export async function showInboxEvent(deps: ManagementDeps, ref: number | string) {
  const event = await getEvent(deps.pool, ref);
  if (!event) throw errors.notFound('Webhook event not found');
  return event;
}

// ---- accounts (operator only) ------------------------------------------------------------

export async function createAccount(deps: ManagementDeps, input: { email: string; name?: string | null; password?: string }) {
  const account = await admin.createAccount(deps.pool, input.email, input.name ?? null);
  if (!account) throw new AffixError(409, 'An account with this email already exists');
  if (input.password) await setAccountPassword(deps.pool, account.id, await hashPassword(input.password));
  return account;
}

/** Suspends or restores an account, or sets its password (which ends its own sign-in's sessions and CLI tokens; members keep theirs). */
export async function updateAccount(deps: ManagementDeps, accountId: number, input: { suspended?: boolean; password?: string }) {
  if (input.password && !(await setAccountPassword(deps.pool, accountId, await hashPassword(input.password)))) {
    throw errors.notFound('Account not found');
  }
  const account =
    input.suspended === undefined ? await admin.getAccount(deps.pool, accountId) : await admin.setAccountSuspended(deps.pool, accountId, input.suspended);
  if (!account) throw errors.notFound('Account not found');
  return account;
}
