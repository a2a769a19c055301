// `affix admin partner|group|application ...`: thin clients of the admin API for running
// partners (docs/partners.md). Actions take one partner id, several, or --matching a filter.
import { readFileSync } from 'node:fs';
import { type Command, InvalidArgumentError } from 'commander';
import { decodeCsvBytes } from '../core/csv-encoding.js';
import { AffixError } from '../core/errors.js';
import type { GroupTarget } from '../core/partners.js';
import { minimumFlag, positiveInt, positiveNumber } from './arguments.js';
import { CliError, exitCodeForStatus } from './client/exit-codes.js';
import { adminCall, adminText, printJson } from './http-client.js';

const call = async (command: Command, method: string, path: string, body?: unknown, contentType?: string) =>
  printJson(await adminCall(command, method, path, body, contentType));
const programFlag = (command: Command) => command.requiredOption('--program <id>', 'program id', positiveInt);
type P = { program: number };
type Filter = { q?: string; status?: string; group?: number; tag?: string };

const filterFlags = (command: Command) =>
  command
    .option('--q <text>', 'name, email or payout reference (an address matches exactly)')
    .option('--status <status>', 'applied, approved, rejected, invited, archived or banned')
    .option('--group <id>', 'group id', positiveInt)
    .option('--tag <tag>');
const filterQuery = (f: Filter) =>
  new URLSearchParams({ ...(f.q ? { q: f.q } : {}), ...(f.status ? { status: f.status } : {}), ...(f.group ? { group_id: String(f.group) } : {}), ...(f.tag ? { tag: f.tag } : {}) });
const filterBody = (f: Filter) => ({ q: f.q, status: f.status, group_id: f.group, tag: f.tag });

const groupIdOrNone = (value: string): number | null => (value === 'none' ? null : positiveInt(value));

/** `--map-group "Default Campaign=new:Creators"`: the value (up to its last =) and where its rows go. */
function collectGroupMap(pair: string, into: Record<string, GroupTarget>): Record<string, GroupTarget> {
  const at = pair.lastIndexOf('=');
  const [value, target] = [pair.slice(0, at).trim(), pair.slice(at + 1).trim()];
  if (at <= 0 || !value) throw new InvalidArgumentError('give value=group:<name|id>, value=new:<name> or value=none');
  if (target === 'none') return { ...into, [value]: null };
  if (target.startsWith('group:') && target.length > 6) return { ...into, [value]: { group: target.slice(6) } };
  if (target.startsWith('new:') && target.length > 4) return { ...into, [value]: { new_group: target.slice(4) } };
  throw new InvalidArgumentError(`"${target}": the target is group:<name|id>, new:<name> or none`);
}


export function registerPartnerCommands(admin: Command): void {
  const partner = admin.command('partner').description('Partners: add, list, edit, approve, ban, import and export');
  programFlag(partner.command('create'))
    .requiredOption('--name <name>')
    .option('--email <email>')
    .option('--group <id>', 'group id', positiveInt)
    .option('--tag <tag...>')
    .action(function (this: Command, f: P & { name: string; email?: string; group?: number; tag?: string[] }) {
      return call(this, 'POST', `/programs/${f.program}/partners`, { name: f.name, email: f.email, group_id: f.group, tags: f.tag });
    });
  filterFlags(programFlag(partner.command('list').description('partners with their numbers, sorted, one page at a time')))
    .option('--sort <by>', 'created, name, clicks, leads, sales, revenue or commission')
    .option('--currency <cur>', 'money columns in this currency (an ISO 4217 code, default USD)')
    .option('--after <cursor>', 'next_cursor of the previous page')
    .option('--limit <n>', 'rows per page (up to 500)', positiveInt)
    .action(function (this: Command, f: P & Filter & { sort?: string; currency?: string; after?: string; limit?: number }) {
      const query = filterQuery(f);
      for (const [key, value] of Object.entries({ sort: f.sort, currency: f.currency, after: f.after, limit: f.limit })) if (value !== undefined) query.set(key, String(value));
      return call(this, 'GET', `/programs/${f.program}/partners?${query}`);
    });
  programFlag(partner.command('show <partnerId>').description('profile, enrollment, links, funnel, commissions, payouts, history')).action(function (this: Command, id: string, f: P) {
    return call(this, 'GET', `/programs/${f.program}/partners/${positiveInt(id)}`);
  });
  programFlag(partner.command('edit <partnerId>'))
    .option('--name <name>')
    .option('--email <email>', 'give a partner added without one an address (then invite them)')
    .option('--notes <text>', 'private to the brand')
    .option('--tag <tag...>', 'replaces the tags')
    .action(function (this: Command, id: string, f: P & { name?: string; email?: string; notes?: string; tag?: string[] }) {
      return call(this, 'PATCH', `/programs/${f.program}/partners/${positiveInt(id)}`, { name: f.name, email: f.email, notes: f.notes, tags: f.tag });
    });
  programFlag(partner.command('invite <partnerId>').description('mail the partner a sign-in link to their portal')).action(function (this: Command, partnerId: string, f: P) {
    return call(this, 'POST', `/programs/${f.program}/partners/${positiveInt(partnerId)}/invite`);
  });

  const actions = {
    approve: 'approve applicants (into --group), give them a link and a portal invitation',
    reject: 'reject applicants (--reason, --reapply now|after_30_days|never)',
    move: 'move to --group <id|none>: future commissions follow its terms',
    archive: 'links stop, history stays',
    unarchive: 'restore archived partners: exactly the links the archive turned off come back',
    ban: 'links answer 410, pending and held commissions are rejected, open payouts cancelled (--reason)',
    unban: 'lift the ban: exactly the rows it changed come back',
  } as const;
  for (const [verb, description] of Object.entries(actions)) {
    filterFlags(programFlag(partner.command(`${verb} [partnerIds...]`).description(`${description}; several ids, or --matching a filter`)))
      .option('--matching', 'every partner the filter flags match (ignores ids)')
      .option('--reason <text>', 'one reason for the batch')
      .option('--to-group <id|none>', 'for approve and move', groupIdOrNone)
      .option('--reapply <rule>', 'for reject: now, after_30_days or never')
      .action(function (this: Command, ids: string[], f: P & Filter & { matching?: boolean; reason?: string; toGroup?: number | null; reapply?: string }) {
        if (!f.matching && ids.length === 0) throw new InvalidArgumentError('give partner ids, or --matching with filter flags');
        return call(this, 'POST', `/programs/${f.program}/partners/bulk`, {
          action: verb === 'move' ? 'move_group' : verb,
          ...(f.matching ? { filter: filterBody(f) } : { partner_ids: ids.map(positiveInt) }),
          reason: f.reason,
          group_id: f.toGroup,
          reapply: f.reapply,
        });
      });
  }
  programFlag(partner.command('override <partnerId>').description("one partner's own reward (wins over their group and the program)"))
    .option('--type <type>', 'percent, fixed, recurring_percent or recurring_fixed')
    .option('--rate <rate>', 'percent, or an amount for fixed types', positiveNumber)
    .option('--duration-months <months>', 'for recurring types; empty = forever', positiveInt)
    .option('--source <text>', 'where the deal comes from (a contract, an email)')
    .option('--remove', 'back to the group or program terms')
    .action(function (this: Command, id: string, f: P & { type?: string; rate?: number; durationMonths?: number; source?: string; remove?: boolean }) {
      const path = `/programs/${f.program}/partners/${positiveInt(id)}/override`;
      if (f.remove) return call(this, 'DELETE', path);
      return call(this, 'PUT', path, { commission_type: f.type, commission_rate: f.rate, duration_months: f.durationMonths, source: f.source });
    });
  programFlag(partner.command('import <file>').description('partners from a CSV (Affix, Rewardful, FirstPromoter or Tolt columns); --dry-run first'))
    .option('--dry-run', 'check every row and write nothing')
    .option('--map-group <value=target...>', 'a value of the group/campaign column -> group:<name|id>, new:<name> or none', collectGroupMap, {})
    .option('--ignore-column <name...>', 'leave this column of the file out')
    .action(function (this: Command, file: string, f: P & { dryRun?: boolean; mapGroup: Record<string, GroupTarget>; ignoreColumn?: string[] }) {
      // The file's bytes, decoded as the dashboard and the API decode an upload (a byte order mark; not UTF-8 refused in words).
      let csv: string;
      try {
        csv = decodeCsvBytes(readFileSync(file));
      } catch (error) {
        // Refused as the API refuses it (400): the file, in words with the fix.
        if (error instanceof AffixError) throw new CliError(`${file}: ${error.message}`, exitCodeForStatus(error.status));
        throw error;
      }
      return call(this, 'POST', `/programs/${f.program}/partners/import`, {
        csv,
        dry_run: !!f.dryRun,
        ...(Object.keys(f.mapGroup).length ? { group_mapping: f.mapGroup } : {}),
        ...(f.ignoreColumn?.length ? { ignore_columns: f.ignoreColumn } : {}),
      });
    });
  filterFlags(programFlag(partner.command('export').description('the partners a filter matches, as CSV on stdout'))).action(async function (this: Command, f: P & Filter) {
    process.stdout.write(await adminText(this, `/programs/${f.program}/partners.csv?${filterQuery(f)}`));
  });

  const group = admin.command('group').description('Partner groups: the terms their partners are paid under');
  programFlag(group.command('list')).action(function (this: Command, f: P) {
    return call(this, 'GET', `/programs/${f.program}/groups`);
  });
  const groupFlags = (command: Command) =>
    programFlag(command)
      .requiredOption('--name <name>')
      .requiredOption('--slug <slug>', 'its application page: /apply/<program>/<slug>')
      .requiredOption('--type <type>', 'percent, fixed, recurring_percent or recurring_fixed')
      .requiredOption('--rate <rate>', 'percent, or an amount for fixed types', positiveNumber)
      .option('--duration-months <months>', 'for recurring types; empty = forever', positiveInt)
      .option('--hold-days <days>', 'days before a commission is approved', (v) => Number(v), 30)
      .option('--minimum <CUR=cents...>', 'payout minimum per currency', minimumFlag, {})
      .option('--links', 'partners may create their own links')
      .option('--open', 'its application page takes applications')
      .option('--auto-approve', 'approve applicants at once unless a risk signal is seen');
  type GroupFlags = P & { name: string; slug: string; type: string; rate: number; durationMonths?: number; holdDays: number; minimum: Record<string, number>; links?: boolean; open?: boolean; autoApprove?: boolean };
  const groupBody = (f: GroupFlags) => ({
    name: f.name, slug: f.slug, commission_type: f.type, commission_rate: f.rate, duration_months: f.durationMonths, hold_days: f.holdDays,
    payout_minimums_cents: f.minimum, partners_can_create_links: !!f.links, applications_open: !!f.open, auto_approve: !!f.autoApprove,
  });
  groupFlags(group.command('create')).action(function (this: Command, f: GroupFlags) {
    return call(this, 'POST', `/programs/${f.program}/groups`, groupBody(f));
  });
  groupFlags(group.command('update <groupId>').description('the whole group (terms are complete, nothing inherited)')).action(function (this: Command, id: string, f: GroupFlags) {
    return call(this, 'PUT', `/programs/${f.program}/groups/${positiveInt(id)}`, groupBody(f));
  });

  const application = admin.command('application').description('Applications to a program');
  programFlag(application.command('list'))
    .option('--status <status>', 'pending (default), approved, rejected or all')
    .option('--after <id>', 'next_cursor of the previous page')
    .action(function (this: Command, f: P & { status?: string; after?: string }) {
      return call(this, 'GET', `/programs/${f.program}/applications?${new URLSearchParams({ ...(f.status ? { status: f.status } : {}), ...(f.after ? { after: f.after } : {}) })}`);
    });
  programFlag(application.command('export').description('every application as CSV on stdout')).action(async function (this: Command, f: P) {
    process.stdout.write(await adminText(this, `/programs/${f.program}/applications.csv`));
  });
  programFlag(application.command('settings').description('show or change the application page'))
    .option('--open', 'take applications')
    .option('--close', 'stop taking applications')
    .option('--slug <slug>', 'the page address: /apply/<slug>')
    .option('--terms-file <file>', 'the program terms (a new version when they change)')
    .option('--questions-file <file>', 'one question per line: key | Label | text|long_text|url|email|checkbox|select: a, b | required')
    .action(function (this: Command, f: P & { open?: boolean; close?: boolean; slug?: string; termsFile?: string; questionsFile?: string }) {
      const body = {
        applications_open: f.open ? true : f.close ? false : undefined,
        slug: f.slug,
        terms_text: f.termsFile ? readFileSync(f.termsFile, 'utf8') : undefined,
        field_lines: f.questionsFile ? readFileSync(f.questionsFile, 'utf8') : undefined,
      };
      if (Object.values(body).every((v) => v === undefined)) return call(this, 'GET', `/programs/${f.program}/application-settings`);
      return call(this, 'PATCH', `/programs/${f.program}/application-settings`, body);
    });

  admin
    .command('audit')
    .description('the audit log: who changed what, when and from where (newest first)')
    .option('--program <id>', 'one program', positiveInt)
    .option('--account <id>', 'one account', positiveInt)
    .option('--actor <type>', 'member, cli_token, operator, system, applicant or partner')
    .option('--action <action>', 'like partner.ban or payout.paid')
    .option('--before <id>', 'next_cursor of the previous page')
    .option('--csv', 'every entry of the filter as CSV on stdout')
    .action(async function (this: Command, f: { program?: number; account?: number; actor?: string; action?: string; before?: string; csv?: boolean }) {
      const query = new URLSearchParams(
        Object.entries({ program_id: f.program, account_id: f.account, actor_type: f.actor, action: f.action, before: f.before }).flatMap(([k, v]) => (v === undefined ? [] : [[k, String(v)]])),
      );
      if (f.csv) return void process.stdout.write(await adminText(this, `/audit-log.csv?${query}`));
      return call(this, 'GET', `/audit-log?${query}`);
    });

  const commissions = admin.command('commissions').description('Commissions in bulk');
  programFlag(commissions.command('bulk <action> [commissionIds...]').description('approve, release or reject: the ids given, or --matching'))
    .requiredOption('--reason <text>', 'one reason for the batch, kept in the ledger')
    .option('--matching', 'every commission the action applies to (optionally --partner, --state)')
    .option('--partner <id>', 'only this partner', positiveInt)
    .action(function (this: Command, action: string, ids: string[], f: P & { reason: string; matching?: boolean; partner?: number }) {
      if (!f.matching && ids.length === 0) throw new InvalidArgumentError('give commission ids, or --matching');
      return call(this, 'POST', `/programs/${f.program}/commissions/bulk`, {
        action,
        reason: f.reason,
        ...(f.matching ? { filter: { partner_id: f.partner } } : { commission_ids: ids.map(positiveInt) }),
      });
    });
}
