// The set-up page in Chromium: the tracker snippet, copied with its button into a page of the
// brand's own site, makes the click and signup steps pass; test events show what was recorded;
// a test Stripe webhook is signed with the program's secret and attributed by the workers.
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminOf, type BrowserAppWithMail, browserAppWithMail, hasChromium, screenshotsAt, signInToDashboard, submitWithKeyboard, textOf } from '../support/browser.js';
import type { TestApi } from '../support/harness.js';

let api: TestApi;
let page: Page;
let site: Server;
let sitePort = 0;
let snippet = '';
browserAppWithMail('setup-page-key-0123456789abcdef', (opened) => ({ api, page } = opened));
const admin = adminOf(() => api);

beforeAll(async () => {
  if (!hasChromium) return;
  // The brand's site: whatever snippet the test pasted, and a signup that calls the tracker.
  site = createServer((req, res) => {
    res.setHeader('Content-Type', 'text/html');
    res.end(`<!doctype html><html><head><title>Brand</title>${snippet}</head><body>
<button id="signup" onclick="window.affix.signup('setup_customer', 'buyer@brand.example').then(() => { document.body.dataset.signedUp = 'yes'; })">Sign up</button></body></html>`);
  });
  await new Promise<void>((done) => site.listen(0, '127.0.0.1', done));
  sitePort = (site.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise((done) => site?.close(done));
});

const steps = async () => (await page.locator('#steps ol.steps li').allInnerTexts()).map((text) => text.replace(/\s+/g, ' ').trim());

describe.skipIf(!hasChromium)('the set-up page', () => {
  it('the copied snippet records a click and a signup; test events and a test Stripe webhook say what was recorded', async () => {
    page.setDefaultTimeout(5000);
    const account = await admin('POST', '/accounts', { email: 'owner@setup.example', password: 'setup owner password' });
    const program = await admin('POST', '/programs', {
      account_id: account.id, name: 'Setup Shop', domain: `localhost:${sitePort}`, commission_type: 'percent', commission_rate: 20, allowed_origins: [`http://localhost:${sitePort}`],
    });
    const partner = await admin('POST', `/programs/${program.id}/partners`, { name: 'Sam' });
    await admin('POST', `/programs/${program.id}/links`, { partner_id: partner.id, short_link: 'sam-setup' });
    const key = (await admin('POST', `/programs/${program.id}/keys`)).api_key;

    await signInToDashboard(page, api.url, 'owner@setup.example', 'setup owner password');
    const setup = `${api.url}/dashboard/programs/${program.id}/setup`;
    await page.goto(setup);
    expect(await steps()).toEqual([
      'Done: ✓ Your backend has an API key.',
      'Done: ✓ A partner has a working referral link.',
      'Done: ✓ Your site may send clicks from the browser.',
      'To do: ○ Record a click: put the tracker on your site and open it through a referral link. Go to the tracker snippet',
      'To do: ○ Record a signup: call affix.signup() in the browser, or trackLead from your server. Go to the server lines',
      'To do: ○ Record a sale: connect Stripe, Paddle or Lemon Squeezy, or call trackSale from your server. Go to Stripe set-up',
    ]);
    expect(await textOf(page.locator('#stripe-endpoint'))).toBe(`${api.url}/api/v1/webhooks/stripe/${program.id}`);
    expect(await page.locator('#stripe ul.events li').allInnerTexts()).toContain('invoice_payment.paid');
    await screenshotsAt(page, 'setup-before');

    // The snippet, copied with its button, pasted into the brand's page.
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: api.url });
    await page.getByRole('button', { name: 'Copy the tracker snippet' }).click();
    snippet = await page.evaluate(() => navigator.clipboard.readText());
    expect(snippet).toBe(`<script src="${api.url}/js/affix-tracker.js" data-affix-program-id="${program.id}" async></script>`);
    const brand = await page.context().newPage();
    await brand.goto(`http://localhost:${sitePort}/?aff=sam-setup`);
    await brand.waitForFunction(() => Boolean((window as any).affix?.getClickId?.()));
    await brand.getByRole('button', { name: 'Sign up' }).click();
    await brand.waitForFunction(() => document.body.dataset.signedUp === 'yes');
    await brand.close();

    await page.goto(setup);
    const seen = await steps();
    expect(seen[3]).toBe('Done: ✓ A click has been recorded.');
    expect(seen[4]).toBe('Done: ✓ A signup has been recorded.');

    // A test sale: what Affix recorded is said on the page.
    await submitWithKeyboard(page, 'Send a test sale');
    const said = (await page.getByRole('status').innerText()).replace(/\s+/g, ' ').trim();
    expect(said).toMatch(/^Sent a test sale\. Affix recorded: Click \S+ on the test link \?aff=affix-test-\d+: pass\. Lead for customer affix_test_\S+: pass\. Sale \d+ of \$1\.00, attributed to the test link: pass\./);

    // A test Stripe webhook needs the signing secret: refused, saying where to save it.
    await submitWithKeyboard(page, 'Send a test Stripe webhook');
    expect(await textOf(page.locator('#test_webhook'))).toBe('Save the signing secret on the Stripe page first: the test event is signed with it, as Stripe signs its deliveries.');
    await admin('PATCH', `/programs/${program.id}/stripe`, { webhook_secret: 'whsec_setup_page_test' });
    await submitWithKeyboard(page, 'Send a test Stripe webhook');
    const webhook = (await page.getByRole('status').innerText()).replace(/\s+/g, ' ').trim();
    const inboxId = Number(/stored as inbox event (\d+), queued/.exec(webhook)?.[1]);
    expect(inboxId).toBeGreaterThan(0);
    await expect.poll(async () => (await api.pool.query('SELECT status, attribution_step FROM webhook_events WHERE id = $1', [inboxId])).rows[0], { timeout: 10_000 })
      .toEqual({ status: 'processed', attribution_step: 'click_id' });
    await screenshotsAt(page, 'setup-after-test');

    // Test events prove the wiring without ticking a step (issue 43, item 9): a real sale does.
    await page.goto(setup);
    expect((await steps())[5]).toBe('To do: ○ Record a sale: connect Stripe, Paddle or Lemon Squeezy, or call trackSale from your server. Go to Stripe set-up');
    const sale = await api.request('POST', '/api/v1/track/sale', { body: { transaction_id: 'setup_real_sale', amount_cents: 4_900, customer_key: 'setup_customer' }, headers: { Authorization: `Bearer ${key}` } });
    expect(sale.status).toBe(200);
    // Every step seen: the overview folds the list away.
    await page.goto(`${api.url}/dashboard/programs/${program.id}`);
    expect(await textOf(page.locator('#readiness summary'))).toBe('Set-up complete: every step has been seen working.');
    expect(await page.locator('#readiness details').getAttribute('open')).toBeNull();
  }, 60_000);
});
