// The admin API's client for `affix admin`, `affix events` and `affix replay`, on the SDK's one
// client (@affix/sdk/http): the same answer shape, messages and exit codes as the other commands.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { send } from '@affix/sdk/http';
import type { Command } from 'commander';
import { dataOrExit } from './client/api.js';

export interface ServiceOptions {
  apiUrl: string;
  adminToken?: string;
  json?: boolean;
}

/** Where `npm start` listens on this machine: AFFIX_API_URL, else localhost on PORT (3000). */
export const defaultApiUrl = () => process.env.AFFIX_API_URL || `http://localhost:${process.env.PORT || 3000}`;

export function adminToken(options: ServiceOptions): string {
  if (options.adminToken) return options.adminToken;
  if (process.env.AFFIX_ADMIN_TOKEN) return process.env.AFFIX_ADMIN_TOKEN;
  const file = join(process.env.AFFIX_DATA_DIR ?? '.affix-data', 'admin-token');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  throw new Error('No admin token: pass --admin-token or set AFFIX_ADMIN_TOKEN');
}

export const baseUrl = (options: ServiceOptions) => options.apiUrl.replace(/\/+$/, '');

async function adminSend(command: Command, method: string, path: string, body?: unknown, contentType = 'application/json', read: 'json' | 'text' = 'json') {
  const options = command.optsWithGlobals<ServiceOptions>();
  const answer = await send(fetch, {
    method,
    url: `${baseUrl(options)}/api/v1/admin${path}`,
    headers: { 'Content-Type': contentType, Authorization: `Bearer ${adminToken(options)}` },
    body: body === undefined ? undefined : typeof body === 'string' && contentType !== 'application/json' ? body : JSON.stringify(body),
    read,
  });
  return dataOrExit<any>(answer, baseUrl(options));
}

/** Calls the admin API; an error exits with the API's own message and the code its status means. `contentType` other than JSON sends `body` as it is (a CSV file). */
export async function adminCall<T = any>(command: Command, method: string, path: string, body?: unknown, contentType?: string): Promise<T> {
  return (await adminSend(command, method, path, body, contentType)) as T;
}

export const printJson = (value: unknown): void => {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
};

/** An admin API answer that is not JSON (a CSV export), as text. */
export async function adminText(command: Command, path: string): Promise<string> {
  return (await adminSend(command, 'GET', path, undefined, 'application/json', 'text')) as string;
}
