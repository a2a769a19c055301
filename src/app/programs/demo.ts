// First-run demo: one account, program, partner, link and key, and a copy-paste walk-through.
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Config } from '../../platform/config.js';
import { randomBytes } from 'node:crypto';
import * as admin from '../../db/programs/programs-links-keys.js';
import { setAccountPassword } from '../../db/accounts/cli-logins.js';
import { hashPassword } from '../../platform/passwords.js';
import type { Pool } from '../../db/infra/pool.js';

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

/**
 * What the first start prints: where each credential works, and the walk-through as one block
 * pasted into a shell (the click's id is carried from the first answer to the lead by the shell,
 * not copied by hand). The block's last line asks readiness, which every step then passes.
 */
/** The click's id out of the click's JSON answer, in the shell (sed: present wherever curl is). */
const CLICK_ID_OF_ANSWER = String.raw`sed -n 's/.*"click_id":"\([^"]*\)".*/\1/p'`;

export function walkthrough(baseUrl: string, demo: DemoProgram): string {
  const key = demo.apiKey;
  const txn = `demo_txn_${Date.now()}`;
  const json = "-H 'Content-Type: application/json'";
  const auth = `-H "Authorization: Bearer $AFFIX_KEY"`;
  return [
    `Demo program ${demo.programId} (20% commission), partner link ?aff=${demo.shortLink}`,
    `Dashboard sign-in: ${baseUrl}/dashboard/login as ${demo.email} / ${demo.password} (the same account signs the CLI in: npm run affix -- login --api-url ${baseUrl})`,
    `API key, for your server's Authorization: Bearer header only (never in a browser): ${key}`,
    'Try click -> lead -> sale -> refund -> readiness: paste this block into a shell (bash or zsh, with curl):',
    '',
    `  AFFIX_URL=${baseUrl} AFFIX_KEY=${key}`,
    `  CLICK_ID=$(curl -s -X POST $AFFIX_URL/api/v1/track/click ${json} -d '{"affiliate_url":"http://localhost/?aff=${demo.shortLink}"}' | ${CLICK_ID_OF_ANSWER}); echo "click: $CLICK_ID"`,
    `  curl -s -X POST $AFFIX_URL/api/v1/track/lead ${json} ${auth} -d '{"click_id":"'"$CLICK_ID"'","customer_key":"user_42","email":"jane@example.com"}'; echo`,
    `  curl -s -X POST $AFFIX_URL/api/v1/track/sale ${json} ${auth} -d '{"transaction_id":"${txn}","amount_cents":4900,"customer_key":"user_42"}'; echo`,
    `  curl -s -X POST $AFFIX_URL/api/v1/track/refund ${json} ${auth} -d '{"transaction_id":"${txn}","refund_amount_cents":1000}'; echo`,
    `  curl -s $AFFIX_URL/api/v1/programs/me/readiness ${auth}; echo`,
    '',
    "The SDK names the same fields in camelCase (customerExternalId = customer_key, amount = amount_cents, invoiceId = transaction_id): the table in the README's quick start.",
  ].join('\n');
}
