// First-run demo: one account, program, partner, link and key, and a copy-paste walk-through.
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Config } from '../platform/config.js';
import { randomBytes } from 'node:crypto';
import * as admin from '../db/admin.js';
import { setAccountPassword } from '../db/cli.js';
import { hashPassword } from '../platform/passwords.js';
import type { Pool } from '../db/pool.js';

export const DEMO_EMAIL = 'demo@affix.local';
export const DEMO_LINK = 'demo';

export interface DemoProgram {
  programId: number;
  apiKey: string;
  shortLink: string;
  /** Password of the demo account on the local sign-in page (`affix login`). */
  email: string;
  password: string;
  /** Made by this start: its secrets are printed once, then only the file is named. */
  created: boolean;
}

/** Creates the demo on an empty database; later starts read the key back from the data folder. */
export async function ensureDemo(pool: Pool, config: Readonly<Config>): Promise<DemoProgram | null> {
  const keyFile = join(config.dataDir, 'demo.json');
  const { rows } = await pool.query('SELECT count(*) AS n FROM accounts');
  if (rows[0].n > 0) {
    return existsSync(keyFile) ? { ...(JSON.parse(await readFile(keyFile, 'utf8')) as DemoProgram), created: false } : null;
  }
  const account = await admin.createAccount(pool, DEMO_EMAIL, 'Demo brand');
  if (!account) return null; // another instance seeded first
  const program = await admin.insertProgram(pool, account.id, {
    name: 'Demo Shop',
    domain: 'localhost',
    commissionType: 'percent',
    commissionRate: '20',
    attributionWindowDays: 60,
    leadAuth: 'browser_allowed',
    allowedOrigins: [new URL(config.publicUrl).origin],
    recurringDurationMonths: null,
    acceptAllCurrencies: false,
  });
  const partner = await admin.insertPartner(pool, program.id, 'Demo Partner', null);
  await admin.insertLink(pool, program.id, partner.id, DEMO_LINK);
  const { apiKey } = await admin.issueApiKey(pool, program.id);
  const password = randomBytes(9).toString('base64url');
  await setAccountPassword(pool, account.id, await hashPassword(password));
  const demo = { programId: program.id, apiKey, shortLink: DEMO_LINK, email: DEMO_EMAIL, password };
  await writeFile(keyFile, JSON.stringify(demo, null, 2), { mode: 0o600 });
  return { ...demo, created: true };
}

export function walkthrough(baseUrl: string, demo: DemoProgram): string {
  const key = demo.apiKey;
  const txn = `demo_txn_${Date.now()}`;
  return [
    `Demo program ${demo.programId} (20% commission), partner link ?aff=${demo.shortLink}, API key ${key}`,
    'Try click -> lead -> sale -> refund (copy the click_id from the first answer):',
    `  curl -s -X POST ${baseUrl}/api/v1/track/click -H 'Content-Type: application/json' -d '{"affiliate_url":"http://localhost/?aff=${demo.shortLink}"}'`,
    `  curl -s -X POST ${baseUrl}/api/v1/track/lead -H 'Content-Type: application/json' -H 'Authorization: Bearer ${key}' -d '{"click_id":"<click_id>","customer_key":"user_42","email":"jane@example.com"}'`,
    `  curl -s -X POST ${baseUrl}/api/v1/track/sale -H 'Content-Type: application/json' -H 'Authorization: Bearer ${key}' -d '{"transaction_id":"${txn}","amount_cents":4900,"customer_key":"user_42"}'`,
    `  curl -s -X POST ${baseUrl}/api/v1/track/refund -H 'Content-Type: application/json' -H 'Authorization: Bearer ${key}' -d '{"transaction_id":"${txn}","refund_amount_cents":1000}'`,
    `  curl -s ${baseUrl}/api/v1/programs/me/readiness -H 'Authorization: Bearer ${key}'`,
    `CLI: \`npm run affix -- login --api-url ${baseUrl}\` and sign in as ${demo.email} / ${demo.password}`,
  ].join('\n');
}
