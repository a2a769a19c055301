// Stripe Connect's Express accounts, called on the platform's Stripe account (STRIPE_SECRET_KEY):
// create an account for a partner, an onboarding link to it, and read it back. A network failure,
// a 5xx, a 409 (a request with the same key still running) or a 429 is retried with the same
// Idempotency-Key, so a lost answer never makes a second account; any other 4xx is Stripe's
// refusal, said in its words and never retried. An account link's URL is a bearer secret: it is
// handed to the caller to redirect to, never logged or stored.
import pRetry, { AbortError } from 'p-retry';
import Stripe from 'stripe';
import type { ExpressAccountState } from '../core/stripe-express.js';
import type { RetryOptions } from './provider-request.js';

const API = 'https://api.stripe.com';

/** An answer Stripe gave that says the request itself is wrong (invalid country, …). */
export class StripeRefusal extends Error {
  constructor(readonly status: number, readonly param: string | null, readonly code: string | null, message: string) {
    super(message);
    this.name = 'StripeRefusal';
  }
}

/** Stripe could not be reached or kept failing (5xx) after the retries. */
export class StripeUnavailable extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StripeUnavailable';
  }
}

export interface ExpressAccountClient {
  createExpressAccount(input: { email: string; country: string; metadata: Record<string, string> }, idempotencyKey: string): Promise<{ id: string; state: ExpressAccountState }>;
  onboardingLink(accountId: string, urls: { refreshUrl: string; returnUrl: string }): Promise<{ url: string; expiresAt: Date }>;
  retrieveAccount(accountId: string): Promise<ExpressAccountState>;
}

/** Stripe's form encoding: nested keys in brackets (capabilities[transfers][requested]=true). */
function formBody(params: Record<string, unknown>, prefix = ''): string[] {
  const parts: string[] = [];
  for (const [key, value] of Object.entries(params)) {
    if (value === undefined || value === null) continue;
    const name = prefix ? `${prefix}[${key}]` : key;
    if (typeof value === 'object') parts.push(...formBody(value as Record<string, unknown>, name));
    else parts.push(`${encodeURIComponent(name)}=${encodeURIComponent(String(value))}`);
  }
  return parts;
}

const strings = (value: unknown): string[] => (Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []);

/** The fields of Stripe's `account` object Affix keeps (the same reading for an API answer and an `account.updated` event). */
export function accountState(account: Record<string, unknown>): ExpressAccountState {
  const requirements = (account.requirements ?? {}) as Record<string, unknown>;
  return {
    chargesEnabled: account.charges_enabled === true,
    payoutsEnabled: account.payouts_enabled === true,
    detailsSubmitted: account.details_submitted === true,
    currentlyDue: strings(requirements.currently_due),
    pastDue: strings(requirements.past_due),
    disabledReason: typeof requirements.disabled_reason === 'string' ? requirements.disabled_reason : null,
  };
}

export function expressAccountClient(secretKey: string, options: RetryOptions = {}): ExpressAccountClient {
  async function call(method: 'GET' | 'POST', path: string, params: Record<string, unknown> | null, idempotencyKey: string | null): Promise<Record<string, unknown>> {
    // The API version the transfers use (the stripe package's), not the account's default.
    const headers: Record<string, string> = { Authorization: `Bearer ${secretKey}`, 'Stripe-Version': Stripe.API_VERSION };
    if (params) headers['Content-Type'] = 'application/x-www-form-urlencoded';
    if (idempotencyKey) headers['Idempotency-Key'] = idempotencyKey;
    const response = await fetch(`${API}${path}`, { method, headers, body: params ? formBody(params).join('&') : undefined }).catch((cause: unknown) => {
      throw new StripeUnavailable('Stripe could not be reached', { cause });
    });
    const text = await response.text();
    let body: Record<string, unknown> = {};
    try {
      body = text ? JSON.parse(text) : {};
    } catch {
      // A proxy's HTML page: judged by its status alone.
    }
    const status = response.status;
    if (status >= 500 || status === 409 || status === 429) throw new StripeUnavailable(`Stripe answered ${status}`);
    if (status >= 400) {
      const error = (body.error ?? {}) as Record<string, unknown>;
      const message = typeof error.message === 'string' ? error.message : `Stripe refused the request (${status})`;
      throw new AbortError(new StripeRefusal(status, typeof error.param === 'string' ? error.param : null, typeof error.code === 'string' ? error.code : null, message));
    }
    return body;
  }
  // Every call is safe to repeat: creations carry their key, a link is made anew, a read is a read.
  const retried = <T>(work: () => Promise<T>) => pRetry(work, { retries: options.retries ?? 3, minTimeout: options.minTimeoutMs ?? 500, factor: 2 });

  return {
    async createExpressAccount(input, idempotencyKey) {
      const account = await retried(() =>
        call('POST', '/v1/accounts', { type: 'express', country: input.country, email: input.email, capabilities: { transfers: { requested: true } }, metadata: input.metadata }, idempotencyKey),
      );
      if (typeof account.id !== 'string' || !account.id.startsWith('acct_')) throw new StripeUnavailable('Stripe answered without an account id');
      return { id: account.id, state: accountState(account) };
    },
    async onboardingLink(accountId, urls) {
      const link = await retried(() => call('POST', '/v1/account_links', { account: accountId, type: 'account_onboarding', refresh_url: urls.refreshUrl, return_url: urls.returnUrl }, null));
      if (typeof link.url !== 'string') throw new StripeUnavailable('Stripe answered without a link');
      return { url: link.url, expiresAt: new Date(Number(link.expires_at) * 1000) };
    },
    async retrieveAccount(accountId) {
      return accountState(await retried(() => call('GET', `/v1/accounts/${encodeURIComponent(accountId)}`, null, null)));
    },
  };
}
