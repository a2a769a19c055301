// The dashboard's reward-rule editor (issue 46 item 4, docs/rewards.md): what the Rewards page
// shows of a scope (the program's or a group's) — its published version, who published it, its
// draft — and one edit at a time of the draft: a rule saved, deleted or moved, the tiers and the
// budget. Every edit is validated by the admin API's own schemas (reward-rules.ts) and stored as
// the draft the API writes; publishing and the backtest are the API's use cases.
import type { z } from 'zod';
import type { RuleSetDocument } from '../../core/commission-rewards.js';
import { errors } from '../../core/errors.js';
import { type RewardRule, ruleSetProblems } from '../../core/rewards.js';
import { listAudit } from '../../db/accounts/audit-log.js';
import { programGroups } from '../../db/partners/discounts.js';
import * as ruleSets from '../../db/money/reward-rules.js';
import { withTransaction } from '../../db/infra/pool.js';
import { type ManagementDeps, parseInput } from '../programs/management.js';
import { type Scope, programInScope } from '../accounts/scope.js';
import { rule as ruleSchema, ruleSetDocument, ruleSetLimits } from './reward-rules.js';
import { type BacktestPeriod, backtest } from './backtest.js';
import { partnersByIds } from '../../db/money/commissions-and-payouts.js';

/** Where a rule sits: its place in the ordered list (0 first), or the sales' default. */
export type RuleKey = number | 'default';

/**
 * A rule is addressed by its place, and by its id when the page knew it: a page opened before
 * another manager moved or deleted rules must not change the rule that now sits at that place.
 */
export type DraftEdit =
  | { kind: 'save_rule'; key: RuleKey | null; ruleId?: string; place?: 'rules' | 'default'; rule: unknown }
  | { kind: 'delete_rule'; key: RuleKey; ruleId?: string }
  | { kind: 'move_rule'; key: number; ruleId?: string; direction: 'up' | 'down' }
  | { kind: 'limits'; limits: unknown };

const EMPTY: RuleSetDocument = { rules: [], defaults: {} };

/** A page's or form's group that is not this program's is not found (the API's body answers 400 instead: reward-rules.ts). */
async function checkGroup(deps: ManagementDeps, programId: number, groupId: number | null): Promise<void> {
  if (groupId !== null && !(await ruleSets.groupInProgram(deps.pool, programId, groupId))) throw errors.notFound('There is no such group in this program');
}

/** A document as text whatever the order of its keys (stored JSON does not keep it). */
const canonical = (value: unknown): string =>
  Array.isArray(value) ? `[${value.map(canonical).join(',')}]`
    : value && typeof value === 'object' ? `{${Object.keys(value).sort().filter((k) => (value as Record<string, unknown>)[k] !== undefined).map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`).join(',')}}`
      : JSON.stringify(value);

/** What the Rewards page shows of a scope. */
export async function rewardRulesPage(deps: ManagementDeps, scope: Scope, programId: number, groupId: number | null) {
  const program = await programInScope(deps, scope, programId);
  await checkGroup(deps, programId, groupId);
  const [all, groups, published] = await Promise.all([
    ruleSets.listRuleSets(deps.pool, programId),
    programGroups(deps.pool, programId),
    listAudit(deps.pool, { accountId: scope.kind === 'account' ? scope.accountId : null, programId, action: 'reward_rules.published', objectType: 'reward_rule_set', limit: 200 }),
  ]);
  const mine = all.filter((s) => s.groupId === groupId);
  const draft = mine.find((s) => s.version === 0) ?? null;
  const latest = mine.find((s) => s.version > 0) ?? null;
  const by = latest ? published.find((entry) => entry.object_id === String(latest.id)) : undefined;
  // A group without a published set of its own is paid by the program's (docs/rewards.md, "Which rule set pays a sale").
  const programLatest = groupId === null ? undefined : all.find((s) => s.groupId === null && s.version > 0);
  return {
    program: { id: program.id, name: program.name },
    group: groupId === null ? null : (groups.find((g) => g.id === groupId) ?? null),
    groups: groups.map((g) => ({ ...g, published: all.some((s) => s.groupId === g.id && s.version > 0), draft: all.some((s) => s.groupId === g.id && s.version === 0) })),
    published: latest ? { id: latest.id, version: latest.version, publishedAt: latest.publishedAt, by: by?.actor_label ?? null, document: latest.document } : null,
    versions: mine.filter((s) => s.version > 0).length,
    programVersion: programLatest?.version ?? null,
    draft: draft
      ? { id: draft.id, updatedAt: draft.updatedAt, document: draft.document, problems: ruleSetProblems({ version: 0, ...draft.document }), sameAsPublished: latest !== null && canonical(latest.document) === canonical(draft.document) }
      : null,
  };
}

/** A rule id from its name, unused in the set ("annual-plans", "annual-plans-2"). */
export function newRuleId(document: RuleSetDocument, name: string): string {
  const used = new Set([...document.rules, ...Object.values(document.defaults)].map((r) => r?.id));
  const stem = name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 50) || 'rule';
  let id = stem;
  for (let n = 2; used.has(id); n += 1) id = `${stem}-${n}`;
  return id;
}

function ruleAt(document: RuleSetDocument, key: RuleKey, ruleId?: string): RewardRule {
  const found = key === 'default' ? document.defaults.sale : document.rules[key];
  if (!found || (ruleId !== undefined && found.id !== ruleId)) throw errors.notFound('The draft changed since this page was opened (another edit moved or removed this rule): reload the page and try again');
  return found;
}

/** The draft after one edit (pure): a refused edit throws with the field it is about. */
export function applyEdit(document: RuleSetDocument, edit: DraftEdit): RuleSetDocument {
  const next: RuleSetDocument = { ...document, rules: [...document.rules], defaults: { ...document.defaults } };
  switch (edit.kind) {
    case 'save_rule': {
      const place = edit.key === null ? (edit.place ?? 'rules') : edit.key === 'default' ? 'default' : 'rules';
      // "Set the default" on a draft without one makes it; a default or rule being edited must still be there.
      const kept = edit.key === null || (edit.key === 'default' && !document.defaults.sale && edit.ruleId === undefined) ? null : ruleAt(document, edit.key, edit.ruleId);
      const typed = { ...(edit.rule as Record<string, unknown>) };
      if (place === 'default') Object.assign(typed, { event: 'sale', when: {} });
      const id = kept?.id ?? newRuleId(document, String(typed.name ?? ''));
      const parsed = parseInput(ruleSchema, { ...typed, id }) as RewardRule;
      // The core's checks of one rule (steps in order, at most 100 %), said beside its amounts.
      const problems = ruleSetProblems({ version: 0, rules: [parsed], defaults: {} });
      // A lead or click rule's currency problem is said beside the currency field.
      if (problems.length) throw errors.invalid(problems[0]!, { [/ currency|currencies/.test(problems[0]!) ? 'currency' : 'steps']: problems[0]!.replace(/^Rule '.*?': /, '') });
      if (place === 'default') {
        if (edit.key === null && document.defaults.sale) throw errors.invalid('The draft has a default already: edit it', { place: 'The draft has a default already: edit it instead.' });
        next.defaults.sale = parsed;
      } else if (edit.key === null) next.rules.push(parsed);
      else next.rules[edit.key as number] = parsed;
      return next;
    }
    case 'delete_rule':
      ruleAt(document, edit.key, edit.ruleId);
      if (edit.key === 'default') delete next.defaults.sale;
      else next.rules.splice(edit.key, 1);
      return next;
    case 'move_rule': {
      ruleAt(document, edit.key, edit.ruleId);
      const to = edit.direction === 'up' ? edit.key - 1 : edit.key + 1;
      if (to < 0 || to >= next.rules.length) return next;
      [next.rules[edit.key], next.rules[to]] = [next.rules[to]!, next.rules[edit.key]!];
      return next;
    }
    case 'limits': {
      const limits = parseInput(ruleSetLimits, edit.limits) as z.infer<typeof ruleSetLimits>;
      delete next.monthlyBudget;
      delete next.tiers;
      delete next.tierWindowDays;
      if (limits.monthlyBudget && Object.keys(limits.monthlyBudget).length) next.monthlyBudget = limits.monthlyBudget;
      if (limits.tiers?.length) next.tiers = limits.tiers;
      if (limits.tierWindowDays !== undefined) next.tierWindowDays = limits.tierWindowDays;
      return next;
    }
  }
}

/**
 * One edit of the scope's draft, made on the draft as it is (locked), else on a copy of the
 * published version, else on an empty set; written as the API's PUT …/draft writes it.
 */
export async function editDraft(deps: ManagementDeps, scope: Scope, programId: number, groupId: number | null, edit: DraftEdit) {
  await programInScope(deps, scope, programId);
  await checkGroup(deps, programId, groupId);
  return withTransaction(deps.pool, async (client) => {
    const draft = await ruleSets.lockDraft(client, programId, groupId);
    const base = draft?.document ?? (await ruleSets.listRuleSets(client, programId)).find((s) => s.groupId === groupId && s.version > 0)?.document ?? EMPTY;
    const document = parseInput(ruleSetDocument, applyEdit(base, edit));
    const row = await ruleSets.putDraft(client, programId, groupId, document);
    return { id: row.id, document: row.document, problems: ruleSetProblems({ version: 0, ...row.document }) };
  });
}

/** The backtest as the Rewards page shows it: the API's answer, with the partners' names and the draft's rule names. */
export async function backtestForPage(deps: ManagementDeps, scope: Scope, programId: number, period: BacktestPeriod) {
  const result = await backtest(deps, scope, programId, period);
  const [names, draft] = await Promise.all([
    partnersByIds(deps.pool, programId, [...new Set(result.partners.map((p) => p.partner_id))]),
    ruleSets.listRuleSets(deps.pool, programId).then((all) => all.find((s) => s.groupId === (period.groupId ?? null) && s.version === 0)),
  ]);
  const ruleNames: Record<string, string> = {};
  for (const r of [...(draft?.document.rules ?? []), ...Object.values(draft?.document.defaults ?? {})]) if (r) ruleNames[r.id] = r.name;
  return { ...result, partnerNames: Object.fromEntries(names.map((p) => [p.partnerId, p.name])) as Record<number, string>, ruleNames };
}
