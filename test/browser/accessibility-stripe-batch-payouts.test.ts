// The Payouts page paying a batch's Stripe payouts with one action (docs/payouts.md, "Stripe: a
// batch with one action"), in a browser, with real-looking data: partners paid through Stripe in
// USD and EUR, one in KWD that Stripe cannot take, one through PayPal (its button beside
// Stripe's), a refund; "Pay batch N through Stripe" pressed, then the job against Stripe's
// answers (nock): one transfer paid, one refused with Stripe's words. No serious or critical
// axe-core violation at 390 and 1280 px. With AFFIX_SCREENSHOTS=1 the page is saved
// (docs/screenshots/page-program-payouts-stripe-batch-<width>.png).
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminOf, axeAudit, hasChromium, openBrowserApp, screenshotsAt, signInToDashboard, submitWithKeyboard, textOf } from '../support/browser.js';
import { type TestApi, bearer, trackClick } from '../support/harness.js';
import { nockForThisFile } from '../support/nock.js';
import { approveDueCommissions } from '../../src/app/money/commission-lifecycle.js';
import { sendProviderPayouts } from '../../src/app/money/payout-providers.js';
import { createSecretBox } from '../../src/platform/secret-box.js';

const nock = nockForThisFile();
const SECRET_KEY = 'stripe-batch-browser-key-0123456';
const STRIPE_KEY = 'sk_test_roasterybatch';

let opened: Awaited<ReturnType<typeof openBrowserApp>> | undefined;
let api: TestApi;
let page: Page;
const admin = adminOf(() => api);

beforeAll(async () => {
  if (!hasChromium) return;
  opened = await openBrowserApp({ AFFIX_SECRET_KEY: SECRET_KEY, STRIPE_SECRET_KEY: STRIPE_KEY }, { queueUrl: 'own' }, { width: 1280, height: 900 });
  ({ api, page } = opened);
});
afterAll(() => opened?.close());

describe.skipIf(!hasChromium)('the Payouts page paying a batch through Stripe', () => {
  it('pays the batch from its button and shows each transfer’s outcome; 0 serious or critical violations', async () => {
    page.setDefaultTimeout(5000);
    const account = await admin('POST', '/accounts', { email: 'owner@stripebatch.example', password: 'stripe batch owner password' });
    const program = await admin('POST', '/programs', { account_id: account.id, name: 'Roastery', domain: 'shop.example.com', commission_type: 'percent', commission_rate: 20, accept_all_currencies: true });
    await admin('PATCH', `/programs/${program.id}/payout-settings`, { hold_days: 0, payout_minimums_cents: {} });
    const key = (await admin('POST', `/programs/${program.id}/keys`)).api_key;
    const people = [
      ['Ana Lima', 'ana-lima', 'stripe', 'acct_1AnaLimaRoastery', 'USD', 49_900], ['Bruno Costa', 'bruno', 'stripe', 'acct_1BrunoCosta', 'EUR', 32_000],
      ['Chloé Martin', 'chloe', 'stripe', 'acct_1ChloeMartin', 'USD', 29_900], ['Dana Al-Sabah', 'dana', 'stripe', 'acct_1DanaAlSabah', 'KWD', 61_175],
      ['Eva Novak', 'eva', 'paypal', 'eva@pay.example', 'EUR', 18_000],
    ] as const;
    for (const [name, code, method, reference, currency, cents] of people) {
      const partner = await admin('POST', `/programs/${program.id}/partners`, { name, email: `${code}@partner.example` });
      await admin('POST', `/programs/${program.id}/links`, { partner_id: partner.id, short_link: code });
      await admin('PATCH', `/programs/${program.id}/partners/${partner.id}/payout-details`, { payout_method: method, payout_reference: reference });
      const clickId = await trackClick(api, `https://shop.example.com/?aff=${code}`);
      await api.request('POST', '/api/v1/track/sale', { body: { transaction_id: `sb_${code}`, amount_cents: cents, currency, click_id: clickId, customer_key: `sb_${code}` }, headers: bearer(key) });
    }
    // A refund: Bruno's sale is half refunded before the run.
    await api.request('POST', '/api/v1/track/refund', { body: { transaction_id: 'sb_bruno', refund_amount_cents: 16_000 }, headers: bearer(key) });
    const deps = { pool: api.pool, secretBox: createSecretBox(SECRET_KEY), now: () => new Date(Date.now() + 60_000), stripeSecretKey: STRIPE_KEY };
    await approveDueCommissions(deps);
    const run = await admin('POST', `/programs/${program.id}/payouts/run`);
    const payoutOf = (name: string) => (run.payouts as { id: number; partner_name: string }[]).find((p) => p.partner_name === name)!.id;
    await admin('PUT', `/programs/${program.id}/payout-providers/paypal`, { client_id: 'AbRoasteryPayPalClientId', client_secret: 'EProastery-paypal-secret-Q7', sandbox: true });

    await signInToDashboard(page, api.url, 'owner@stripebatch.example', 'stripe batch owner password');
    await page.goto(`${api.url}/dashboard/programs/${program.id}/payouts`);
    expect(await textOf(page.locator('main'))).toContain(`Pay batch ${run.batch_id} through PayPal`);
    await submitWithKeyboard(page, `Pay batch ${run.batch_id} through Stripe`);
    expect(await textOf(page.locator('.flash'))).toContain('Sending: the payouts are on their way');
    let body = await textOf(page.locator('main'));
    expect(body).toContain('Sending through Stripe…');
    expect(body).toContain('Not sent through Stripe: Not payable through Stripe: Stripe takes KWD amounts only in multiples of 10 thousandths');

    // The job's transfers, against Stripe's answers (payouts go in id order): Ana's and Chloé's paid, Bruno's refused.
    const [sendRow] = (await api.pool.query('SELECT id FROM provider_payout_sends WHERE program_id = $1', [program.id])).rows;
    for (const name of ['Ana Lima', 'Bruno Costa', 'Chloé Martin']) {
      const transfer = nock('https://api.stripe.com').post('/v1/transfers');
      if (name === 'Bruno Costa') transfer.reply(400, { error: { type: 'invalid_request_error', message: 'Your destination account needs to have at least one of the following capabilities enabled: transfers, crypto_transfers, legacy_payments' } });
      else transfer.reply(200, { id: `tr_3Q${payoutOf(name)}RoastX`, object: 'transfer' });
    }
    expect(await sendProviderPayouts(deps, Number(sendRow.id))).toBe('sent');
    expect(nock.isDone()).toBe(true);

    await page.goto(`${api.url}/dashboard/programs/${program.id}/payouts`);
    body = await textOf(page.locator('main'));
    expect(body).toContain(`Paid through Stripe (tr_3Q${payoutOf('Ana Lima')}RoastX)`);
    expect(body).toContain(`Paid through Stripe (tr_3Q${payoutOf('Chloé Martin')}RoastX)`);
    expect(body).toContain('Not sent through Stripe: Stripe refused the transfer: Your destination account needs to have at least one of the following capabilities enabled');
    expect(body).toContain(`Pay batch ${run.batch_id} through Stripe`);
    const found: string[] = [];
    for (const width of [390, 1280]) {
      await page.setViewportSize({ width, height: 900 });
      const result = await axeAudit(page);
      for (const v of result.violations) if (v.impact === 'serious' || v.impact === 'critical') found.push(`${width}: ${v.id} ${v.nodes.slice(0, 2).map((n) => n.target.join(' ')).join(', ')}`);
    }
    await screenshotsAt(page, 'page-program-payouts-stripe-batch');
    expect(found).toEqual([]);
  }, 60_000);
});
