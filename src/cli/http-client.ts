// Small admin-API client shared by the `affix admin`, `affix events` and `affix replay` commands.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';

export interface ServiceOptions {
  apiUrl: string;
  adminToken?: string;
  json?: boolean;
}

export const defaultApiUrl = () => process.env.AFFIX_API_URL || 'http://localhost:3000';

export function adminToken(options: ServiceOptions): string {
  if (options.adminToken) return options.adminToken;
  if (process.env.AFFIX_ADMIN_TOKEN) return process.env.AFFIX_ADMIN_TOKEN;
  const file = join(process.env.AFFIX_DATA_DIR ?? '.affix-data', 'admin-token');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  throw new Error('No admin token: pass --admin-token or set AFFIX_ADMIN_TOKEN');
}

export const baseUrl = (options: ServiceOptions) => options.apiUrl.replace(/\/+$/, '');

function adminFetch(command: Command, method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<Response> {
  const options = command.optsWithGlobals<ServiceOptions>();
  return fetch(`${baseUrl(options)}/api/v1/admin${path}`, {
    method,
    headers: { 'Content-Type': contentType, Authorization: `Bearer ${adminToken(options)}` },
    body: body === undefined ? undefined : typeof body === 'string' && contentType !== 'application/json' ? body : JSON.stringify(body),
  });
}

/** Calls the admin API; HTTP errors become thrown errors with the API's own message. `contentType` other than JSON sends `body` as it is (a CSV file). */
export async function adminCall<T = any>(command: Command, method: string, path: string, body?: unknown, contentType?: string): Promise<T> {
  const response = await adminFetch(command, method, path, body, contentType);
  const payload = (await response.json().catch(() => null)) as { data?: T; error?: { message?: string } } | null;
  if (!response.ok) throw new Error(`${response.status}: ${payload?.error?.message ?? response.statusText}`);
  return payload?.data as T;
}

export const printJson = (value: unknown): void => {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
};

/** An admin API answer that is not JSON (a CSV export), as text. */
export async function adminText(command: Command, path: string): Promise<string> {
  const response = await adminFetch(command, 'GET', path);
  if (response.ok) return response.text();
  const payload = (await response.json().catch(() => null)) as { error?: { message?: string } } | null;
  throw new Error(`${response.status}: ${payload?.error?.message ?? response.statusText}`);
}
