// The reward-rule backtest (issue 46 item 4, docs/rewards.md): what the scope's draft would have
// paid for the period's stored sales, beside what their commissions earned. One READ ONLY
// transaction (one snapshot of sales, commissions and the draft); nothing is written.
import { z } from 'zod';
import { Backtest, backtestReadFrom } from '../../core/backtest.js';
import { errors } from '../../core/errors.js';
import { ruleSetProblems } from '../../core/rewards.js';
import { backtestSales, draftOf } from '../../db/money/backtest-sales.js';
import { checkGroup } from './reward-rules.js';
import { withTransaction } from '../../db/infra/pool.js';
import { type ManagementDeps, parseInput } from '../programs/management.js';
import { type Scope, programInScope } from '../accounts/scope.js';

export const BACKTEST_DEFAULT_DAYS = 90;
/** The longest period a backtest reads: a year and a day (every role may run one; it reads every sale of the period). */
export const BACKTEST_MAX_DAYS = 366;
const DAY_MS = 86_400_000;

export const backtestInput = z
  .object({
    from: z.string().datetime({ offset: true }).optional(),
    to: z.string().datetime({ offset: true }).optional(),
    group_id: z.number().int().positive().nullish(),
  })
  .strict();

export interface BacktestPeriod {
  from: Date;
  to: Date;
  groupId?: number | null;
}

/** The period the API asks for: `to` defaults to now, `from` to 90 days before `to`. */
export function backtestPeriod(deps: Pick<ManagementDeps, 'now'>, input: unknown): BacktestPeriod {
  const typed = parseInput(backtestInput, input ?? {});
  const to = typed.to ? new Date(typed.to) : deps.now();
  const from = typed.from ? new Date(typed.from) : new Date(to.getTime() - BACKTEST_DEFAULT_DAYS * DAY_MS);
  return { from, to, groupId: typed.group_id ?? null };
}

/** What the scope's draft would have paid for the sales paid from `from` through `to`, beside what was paid. */
export async function backtest(deps: ManagementDeps, scope: Scope, programId: number, period: BacktestPeriod) {
  await programInScope(deps, scope, programId);
  const groupId = period.groupId ?? null;
  if (!(period.from.getTime() < period.to.getTime())) throw errors.invalid('from must be before to', { from: 'Choose a start before the end.' });
  if (period.to.getTime() - period.from.getTime() > BACKTEST_MAX_DAYS * DAY_MS) {
    throw errors.invalid(`A backtest covers at most ${BACKTEST_MAX_DAYS} days`, { from: `Choose a period of at most ${BACKTEST_MAX_DAYS} days.` });
  }
  await checkGroup(deps, programId, groupId);
  return withTransaction(deps.pool, async (client) => {
    const draft = await draftOf(client, programId, groupId);
    if (!draft) throw errors.notFound('No draft rule set to backtest: PUT one first');
    const problems = ruleSetProblems({ version: 0, ...draft.document });
    if (problems.length) throw errors.invalid(problems[0]!, { rule_set: problems.join(' ') });
    const run = new Backtest(draft.document);
    const range = { programId, groupId, readFrom: backtestReadFrom(draft.document, period.from), from: period.from, to: period.to };
    for await (const sale of backtestSales(client, range)) run.add(sale);
    return {
      program_id: programId,
      group_id: groupId,
      draft: { id: draft.id, updated_at: draft.updatedAt },
      from: period.from.toISOString(),
      to: period.to.toISOString(),
      ...run.result(),
    };
  }, { readOnly: true });
}
