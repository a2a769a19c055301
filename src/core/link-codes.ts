// A partner's own link code (the ?aff= value they share), chosen on the application page or in
// the portal instead of a random one. The brand's own codes (admin API, dashboard) keep only the
// format rule: a brand may name a link "test"; a partner may not take a word people would read
// as the brand's or Affix's own.
import { MESSAGES, errors } from './errors.js';

/** 3 to 64 letters, digits, - or _: safe in a URL as it is. */
export const LINK_CODE = /^[A-Za-z0-9_-]{3,64}$/;

/** Words no partner may take as their code, in any case; nor any code that starts with "affix". */
export const RESERVED_LINK_CODES = ['admin', 'api', 'app', 'apply', 'dashboard', 'portal', 'www', 'affix', 'test', 'login', 'signin', 'signup', 'support', 'help', 'billing', 'official', 'brand', 'partner', 'partners', 'null', 'undefined'] as const;

/** The catalogue's word for what is wrong with a code a partner typed, or null when it is fine. */
export function ownLinkCodeProblem(code: string): string | null {
  if (!LINK_CODE.test(code)) return MESSAGES.linkCodeFormat;
  const lower = code.toLowerCase();
  if ((RESERVED_LINK_CODES as readonly string[]).includes(lower) || lower.startsWith('affix')) return MESSAGES.linkCodeReserved;
  return null;
}

/** A partner's typed code, trimmed; empty is null (a random one). Refused beside `field`. */
export function ownLinkCode(value: unknown, field: string): string | null {
  if (value === undefined || value === null) return null;
  const code = String(value).trim();
  if (code === '') return null;
  const problem = ownLinkCodeProblem(code);
  if (problem) throw errors.invalid(problem, { [field]: problem });
  return code;
}
