// HTTP client of the CLI API, on the SDK's one client (@affix/sdk/http). Every request sends
// Content-Type: application/json, even a GET or a bodiless POST (existing servers expect it).
import { type HttpAnswer, describeAnswer, send } from '@affix/sdk/http';
import { CliError, EXIT, exitCodeForStatus } from './exit-codes.js';

export interface ApiCall {
  method: 'GET' | 'POST';
  path: string;
  body?: unknown;
  bearer?: string;
}

const MAX_WAIT_SECONDS = 60;

/** The answer as the CLI ends on it: data, or a CliError with the exit code its status means. */
export function dataOrExit<T>(answer: HttpAnswer, apiUrl: string): T {
  if (answer.status === 0) throw new CliError(`${answer.error}: is Affix running at ${apiUrl}? Pass --api-url or set AFFIX_API_URL.`, EXIT.failure);
  if (!answer.ok) throw new CliError(describeAnswer(answer), exitCodeForStatus(answer.status));
  return (answer.payload?.data ?? answer.payload) as T;
}

export class CliApi {
  constructor(
    readonly baseUrl: string,
    private readonly sleep?: (ms: number) => Promise<void>,
  ) {}

  async request<T = any>(call: ApiCall): Promise<T> {
    const answer = await send(
      fetch,
      {
        method: call.method,
        url: `${this.baseUrl.replace(/\/+$/, '')}${call.path}`,
        headers: { 'Content-Type': 'application/json', Accept: 'application/json', ...(call.bearer ? { Authorization: `Bearer ${call.bearer}` } : {}) },
        body: call.body === undefined ? (call.method === 'POST' ? '' : undefined) : JSON.stringify(call.body),
      },
      {
        // A 429 is waited out once (Retry-After, up to a minute); everything else is the answer.
        retries: 1,
        retryable: (answer) => answer.status === 429,
        maxWaitSeconds: MAX_WAIT_SECONDS,
        backoffMs: () => 1000,
        onRetry: (_answer, waitMs) => process.stderr.write(`Rate limited; retrying in ${waitMs / 1000} s...\n`),
        sleep: this.sleep,
      },
    );
    return dataOrExit<T>(answer, this.baseUrl);
  }
}
