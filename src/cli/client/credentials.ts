// ~/.affix/credentials.json (mode 0600): the login token and where it is valid.
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { CliError, EXIT } from './exit-codes.js';

export interface Credentials {
  api_url: string;
  token: string;
  email: string | null;
  advertiser_id: number | null;
  saved_at: string;
}

const folder = () => join(homedir(), '.affix');
export const credentialsPath = () => join(folder(), 'credentials.json');

export async function saveCredentials(credentials: Credentials): Promise<void> {
  await mkdir(folder(), { recursive: true, mode: 0o700 });
  await writeFile(credentialsPath(), `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600 });
  await chmod(credentialsPath(), 0o600);
}

export async function readCredentials(): Promise<Credentials | null> {
  if (!existsSync(credentialsPath())) return null;
  return JSON.parse(await readFile(credentialsPath(), 'utf8')) as Credentials;
}

export async function requireCredentials(): Promise<Credentials> {
  const credentials = await readCredentials();
  if (!credentials) throw new CliError('Not logged in. Run `affix login` first.', EXIT.auth);
  return credentials;
}

export async function removeCredentials(): Promise<boolean> {
  if (!existsSync(credentialsPath())) return false;
  await rm(credentialsPath());
  return true;
}
