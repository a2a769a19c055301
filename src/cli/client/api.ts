// HTTP client of the CLI API. Every request sends Content-Type: application/json, even a GET
// or a bodiless POST (existing servers expect it). Errors read error.code, then error.message.
import { CliError, EXIT, exitCodeForStatus } from './exit-codes.js';

export interface ApiCall {
  method: 'GET' | 'POST';
  path: string;
  body?: unknown;
  bearer?: string;
}

const MAX_WAIT_SECONDS = 60;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function errorText(payload: any, status: number, statusText: string): string {
  const error = payload?.error;
  if (typeof error === 'string') return error;
  const message = error?.message ?? statusText ?? `HTTP ${status}`;
  return error?.code ? `${message} (${error.code})` : message;
}

export class CliApi {
  constructor(readonly baseUrl: string) {}

  async request<T = any>(call: ApiCall, waitedOnce = false): Promise<T> {
    let response: Response;
    try {
      response = await fetch(`${this.baseUrl.replace(/\/+$/, '')}${call.path}`, {
        method: call.method,
        headers: {
          'Content-Type': 'application/json',
          Accept: 'application/json',
          ...(call.bearer ? { Authorization: `Bearer ${call.bearer}` } : {}),
        },
        body: call.body === undefined ? (call.method === 'POST' ? '' : undefined) : JSON.stringify(call.body),
      });
    } catch (error) {
      throw new CliError(`Cannot reach Affix at ${this.baseUrl}: ${(error as Error).message}`, EXIT.failure);
    }
    const payload = (await response.json().catch(() => null)) as any;
    if (response.status === 429 && !waitedOnce) {
      const seconds = Number(response.headers.get('retry-after') ?? payload?.error?.retry_after_seconds ?? 1);
      if (seconds <= MAX_WAIT_SECONDS) {
        process.stderr.write(`Rate limited; retrying in ${seconds} s...\n`);
        await sleep(seconds * 1000);
        return this.request<T>(call, true);
      }
    }
    if (!response.ok) throw new CliError(errorText(payload, response.status, response.statusText), exitCodeForStatus(response.status));
    return (payload?.data ?? payload) as T;
  }
}
