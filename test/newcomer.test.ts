// A newcomer's first half hour (issue 43, item 10): the service's address leads to the
// dashboard, the printed walk-through runs as one pasted block, each credential says where it
// works, the README maps the SDK's names to the API's and says why portal links last 15 minutes
// or 7 days, and a tracker refused on a site the program does not list is named on the
// checklist of that program only.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureDemo, walkthrough } from '../src/app/programs/demo.js';
import { SIGN_IN_LINK_TTL_MS } from '../src/app/partners/portal.js';
import { INVITATION_TTL_MS } from '../src/app/outbound/mail.js';
import type { Config } from '../src/platform/config.js';
import { type TestApi, type TestDatabase, adminHeaders, bearer, closeTestApi, openTestApi, seedProgram } from './support/harness.js';

const run = promisify(execFile);
let db: TestDatabase;
let api: TestApi;
let dataDir = '';

beforeAll(async () => {
  ({ db, api } = await openTestApi());
  dataDir = await mkdtemp(join(tmpdir(), 'affix-newcomer-'));
});
afterAll(async () => {
  await closeTestApi({ db, api });
  await rm(dataDir, { recursive: true, force: true });
});

describe('a newcomer', () => {
  it('the walk-through runs as one pasted block; its credentials say where they work', async () => {
    // First: on the empty database, as the first start does.
    const demo = (await ensureDemo(api.pool, { dataDir, publicUrl: api.url } as Config))!;
    const text = walkthrough(api.url, demo);
    expect(text).toContain(`Dashboard sign-in: ${api.url}/dashboard/login as ${demo.email} / ${demo.password} (the same account signs the CLI in: npm run affix -- login --api-url ${api.url})`);
    expect(text).toContain(`API key, for your server's Authorization: Bearer header only (never in a browser): ${demo.apiKey}`);
    // The block as a reader pastes it: nothing to fill in by hand.
    const block = /paste this block[^\n]*\n\n([\s\S]+?)\n\n/.exec(text)?.[1];
    expect(block).toBeDefined();
    expect(block).not.toContain('<');
    const { stdout } = await run('bash', ['-c', block!]);
    const answers = stdout.trim().split('\n');
    expect(answers[0]).toMatch(/^click: \S+$/);
    expect(JSON.parse(answers[1]!)).toEqual({ success: true, message: 'Lead tracked successfully' });
    expect(JSON.parse(answers[2]!)).toMatchObject({ success: true, commission_amount_cents: 980 });
    expect(JSON.parse(answers[3]!)).toMatchObject({ success: true, status: 'refunded', deduction_amount_cents: 200 });
    expect(JSON.parse(answers[4]!)).toMatchObject({ state: 'ready', integration_verified: true });
    // The sign-in the walk-through names works on the dashboard's sign-in page.
    const login = await fetch(`${api.url}/dashboard/login`);
    expect(login.status).toBe(200);
  });

  it('GET / leads to the dashboard, whose sign-in page a stranger sees (no data)', async () => {
    const root = await fetch(`${api.url}/`, { redirect: 'manual' });
    expect(root.status).toBe(302);
    expect(root.headers.get('location')).toBe('/dashboard');
    const followed = await fetch(`${api.url}/`);
    expect(new URL(followed.url).pathname).toBe('/dashboard/login');
    const page = await followed.text();
    expect(page).not.toContain('Demo Shop');
    expect(page).not.toContain('affix_sk_');
  });

  it('the README maps the SDK names to the API names, and says why portal links last 15 minutes or 7 days', async () => {
    const readme = await readFile('README.md', 'utf8');
    for (const [sdk, wire] of [['customerExternalId', 'customer_key'], ['clickId', 'click_id'], ['amount', 'amount_cents'], ['invoiceId', 'transaction_id'], ['refundAmountCents', 'refund_amount_cents']]) {
      expect(readme).toMatch(new RegExp(`\\| \`${sdk}\` \\| \`${wire}\` \\|`));
    }
    expect(SIGN_IN_LINK_TTL_MS).toBe(15 * 60_000);
    expect(INVITATION_TTL_MS).toBe(7 * 86_400_000);
    const portal = readme.slice(readme.indexOf('## Partner portal'));
    expect(portal).toMatch(/invitation[^.]*works for 7\s+days/);
    expect(portal).toMatch(/asks for[^.]*works for 15 minutes/);
  });

  it('a tracker refused on an origin its program does not list is named on that program\'s checklist only', async () => {
    const shop = await seedProgram(api, { allowed_origins: ['https://shop.example.com'] });
    const other = await seedProgram(api, { allowed_origins: ['https://other.example.com'] });
    const readiness = async (key: string) => (await api.request('GET', '/api/v1/programs/me/readiness', { headers: bearer(key) })).body;
    expect((await readiness(shop.apiKey)).gates.allowed_origins).toEqual({ status: 'pass', next_action: null });

    // The browser's preflight from the brand's staging site, naming the program (as the tracker does).
    const preflight = (programId: number, origin: string) =>
      fetch(`${api.url}/api/v1/track/click?program_id=${programId}`, { method: 'OPTIONS', headers: { Origin: origin, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'content-type' } });
    const refused = await preflight(shop.programId, 'https://staging.shop.example.com');
    expect(refused.status).toBe(204);
    expect(refused.headers.get('access-control-allow-origin')).toBeNull();
    // The same answer for a program that does not exist: nobody learns anything from it.
    const nobody = await preflight(999_999, 'https://staging.shop.example.com');
    expect([nobody.status, nobody.headers.get('access-control-allow-origin')]).toEqual([204, null]);

    const gate = (await readiness(shop.apiKey)).gates.allowed_origins;
    expect(gate.status).toBe('fail');
    expect(gate.next_action).toMatch(/^The tracker on https:\/\/staging\.shop\.example\.com was refused on \d{4}-\d\d-\d\d \d\d:\d\d UTC: add https:\/\/staging\.shop\.example\.com to the program's allowed origins\.$/);
    // Another brand's program is untouched, and its own listed origin is never recorded as refused.
    await preflight(other.programId, 'https://other.example.com');
    expect((await readiness(other.apiKey)).gates.allowed_origins).toEqual({ status: 'pass', next_action: null });
    expect(JSON.stringify(await readiness(other.apiKey))).not.toContain('staging.shop.example.com');

    // Allowing the origin clears the step.
    const patched = await api.request('PATCH', `/api/v1/admin/programs/${shop.programId}`, { body: { allowed_origins: ['https://shop.example.com', 'https://staging.shop.example.com'] }, headers: adminHeaders });
    expect(patched.status).toBe(200);
    expect((await readiness(shop.apiKey)).gates.allowed_origins).toEqual({ status: 'pass', next_action: null });
  });
});
