// The Paddle and Lemon Squeezy pages in Chromium: the endpoint URL and the events to select, a
// refused empty secret beside its field, a saved secret, and the first signed event seen live.
import { createHmac } from 'node:crypto';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { adminOf, browserAppWithMail, hasChromium, screenshotsAt, signInToDashboard, submitWithKeyboard, textOf } from '../support/browser.js';
import type { TestApi } from '../support/harness.js';

let api: TestApi;
let page: Page;
browserAppWithMail('processor-pages-key-0123456789abcdef', (opened) => ({ api, page } = opened));
const admin = adminOf(() => api);

const steps = async (processor: string) => (await page.locator(`#${processor} ol.steps li`).allInnerTexts()).map((text) => text.replace(/\s+/g, ' ').trim());

describe.skipIf(!hasChromium)('the Paddle and Lemon Squeezy pages', () => {
  it('say where the endpoint goes and which events to select; save the secret; show the first event', async () => {
    page.setDefaultTimeout(5000);
    const account = await admin('POST', '/accounts', { email: 'owner@processors.example', password: 'processors owner password' });
    const program = await admin('POST', '/programs', { account_id: account.id, name: 'Merchant Shop', domain: 'shop.example.com', commission_type: 'percent', commission_rate: 20 });
    await signInToDashboard(page, api.url, 'owner@processors.example', 'processors owner password');

    for (const [processor, name, secret, events] of [
      ['paddle', 'Paddle', 'pdl_ntfset_browser_secret', ['transaction.completed', 'adjustment.created', 'adjustment.updated']],
      ['lemonsqueezy', 'Lemon Squeezy', 'lemon-browser-secret', ['order_created', 'subscription_created', 'subscription_payment_success', 'order_refunded', 'subscription_payment_refunded']],
    ] as const) {
      const url = `${api.url}/dashboard/programs/${program.id}/${processor}`;
      await page.goto(url);
      expect(await textOf(page.locator(`#${processor}-url`))).toBe(`${api.url}/api/v1/webhooks/${processor}/${program.id}`);
      expect(await page.locator(`#${processor} ul li code`).allInnerTexts()).toEqual([...events]);
      expect(await steps(processor)).toEqual(['Signing secret saved: not yet', `First event received from ${name}: not yet`]);
      await screenshotsAt(page, `processor-${processor}-before`);

      // Saved with nothing typed: refused beside the field, nothing saved.
      await submitWithKeyboard(page, `Save ${name} settings`);
      expect(await textOf(page.locator('#webhook_secret-error'))).toBe(`Paste the signing secret of this endpoint in ${name}.`);
      await page.getByLabel('Signing secret').fill(secret);
      if (processor === 'paddle') await page.getByLabel('This is a Paddle sandbox account').check();
      await submitWithKeyboard(page, `Save ${name} settings`);
      expect(await textOf(page.getByRole('status'))).toBe(`${name} settings saved.`);

      // A signed delivery, as the processor sends it: the page sees it.
      const body = processor === 'paddle'
        ? JSON.stringify({ event_id: 'evt_browser_1', event_type: 'customer.created', occurred_at: new Date().toISOString(), data: { id: 'ctm_browser' } })
        : JSON.stringify({ meta: { event_name: 'customer_created', test_mode: true }, data: { type: 'customers', id: '1', attributes: { updated_at: new Date().toISOString() } } });
      const ts = Math.floor(Date.now() / 1000);
      const headers: Record<string, string> = processor === 'paddle'
        ? { 'Paddle-Signature': `ts=${ts};h1=${createHmac('sha256', secret).update(`${ts}:${body}`).digest('hex')}` }
        : { 'X-Signature': createHmac('sha256', secret).update(body).digest('hex') };
      const delivered = await api.request('POST', `/api/v1/webhooks/${processor}/${program.id}`, { raw: body, headers: { 'Content-Type': 'application/json', ...headers } });
      expect(delivered.body).toMatchObject({ received: true, status: 'ignored' });
      await page.goto(url);
      expect(await steps(processor)).toEqual(['✓ Signing secret saved', `✓ First event received from ${name}`]);
      expect(await textOf(page.locator(`#${processor} .ok`).last())).toMatch(/^last event received .* UTC, signature verified$/);
      if (processor === 'paddle') expect(await page.getByLabel('This is a Paddle sandbox account').isChecked()).toBe(true);
      await screenshotsAt(page, `processor-${processor}-after`);
    }

    // A Paddle payment whose amount cannot be used fails for good; the inbox shows it under Paddle, not under Stripe.
    const bad = JSON.stringify({
      event_id: 'evt_browser_bad', event_type: 'transaction.completed', occurred_at: new Date().toISOString(),
      data: { id: 'txn_browser_bad', customer_id: 'ctm_browser', currency_code: 'USD', custom_data: null, billed_at: new Date().toISOString(), details: { totals: { grand_total: 'twenty' } } },
    });
    const ts = Math.floor(Date.now() / 1000);
    const stored = await api.request('POST', `/api/v1/webhooks/paddle/${program.id}`, {
      raw: bad, headers: { 'Content-Type': 'application/json', 'Paddle-Signature': `ts=${ts};h1=${createHmac('sha256', 'pdl_ntfset_browser_secret').update(`${ts}:${bad}`).digest('hex')}` },
    });
    await expect.poll(async () => (await api.pool.query('SELECT status FROM webhook_events WHERE id = $1', [stored.body.id])).rows[0].status, { timeout: 10_000 }).toBe('failed');
    await page.goto(`${api.url}/dashboard/programs/${program.id}/inbox?processor=paddle`);
    expect(await textOf(page.locator('#inbox nav [aria-current="page"]'))).toBe('Paddle');
    const cells = (await page.locator('#inbox table tbody tr td').allInnerTexts()).map((text) => text.trim());
    expect(cells.slice(1, 5)).toEqual(['Paddle', 'transaction.completed', 'failed (0 attempts)', 'The amount is not a whole number of cents']);
    await screenshotsAt(page, 'inbox-paddle');
    await page.goto(`${api.url}/dashboard/programs/${program.id}/inbox?processor=stripe`);
    expect(await textOf(page.locator('#inbox p'))).toBe('Nothing waiting.');
  }, 60_000);
});
