// Program settings rules, shared by the admin API and `affix init` (CLI).
import { AffixError, errors } from './errors.js';
import { NO_CONTROL_CHARACTERS, hasControlCharacter } from './names.js';
import { normalizeOrigin } from './origins.js';
import { COMMISSION_TYPES, type CommissionType, LEAD_AUTH_VALUES, type LeadAuth } from './types.js';

export interface ProgramSettings {
  name: string;
  domain: string;
  commissionType: CommissionType;
  commissionRate: string;
  attributionWindowDays: number;
  leadAuth: LeadAuth;
  allowedOrigins: string[];
  recurringDurationMonths: number | null;
  /** Off: USD, EUR and VND only (the contract); on: every ISO 4217 currency (src/core/currency.ts). */
  acceptAllCurrencies: boolean;
}

const MAX_WINDOW_DAYS = 3650;
/** A 400 that names its field, so a form can show it beside that field. */
const fieldError = (field: string, message: string) => errors.invalid(message, { [field]: message });
const isBlank = (value: unknown) => value === undefined || value === null || (typeof value === 'string' && value.trim() === '');

/** A JSON boolean, or a form's checkbox value ("true", "on"; "false" or "" for off). */
function booleanField(value: unknown, field: string): boolean {
  if (typeof value === 'boolean') return value;
  if (value === 'true' || value === 'on') return true;
  if (value === 'false' || value === '') return false;
  throw fieldError(field, `${field} must be true or false`);
}

function commissionRate(value: unknown): string {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw fieldError('commission_rate', 'commission_rate must be a positive number');
  }
  // Percent to the hundredth (12.34 %), amounts to the cent: 12.345 is a typo, not a rate.
  const text = String(value);
  if (!/^\d+(\.\d{1,2})?$/.test(text)) throw fieldError('commission_rate', 'commission_rate must have at most 2 decimal places');
  return text;
}

function commissionType(value: unknown): CommissionType {
  if (typeof value !== 'string' || !COMMISSION_TYPES.includes(value as CommissionType)) {
    throw fieldError('commission_type', `Invalid commission_type: ${String(value)}. Valid: ${COMMISSION_TYPES.join(', ')}`);
  }
  return value as CommissionType;
}

function positiveInteger(value: unknown, field: string, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value <= 0 || value > max) {
    throw fieldError(field, `${field} must be an integer from 1 to ${max}`);
  }
  return value;
}

function leadAuth(value: unknown): LeadAuth {
  if (typeof value !== 'string' || !LEAD_AUTH_VALUES.includes(value as LeadAuth)) {
    throw fieldError('lead_auth', `lead_auth must be one of: ${LEAD_AUTH_VALUES.join(', ')}`);
  }
  return value as LeadAuth;
}

/** Origins are scheme://host[:port], exactly what browsers send in the Origin header. */
function allowedOrigins(value: unknown): string[] {
  if (!Array.isArray(value)) throw fieldError('allowed_origins', 'allowed_origins must be an array of origins like https://www.example.com');
  return value.map((item) => {
    let url: URL | null = null;
    try {
      url = typeof item === 'string' ? new URL(item) : null;
    } catch {
      url = null;
    }
    if (!url || !['http:', 'https:'].includes(url.protocol) || normalizeOrigin(item) !== url.origin.toLowerCase()) {
      throw fieldError('allowed_origins', `allowed_origins: ${String(item)} is not an origin like https://www.example.com`);
    }
    return url.origin.toLowerCase();
  });
}

function textField(value: unknown, field: string): string {
  if (typeof value !== 'string' || value.trim() === '' || value.length > 255) {
    throw fieldError(field, `${field} must be a non-empty string of at most 255 characters`);
  }
  if (hasControlCharacter(value.trim())) throw fieldError(field, `${field} ${NO_CONTROL_CHARACTERS}`);
  return value.trim();
}

const SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;
const HOST_NAME = /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,61}[a-z0-9](?::\d{1,5})?$/i;
const LOCAL_HOST = /^(?:localhost|\d{1,3}(?:\.\d{1,3}){3})(?::\d{1,5})?$/i;

/**
 * The brand's site: a host name (shop.example.com, localhost:3000), stored lower-case. A URL is
 * refused, naming the host to type instead: links are built as <scheme>://<domain>/?aff=<code>.
 */
function domainField(value: unknown): string {
  const text = textField(value, 'domain');
  const host = text.replace(SCHEME, '').split(/[/?#]/)[0]!;
  const isHost = HOST_NAME.test(host) || LOCAL_HOST.test(host);
  if (isHost && host !== text) {
    throw fieldError('domain', `Type the host name only, without https:// or a path: ${host.toLowerCase()}`);
  }
  if (!isHost) throw fieldError('domain', 'domain must be a host name such as shop.example.com');
  return text.toLowerCase();
}

/** http for localhost and IP addresses (a local try-out has no certificate), https for the rest. */
export function siteOrigin(domain: string): string {
  return `${LOCAL_HOST.test(domain) ? 'http' : 'https'}://${domain}`;
}

/** A partner's referral link: the program's site with ?aff=<code>. */
export function referralUrl(domain: string, code: string): string {
  return `${siteOrigin(domain)}/?aff=${encodeURIComponent(code)}`;
}

export interface DeepLinkInput {
  /** A page of the program's site: /pricing, /blog/post-1 (no other host, no query). */
  path?: string;
  /** The partner's own tag for where they placed the link (a post, a video). */
  sub_id?: string;
  utm_source?: string;
  utm_medium?: string;
  utm_campaign?: string;
}

const PATH = /^\/[A-Za-z0-9\-._~!$&'()*+,;=:@%/]*$/;
const SUB_ID = /^[A-Za-z0-9_.-]{1,64}$/;

/**
 * A referral link to any page of the program's site, with a sub-ID and UTM tags. The tracker
 * reads ?aff= on every page, so the click is the link's wherever it lands. Every problem is
 * named beside its field.
 */
export function deepLink(domain: string, code: string, input: DeepLinkInput): string {
  const fields: Record<string, string> = {};
  const typed = (input.path ?? '').trim();
  const path = typed === '' ? '/' : typed.startsWith('/') ? typed : `/${typed}`;
  if (path.startsWith('//') || !PATH.test(path) || path.length > 500) fields.path = `A page of ${domain}, like /pricing (no other address, no ? or #).`;
  const subId = (input.sub_id ?? '').trim();
  if (subId && !SUB_ID.test(subId)) fields.sub_id = 'Letters, digits, _ . and -, up to 64.';
  const utm: [string, string][] = [];
  for (const name of ['utm_source', 'utm_medium', 'utm_campaign'] as const) {
    const value = (input[name] ?? '').trim();
    if (value.length > 100) fields[name] = 'At most 100 characters.';
    else if (value) utm.push([name, value]);
  }
  if (Object.keys(fields).length) throw errors.invalid(Object.values(fields)[0]!, fields);
  const query = new URLSearchParams([['aff', code], ...(subId ? [['sub_id', subId] as [string, string]] : []), ...utm]);
  return `${siteOrigin(domain)}${path}?${query}`;
}

/**
 * The sub-ID a click's page address carries (?sub_id=, the link builder's), or null when it has
 * none or one the builder would not make: a click is never refused for it.
 */
export function subIdOfUrl(url: URL): string | null {
  const value = url.searchParams.get('sub_id')?.trim() ?? '';
  return SUB_ID.test(value) ? value : null;
}

export type RawProgramInput = Record<string, unknown>;

/** Validates a new program. `cookie_duration` (CLI) is an alias of `attribution_window_days`. */
export function parseNewProgram(raw: RawProgramInput): ProgramSettings {
  if (['name', 'domain', 'commission_type', 'commission_rate'].some((field) => isBlank(raw[field]))) {
    const missing = ['name', 'domain', 'commission_type', 'commission_rate'].filter((field) => isBlank(raw[field]));
    throw errors.invalid(
      'Missing required fields: name, domain, commission_type, commission_rate',
      Object.fromEntries(missing.map((field) => [field, 'This field is required.'])),
    );
  }
  const window = raw.attribution_window_days ?? raw.cookie_duration;
  // In the order the API has always checked them: the first bad field's message is the answer.
  return everyField({
    commissionType: () => commissionType(raw.commission_type),
    commissionRate: () => percentAtMost100(raw.commission_type, commissionRate(raw.commission_rate)),
    name: () => textField(raw.name, 'name'),
    domain: () => domainField(raw.domain),
    attributionWindowDays: () => (isBlank(window) ? 60 : positiveInteger(window, 'attribution_window_days', MAX_WINDOW_DAYS)),
    leadAuth: () => (isBlank(raw.lead_auth) ? 'browser_allowed' : leadAuth(raw.lead_auth)),
    // Absent: the brand's own site, so its clicks work from the first page view. [] means none.
    allowedOrigins: () => (isBlank(raw.allowed_origins) ? defaultOrigins(textField(raw.domain, 'domain')) : allowedOrigins(raw.allowed_origins)),
    recurringDurationMonths: () => (isBlank(raw.duration_months) ? null : positiveInteger(raw.duration_months, 'duration_months', 600)),
    acceptAllCurrencies: () => (raw.accept_all_currencies === undefined || raw.accept_all_currencies === null ? false : booleanField(raw.accept_all_currencies, 'accept_all_currencies')),
  });
}

/** A reward (a group's, or one partner's override): type, rate and duration, every bad field named. */
export function parseReward(raw: RawProgramInput): { commissionType: CommissionType; commissionRate: string; recurringDurationMonths: number | null } {
  const missing = ['commission_type', 'commission_rate'].filter((field) => isBlank(raw[field]));
  if (missing.length) throw errors.invalid(`Missing required fields: ${missing.join(', ')}`, Object.fromEntries(missing.map((f) => [f, 'This field is required.'])));
  const rate = typeof raw.commission_rate === 'string' && raw.commission_rate.trim() !== '' ? Number(raw.commission_rate) : raw.commission_rate;
  return everyField({
    commissionType: () => commissionType(raw.commission_type),
    commissionRate: () => percentAtMost100(raw.commission_type, commissionRate(rate)),
    recurringDurationMonths: () => (isBlank(raw.duration_months) ? null : positiveInteger(Number(raw.duration_months), 'duration_months', 600)),
  });
}

export function percentAtMost100(type: unknown, rate: string): string {
  if ((type === 'percent' || type === 'recurring_percent') && Number(rate) > 100) {
    throw fieldError('commission_rate', 'commission_rate must be at most 100 for percent commissions');
  }
  return rate;
}

/**
 * Runs every field's check and reports every bad field at once (a form shows each beside its
 * field); the message is the first one's, as the API has always answered.
 */
function everyField<T extends Record<string, () => unknown>>(checks: T): { [K in keyof T]: ReturnType<T[K]> } {
  const values: Record<string, unknown> = {};
  const fields: Record<string, string> = {};
  let first: string | null = null;
  for (const [name, check] of Object.entries(checks)) {
    try {
      values[name] = check();
    } catch (error) {
      const named = error instanceof AffixError ? error.init.fields : undefined;
      if (!named) throw error;
      first ??= (error as AffixError).message;
      Object.assign(fields, named);
    }
  }
  if (first !== null) throw errors.invalid(first, fields);
  return values as { [K in keyof T]: ReturnType<T[K]> };
}

/**
 * The origins a program's own domain serves: https://<domain> and https://www.<domain> (or
 * the bare domain for a www. one); http:// for localhost and addresses. None when the domain
 * is not a host name.
 */
export function defaultOrigins(domain: string): string[] {
  let host: string;
  try {
    host = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(domain) ? domain : `https://${domain}`).host.toLowerCase();
  } catch {
    return [];
  }
  if (!host || host.includes('@')) return [];
  const hostname = host.replace(/:\d+$/, '');
  if (hostname === 'localhost' || /^[\d.]+$/.test(hostname) || hostname.startsWith('[')) return [`http://${host}`];
  if (!hostname.includes('.')) return [];
  const other = hostname.startsWith('www.') ? host.slice(4) : `www.${host}`;
  return [`https://${host}`, `https://${other}`];
}

/**
 * What a program pays, in the words of the rule that pays it (docs/architecture.md, "Commission types"): every
 * surface (CLI, agent files, dashboard, portal) shows this one text, e.g. "20% of the first paid
 * sale", "12.5% of every sale for 12 months".
 */
export function describeCommission(type: CommissionType, rate: string | number, durationMonths: number | null): string {
  const amount = type === 'percent' || type === 'recurring_percent' ? `${Number(rate)}%` : Number(rate).toFixed(2);
  const of = type === 'percent' || type === 'recurring_percent' ? 'of' : 'on';
  if (type === 'percent' || type === 'fixed') return `${amount} ${of} the first paid sale`;
  return `${amount} ${of} every sale${durationMonths ? ` for ${durationMonths} months` : ''}`;
}

/** The commission types as a form offers them. */
export const COMMISSION_TYPE_WORDS: Record<CommissionType, string> = {
  percent: 'Percent of the first paid sale',
  fixed: 'Fixed amount on the first paid sale',
  recurring_percent: 'Percent of every sale (optionally for N months)',
  recurring_fixed: 'Fixed amount on every sale (optionally for N months)',
};

/** What each lead_auth setting means, as the settings form says it. */
export const LEAD_AUTH_WORDS: Record<LeadAuth, string> = {
  browser_allowed: 'The browser tracker or your server may report signups',
  server_required: 'Only your server may report signups (with the API key)',
};

/** Validates a partial update: only the fields present are checked and returned. */
export function parseProgramUpdate(raw: RawProgramInput): Partial<ProgramSettings> {
  const window = raw.attribution_window_days ?? raw.cookie_duration;
  const present = (value: unknown, check: () => unknown) => (value === undefined ? () => undefined : check);
  const checked = everyField({
    name: present(raw.name, () => textField(raw.name, 'name')),
    domain: present(raw.domain, () => domainField(raw.domain)),
    commissionType: present(raw.commission_type, () => commissionType(raw.commission_type)),
    commissionRate: present(raw.commission_rate, () => commissionRate(raw.commission_rate)),
    attributionWindowDays: present(window, () => positiveInteger(window, 'attribution_window_days', MAX_WINDOW_DAYS)),
    leadAuth: present(raw.lead_auth, () => leadAuth(raw.lead_auth)),
    allowedOrigins: present(raw.allowed_origins, () => allowedOrigins(raw.allowed_origins)),
    recurringDurationMonths: present(raw.duration_months, () => (raw.duration_months === null ? null : positiveInteger(raw.duration_months, 'duration_months', 600))),
    acceptAllCurrencies: present(raw.accept_all_currencies, () => booleanField(raw.accept_all_currencies, 'accept_all_currencies')),
  });
  return Object.fromEntries(Object.entries(checked).filter(([, value]) => value !== undefined)) as Partial<ProgramSettings>;
}

/** An update checked against the program it changes: a percent rate stays at most 100. */
export function checkUpdateAgainst(current: { commission_type: CommissionType; commission_rate: number }, update: Partial<ProgramSettings>): Partial<ProgramSettings> {
  percentAtMost100(update.commissionType ?? current.commission_type, update.commissionRate ?? String(current.commission_rate));
  return update;
}
