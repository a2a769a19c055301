// Issue 47, item 1, in headless Chromium: a partner connects a Stripe Express account from the
// portal's payout settings. "Connect with Stripe" posts, Affix makes the account and an
// onboarding link (nock, as Stripe documents them), and the browser follows it; Stripe's hosted
// page is replaced by a link straight back to the return address, where the account is read back
// (needs more information), then a signed account.updated says payouts are enabled (connected).
// Each state: axe-core at 390 and 1280 px (0 serious or critical), nothing scrolling sideways,
// screenshots with AFFIX_SCREENSHOTS=1.
import { randomBytes } from 'node:crypto';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256 } from '../../src/core/secrets.js';
import { adminOf, axeAudit, hasChromium, openBrowserApp, screenshotsAt, submitWithKeyboard, textOf as visibleText } from '../support/browser.js';
import { type TestApi, bearer, trackClick } from '../support/harness.js';
import { nockForThisFile } from '../support/nock.js';
import { CONNECT_SECRET, deliver } from '../support/stripe.js';

const nock = nockForThisFile();
const STRIPE = 'https://api.stripe.com';

let opened: Awaited<ReturnType<typeof openBrowserApp>> | undefined;
let api: TestApi;
let page: Page;
beforeAll(async () => {
  if (!hasChromium) return;
  opened = await openBrowserApp(
    { AFFIX_SECRET_KEY: 'stripe-express-browser-key-0123456789', STRIPE_SECRET_KEY: 'sk_test_affix', STRIPE_CONNECT_WEBHOOK_SECRET: CONNECT_SECRET },
    { queueUrl: 'own' },
    { width: 1280, height: 900 },
  );
  ({ api, page } = opened);
  nock.disableNetConnect();
  nock.enableNetConnect('127.0.0.1');
}, 60_000);
afterAll(async () => {
  await opened?.close();
});
const admin = adminOf(() => api);
const textOf = (selector: string) => visibleText(page.locator(selector));
const seriousViolations = async () =>
  (await axeAudit(page)).violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
/** axe at 390 and 1280 px, and nothing scrolls sideways. */
async function checkedAtBothWidths(name: string) {
  for (const width of [390, 1280]) {
    await page.setViewportSize({ width, height: 900 });
    expect({ name, width, violations: await seriousViolations() }).toEqual({ name, width, violations: [] });
    const { scroll, inner } = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, inner: window.innerWidth }));
    expect({ name, width, scroll: Math.min(scroll, inner) }).toEqual({ name, width, scroll });
  }
  await screenshotsAt(page, name);
}

/** Stripe's `account` object as its API documents it, for an Express account. */
const account = (id: string, state: { payouts: boolean; submitted: boolean; due: string[]; disabled: string | null }) => ({
  id, object: 'account', type: 'express', country: 'DE', email: 'ana@partner.example', default_currency: 'eur', created: 1_764_300_000,
  capabilities: { transfers: state.payouts ? 'active' : 'inactive' },
  charges_enabled: state.payouts, payouts_enabled: state.payouts, details_submitted: state.submitted,
  requirements: { alternatives: [], current_deadline: null, currently_due: state.due, disabled_reason: state.disabled, errors: [], eventually_due: state.due, past_due: [], pending_verification: [] },
  metadata: {},
});

describe.skipIf(!hasChromium)('Stripe Express from the portal', () => {
  it('not connected, connect (Stripe’s page replaced by the return address), needs more information, connected', async () => {
    page.setDefaultTimeout(5000);
    const owner = await admin('POST', '/accounts', { email: 'owner@alpha.example', password: 'express owner password' });
    const program = await admin('POST', '/programs', { account_id: owner.id, name: 'Alpha Shop', domain: 'alpha.example', commission_type: 'percent', commission_rate: 20 });
    const key = (await admin('POST', `/programs/${program.id}/keys`)).api_key;
    // Several partners; Ana earns in USD and EUR, one sale refunded.
    const partners: Record<string, number> = {};
    for (const name of ['Ana', 'Ben', 'Chloé']) {
      partners[name] = (await admin('POST', `/programs/${program.id}/partners`, { name, email: `${name.toLowerCase().replace('é', 'e')}@partner.example` })).id;
      await admin('POST', `/programs/${program.id}/links`, { partner_id: partners[name], short_link: `${name.toLowerCase().replace('é', 'e')}-alpha` });
    }
    const sale = async (code: string, transactionId: string, cents: number, currency: string) => {
      const clickId = await trackClick(api, `https://alpha.example/?aff=${code}`);
      const reply = await api.request('POST', '/api/v1/track/sale', { body: { transaction_id: transactionId, amount_cents: cents, currency, click_id: clickId, customer_key: `c_${transactionId}` }, headers: bearer(key) });
      expect(reply.status).toBe(200);
    };
    await sale('ana-alpha', 'ax_1', 12_500, 'USD');
    await sale('ana-alpha', 'ax_2', 8_000, 'EUR');
    await sale('ana-alpha', 'ax_3', 4_900, 'USD');
    await sale('ben-alpha', 'ax_4', 20_000, 'EUR');
    await api.request('POST', '/api/v1/track/refund', { body: { transaction_id: 'ax_3', refund_amount_cents: 4_900, reason: 'refund', refund_id: 're_ax_3' }, headers: bearer(key) });
    const ana = partners.Ana!;
    await api.pool.query('UPDATE partners SET invited_at = now() WHERE program_id = $1', [program.id]);
    const token = randomBytes(24).toString('base64url');
    await api.pool.query("INSERT INTO partner_sessions (token_hash, email, expires_at) VALUES ($1, $2, now() + interval '1 hour')", [sha256(token), 'ana@partner.example']);
    await page.context().addCookies([{ name: 'affix_portal', value: token, url: `${api.url}/portal` }]);

    // The payout settings offer Stripe.
    await page.goto(`${api.url}/portal/programs/${ana}`);
    expect(await textOf('#stripe-express-summary')).toBe('Stripe: Not connected. Connect with Stripe');
    await page.locator('#payout-details').scrollIntoViewIfNeeded();
    await checkedAtBothWidths('portal-program-stripe-not-connected');
    await page.getByRole('link', { name: 'Connect with Stripe' }).click();
    expect(new URL(page.url()).pathname).toBe(`/portal/programs/${ana}/stripe`);
    expect(await textOf('#stripe-status')).toBe('Not connected');
    await checkedAtBothWidths('portal-stripe-not-connected');

    // A country is needed first; then the account, and Stripe's onboarding link (here: straight back).
    await submitWithKeyboard(page, 'Connect with Stripe');
    expect(await textOf('#country-error')).toBe('Choose your country.');
    await checkedAtBothWidths('portal-stripe-country-refused');
    const created: URLSearchParams[] = [];
    nock(STRIPE).post('/v1/accounts').reply(function (_uri, body) {
      created.push(new URLSearchParams(body as string));
      return [200, account('acct_1AnaAlpha', { payouts: false, submitted: false, due: ['business_type', 'external_account', 'tos_acceptance.date'], disabled: 'requirements.past_due' })];
    });
    nock(STRIPE).post('/v1/account_links').reply(200, (_uri, body) => ({ object: 'account_link', created: 1_764_300_000, expires_at: 1_764_300_300, url: new URLSearchParams(body as string).get('return_url') }));
    nock(STRIPE).get('/v1/accounts/acct_1AnaAlpha').reply(200, account('acct_1AnaAlpha', { payouts: false, submitted: true, due: ['individual.verification.document', 'external_account'], disabled: 'requirements.past_due' }));
    await page.getByLabel(/^Country you live in/).selectOption('DE');
    await submitWithKeyboard(page, 'Connect with Stripe');
    await page.waitForURL(`${api.url}/portal/programs/${ana}/stripe?done=stripe`);
    expect(created[0]!.get('email')).toBe('ana@partner.example');
    expect(await textOf('#stripe-status')).toBe('Stripe needs more information');
    expect(await page.locator('#stripe-needs li').allTextContents()).toEqual(['a photo of your identity document', 'a bank account or debit card to receive your payouts']);
    await checkedAtBothWidths('portal-stripe-needs-info');

    // Stripe tells Affix the account can be paid: the page says so, and so does the program page.
    const event = {
      id: 'evt_1AnaAlphaEnabled', object: 'event', type: 'account.updated', api_version: '2025-03-31.basil', account: 'acct_1AnaAlpha', livemode: false,
      created: Math.floor(Date.now() / 1000) + 60, data: { object: account('acct_1AnaAlpha', { payouts: true, submitted: true, due: [], disabled: null }) }, pending_webhooks: 1, request: { id: null, idempotency_key: null },
    };
    expect((await deliver(api, '/api/v1/webhooks/stripe', event, { secret: CONNECT_SECRET })).body.status).toBe('processed');
    await page.reload();
    expect(await textOf('#stripe-status')).toBe('Connected: payouts go to your Stripe account');
    expect(await page.locator('#stripe-needs').count()).toBe(0);
    await checkedAtBothWidths('portal-stripe-connected');
    await page.goto(`${api.url}/portal/programs/${ana}`);
    expect(await textOf('#stripe-express-summary')).toBe('Stripe: Connected: payouts go to your Stripe account. See your Stripe account');
    expect(await page.getByLabel('Method').inputValue()).toBe('stripe');
    await page.locator('#payout-details').scrollIntoViewIfNeeded();
    await checkedAtBothWidths('portal-program-stripe-connected');
    expect(nock.pendingMocks()).toEqual([]);
  }, 120_000);
});
