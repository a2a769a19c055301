// One JSON request to a provider's API (PayPal, Wise; Stripe, Paddle, Lemon Squeezy for discount
// codes), and the retry around it: a network failure, a 5xx or a 429 (rate limited) is retried (the
// callers make each request safe to repeat: an id of their own), any other 4xx is the provider's
// refusal, made by the caller's `refusal` and never retried.
import pRetry, { AbortError } from 'p-retry';

export interface RetryOptions {
  /** Attempts after the first for network failures and 5xx (default 4). */
  retries?: number;
  /** Milliseconds before the first retry (default 500; tests pass 0). */
  minTimeoutMs?: number;
}

export async function providerRequest(provider: string, url: string, init: RequestInit, refusal: (status: number, body: any, text: string) => Error): Promise<any> {
  const response = await fetch(url, init).catch((cause: unknown) => {
    throw new Error(`${provider} could not be reached`, { cause });
  });
  const text = await response.text();
  const body = text ? JSON.parse(text) : {};
  if (response.status >= 500 || response.status === 429) throw new Error(`${provider} answered ${response.status}`);
  if (response.status >= 400) throw new AbortError(refusal(response.status, body, text));
  return body;
}

export const retried = <T>(work: () => Promise<T>, options: RetryOptions): Promise<T> =>
  pRetry(work, { retries: options.retries ?? 4, minTimeout: options.minTimeoutMs ?? 500, factor: 2 });
