// The Payouts page paying through PayPal and Wise (docs/payouts.md, "PayPal and Wise through their
// APIs"), in a browser, with real-looking data: partners paid in USD, EUR and HUF, a refund, the
// PayPal and Wise credentials saved, a batch paid from its button and PayPal's answer (nock): one
// paid, one failed with PayPal's reason, one still unclaimed, one PayPal cannot take, one Wise
// payout waiting. No serious or critical axe-core violation at 390 and 1280 px. With
// AFFIX_SCREENSHOTS=1 the page is saved (docs/screenshots/page-program-payouts-providers-<width>.png).
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminOf, axeAudit, hasChromium, openBrowserApp, screenshotsAt, signInToDashboard, submitWithKeyboard, textOf } from '../support/browser.js';
import { type TestApi, bearer, trackClick } from '../support/harness.js';
import { nockForThisFile } from '../support/nock.js';
import { approveDueCommissions } from '../../src/app/money/commission-lifecycle.js';
import { sendProviderPayouts } from '../../src/app/money/payout-providers.js';
import { createSecretBox } from '../../src/platform/secret-box.js';

const nock = nockForThisFile();
const SECRET_KEY = 'provider-payouts-browser-key-0123';
const PAYPAL = 'https://api-m.sandbox.paypal.com';

let opened: Awaited<ReturnType<typeof openBrowserApp>> | undefined;
let api: TestApi;
let page: Page;
const admin = adminOf(() => api);

beforeAll(async () => {
  if (!hasChromium) return;
  opened = await openBrowserApp({ AFFIX_SECRET_KEY: SECRET_KEY }, { queueUrl: 'own' }, { width: 1280, height: 900 });
  ({ api, page } = opened);
});
afterAll(() => opened?.close());

describe.skipIf(!hasChromium)('the Payouts page paying through PayPal and Wise', () => {
  it('saves the credentials write-only, pays a batch from its button, shows each outcome; 0 serious or critical violations', async () => {
    page.setDefaultTimeout(5000);
    const account = await admin('POST', '/accounts', { email: 'owner@providers.example', password: 'providers owner password' });
    const program = await admin('POST', '/programs', { account_id: account.id, name: 'Roastery', domain: 'shop.example.com', commission_type: 'percent', commission_rate: 20, accept_all_currencies: true });
    await admin('PATCH', `/programs/${program.id}/payout-settings`, { hold_days: 0, payout_minimums_cents: {} });
    const key = (await admin('POST', `/programs/${program.id}/keys`)).api_key;
    const partners: Record<string, number> = {};
    const people = [
      ['Ana Lima', 'ana-lima', 'paypal', 'USD', 49_900], ['Bruno Costa', 'bruno', 'paypal', 'EUR', 32_000], ['Chloé Martin', 'chloe', 'paypal', 'USD', 29_900],
      ['Dev Patel', 'devp', 'paypal', 'HUF', 7_502_550], ['Eva Novak', 'eva', 'wise', 'EUR', 18_000],
    ] as const;
    for (const [name, code, method, currency, cents] of people) {
      const partner = await admin('POST', `/programs/${program.id}/partners`, { name, email: `${code}@partner.example` });
      await admin('POST', `/programs/${program.id}/links`, { partner_id: partner.id, short_link: code });
      await admin('PATCH', `/programs/${program.id}/partners/${partner.id}/payout-details`, { payout_method: method, payout_reference: `${code}@pay.example` });
      partners[name] = partner.id;
      const clickId = await trackClick(api, `https://shop.example.com/?aff=${code}`);
      await api.request('POST', '/api/v1/track/sale', { body: { transaction_id: `prov_${code}`, amount_cents: cents, currency, click_id: clickId, customer_key: `prov_${code}` }, headers: bearer(key) });
    }
    // A refund: Bruno's sale is half refunded before the run.
    await api.request('POST', '/api/v1/track/refund', { body: { transaction_id: 'prov_bruno', refund_amount_cents: 16_000 }, headers: bearer(key) });
    const deps = { pool: api.pool, secretBox: createSecretBox(SECRET_KEY), now: () => new Date(Date.now() + 60_000), retry: { minTimeoutMs: 0, retries: 0 } };
    await approveDueCommissions(deps);
    const run = await admin('POST', `/programs/${program.id}/payouts/run`);
    const payoutOf = (name: string) => (run.payouts as { id: number; partner_name: string }[]).find((p) => p.partner_name === name)!.id;
    await admin('PUT', `/programs/${program.id}/payout-providers/wise`, { api_token: 'wise-live-token-roastery-77aa', profile_id: 7001 });

    await signInToDashboard(page, api.url, 'owner@providers.example', 'providers owner password');
    await page.goto(`${api.url}/dashboard/programs/${program.id}/payouts`);
    // PayPal's credentials typed in the page's form (under the Payout and fraud settings).
    await page.locator('#payout-settings > details > summary').click();
    await page.locator('#payout-providers summary').click();
    await page.getByLabel('Client id of your PayPal REST app').fill('AbRoasteryPayPalClientId');
    await page.getByLabel('Client secret', { exact: true }).fill('EProastery-paypal-secret-Q7');
    await page.getByLabel("PayPal's sandbox (test money)").check();
    await submitWithKeyboard(page, 'Save PayPal');
    expect(await textOf(page.locator('#payout-providers summary'))).toContain('PayPal: sandbox; secret set, ends with …t-Q7');
    expect(await page.content()).not.toContain('EProastery-paypal-secret-Q7');

    await submitWithKeyboard(page, `Pay batch ${run.batch_id} through PayPal`);
    expect(await textOf(page.locator('.flash'))).toContain('Sending: the payouts are on their way');

    // The job's send, against PayPal's answers.
    const [sendRow] = (await api.pool.query('SELECT id FROM provider_payout_sends WHERE program_id = $1', [program.id])).rows;
    nock(PAYPAL).post('/v1/oauth2/token').reply(200, { access_token: 'A21AA-browser', token_type: 'Bearer', expires_in: 32400 });
    nock(PAYPAL).post('/v1/payments/payouts').reply(201, { batch_header: { payout_batch_id: 'FYXMPQTX4JC9N', batch_status: 'PENDING' }, links: [] });
    const item = (name: string, status: string, errors?: object) => ({
      payout_item_id: `5KX${payoutOf(name)}ZB`, transaction_status: status, payout_item: { sender_item_id: String(payoutOf(name)) }, ...(errors ? { errors } : {}),
    });
    nock(PAYPAL).get('/v1/payments/payouts/FYXMPQTX4JC9N').query(true).reply(200, {
      batch_header: { payout_batch_id: 'FYXMPQTX4JC9N', batch_status: 'PROCESSING' },
      items: [item('Ana Lima', 'SUCCESS'), item('Bruno Costa', 'FAILED', { name: 'RECEIVER_UNREGISTERED', message: 'Receiver is unregistered' }), item('Chloé Martin', 'UNCLAIMED')],
    });
    expect(await sendProviderPayouts(deps, Number(sendRow.id))).toBe('sent');

    await page.goto(`${api.url}/dashboard/programs/${program.id}/payouts`);
    const body = await textOf(page.locator('main'));
    expect(body).toContain(`Paid through PayPal (5KX${payoutOf('Ana Lima')}ZB)`);
    expect(body).toContain(`Failed through PayPal (5KX${payoutOf('Bruno Costa')}ZB): PayPal: FAILED (Receiver is unregistered)`);
    expect(body).toContain(`On its way through PayPal (5KX${payoutOf('Chloé Martin')}ZB): UNCLAIMED`);
    expect(body).toContain('Not sent through PayPal: Not payable through PayPal: 15005.10 HUF has more decimals than PayPal takes for HUF (0): pay it another way');
    expect(body).toContain(`Pay batch ${run.batch_id} through Wise`);
    await page.locator('#payout-settings > details > summary').click();
    await page.locator('#payout-providers summary').click();
    const found: string[] = [];
    for (const width of [390, 1280]) {
      await page.setViewportSize({ width, height: 900 });
      const result = await axeAudit(page);
      for (const v of result.violations) if (v.impact === 'serious' || v.impact === 'critical') found.push(`${width}: ${v.id} ${v.nodes.slice(0, 2).map((n) => n.target.join(' ')).join(', ')}`);
    }
    await screenshotsAt(page, 'page-program-payouts-providers');
    expect(found).toEqual([]);
    expect(partners['Eva Novak']).toBeGreaterThan(0);
  }, 60_000);
});
