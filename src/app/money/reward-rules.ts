// Reward rule sets of a program and its groups (docs/rewards.md): read them, write a scope's
// draft, publish it as the scope's next version (audited). A published version never changes;
// the commissions it made keep its id.
import { z } from 'zod';
import type { RuleSetDocument } from '../../core/commission-rewards.js';
import { toCurrency } from '../../core/currency.js';
import { errors } from '../../core/errors.js';
import { BILLING_INTERVALS, REWARD_EVENTS, ruleSetProblems } from '../../core/rewards.js';
import * as ruleSets from '../../db/money/reward-rules.js';
import { withTransaction } from '../../db/infra/pool.js';
import { type ManagementDeps, audit, parseInput } from '../programs/management.js';
import { type Scope, programInScope } from '../accounts/scope.js';

const currency = z.string().regex(/^[A-Z]{3}$/, 'A currency is its ISO 4217 code, e.g. USD.');
const minorUnits = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
const moneyCap = z.record(currency, minorUnits);
const rate = z.string().regex(/^\d+(\.\d{1,4})?$/, 'An amount is a number with at most 4 decimals, as text ("30", "12.5").');
const ids = z.array(z.string().min(1).max(255)).max(100);

const amount = z.discriminatedUnion('type', [z.object({ type: z.literal('percent'), rate }), z.object({ type: z.literal('flat'), rate })]);
const duration = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('first_sale') }),
  z.object({ kind: z.literal('months'), months: z.number().int().min(1).max(1200) }),
  z.object({ kind: z.literal('payments'), payments: z.number().int().min(1).max(100_000) }),
  z.object({ kind: z.literal('lifetime') }),
]);
const conditions = z
  .object({
    products: ids.optional(),
    prices: ids.optional(),
    intervals: z.array(z.enum(BILLING_INTERVALS)).optional(),
    countries: z.array(z.string().regex(/^[A-Z]{2}$/, 'A country is its ISO 3166-1 alpha-2 code in capitals, e.g. DE.')).max(250).optional(),
    minAmount: moneyCap.optional(),
    maxAmount: moneyCap.optional(),
    customer: z.enum(['new', 'existing']).optional(),
    tiers: z.array(z.string().min(1).max(100)).optional(),
  })
  .strict();
/** One rule as the API takes it (the dashboard's editor validates a rule with it too). */
export const rule = z
  .object({
    id: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'A rule id is 1 to 64 letters, digits, - or _.'),
    name: z.string().trim().min(1).max(100),
    event: z.enum(REWARD_EVENTS),
    when: conditions.default({}),
    duration,
    steps: z.array(z.object({ throughMonth: z.number().int().min(1).nullable(), amount })).min(1).max(24),
    caps: z.object({ perCustomer: moneyCap.optional(), perPartnerMonth: moneyCap.optional() }).strict().optional(),
    /** A lead or click rule's currency (ruleSetProblems requires it there and refuses it on a sale rule). */
    currency: currency.refine((c) => toCurrency(c) === c, 'A currency is its ISO 4217 code, e.g. USD.').optional(),
  })
  .strict();
const tier = z
  .object({ name: z.string().trim().min(1).max(100), minCustomers: z.number().int().min(0).optional(), minRevenue: moneyCap.optional() })
  .strict();

/** A rule set as the API takes it; the same shape is stored (src/core/commission-rewards.ts RuleSetDocument). */
const ruleSetObject = z
  .object({
    rules: z.array(rule).max(100),
    defaults: z.object({ click: rule.optional(), lead: rule.optional(), sale: rule.optional() }).strict().default({}),
    monthlyBudget: moneyCap.optional(),
    tiers: z.array(tier).max(20).optional(),
    tierWindowDays: z.number().int().min(1).max(730).optional(),
  })
  .strict();
export const ruleSetDocument: z.ZodType<RuleSetDocument> = ruleSetObject as z.ZodType<RuleSetDocument>;
/** The set's tiers and monthly budget alone (the dashboard's editor saves them apart from the rules). */
export const ruleSetLimits = ruleSetObject.pick({ monthlyBudget: true, tiers: true, tierWindowDays: true });

export const draftInput = z.object({ group_id: z.number().int().positive().nullish(), rule_set: ruleSetDocument });
export const publishInput = z.object({
  group_id: z.number().int().positive().nullish(),
  /** The draft's updated_at as the publisher saw it: a draft changed since is not published (the page sends it). */
  draft_updated_at: z.string().datetime({ offset: true }).optional(),
});

const view = (row: ruleSets.RuleSetRow) => ({
  id: row.id,
  group_id: row.groupId,
  version: row.version,
  status: row.version === 0 ? 'draft' : 'published',
  published_at: row.publishedAt,
  updated_at: row.updatedAt,
  rule_set: row.document,
  problems: row.version === 0 ? ruleSetProblems({ version: 0, ...row.document }) : [],
});

/** A group id given with a rule set must be a group of this program (one check for the API, the page and the backtest). */
export async function checkGroup(deps: Pick<ManagementDeps, 'pool'>, programId: number, groupId: number | null): Promise<void> {
  if (groupId !== null && !(await ruleSets.groupInProgram(deps.pool, programId, groupId))) {
    throw errors.invalid('group_id must be a group of this program', { group_id: 'Choose a group of this program.' });
  }
}

/** Every draft and published version of the program and its groups, newest first per scope. */
export async function listRuleSets(deps: ManagementDeps, scope: Scope, programId: number) {
  await programInScope(deps, scope, programId);
  return (await ruleSets.listRuleSets(deps.pool, programId)).map(view);
}

/** Writes the scope's draft (it may have problems: publishing refuses those). */
export async function putDraft(deps: ManagementDeps, scope: Scope, programId: number, input: unknown) {
  await programInScope(deps, scope, programId);
  const typed = parseInput(draftInput, input);
  const groupId = typed.group_id ?? null;
  await checkGroup(deps, programId, groupId);
  return view(await ruleSets.putDraft(deps.pool, programId, groupId, typed.rule_set));
}

/** Makes the scope's draft its next version: new sales from now on are paid by it. */
export async function publishDraft(deps: ManagementDeps, scope: Scope, programId: number, input: unknown) {
  const program = await programInScope(deps, scope, programId);
  const typed = parseInput(publishInput, input ?? {});
  const groupId = typed.group_id ?? null;
  await checkGroup(deps, programId, groupId);
  return withTransaction(deps.pool, async (client) => {
    const draft = await ruleSets.lockDraft(client, programId, groupId);
    if (!draft) throw errors.notFound('No draft rule set to publish: PUT one first');
    if (typed.draft_updated_at !== undefined && new Date(typed.draft_updated_at).getTime() !== draft.updatedAt.getTime()) {
      throw errors.conflict('The draft changed since it was checked: look at it and its backtest again, then publish', 'draft_changed');
    }
    const problems = ruleSetProblems({ version: 0, ...draft.document }, { acceptAllCurrencies: program.accept_all_currencies });
    if (problems.length) throw errors.invalid(problems[0]!, { rule_set: problems.join(' ') });
    const published = await ruleSets.publishDraft(client, draft, deps.now());
    await audit(client, scope, [{
      programId, action: 'reward_rules.published', objectType: 'reward_rule_set', objectId: published.id,
      changes: { version: { from: published.version - 1 || null, to: published.version }, group_id: { from: null, to: groupId }, rules: { from: null, to: draft.document.rules.map((r) => r.name).join(', ') } },
    }]);
    return view(published);
  });
}

/** The rule set that pays a partner now (null: their commission type pays; a partner's own terms always do). */
export async function payingRuleSet(deps: ManagementDeps, scope: Scope, programId: number, partner: { group_id: number | null; terms: { source: string } }) {
  await programInScope(deps, scope, programId);
  if (partner.terms.source === 'override') return null;
  return ruleSets.payingVersion(deps.pool, programId, partner.group_id);
}
