// Partner program rules (docs/partners.md): enrollment statuses and what each bulk action may
// change, the terms a commission is made under, the risk signals of an application, and the
// brand's application fields. Pure: the app layer reads and writes.
import { NO_CONTROL_CHARACTERS, hasControlCharacter } from './names.js';
import { unstorableText } from './storable-text.js';
import type { CommissionType } from './types.js';

export const PARTNER_STATUSES = ['applied', 'approved', 'rejected', 'invited', 'archived', 'banned'] as const;
export type PartnerStatus = (typeof PARTNER_STATUSES)[number];

export const PARTNER_STATUS_WORDS: Record<PartnerStatus, string> = {
  applied: 'Applied',
  approved: 'Approved',
  rejected: 'Rejected',
  invited: 'Invited',
  archived: 'Archived',
  banned: 'Banned',
};

// ---- bulk actions on partners ----------------------------------------------------------------

export const PARTNER_ACTIONS = ['approve', 'reject', 'move_group', 'archive', 'unarchive', 'ban', 'unban'] as const;
export type PartnerAction = (typeof PARTNER_ACTIONS)[number];

/**
 * The statuses an action changes. The same list filters the selection and guards the update, so
 * a row that changed meanwhile is skipped, never changed wrongly (Dub's bulk archive was not).
 */
export const ACTION_APPLIES_TO: Record<PartnerAction, readonly PartnerStatus[]> = {
  approve: ['applied', 'rejected'],
  reject: ['applied'],
  move_group: ['applied', 'approved', 'invited', 'archived', 'rejected'],
  archive: ['approved', 'invited'],
  unarchive: ['archived'],
  ban: ['applied', 'approved', 'invited', 'archived', 'rejected'],
  unban: ['banned'],
};

/** Actions that need a reason (kept on the sanction, the application or the ledger). */
export const ACTION_NEEDS_REASON: Record<PartnerAction, boolean> = {
  approve: false,
  reject: true,
  move_group: false,
  archive: false,
  unarchive: false,
  ban: true,
  unban: false,
};

export const PARTNER_ACTION_WORDS: Record<PartnerAction, string> = {
  approve: 'Approve',
  reject: 'Reject',
  move_group: 'Move to group',
  archive: 'Archive',
  unarchive: 'Restore from archive',
  ban: 'Ban',
  unban: 'Lift the ban',
};

export const COMMISSION_ACTIONS = ['approve', 'release', 'reject'] as const;
export type CommissionAction = (typeof COMMISSION_ACTIONS)[number];

/** What one item of a batch came to: changed, or the reason it was left as it was. */
export interface BulkReport {
  action: string;
  requested: number;
  changed: number;
  /** Reason -> how many were left as they were for it (already in that state, not found, …). */
  skipped: Record<string, number>;
  changedIds: number[];
}

export const emptyReport = (action: string): BulkReport => ({ action, requested: 0, changed: 0, skipped: {}, changedIds: [] });

export function addToReport(report: BulkReport, outcome: { id: number; skipped?: string }): void {
  report.requested += 1;
  if (outcome.skipped) report.skipped[outcome.skipped] = (report.skipped[outcome.skipped] ?? 0) + 1;
  else {
    report.changed += 1;
    report.changedIds.push(outcome.id);
  }
}

// ---- terms -------------------------------------------------------------------------------------

export interface Reward {
  commissionType: CommissionType;
  commissionRate: string;
  recurringDurationMonths: number | null;
}

export type TermsSource = 'override' | 'group' | 'program';

/**
 * The terms one commission is made under, stored with it. Which apply (override, then group,
 * then program) is read from the partner_terms view: the rule lives there, once.
 */
export interface Terms extends Reward {
  holdDays: number;
  source: TermsSource;
  groupId: number | null;
  overrideId: number | null;
}

/** The stored snapshot (snake_case, as the API shows it). */
export const termsSnapshot = (t: Terms) => ({
  commission_type: t.commissionType,
  commission_rate: t.commissionRate,
  duration_months: t.recurringDurationMonths,
  hold_days: t.holdDays,
  source: t.source,
  group_id: t.groupId,
  override_id: t.overrideId,
});

// ---- applications ------------------------------------------------------------------------------

export const RISK_SIGNALS = ['email_seen_with_other_partner', 'payout_account_seen_with_other_partner', 'banned_in_other_program', 'free_email_domain'] as const;
export type RiskSignal = (typeof RISK_SIGNALS)[number];

export const RISK_SIGNAL_WORDS: Record<RiskSignal, string> = {
  email_seen_with_other_partner: 'This email already belongs to another partner of the account',
  payout_account_seen_with_other_partner: 'This payout account is used by another partner',
  banned_in_other_program: 'Banned in another program of this account',
  free_email_domain: 'Free email domain (not a business address)',
};

/** Signals that stop an automatic approval (a free mail domain alone is only shown). */
const BLOCKING: readonly RiskSignal[] = ['email_seen_with_other_partner', 'payout_account_seen_with_other_partner', 'banned_in_other_program'];
export const blocksAutoApproval = (signals: readonly RiskSignal[]): boolean => signals.some((s) => BLOCKING.includes(s));

const FREE_MAIL = new Set(['gmail.com', 'googlemail.com', 'yahoo.com', 'hotmail.com', 'outlook.com', 'live.com', 'icloud.com', 'aol.com', 'proton.me', 'protonmail.com', 'gmx.com', 'mail.com', 'yandex.com']);
export const emailDomain = (email: string): string => email.slice(email.lastIndexOf('@') + 1).toLowerCase();
export const isFreeMailDomain = (email: string): boolean => FREE_MAIL.has(emailDomain(email));

export const REAPPLY_RULES = ['now', 'after_30_days', 'never'] as const;
export type ReapplyRule = (typeof REAPPLY_RULES)[number];
export const REAPPLY_WORDS: Record<ReapplyRule, string> = { now: 'May apply again at once', after_30_days: 'May apply again after 30 days', never: 'May not apply again' };

/** When a rejected applicant may apply again: null for never. */
export function reapplyAfter(rule: ReapplyRule, decidedAt: Date): Date | null {
  if (rule === 'never') return null;
  return rule === 'now' ? decidedAt : new Date(decidedAt.getTime() + 30 * 86_400_000);
}

export const APPLICATION_FIELD_TYPES = ['text', 'long_text', 'select', 'url', 'email', 'checkbox'] as const;
/** Each type as the form editor offers it. */
export const APPLICATION_FIELD_TYPE_WORDS: Record<(typeof APPLICATION_FIELD_TYPES)[number], string> = {
  text: 'Short text', long_text: 'Long text', select: 'Choice from a list', url: 'Web address', email: 'Email address', checkbox: 'Checkbox (yes or no)',
};
export type ApplicationFieldType = (typeof APPLICATION_FIELD_TYPES)[number];

/** A question the brand asks on its application page. */
export interface ApplicationField {
  key: string;
  label: string;
  type: ApplicationFieldType;
  required: boolean;
  options?: string[];
}

/**
 * The answers as the form asked them: the brand's questions in their order, then answers to
 * questions since removed (stored JSON keeps no order of its own).
 */
export function answersInFormOrder(fields: readonly ApplicationField[], answers: Record<string, unknown>): { key: string; label: string; value: string }[] {
  const asked = fields.filter((f) => f.key in answers).map((f) => ({ key: f.key, label: f.label, value: String(answers[f.key]) }));
  const removed = Object.keys(answers).filter((k) => !fields.some((f) => f.key === k)).sort().map((k) => ({ key: k, label: k, value: String(answers[k]) }));
  return [...asked, ...removed];
}

/**
 * The applicant's answers to the brand's fields: only the fields the brand set are kept (any
 * other key is dropped), each checked by its type. Problems are keyed by the field's form name.
 */
export function readAnswers(fields: readonly ApplicationField[], input: Record<string, unknown>): { answers: Record<string, string>; problems: Record<string, string> } {
  const answers: Record<string, string> = {};
  const problems: Record<string, string> = {};
  for (const field of fields) {
    const raw = input[`answer_${field.key}`];
    const value = typeof raw === 'string' ? raw.trim() : '';
    const name = `answer_${field.key}`;
    if (!value) {
      if (field.required) problems[name] = field.type === 'checkbox' ? `${field.label}: tick this box to apply.` : `${field.label}: this answer is required.`;
      continue;
    }
    // A ticked box is stored as "yes" (an unticked one sends nothing).
    if (field.type === 'checkbox') answers[field.key] = 'yes';
    else if (value.length > (field.type === 'long_text' ? 5000 : 1000)) problems[name] = `${field.label}: at most ${field.type === 'long_text' ? 5000 : 1000} characters.`;
    else if (field.type === 'email' && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value)) problems[name] = `${field.label}: give an email address, like name@example.com.`;
    else if (field.type === 'select' && !(field.options ?? []).includes(value)) problems[name] = `${field.label}: choose one of the options.`;
    else if (field.type === 'url' && !isHttpUrl(value)) problems[name] = `${field.label}: give an address starting with https:// or http://.`;
    else answers[field.key] = value;
  }
  return { answers, problems };
}

/**
 * The brand's questions as it types them, one per line: `key | Label | type | required`, where
 * type is text, long_text, url, email, checkbox, or `select: option one, option two`. Every
 * line's problem is named. (The dashboard's editor writes the same list: src/core/application-form.ts.)
 */
export function parseFieldLines(text: string): { fields: ApplicationField[]; problems: string[] } {
  const fields: ApplicationField[] = [];
  const problems: string[] = [];
  text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .forEach((line, index) => {
      if (!line) return;
      const [key = '', label = '', type = 'text', required = ''] = line.split('|').map((part) => part.trim());
      const [kind = '', options = ''] = type.split(':').map((part) => part.trim());
      const where = `Line ${index + 1}`;
      if (!/^[a-z][a-z0-9_]{0,39}$/.test(key)) problems.push(`${where}: the key is lower-case letters, digits and _ (like website).`);
      else if (fields.some((f) => f.key === key)) problems.push(`${where}: the key ${key} is used twice.`);
      if (!label || label.length > 200) problems.push(`${where}: give a label of at most 200 characters.`);
      if (!(APPLICATION_FIELD_TYPES as readonly string[]).includes(kind)) problems.push(`${where}: the type is text, long_text, url, email, checkbox or select: a, b, c.`);
      const choices = options.split(',').map((o) => o.trim()).filter(Boolean);
      if (kind === 'select' && choices.length === 0) problems.push(`${where}: a select needs its options, like select: a, b, c.`);
      if (required && required !== 'required') problems.push(`${where}: the last part is "required" or nothing.`);
      fields.push({ key, label, type: kind as ApplicationFieldType, required: required === 'required', ...(kind === 'select' ? { options: choices } : {}) });
    });
  if (fields.length > 20) problems.push('At most 20 questions.');
  return { fields, problems };
}

function isHttpUrl(value: string): boolean {
  try {
    return ['http:', 'https:'].includes(new URL(value).protocol);
  } catch {
    return false;
  }
}

// ---- import ------------------------------------------------------------------------------------

/** Column names (normalized: lower case, anything else than a-z0-9 as _) for each partner field. */
export const IMPORT_COLUMNS = {
  name: ['name', 'full_name', 'affiliate_name', 'promoter_name', 'partner_name'],
  first_name: ['first_name', 'firstname', 'first'],
  last_name: ['last_name', 'lastname', 'last'],
  email: ['email', 'email_address', 'email_id', 'affiliate_email', 'promoter_email', 'partner_email'],
  code: ['code', 'referral_code', 'token', 'ref_id', 'default_ref_id', 'ref', 'referral_id', 'slug', 'link_code', 'short_link', 'coupon_code_or_ref'],
  paypal_email: ['paypal_email', 'paypal'],
  wise_email: ['wise_email', 'wise'],
  group: ['group', 'campaign', 'campaign_name', 'group_slug'],
  tags: ['tags', 'tag'],
} as const;
export type ImportField = keyof typeof IMPORT_COLUMNS;

/**
 * Where each field is read from, by the file's header. The services brands switch from name
 * their columns after their affiliate fields (Rewardful: first_name, last_name, email, token,
 * paypal_email, wise_email, campaign; FirstPromoter: email, first_name, last_name, ref_id;
 * Tolt: first_name, last_name, email, referral code): all are in the lists above.
 */
export function mapColumns(header: readonly string[], ignored: ReadonlySet<number> = new Set()): Partial<Record<ImportField, number>> {
  const normalized = header.map((column, index) => (ignored.has(index) ? '' : normalizeColumn(column)));
  const mapping: Partial<Record<ImportField, number>> = {};
  for (const [field, names] of Object.entries(IMPORT_COLUMNS) as [ImportField, readonly string[]][]) {
    const keys = names.map(normalizeColumn);
    const index = normalized.findIndex((column) => keys.includes(column));
    if (index >= 0) mapping[field] = index;
  }
  return mapping;
}

export const normalizeColumn = (column: string): string =>
  column
    .replace(/^\uFEFF/, '')
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ''); // case and punctuation ignored: E-mail, e_mail and EMAIL are one column

export interface ImportRow {
  line: number;
  name: string;
  email: string | null;
  code: string | null;
  payoutMethod: 'paypal' | 'wise' | null;
  payoutReference: string | null;
  group: string | null;
  tags: string[];
}

const IMPORT_FIELD_LABEL: Record<ImportField, string> = {
  name: 'name',
  first_name: 'first name',
  last_name: 'last name',
  email: 'email',
  code: 'referral code',
  paypal_email: 'payout email',
  wise_email: 'payout email',
  group: 'group',
  tags: 'tags',
};

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const CODE = /^[A-Za-z0-9_-]{3,64}$/;

/** One CSV row read through the mapping: the row, or every problem it has. */
export function readImportRow(cells: readonly string[], mapping: Partial<Record<ImportField, number>>, line: number): { row: ImportRow } | { problems: string[] } {
  const cell = (field: ImportField) => (mapping[field] === undefined ? '' : (cells[mapping[field]!] ?? '').trim());
  const problems: string[] = [];
  // A cell PostgreSQL cannot store (a NUL) is this row's problem, found by the dry run as by the import.
  for (const field of Object.keys(mapping) as ImportField[]) {
    const unstorable = field === 'name' || field === 'first_name' || field === 'last_name' ? null : unstorableText(cell(field));
    if (unstorable) problems.push(`${IMPORT_FIELD_LABEL[field]} ${unstorable}`);
  }
  const name = cell('name') || [cell('first_name'), cell('last_name')].filter(Boolean).join(' ');
  if (!name) problems.push('no name');
  else if (name.length > 255) problems.push('name longer than 255 characters');
  else if (hasControlCharacter(name)) problems.push(`name ${NO_CONTROL_CHARACTERS}`);
  else if (unstorableText(name)) problems.push(`name ${unstorableText(name)}`);
  const email = cell('email') || null;
  if (email && !EMAIL.test(email)) problems.push(`"${email.slice(0, 80)}" is not an email address`);
  const code = cell('code') || null;
  if (code && !CODE.test(code)) problems.push(`referral code "${code.slice(0, 80)}" must be 3 to 64 letters, digits, - or _`);
  const paypal = cell('paypal_email');
  const wise = cell('wise_email');
  const payoutReference = paypal || wise || null;
  if (payoutReference && !EMAIL.test(payoutReference)) problems.push(`payout email "${payoutReference.slice(0, 80)}" is not an email address`);
  const tags = cell('tags')
    .split(/[;,|]/)
    .map((t) => t.trim().toLowerCase())
    .filter(Boolean);
  if (problems.length) return { problems };
  return {
    row: { line, name, email, code, payoutMethod: paypal ? 'paypal' : wise ? 'wise' : null, payoutReference, group: cell('group') || null, tags },
  };
}

// ---- import: where each source group goes -------------------------------------------------------

/**
 * What a source group/campaign value is mapped to: an existing group (by id, name or slug), a
 * group the import makes (by name), or no group (null).
 */
export type GroupTarget = { group: string } | { new_group: string } | null;

export interface ProgramGroup {
  id: number;
  name: string;
  slug: string;
}

export type GroupMapsTo = 'existing' | 'new' | 'none' | 'unmapped';

/** One distinct value of the file's group column: how many rows carry it and where they go. */
export interface SourceGroup {
  source: string;
  rows: number;
  maps_to: GroupMapsTo;
  /** The existing group (maps_to existing), else null. */
  group_id: number | null;
  /** The existing group's name, or the name of the group the import makes (maps_to new). */
  group_name: string | null;
}

/** A new group's address name from its name: letters and digits, the rest as -, at most 63. */
export function groupSlugOf(name: string): string {
  const slug = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 63)
    .replace(/-+$/, '');
  return slug || 'imported-group';
}

const findGroup = (groups: readonly ProgramGroup[], ref: string): ProgramGroup | undefined => {
  const key = ref.trim().toLowerCase();
  return (
    (/^[0-9]+$/.test(key) ? groups.find((g) => g.id === Number(key)) : undefined) ??
    groups.find((g) => g.name.toLowerCase() === key) ??
    groups.find((g) => g.slug === key)
  );
};

/**
 * Where each source value goes under the mapping. A value the mapping does not name keeps the
 * rule without one (a group of that slug, else its rows are refused). A new group whose name a
 * group already has is that group (so the same file and mapping again make no second group); one
 * whose address name another group holds is refused, as is an existing group that is not there.
 */
export function resolveGroupMapping(
  counts: ReadonlyMap<string, number>,
  mapping: Readonly<Record<string, GroupTarget>>,
  groups: readonly ProgramGroup[],
): { sources: SourceGroup[]; problems: Record<string, string> } {
  const problems: Record<string, string> = {};
  const sources: SourceGroup[] = [];
  for (const [source, rows] of counts) {
    const where = `group_mapping.${source}`;
    const mapped = Object.hasOwn(mapping, source);
    const target = mapped ? mapping[source] : undefined;
    if (!mapped) {
      const group = groups.find((g) => g.slug === source.toLowerCase());
      sources.push(group ? { source, rows, maps_to: 'existing', group_id: group.id, group_name: group.name } : { source, rows, maps_to: 'unmapped', group_id: null, group_name: null });
    } else if (target === null || target === undefined) {
      sources.push({ source, rows, maps_to: 'none', group_id: null, group_name: null });
    } else if ('group' in target) {
      const group = findGroup(groups, target.group);
      if (!group) problems[where] = `"${source.slice(0, 60)}": no group "${target.group.slice(0, 60)}" in this program.`;
      else sources.push({ source, rows, maps_to: 'existing', group_id: group.id, group_name: group.name });
    } else {
      const name = target.new_group.trim();
      const same = groups.find((g) => g.name.toLowerCase() === name.toLowerCase());
      const holder = groups.find((g) => g.slug === groupSlugOf(name));
      if (same) sources.push({ source, rows, maps_to: 'existing', group_id: same.id, group_name: same.name });
      else if (holder) problems[where] = `"${source.slice(0, 60)}": the group "${holder.name.slice(0, 60)}" already has the address name "${holder.slug}": map to it, or name the new group otherwise.`;
      else sources.push({ source, rows, maps_to: 'new', group_id: null, group_name: name });
    }
  }
  // Two names that differ only in punctuation would make one address name twice.
  const newSlugs = new Map<string, string>();
  for (const s of sources.filter((x) => x.maps_to === 'new')) {
    const slug = groupSlugOf(s.group_name!);
    const other = newSlugs.get(slug);
    if (other !== undefined && other.toLowerCase() !== s.group_name!.toLowerCase()) {
      problems[`group_mapping.${s.source}`] = `"${s.source.slice(0, 60)}": the new groups "${other.slice(0, 60)}" and "${s.group_name!.slice(0, 60)}" would have one address name "${slug}": give them one name or two distinct ones.`;
    }
    newSlugs.set(slug, other ?? s.group_name!);
  }
  return { sources, problems };
}
