// `affix admin reward-rules ...`: a thin client of the admin API for reward rule sets
// (docs/rewards.md): read them, write a scope's draft from a JSON file, backtest it, publish it.
import { readFile } from 'node:fs/promises';
import { type Command, InvalidArgumentError } from 'commander';
import { positiveInt } from './arguments.js';
import { adminCall, printJson } from './http-client.js';

const programFlag = (command: Command) => command.requiredOption('--program <id>', 'program id', positiveInt);
const groupFlag = (command: Command) => programFlag(command).option('--group <id>', "a group's rule set (default: the program's)", positiveInt);
type Scoped = { program: number; group?: number };
const scopeBody = (f: Scoped) => (f.group === undefined ? {} : { group_id: f.group });

/** A rule set file: the `rule_set` object itself, or a whole draft body `{ group_id?, rule_set }`. */
async function ruleSetFile(path: string): Promise<Record<string, unknown>> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(path, 'utf8'));
  } catch (error) {
    throw new InvalidArgumentError(`${path} is not a readable JSON file: ${(error as Error).message}`);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new InvalidArgumentError(`${path} must hold a JSON object (a rule set: { "rules": [...] })`);
  return parsed as Record<string, unknown>;
}

export function registerRewardRuleCommands(admin: Command): void {
  const rules = admin
    .command('reward-rules')
    .description('Reward rule sets of a program or a group (docs/rewards.md): show them, write the draft, backtest it, publish it');
  groupFlag(rules.command('show').description("the scope's draft (with its problems) and published versions, newest first"))
    .action(async function (this: Command, f: Scoped) {
      const sets = await adminCall<{ group_id: number | null }[]>(this, 'GET', `/programs/${f.program}/reward-rules`);
      printJson(sets.filter((s) => s.group_id === (f.group ?? null)));
    });
  groupFlag(rules.command('draft').description("replace the scope's draft with the rule set in a JSON file (the API's rule_set; a draft may have problems)"))
    .argument('<file>', 'a JSON file: the rule set, like docs/rewards.md\'s examples')
    .action(async function (this: Command, file: string, f: Scoped) {
      const document = await ruleSetFile(file);
      const ruleSet = 'rule_set' in document ? document.rule_set : document;
      // A file written as the API's body names its group: it must agree with --group, and stands for it when absent.
      const fileGroup = 'rule_set' in document && typeof document.group_id === 'number' ? document.group_id : undefined;
      if (fileGroup !== undefined && f.group !== undefined && fileGroup !== f.group) throw new InvalidArgumentError(`the file is for group ${fileGroup}, not --group ${f.group}`);
      const scoped = { ...f, group: f.group ?? fileGroup };
      printJson(await adminCall(this, 'PUT', `/programs/${f.program}/reward-rules/draft`, { ...scopeBody(scoped), rule_set: ruleSet }));
    });
  groupFlag(rules.command('backtest').description("what the scope's draft would have paid for the period's sales beside what was paid; writes nothing"))
    .option('--from <time>', 'start (ISO 8601; default 90 days before --to)')
    .option('--to <time>', 'end (ISO 8601; default now)')
    .action(async function (this: Command, f: Scoped & { from?: string; to?: string }) {
      printJson(await adminCall(this, 'POST', `/programs/${f.program}/reward-rules/backtest`, { ...scopeBody(f), from: f.from, to: f.to }));
    });
  groupFlag(rules.command('publish').description("make the scope's draft its next version: new sales are paid by it (audited)"))
    .action(async function (this: Command, f: Scoped) {
      printJson(await adminCall(this, 'POST', `/programs/${f.program}/reward-rules/publish`, scopeBody(f)));
    });
}
