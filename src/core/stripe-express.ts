// A partner's Stripe Express account (docs/payouts.md, "Stripe Express"): where it stands, what
// Stripe still needs in words a partner understands, and the key that makes its creation safe
// to repeat. Pure: the calls are src/platform/stripe-accounts.ts, the rows src/db/money/partner-stripe-accounts.ts.
import { hashEmail } from './secrets.js';

/** Stripe's state of an account, as its `account` object says it. */
export interface ExpressAccountState {
  chargesEnabled: boolean;
  payoutsEnabled: boolean;
  detailsSubmitted: boolean;
  currentlyDue: string[];
  pastDue: string[];
  disabledReason: string | null;
}

export type ExpressStage = 'not_connected' | 'needs_info' | 'in_review' | 'connected' | 'rejected';

/**
 * Where the account stands for the partner. Only `payouts_enabled` pays: a run pays by transfer
 * only then (the partner's payout details point at the account while it holds).
 */
export function expressStage(state: ExpressAccountState | null): ExpressStage {
  if (!state) return 'not_connected';
  if (state.disabledReason?.startsWith('rejected.')) return 'rejected';
  if (state.payoutsEnabled) return 'connected';
  if (state.currentlyDue.length || state.pastDue.length || !state.detailsSubmitted) return 'needs_info';
  return 'in_review';
}

/** Stripe's requirement names, by their last meaningful part, in the partner's words. */
const REQUIREMENT_WORDS: Array<[RegExp, string]> = [
  [/^external_account$/, 'a bank account or debit card to receive your payouts'],
  [/^tos_acceptance\./, 'your acceptance of Stripe’s terms of service'],
  [/^business_type$/, 'whether you are paid as an individual or a company'],
  [/^business_profile\.(url|product_description)$/, 'your website, or a few words on what you do'],
  [/^business_profile\.mcc$/, 'the kind of business you run'],
  [/^business_profile\./, 'your business profile'],
  [/\.verification\.additional_document$/, 'a document that proves your address'],
  [/\.verification\.document$/, 'a photo of your identity document'],
  [/\.dob\./, 'your date of birth'],
  [/\.(first_name|last_name|first_name_kana|last_name_kana|first_name_kanji|last_name_kanji)$/, 'your legal name'],
  [/\.address\./, 'your address'],
  [/\.(ssn_last_4|id_number)$/, 'your tax or national id number'],
  [/\.email$/, 'your email address'],
  [/\.phone$/, 'your phone number'],
  [/^company\.tax_id$/, 'your company’s tax id'],
  [/^company\./, 'your company’s details'],
  [/^(representative|owners|directors|executives|person_[A-Za-z0-9]+)\./, 'details of the people behind your company'],
  [/^settings\./, 'your Stripe account’s settings'],
];

/** What Stripe still needs, each thing once, in words (an unknown name: "other details Stripe asks for"). */
export function requirementsInWords(requirements: string[]): string[] {
  const words: string[] = [];
  for (const name of requirements) {
    const said = REQUIREMENT_WORDS.find(([pattern]) => pattern.test(name))?.[1] ?? 'other details Stripe asks for';
    if (!words.includes(said)) words.push(said);
  }
  // The catch-all last, whatever order Stripe listed them in.
  return [...words.filter((w) => w !== 'other details Stripe asks for'), ...words.filter((w) => w === 'other details Stripe asks for')];
}

const DISABLED_WORDS: Record<string, string> = {
  'requirements.past_due': 'Stripe paused payouts: some details are past due.',
  'requirements.pending_verification': 'Stripe is verifying the details you gave.',
  under_review: 'Stripe is reviewing the account.',
  platform_paused: 'Payouts to this account are paused.',
  listed: 'Stripe is reviewing the account.',
};

/** Why the account cannot be paid, when Stripe says (null: it has not said). */
export function disabledInWords(reason: string | null): string | null {
  if (!reason) return null;
  if (reason.startsWith('rejected.')) return 'Stripe declined this account. Choose another way to be paid.';
  return DISABLED_WORDS[reason] ?? 'Stripe has paused the account.';
}

/**
 * The idempotency key of an account's creation: the same enrollment, country and email give the
 * same key, so a retry after a lost answer gets the account Stripe made, never a second one.
 * (Stripe keeps keys 24 hours; the account id is stored as soon as the answer arrives.)
 */
export const expressAccountKey = (partnerId: number, country: string, email: string) =>
  `affix-express-${partnerId}-${country}-${hashEmail(email).toString('hex').slice(0, 16)}`;
