// The one error catalogue. The core throws these; src/http/respond.ts turns them into
// the spec's two envelopes. Messages are the spec's, character for character.

import { MAX_AMOUNT_CENTS } from './money.js';

export type Envelope = 'platform' | 'typed';

export interface AffixErrorInit {
  /** Stable machine code (`error.code`). */
  code?: string;
  /** Platform envelope `error.details`. */
  details?: Record<string, unknown>;
  envelope?: Envelope;
  /** Typed envelope: extra members of `error` (hint, docs_url, retry_after_seconds...). */
  extra?: Record<string, unknown>;
  /** Top-level body members kept for older clients (410 link_disabled). */
  legacyTopLevel?: Record<string, unknown>;
  headers?: Record<string, string>;
  /** What caused it (kept for the log, never sent). */
  cause?: unknown;
  /** Which input fields are wrong and why (forms show each beside its field; not sent on the wire). */
  fields?: Record<string, string>;
}

export class AffixError extends Error {
  readonly status: number;
  readonly init: AffixErrorInit;
  constructor(status: number, message: string, init: AffixErrorInit = {}) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = 'AffixError';
    this.status = status;
    this.init = init;
  }
}

export const MESSAGES = {
  // 401 on Bearer routes
  malformedAuth: 'Missing or malformed Authorization header. Expected: Bearer <token>',
  missingToken: 'Missing API token',
  invalidToken: 'Invalid API token',
  // click
  affiliateUrlRequired: 'affiliate_url is required',
  invalidAffiliateUrl: 'Invalid affiliate_url',
  noAffParam: 'No aff parameter found in affiliate_url',
  linkNotFound: 'Referral link not found',
  invalidLinkConfig: 'Invalid referral link configuration',
  linkDisabled: 'This referral link is disabled.',
  linkDisabledHint: 'The partner or the brand turned this link off; no click was recorded. Ask the partner for an active link.',
  clickFailed: 'Click tracking failed',
  // lead
  leadIdentifierRequired: 'click_id or customer_key is required',
  leadCustomerNotFound: 'Customer not found. Provide a valid click_id or customer_key.',
  customerOtherProgram: 'Customer does not belong to this program',
  leadFailed: 'Lead tracking failed',
  // sale
  transactionIdRequired: 'transaction_id is required and must be a string',
  amountRequired: 'amount_cents is required and must be a positive integer',
  amountTooLarge: `amount_cents must be at most ${MAX_AMOUNT_CENTS}`,
  refundAmountTooLarge: `refund_amount_cents must be at most ${MAX_AMOUNT_CENTS}`,
  occurredAtInvalid: 'occurred_at must be an ISO 8601 time within the last 30 days',
  providerPaymentIdInvalid: 'provider_payment_id must be a string of 1 to 255 characters',
  livemodeInvalid: 'livemode must be a boolean',
  saleCustomerNotFound: 'Customer not found. Provide customer_key or click_id.',
  noAttributionInProgram: 'No affiliate attribution found for this customer in this program',
  noPartnerProgram: 'No partner-program relationship found for this customer',
  partnerIdRequired: 'partnerId required to create commission',
  duplicateTransaction: 'Duplicate transaction_id. This sale has already been recorded.',
  saleFailed: 'Sale tracking failed',
  commissionFailed: 'Failed to create commission',
  // refund
  refundTransactionIdRequired: 'transaction_id is required',
  refundReasonInvalid: 'reason must be refund or chargeback',
  saleNotFound: 'Sale not found for transaction_id',
  refundFailed: 'Refund tracking failed',
  // test mode
  programMismatch: 'program_id does not match the API key',
  // limits
  tooManyRequests: 'Too many requests.',
  // readiness
  readinessFailed: 'Failed to compute readiness. Retry shortly.',
  // spec §7: a suspended account (CLI login callback; ours: every management route)
  accountBlocked: 'Your account has been suspended.',
  // ours: the database is unreachable or too slow
  unavailable: 'Service temporarily unavailable. Nothing was recorded; retry shortly.',
  valueRejected: 'The request contains a value that cannot be stored',
  // ours: link codes (the brand's and a partner's own)
  linkCodeFormat: 'Link code must be 3 to 64 letters, digits, - or _.',
  linkCodeReserved: 'This code is reserved: choose another (not admin, api, dashboard, portal, www, test or a word starting with affix).',
  linkCodeTaken: 'This code is already taken: choose another.',
} as const;

export const UNAVAILABLE_RETRY_SECONDS = 5;

export const PROVIDERS = ['stripe', 'paddle', 'lemonsqueezy', 'paypal', 'chargebee', 'braintree', 'shopify', 'manual', 'other'] as const;
export const providerMessage = `provider must be one of: ${PROVIDERS.join(', ')}`;

export const errors = {
  badRequest: (message: string, details?: Record<string, unknown>) => new AffixError(400, message, { details }),
  /** A 400 about named fields: `fields` maps each to its problem (the message names the first). */
  invalid: (message: string, fields: Record<string, string>) => new AffixError(400, message, { fields }),
  noAttribution: (message: string) => new AffixError(400, message, { code: 'no_attribution' }),
  unauthorized: (message: string) => new AffixError(401, message, { code: 'unauthorized' }),
  forbidden: (message: string) => new AffixError(403, message),
  notFound: (message: string) => new AffixError(404, message, { code: 'not_found' }),
  /** The thing exists but is not in a state that allows this (approve a paid commission, pay a canceled payout). */
  conflict: (message: string, code: string) => new AffixError(409, message, { code }),
  duplicateSale: (saleId: number) =>
    new AffixError(409, MESSAGES.duplicateTransaction, { code: 'duplicate_transaction', details: { sale_id: saleId } }),
  unsupportedCurrency: (currency: string) =>
    new AffixError(422, `currency ${currency} is not supported`, { code: 'unsupported_currency' }),
  payloadTooLarge: (message: string) => new AffixError(413, message),
  /** Spec §7 words it for the CLI login callback; Affix answers it wherever a suspended brand tries to manage anything. */
  accountBlocked: () => new AffixError(403, MESSAGES.accountBlocked, { details: { code: 'ACCOUNT_BLOCKED' } }),
  typedAccountBlocked: () => new AffixError(403, MESSAGES.accountBlocked, { envelope: 'typed', code: 'ACCOUNT_BLOCKED' }),
  internal: (message: string, options: { cause?: unknown } = {}) => new AffixError(500, message, { code: 'internal_error', ...options }),
  /** The database is unreachable or too slow: nothing was done; retry after a few seconds. */
  unavailable: (cause?: unknown) =>
    new AffixError(503, MESSAGES.unavailable, {
      code: 'service_unavailable',
      headers: { 'Retry-After': String(UNAVAILABLE_RETRY_SECONDS) },
      cause,
    }),

  linkDisabled: () =>
    new AffixError(410, MESSAGES.linkDisabled, {
      envelope: 'typed',
      code: 'link_disabled',
      extra: { hint: MESSAGES.linkDisabledHint },
      legacyTopLevel: { success: false, message: MESSAGES.linkDisabled },
    }),
  typedInvalidKey: (message: string) => new AffixError(401, message, { envelope: 'typed', code: 'invalid_key' }),
  readinessFailed: () =>
    new AffixError(500, MESSAGES.readinessFailed, {
      envelope: 'typed',
      code: 'internal_error',
      extra: { retry_after_seconds: 10 },
    }),
  rateLimited: (retryAfterSeconds: number, message: string = MESSAGES.tooManyRequests) =>
    new AffixError(429, message, {
      envelope: 'typed',
      code: 'rate_limited',
      extra: { status: 429, retry_after_seconds: retryAfterSeconds },
      headers: { 'Retry-After': String(retryAfterSeconds) },
    }),
  rotationRequired: (retiredAt: Date, docsUrl: string) =>
    new AffixError(401, `This API key was retired on ${retiredAt.toISOString()} and can no longer be used.`, {
      envelope: 'typed',
      code: 'api_key_rotation_required',
      extra: { hint: ROTATION_HINT, docs_url: docsUrl },
    }),
};

/** Names the place that exists: the program's page in the dashboard, its "API keys" section. */
export const ROTATION_HINT =
  'Open the program in the dashboard (/dashboard), section "API keys": create a new key (or regenerate this one), then update AFFIX_API_KEY.';

/** CLI API messages (spec §7 and wire notes), character for character. */
export const CLI_MESSAGES = {
  missingCallbackFields: 'Missing required fields: state, id_token',
  sessionNotFoundOrUsed: 'Session not found or already used',
  sessionExpired: 'Session expired',
  accountSuspended: 'Your account has been suspended.',
  missingState: 'Missing state parameter',
  sessionNotFound: 'Session not found',
  sessionConsumed: 'Session already consumed',
  initAuthRequired: 'Authentication required. Run `affix login` first.',
  initInvalidToken: 'Invalid or expired token. Run `affix login` again.',
  initUserNotFound: 'User not found. Run `affix login` again.',
  noAdvertiser: 'No advertiser found for this account. Run `affix login` again to create one.',
  advertiserMismatch: 'advertiser_id does not match the authenticated account',
  programsAuthRequired: 'Missing Authorization header. Run affix login first.',
  programsInvalidToken: 'Invalid or expired token.',
  programsUserNotFound: 'User not found',
  keyMalformed: 'Missing or malformed Authorization header. Expected: Bearer <api_token>',
  keyMissing: 'Missing API token',
  keyInvalid:
    "Invalid API key. Ask a workspace owner to regenerate it on the program's API keys page in the dashboard; running `affix init` again would create a second program, not fix this key.",
  tooManyChains: 'Too many synthetic chains (max 10/program/hour).',
  stripeConnectRetired: "This endpoint is retired. Connect Stripe from the dashboard (the program's Stripe page, Connect with Stripe).",
} as const;

export const invalidEventType = (value: unknown) => `Invalid event_type: ${String(value)}. Valid: click, lead, sale`;
