// `@affix/sdk/http`: the one HTTP client of the server SDK, the `affix` CLI and its admin
// commands. One call, one answer shape; retries through p-retry (bundled into the SDK, which
// stays free of run-time dependencies). It never throws for an HTTP error or a network failure:
// callers turn the answer into their own result (the SDK resolves it, the CLI exits with a code).
import pRetry from 'p-retry';

export interface HttpCall {
  method: string;
  url: string;
  headers?: Record<string, string>;
  /** Sent as it is (JSON text, CSV). */
  body?: string;
  /** How to read a 2xx body: parsed JSON (default) or text (a CSV export). */
  read?: 'json' | 'text';
}

export interface HttpAnswer {
  ok: boolean;
  /** 0 when no answer came (network failure). */
  status: number;
  /** The parsed JSON body (or the text with read: 'text'); null when there was none. */
  payload: any;
  /** The error's message (the API's `error.message`, or a string `error`), null when ok. */
  error: string | null;
  /** The API's `error.code`, when it gave one. */
  code: string | null;
  /** Seconds the server asked to wait (Retry-After, or `error.retry_after_seconds`). */
  retryAfterSeconds: number | null;
}

export interface RetryPolicy {
  /** Retries after the first try (0: none). */
  retries: number;
  /** Whether this answer may be tried again (a 400 never is; the caller decides the rest). */
  retryable: (answer: HttpAnswer) => boolean;
  /** Waits longer than this (Retry-After) are not waited for: the answer is returned. */
  maxWaitSeconds?: number;
  /** The wait before retry n (from 0) when the server named none; default 250 ms × 2^n. */
  backoffMs?: (retry: number) => number;
  /** Told before each wait (the CLI prints it). */
  onRetry?: (answer: HttpAnswer, waitMs: number) => void;
  /** Injected in tests: no test waits on the wall clock. */
  sleep?: (ms: number) => Promise<void>;
}

export const NO_RETRY: RetryPolicy = { retries: 0, retryable: () => false };

const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A retryable answer, thrown inside p-retry's loop and caught as the final answer. */
class RetryableAnswer extends Error {
  constructor(readonly answer: HttpAnswer) {
    super(answer.error ?? `HTTP ${answer.status}`);
  }
}

function errorOf(payload: any, fallback: string): { error: string; code: string | null } {
  const error = payload?.error;
  if (typeof error === 'string') return { error, code: null };
  return { error: typeof error?.message === 'string' ? error.message : fallback, code: typeof error?.code === 'string' ? error.code : null };
}

async function once(fetchImpl: typeof fetch, call: HttpCall): Promise<HttpAnswer> {
  let response: Response;
  try {
    response = await fetchImpl(call.url, { method: call.method, headers: call.headers, body: call.body });
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } })?.cause;
    const why = cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error));
    return { ok: false, status: 0, payload: null, error: `Cannot reach ${new URL(call.url).origin} (${why})`, code: null, retryAfterSeconds: null };
  }
  const text = await response.text().catch(() => '');
  let payload: any = null;
  if (response.ok && call.read === 'text') payload = text;
  else {
    try {
      payload = text ? JSON.parse(text) : null;
    } catch {
      payload = null;
    }
  }
  const header = Number(response.headers.get('retry-after'));
  const named = Number(payload?.error?.retry_after_seconds);
  const retryAfterSeconds = Number.isFinite(header) && header > 0 ? header : Number.isFinite(named) && named > 0 ? named : null;
  if (response.ok) return { ok: true, status: response.status, payload, error: null, code: null, retryAfterSeconds };
  const { error, code } = errorOf(payload, response.statusText || `HTTP ${response.status}`);
  return { ok: false, status: response.status, payload, error, code, retryAfterSeconds };
}

/** Sends the call; retries what the policy allows (waiting Retry-After when the server names it). */
export async function send(fetchImpl: typeof fetch, call: HttpCall, policy: RetryPolicy = NO_RETRY): Promise<HttpAnswer> {
  const sleep = policy.sleep ?? realSleep;
  const backoff = policy.backoffMs ?? ((retry: number) => 250 * 2 ** retry);
  try {
    return await pRetry(
      async () => {
        const answer = await once(fetchImpl, call);
        if (!answer.ok && answer.status !== 400 && policy.retryable(answer)) throw new RetryableAnswer(answer);
        return answer;
      },
      {
        retries: policy.retries,
        // The waits are ours (Retry-After or the backoff, through the injectable sleep): p-retry's own are zero.
        minTimeout: 0,
        maxTimeout: 0,
        randomize: false,
        shouldRetry: ({ error }) => {
          const answer = (error as RetryableAnswer).answer;
          return !(answer.retryAfterSeconds !== null && policy.maxWaitSeconds !== undefined && answer.retryAfterSeconds > policy.maxWaitSeconds);
        },
        onFailedAttempt: async ({ error, retriesLeft, retriesConsumed }) => {
          if (!(error instanceof RetryableAnswer)) throw error;
          const answer = error.answer;
          if (retriesLeft === 0) return;
          if (answer.retryAfterSeconds !== null && policy.maxWaitSeconds !== undefined && answer.retryAfterSeconds > policy.maxWaitSeconds) return;
          const waitMs = answer.retryAfterSeconds !== null ? Math.min(answer.retryAfterSeconds, policy.maxWaitSeconds ?? 60) * 1000 : backoff(retriesConsumed);
          policy.onRetry?.(answer, waitMs);
          await sleep(waitMs);
        },
      },
    );
  } catch (error) {
    if (error instanceof RetryableAnswer) return error.answer;
    throw error;
  }
}

/** `{ "error": … }`-shaped message with its code, as the CLI prints it: "Message (code)". */
export const describeAnswer = (answer: HttpAnswer): string => (answer.code ? `${answer.error} (${answer.code})` : (answer.error ?? `HTTP ${answer.status}`));
