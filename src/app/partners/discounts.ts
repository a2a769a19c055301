// Discounts for referred buyers (docs/discounts.md): a group's discount, the processor keys it
// needs, and the job's work for one partner: make the partner's code in the processor when they are
// approved in a group that gives one, deactivate it when they are banned, archived or moved. The
// processors are called only from the job (src/jobs/discount-jobs.ts), never inside a request.
import { z } from 'zod';
import { type DiscountTerms, DISCOUNT_CODE_ATTEMPTS, describeDiscount, discountCodeFor, processorRefusal } from '../../core/discounts.js';
import { toCurrency } from '../../core/currency.js';
import { errors } from '../../core/errors.js';
import { parseMajorUnits } from '../../core/money.js';
import { PROCESSORS, PROCESSOR_NAMES, type ProcessorName } from '../../core/processor-names.js';
import * as discounts from '../../db/partners/discounts.js';
import { withTransaction } from '../../db/infra/pool.js';
import type { SecretBox } from '../../platform/secret-box.js';
import { type DiscountAccount, type DiscountOptions, DiscountRefusal, createPartnerCode, deactivateCode, ensureStripeCoupon } from '../../platform/processor-discounts.js';
import { type ManagementDeps, audit, parseInput } from '../programs/management.js';
import { type Scope, programInScope } from '../accounts/scope.js';

// ---- the group's discount ------------------------------------------------------------------------

/** A form's empty field is a field not given. */
const blank = z.literal('').transform(() => undefined);
const MONTHS = 'Months is a whole number from 1 to 999.';

export const discountInput = z.object({
  processor: z.enum(PROCESSORS, { error: `processor must be one of: ${PROCESSORS.join(', ')}.` }),
  type: z.enum(['percent', 'amount'], { error: 'type must be percent or amount.' }),
  percent: z.string().trim().regex(/^\d{1,3}(\.\d{1,2})?$/, 'A percentage is like 20 or 12.5.').optional().or(blank),
  amount: z.string().trim().max(20).optional().or(blank),
  currency: z.string().trim().max(3).optional().or(blank),
  duration: z.enum(['once', 'repeating', 'forever'], { error: 'duration must be once, repeating or forever.' }),
  duration_months: z.coerce.number({ error: MONTHS }).int(MONTHS).min(1, MONTHS).max(999, MONTHS).optional().or(blank),
});

/** The terms the input gives, or every field's problem. */
function termsFrom(input: unknown): DiscountTerms {
  const body = parseInput(discountInput, input);
  const fields: Record<string, string> = {};
  let amount: DiscountTerms['amount'] | null = null;
  if (body.type === 'percent') {
    const basisPoints = body.percent ? Math.round(Number(body.percent) * 100) : 0;
    if (basisPoints < 1 || basisPoints > 10_000) fields.percent = 'A percentage is more than 0 and at most 100.';
    else amount = { kind: 'percent', basisPoints };
  } else {
    const currency = toCurrency(body.currency);
    if (!currency) fields.currency = 'Give the currency of the amount (ISO 4217, like USD).';
    const cents = currency && body.amount ? parseMajorUnits(body.amount, currency) : null;
    if (currency && (cents === null || cents <= 0)) fields.amount = 'Give the amount off in the currency, like 10 or 9.99.';
    if (currency && cents !== null && cents > 0) amount = { kind: 'amount', cents, currency };
  }
  if (body.duration === 'repeating' && body.duration_months === undefined) fields.duration_months = 'Give the number of months the discount lasts.';
  const [first] = Object.entries(fields);
  if (first) throw errors.invalid(first[1], fields);
  const duration: DiscountTerms['duration'] = body.duration === 'repeating' ? { kind: 'repeating', months: body.duration_months! } : { kind: body.duration };
  const terms = { processor: body.processor, amount: amount!, duration };
  const refusal = processorRefusal(terms);
  if (refusal) throw errors.invalid(refusal, { duration: refusal });
  return terms;
}

/** Refuses now what the job could not do later: no connected Stripe account, no saved key. */
async function requireAccountReady(deps: DiscountAppDeps, programId: number, processor: ProcessorName): Promise<void> {
  const name = PROCESSOR_NAMES[processor];
  if (processor === 'stripe') {
    if (!deps.stripeSecretKey) throw errors.invalid('Stripe discounts need the platform key: set STRIPE_SECRET_KEY.', { processor: 'Stripe discounts need the platform key: set STRIPE_SECRET_KEY.' });
    if (!(await discounts.programStripeAccount(deps.pool, programId))) {
      throw errors.invalid("Connect the program's Stripe account first (Stripe page, Connect with Stripe).", { processor: "Connect the program's Stripe account first (Stripe page, Connect with Stripe)." });
    }
    return;
  }
  const key = await discounts.processorApiKey(deps.pool, programId, processor);
  if (!key) throw errors.invalid(`Save the program's ${name} API key first.`, { processor: `Save the program's ${name} API key first.` });
  if (processor === 'lemonsqueezy' && !key.storeId) throw errors.invalid('Save the Lemon Squeezy store id first.', { processor: 'Save the Lemon Squeezy store id first.' });
}

export type DiscountAppDeps = ManagementDeps & { stripeSecretKey: string | undefined };

const view = (d: discounts.GroupDiscountRow) => ({
  id: d.id,
  group_id: d.groupId,
  group_name: d.groupName,
  processor: d.terms.processor,
  type: d.terms.amount.kind,
  percent: d.terms.amount.kind === 'percent' ? d.terms.amount.basisPoints / 100 : null,
  amount_cents: d.terms.amount.kind === 'amount' ? d.terms.amount.cents : null,
  currency: d.terms.amount.kind === 'amount' ? d.terms.amount.currency : null,
  duration: d.terms.duration.kind,
  duration_months: d.terms.duration.kind === 'repeating' ? d.terms.duration.months : null,
  description: describeDiscount(d.terms),
  live_codes: d.liveCodes,
  last_error: d.lastError,
  last_error_at: d.lastErrorAt,
  created_at: d.createdAt,
});
export type GroupDiscountView = ReturnType<typeof view>;

/**
 * Gives the group's partners' buyers this discount (replacing the one it gave): the codes of the
 * group's approved partners are made, and those of the discount replaced deactivated, by the job.
 */
export async function setGroupDiscount(deps: DiscountAppDeps, scope: Scope, programId: number, groupId: number, input: unknown): Promise<GroupDiscountView> {
  await programInScope(deps, scope, programId);
  const terms = termsFrom(input);
  await requireAccountReady(deps, programId, terms.processor);
  const id = await withTransaction(deps.pool, async (client) => {
    const before = (await discounts.listGroupDiscounts(client, programId)).find((d) => d.groupId === groupId) ?? null;
    const made = Number.isSafeInteger(groupId) ? await discounts.replaceGroupDiscount(client, programId, groupId, terms) : null;
    if (made === null) throw errors.notFound('Group not found');
    if (made === 'raced') throw errors.conflict("The group's discount was changed at the same time: look at it again", 'discount_changed');
    const partners = new Set([...(await discounts.approvedPartnersOfGroup(client, programId, groupId)), ...(before ? await discounts.partnersWithCodesOf(client, programId, before.id) : [])]);
    await discounts.queueDiscountCodeSync(client, programId, [...partners]);
    await audit(client, scope, [{ programId, action: 'group.discount_set', objectType: 'group', objectId: groupId, changes: { discount: { from: before ? describeDiscount(before.terms) : null, to: describeDiscount(terms) } } }]);
    return made;
  });
  return view((await discounts.groupDiscount(deps.pool, programId, id))!);
}

/** The group gives no discount any more: its partners' codes are deactivated by the job. */
export async function removeGroupDiscount(deps: ManagementDeps, scope: Scope, programId: number, groupId: number): Promise<void> {
  await programInScope(deps, scope, programId);
  await withTransaction(deps.pool, async (client) => {
    const before = (await discounts.listGroupDiscounts(client, programId)).find((d) => d.groupId === groupId);
    if (!before || !(await discounts.endGroupDiscount(client, programId, groupId))) throw errors.notFound('This group gives no discount');
    await discounts.queueDiscountCodeSync(client, programId, await discounts.partnersWithCodesOf(client, programId, before.id));
    await audit(client, scope, [{ programId, action: 'group.discount_removed', objectType: 'group', objectId: groupId, changes: { discount: { from: describeDiscount(before.terms), to: null } } }]);
  });
}

/** On demand (a button, the admin API): the codes of the group's approved partners that are missing are made by the job. */
export async function issueGroupCodes(deps: ManagementDeps, scope: Scope, programId: number, groupId: number): Promise<{ partners_queued: number }> {
  await programInScope(deps, scope, programId);
  const current = (await discounts.listGroupDiscounts(deps.pool, programId)).find((d) => d.groupId === groupId);
  if (!current) throw errors.notFound('This group gives no discount');
  const partners = await discounts.approvedPartnersOfGroup(deps.pool, programId, groupId);
  await discounts.queueDiscountCodeSync(deps.pool, programId, partners);
  return { partners_queued: partners.length };
}

export async function listGroupDiscounts(deps: ManagementDeps, scope: Scope, programId: number): Promise<GroupDiscountView[]> {
  await programInScope(deps, scope, programId);
  return (await discounts.listGroupDiscounts(deps.pool, programId)).map(view);
}

/** What the Discounts page shows: the discounts and which processor keys are saved. */
export async function discountsPageData(deps: ManagementDeps, programId: number) {
  const [list, keys, stripeAccount, groups] = await Promise.all([
    discounts.listGroupDiscounts(deps.pool, programId),
    discounts.savedApiKeys(deps.pool, programId),
    discounts.programStripeAccount(deps.pool, programId),
    discounts.programGroups(deps.pool, programId),
  ]);
  return { discounts: list.map(view), apiKeys: keys, stripeConnected: stripeAccount !== null, groups };
}

// ---- the processors' API keys -------------------------------------------------------------------

export const apiKeyInput = z.object({
  api_key: z.string().trim().min(8, 'An API key is at least 8 characters.').max(2000).regex(/^\S+$/, 'An API key has no spaces.').optional().or(blank),
  sandbox: z.union([z.boolean(), z.enum(['true', 'false'])]).optional(),
  store_id: z.string().trim().regex(/^\d{1,20}$/, 'A store id is a number (Settings → Stores in Lemon Squeezy).').optional().or(blank),
});

/** Saves the key Affix calls Paddle or Lemon Squeezy with (sealed); never shown again. */
export async function saveProcessorApiKey(deps: ManagementDeps, scope: Scope, programId: number, processor: string, input: unknown): Promise<{ processor: discounts.KeyedProcessor; sandbox: boolean; store_id: string | null }> {
  await programInScope(deps, scope, programId);
  if (processor !== 'paddle' && processor !== 'lemonsqueezy') throw errors.notFound('Only Paddle and Lemon Squeezy take an API key here (Stripe uses the connected account).');
  const body = parseInput(apiKeyInput, input);
  const sandbox = processor === 'paddle' && (body.sandbox === true || body.sandbox === 'true');
  if (processor === 'lemonsqueezy' && !body.store_id) throw errors.invalid('Give the Lemon Squeezy store id.', { store_id: 'Give the Lemon Squeezy store id.' });
  if (body.api_key && !deps.secretBox) throw errors.badRequest('AFFIX_SECRET_KEY is not set: API keys cannot be stored');
  const saved = await withTransaction(deps.pool, async (client) => {
    const ok = await discounts.saveProcessorApiKey(client, programId, processor, { apiKeySealed: body.api_key ? deps.secretBox!.seal(body.api_key) : null, sandbox, storeId: processor === 'lemonsqueezy' ? body.store_id! : null });
    if (ok) await audit(client, scope, [{ programId, action: 'program.processor_api_key_saved', objectType: 'program', objectId: programId, changes: { processor: { from: null, to: processor } } }]);
    return ok;
  });
  if (!saved) throw errors.invalid('Give the API key.', { api_key: 'Give the API key.' });
  return { processor, sandbox, store_id: processor === 'lemonsqueezy' ? body.store_id! : null };
}

// ---- the job's work for one partner -------------------------------------------------------------

export interface DiscountJobDeps {
  pool: ManagementDeps['pool'];
  secretBox: SecretBox | null;
  stripeSecretKey: string | undefined;
  now: () => Date;
  retry?: DiscountOptions;
}

/** The processor account of the program, or why there is none (recorded on the discount). */
async function accountFor(deps: DiscountJobDeps, programId: number, processor: ProcessorName): Promise<DiscountAccount | string> {
  const name = PROCESSOR_NAMES[processor];
  if (processor === 'stripe') {
    const stripeAccount = await discounts.programStripeAccount(deps.pool, programId);
    if (!deps.stripeSecretKey || !stripeAccount) return "Stripe is not reachable for this program: connect its Stripe account and set STRIPE_SECRET_KEY.";
    return { processor, secretKey: deps.stripeSecretKey, stripeAccount };
  }
  const key = await discounts.processorApiKey(deps.pool, programId, processor);
  if (!key || !deps.secretBox) return `No ${name} API key is saved for this program.`;
  const apiKey = deps.secretBox.open(key.apiKeySealed);
  if (processor === 'paddle') return { processor, apiKey, sandbox: key.sandbox };
  if (!key.storeId) return 'No Lemon Squeezy store id is saved for this program.';
  return { processor, apiKey, storeId: key.storeId };
}

export type PartnerSyncOutcome = { made: string | null; deactivated: number; refused: string | null };

/**
 * Brings one partner's codes in line: a code under their group's discount while they are
 * approved, none otherwise. Safe to run again at any point (the processors are asked before
 * anything is made). A processor's refusal is recorded on the discount and not retried; a
 * processor out of reach throws, for the queue to retry.
 */
export async function syncPartnerCodes(deps: DiscountJobDeps, programId: number, partnerId: number): Promise<PartnerSyncOutcome> {
  const outcome: PartnerSyncOutcome = { made: null, deactivated: 0, refused: null };
  const state = await discounts.partnerDiscountState(deps.pool, programId, partnerId);
  if (!state) return outcome;
  const wanted = state.status === 'approved' ? state.discount : null;
  const refused = async (discountId: number, message: string) => {
    outcome.refused = message;
    await discounts.noteDiscountError(deps.pool, programId, discountId, message, deps.now());
    return outcome;
  };
  for (const code of state.liveCodes) {
    if (code.groupDiscountId === wanted?.id || code.processor === null) continue;
    const account = await accountFor(deps, programId, code.processor);
    if (typeof account === 'string') {
      await refused(code.groupDiscountId!, account);
      continue;
    }
    try {
      await deactivateCode(account, code, deps.retry);
    } catch (error) {
      if (!(error instanceof DiscountRefusal)) throw error;
      await refused(code.groupDiscountId!, error.message);
      continue;
    }
    await discounts.deactivateMadeCode(deps.pool, programId, code.id);
    outcome.deactivated += 1;
  }
  if (!wanted || state.liveCodes.some((c) => c.groupDiscountId === wanted.id)) return outcome;
  if (!state.linkCode) return refused(wanted.id, `Partner ${partnerId} has no referral link to make a code from.`);
  const account = await accountFor(deps, programId, wanted.terms.processor);
  if (typeof account === 'string') return refused(wanted.id, account);
  const description = describeDiscount(wanted.terms);
  try {
    let couponId = wanted.stripeCouponId;
    if (account.processor === 'stripe' && !couponId) {
      couponId = await ensureStripeCoupon(account, { programId, discountId: wanted.id, description, terms: wanted.terms }, deps.retry);
      await discounts.setStripeCoupon(deps.pool, programId, wanted.id, couponId);
    }
    for (let attempt = 0; attempt < DISCOUNT_CODE_ATTEMPTS; attempt++) {
      const code = discountCodeFor(state.linkCode, partnerId, attempt);
      if (await discounts.codeMapped(deps.pool, programId, code)) continue;
      const made = await createPartnerCode(account, { programId, discountId: wanted.id, partnerId, code, description, terms: wanted.terms, stripeCouponId: couponId }, deps.retry);
      if (made === 'taken') continue;
      await discounts.insertMadeCode(deps.pool, programId, partnerId, wanted.id, made);
      await discounts.noteDiscountError(deps.pool, programId, wanted.id, null, deps.now());
      outcome.made = made.code;
      return outcome;
    }
    return refused(wanted.id, `Every code tried for partner ${partnerId} (${discountCodeFor(state.linkCode, partnerId, 0)} and numbered ones) is taken.`);
  } catch (error) {
    if (!(error instanceof DiscountRefusal)) throw error;
    return refused(wanted.id, error.message);
  }
}

// ---- the tracker's getDiscount() ----------------------------------------------------------------

const LINK_CODE = /^[A-Za-z0-9_-]{1,64}$/;

/** The discount a visitor who came by this link code is offered: its code and words, or null. */
export async function discountForVisitor(deps: Pick<ManagementDeps, 'pool'>, programId: unknown, linkCode: unknown): Promise<{ code: string; description: string } | null> {
  const program = Number(programId);
  if (!Number.isSafeInteger(program) || program <= 0) throw errors.invalid('program_id must be a program id', { program_id: 'Give the program id.' });
  if (typeof linkCode !== 'string' || !LINK_CODE.test(linkCode)) throw errors.invalid('code must be a referral link code', { code: 'Give the referral link code (the aff parameter).' });
  const found = await discounts.discountForLink(deps.pool, program, linkCode);
  return found ? { code: found.code, description: describeDiscount(found.terms) } : null;
}
