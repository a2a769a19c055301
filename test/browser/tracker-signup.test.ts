// affix.signup() in Chromium resolves to what happened (issue 43, item 10): recorded on an
// allowed site; on a site the program does not list, "unreachable" naming the origin to allow
// (the browser itself says only "CORS"), the debug log never claims it was sent, and the
// program's set-up checklist names that site.
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, hasChromium } from '../support/browser.js';
import { type SeededProgram, type TestApi, type TestDatabase, bearer, closeTestApi, openTestApi, seedProgram } from '../support/harness.js';

let db: TestDatabase;
let api: TestApi;
let site: Server;
let port = 0;
let browser: Browser;
let shop: SeededProgram;

beforeAll(async () => {
  if (!hasChromium) return;
  site = createServer((_req, res) => {
    res.setHeader('Content-Type', 'text/html');
    res.end(`<!doctype html><html><head><title>Brand</title>
<script src="${api.url}/js/affix-tracker.js" data-affix-program-id="${shop.programId}" data-affix-debug="true"></script></head><body></body></html>`);
  });
  await new Promise<void>((done) => site.listen(0, '127.0.0.1', done));
  port = (site.address() as AddressInfo).port;
  ({ db, api } = await openTestApi());
  shop = await seedProgram(api, { allowed_origins: [`http://www.brand.example:${port}`] });
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--host-resolver-rules=MAP www.brand.example 127.0.0.1, MAP staging.brand.example 127.0.0.1', '--no-sandbox', '--disable-gpu', '--no-first-run'],
  });
}, 60_000);
afterAll(async () => {
  if (!hasChromium) return;
  await browser?.close();
  await closeTestApi({ db, api });
  await new Promise((done) => site.close(done));
});

async function signUpOn(host: string, customerKey: string) {
  const context = await browser.newContext();
  const page = await context.newPage();
  const logs: string[] = [];
  page.on('console', (message) => logs.push(message.text()));
  await page.goto(`http://${host}:${port}/?aff=${shop.shortLink}`);
  const result = await page.evaluate(async (key) => {
    await window.affix!.ready;
    return window.affix!.signup(key, 'buyer@brand.example');
  }, customerKey);
  await context.close();
  return { result, logs };
}

describe.skipIf(!hasChromium)('affix.signup() says what happened', () => {
  it('on an allowed site: recorded', async () => {
    const { result, logs } = await signUpOn('www.brand.example', 'signup_ok');
    expect(result).toEqual({ ok: true, outcome: 'recorded', provisional: false });
    expect(logs.some((line) => line.includes('signup recorded for signup_ok'))).toBe(true);
  });

  it('on a site the program does not list: unreachable, naming the origin; no "sent" in the log; the checklist names the site', async () => {
    const origin = `http://staging.brand.example:${port}`;
    const { result, logs } = await signUpOn('staging.brand.example', 'signup_refused');
    expect(result).toMatchObject({ ok: false, outcome: 'unreachable' });
    expect((result as { message: string }).message).toContain(`add ${origin} to the program's allowed origins`);
    expect(logs.filter((line) => /signup (sent|recorded)/.test(line))).toEqual([]);
    const readiness = await api.request('GET', '/api/v1/programs/me/readiness', { headers: bearer(shop.apiKey) });
    expect(readiness.body.gates.allowed_origins.status).toBe('fail');
    expect(readiness.body.gates.allowed_origins.next_action).toContain(`The tracker on ${origin} was refused`);
  });

  it('without a customer key: says so', async () => {
    const { result } = await signUpOn('www.brand.example', '');
    expect(result).toEqual({ ok: false, outcome: 'no_customer_key', message: 'signup needs a customerKey' });
  });
});
