// `affix admin discount ...`: a thin client of the admin API for discounts for referred buyers
// (docs/discounts.md). The processors' API keys are read from the environment, never from a flag
// (a flag stays in the shell's history).
import type { Command } from 'commander';
import { positiveInt } from './arguments.js';
import { adminCall, printJson } from './http-client.js';

const call = async (command: Command, method: string, path: string, body?: unknown) => printJson(await adminCall(command, method, path, body));
const programFlag = (command: Command) => command.requiredOption('--program <id>', 'program id', positiveInt);
const groupFlag = (command: Command) => programFlag(command).requiredOption('--group <id>', 'group id', positiveInt);
type G = { program: number; group: number };

export function registerDiscountCommands(admin: Command): void {
  const discount = admin.command('discount').description("Discounts for referred buyers: a group's discount, made as a code per partner in the processor");
  groupFlag(discount.command('set').description("give the group's partners' buyers a discount (replaces the one it gave); the codes are made by a job"))
    .requiredOption('--processor <name>', 'stripe, paddle or lemonsqueezy')
    .option('--percent <n>', 'percentage off, like 20 or 12.5')
    .option('--amount <n>', 'amount off in the currency, like 10 or 9.99')
    .option('--currency <code>', 'the amount’s currency (ISO 4217)')
    .option('--duration <kind>', 'once, repeating or forever', 'once')
    .option('--months <n>', 'months, for repeating', positiveInt)
    .action(function (this: Command, f: G & { processor: string; percent?: string; amount?: string; currency?: string; duration: string; months?: number }) {
      return call(this, 'PUT', `/programs/${f.program}/groups/${f.group}/discount`, {
        processor: f.processor,
        type: f.amount !== undefined ? 'amount' : 'percent',
        percent: f.percent,
        amount: f.amount,
        currency: f.currency,
        duration: f.duration,
        duration_months: f.months,
      });
    });
  programFlag(discount.command('list').description("the groups' discounts, their live codes and the processor's last refusal")).action(function (this: Command, f: { program: number }) {
    return call(this, 'GET', `/programs/${f.program}/discounts`);
  });
  groupFlag(discount.command('codes').description("make the missing codes of the group's approved partners (a job)")).action(function (this: Command, f: G) {
    return call(this, 'POST', `/programs/${f.program}/groups/${f.group}/discount/codes`);
  });
  groupFlag(discount.command('end').description("end the group's discount; its codes are deactivated by a job")).action(async function (this: Command, f: G) {
    await adminCall(this, 'DELETE', `/programs/${f.program}/groups/${f.group}/discount`);
  });
  programFlag(discount.command('api-key').description('save the Paddle or Lemon Squeezy API key read from $PROCESSOR_API_KEY (sealed)'))
    .requiredOption('--processor <name>', 'paddle or lemonsqueezy')
    .option('--sandbox', 'a Paddle sandbox account')
    .option('--store <id>', 'the Lemon Squeezy store id')
    .action(function (this: Command, f: { program: number; processor: string; sandbox?: boolean; store?: string }) {
      return call(this, 'PUT', `/programs/${f.program}/processor-api-keys/${encodeURIComponent(f.processor)}`, { api_key: process.env.PROCESSOR_API_KEY ?? '', sandbox: f.sandbox === true, store_id: f.store });
    });
}
