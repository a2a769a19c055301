// The dashboard end to end in headless Chromium, keyboard first: sign in, create a program,
// partners and links, keys, Stripe, the webhook inbox, activity and charts.
import { Webhook } from 'standardwebhooks';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SHOTS, hasChromium, openBrowserApp, submitWithKeyboard, textOf } from '../support/browser.js';
import { type TestApi, type TestDatabase, adminHeaders, bearer, count } from '../support/harness.js';
import { deliver, fixture, waitForEvent } from '../support/stripe.js';
import { startReceiver } from '../support/receiver.js';

let opened: Awaited<ReturnType<typeof openBrowserApp>> | undefined;
let db: TestDatabase;
let api: TestApi;
let page: Page;
let programId = 0;

beforeAll(async () => {
  if (!hasChromium) return;
  opened = await openBrowserApp(
    { AFFIX_SECRET_KEY: 'dashboard-secret-key-0123', AFFIX_WORKER_RETRY_LIMIT: '0', AFFIX_WORKER_POLL_SECONDS: '0.5', AFFIX_WEBHOOK_ALLOW_PRIVATE: 'true' },
    { queueUrl: 'own', workers: true },
    { width: 1200, height: 900 },
  );
  ({ db, api, page } = opened);
  await api.request('POST', '/api/v1/admin/accounts', { body: { email: 'owner@brand.example', password: 'correct horse battery' }, headers: adminHeaders });
}, 60_000);

afterAll(async () => {
  if (!hasChromium) return;
  await opened?.close();
});

/** docs/screenshots names: programs, account, program-overview, program-keys, regenerate-key… */
const screenshotName = (path: string) => {
  const parts = path.split('/').filter(Boolean).slice(1);
  if (parts.length === 0) return 'programs';
  if (parts[0] !== 'programs') return parts[0]!;
  if (parts[2] === 'partners' && parts[3]) return parts[3] === 'import' ? 'program-import' : 'program-partner'; // not over the partners list
  return parts.length === 2 ? 'program-overview' : parts.includes('regenerate') ? 'regenerate-key' : `program-${parts[2]}`;
};


const shot = async (name: string) => {
  if (SHOTS) await page.screenshot({ path: `${SHOTS}/${name}.png`, fullPage: true });
};
const submit = (buttonName: string) => submitWithKeyboard(page, buttonName);

describe.skipIf(!hasChromium)('dashboard', () => {
  it('signs in with the keyboard only', async () => {
    await page.goto(`${api.url}/dashboard`);
    expect(new URL(page.url()).pathname).toBe('/dashboard/login');
    await shot('sign-in');
    await page.getByLabel('Email').focus(); // autofocus puts it there too; do not race it
    await page.keyboard.type('owner@brand.example');
    await page.keyboard.press('Tab');
    await page.keyboard.type('wrong password');
    const navigation = page.waitForNavigation({ waitUntil: 'load' });
    await page.keyboard.press('Enter');
    await navigation;
    await expect.poll(() => textOf(page.getByRole('alert'))).toBe('Wrong email or password.');
    await page.getByLabel('Password').fill('correct horse battery');
    await page.getByLabel('Password').press('Enter');
    await page.waitForURL(`${api.url}/dashboard`);
    await (page.getByRole('heading', { name: 'Programs', level: 1 })).first().waitFor({ state: 'visible', timeout: 5000 });
  });

  it('creates a program; bad input is refused next to the field', async () => {
    await page.getByLabel('Name').fill('Brand Shop');
    await page.getByLabel('Domain').fill('brand.example');
    await page.getByLabel('Commission rate (a percent like 20, or an amount in the currency like 12.50 for fixed types)').fill('lots');
    await submit('Create program');
    const rate = page.getByLabel('Commission rate (a percent like 20, or an amount in the currency like 12.50 for fixed types)');
    await expect.poll(() => (rate).getAttribute('aria-invalid')).toBe('true');
    await expect.poll(() => textOf(page.locator('#commission_rate-error'))).toBe('Must be a positive number.');
    // Every bad field at once, each beside itself, in words.
    await rate.fill('12.345');
    await page.getByLabel('Domain').fill('not a domain');
    await submit('Create program');
    await expect.poll(() => textOf(page.locator('#commission_rate-error'))).toBe('Must have at most 2 decimal places.');
    expect(await textOf(page.locator('#domain-error'))).toBe('Must be a host name such as shop.example.com.');
    await page.getByLabel('Domain').fill('brand.example');
    await rate.fill('20');
    await page.getByLabel('Allowed browser origins (comma separated)').fill('https://brand.example');
    await submit('Create program');
    await (page.getByRole('heading', { name: 'Brand Shop', level: 1 })).first().waitFor({ state: 'visible', timeout: 5000 });
    programId = Number(new URL(page.url()).pathname.split('/').pop());
    expect(programId).toBeGreaterThan(0);
    // A new program: a readable empty chart, and each failing readiness gate links to its fix.
    expect(await textOf(page.locator('#chart-empty'))).toBe('No clicks, leads or sales between these dates yet.');
    expect(await page.getByRole('link', { name: 'Go to API keys' }).getAttribute('href')).toBe(`/dashboard/programs/${programId}/keys`);
    expect(await page.getByRole('link', { name: 'Go to Links' }).count()).toBeGreaterThan(0);
    // A page per section, the current one marked.
    const nav = page.getByRole('navigation', { name: 'Program pages' });
    expect(await nav.getByRole('link').allTextContents()).toEqual(['Overview', 'Partners', 'Applications', 'Groups', 'Discounts', 'Links', 'Payouts', 'Activity', 'Set-up', 'Settings', 'Brand', 'Stripe', 'Paddle', 'Lemon Squeezy', 'Webhook inbox', 'Webhooks', 'API keys', 'Audit log']);
    expect(await nav.locator('[aria-current="page"]').textContent()).toBe('Overview');
  });

  it('adds a partner and a link, turns the link off (click answers 410) and on again', async () => {
    await page.getByRole('navigation', { name: 'Program pages' }).getByRole('link', { name: 'Partners' }).click();
    await page.waitForURL(`${api.url}/dashboard/programs/${programId}/partners`);
    expect(await textOf(page.locator('#partners'))).toContain('No partners yet');
    await submit('Add partner');
    expect(await page.getByLabel('New partner name').getAttribute('aria-invalid')).toBe('true');
    expect(await textOf(page.locator('#partner_name-error'))).toBe('Partner name is required.');
    await page.getByLabel('New partner name').fill('Alice');
    await submit('Add partner');
    await expect.poll(() => textOf(page.getByRole('status'))).toBe('Partner added.');
    expect(new URL(page.url()).pathname).toBe(`/dashboard/programs/${programId}/partners`);
    await page.goto(`${api.url}/dashboard/programs/${programId}/links`);
    await page.getByLabel('Link code (the aff value; empty = random)').fill('alice-dash');
    await submit('Create link');
    await (page.getByText('brand.example/?aff=alice-dash')).first().waitFor({ state: 'visible', timeout: 5000 });
    expect(await page.locator('#links code').first().getAttribute('title')).toBe('https://brand.example/?aff=alice-dash');
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: api.url });
    await page.getByRole('button', { name: 'Copy link alice-dash' }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => textOf(page.getByRole('button', { name: 'Copy link alice-dash' }))).toBe('Copied');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe('https://brand.example/?aff=alice-dash');
    const click = () => api.request('POST', '/api/v1/track/click', { body: { affiliate_url: 'https://brand.example/?aff=alice-dash' } });
    expect((await click()).status).toBe(200);
    await submit('Turn off alice-dash');
    expect((await click()).status).toBe(410);
    await submit('Turn on alice-dash');
    expect((await click()).status).toBe(200);
  });

  it('creates a key (shown once, masked after; a reload creates nothing), regenerates it after a confirmation, and the old one is refused', async () => {
    const keysBefore = await count(api.pool, 'SELECT 1 FROM api_keys WHERE program_id = $1', [programId]);
    await page.goto(`${api.url}/dashboard/programs/${programId}/keys`);
    await submit('Create API key');
    const first = (await page.locator('#new-key-value').textContent())!.trim();
    expect(first).toMatch(/^affix_sk_/);
    // Post, redirect, get: reloading shows nothing more and creates no second key.
    await page.reload();
    await expect.poll(() => (page.locator('#new-key-value')).count()).toBe(0);
    expect(await count(api.pool, 'SELECT 1 FROM api_keys WHERE program_id = $1', [programId])).toBe(keysBefore + 1);
    expect(new URL(page.url()).pathname).toBe(`/dashboard/programs/${programId}/keys`);
    expect(await page.content()).not.toContain(first);
    const masked = `${first.slice(0, 13)}…${first.slice(-4)}`;
    await page.getByRole('link', { name: `Regenerate ${masked}` }).click();
    await expect.poll(() => textOf(page.locator('main'))).toContain('stops working at once');
    // Nothing happened yet: the key still works until the confirmation.
    expect((await api.request('GET', '/api/v1/programs/me/readiness', { headers: bearer(first) })).status).toBe(200);
    await submit(`Yes, revoke ${masked} and create a new key`);
    const second = (await page.locator('#new-key-value').textContent())!.trim();
    expect(second).not.toBe(first);
    expect((await api.request('GET', '/api/v1/programs/me/readiness', { headers: bearer(first) })).status).toBe(401);
    expect((await api.request('GET', '/api/v1/programs/me/readiness', { headers: bearer(second) })).status).toBe(200);
    await page.goto(`${api.url}/dashboard/programs/${programId}/keys`);
    await page.locator('input[name^="rotate_by_"]').last().fill('2099-01-31');
    await submit('Mark for rotation');
    await (page.getByText('warning period until 31 Jan 2099')).first().waitFor({ state: 'visible', timeout: 5000 });
    (globalThis as any).dashboardKey = second;
  });

  it('the chart reflects a tracked click -> lead -> sale', async () => {
    const key = (globalThis as any).dashboardKey as string;
    const clickId = (await api.request('POST', '/api/v1/track/click', { body: { affiliate_url: 'https://brand.example/?aff=alice-dash' } })).body.click_id;
    await api.request('POST', '/api/v1/track/lead', { body: { click_id: clickId, customer_key: 'dash_user' }, headers: bearer(key) });
    const sale = await api.request('POST', '/api/v1/track/sale', { body: { transaction_id: `dash_${Date.now()}`, amount_cents: 4900, customer_key: 'dash_user' }, headers: bearer(key) });
    expect(sale.status).toBe(200);
    await page.goto(`${api.url}/dashboard/programs/${programId}`);
    // Two clicks recorded earlier in this file (the one while the link was off was refused), one now.
    await expect.poll(() => textOf(page.locator('#charts figcaption').first())).toContain('Clicks 3 (bars, left axis) · Leads 1 · Sales 1 (lines, right axis)');
    await expect.poll(() => textOf(page.locator('#charts figcaption').nth(1))).toBe('Click → lead 33% · click → customer 33%');
    // The overview counts live events only: it offers no live/test choice, and ignores one in its address.
    expect(await page.getByLabel('Events').count()).toBe(0);
    await page.goto(`${api.url}/dashboard/programs/${programId}?mode=test`);
    await expect.poll(() => textOf(page.locator('#charts figcaption').first())).toContain('Clicks 3');
    await page.goto(`${api.url}/dashboard/programs/${programId}/activity`);
    await expect.poll(() => textOf(page.locator('#activity tbody'))).toContain('dash_user');
    expect(await textOf(page.locator('#activity tbody tr').first())).toContain('Alice');
    await page.getByLabel('Events').selectOption('test');
    await submit('Show');
    expect(new URL(page.url()).pathname).toBe(`/dashboard/programs/${programId}/activity`);
    await expect.poll(() => textOf(page.locator('#activity tbody'))).toBe('');
    await page.getByLabel('Events').selectOption('live');
    await submit('Show');
    // A renewal under a percent program: recorded, and the table says why it earns nothing.
    const renewal = await api.request('POST', '/api/v1/track/sale', { body: { transaction_id: `dash_renewal_${Date.now()}`, amount_cents: 4900, customer_key: 'dash_user', is_recurring: true }, headers: bearer(key) });
    expect(renewal.body).toMatchObject({ commission_id: null, commission_reason: 'not_first_sale' });
    await page.reload();
    await expect.poll(() => textOf(page.locator('#activity tbody tr').first())).toContain('none: not first sale');
    // Money per currency, per partner, and the activity as CSV.
    await page.goto(`${api.url}/dashboard/programs/${programId}`);
    expect(await page.locator('#kpis tbody td').allTextContents()).toEqual(['USD', '2', '$98.00', '$9.80', '$9.80', '$0.00', '$0.00']);
    await page.goto(`${api.url}/dashboard/programs/${programId}/partners`);
    const alice = page.locator('#partners tbody tr', { hasText: 'Alice' });
    expect((await alice.locator('td.num').allTextContents()).map((t) => t.trim())).toEqual(['3', '1', '2', '$98.00', '$9.80']);
    expect(await textOf(alice.locator('td[data-label=Partner] .muted'))).toBe('no email');
    const csv = await page.request.get(`${api.url}/dashboard/programs/${programId}/activity.csv`);
    expect(csv.headers()['content-type']).toContain('text/csv');
    const csvLines = (await csv.text()).trim().split('\r\n');
    expect(csvLines[0]).toBe('occurred_at,kind,test,customer_key,partner_id,transaction_id,amount_cents,currency,attribution_step,commission_cents,commission_state,commission_reason,refunds,recorded_at');
    expect(csvLines.filter((line) => line.includes(',sale,'))).toHaveLength(2);
    expect(csvLines.some((line) => line.includes('not_first_sale'))).toBe(true);
  });

  it('connects Stripe, shows the live check; a payment waits for its lead, and a failed one is replayed from the inbox', async () => {
    await page.goto(`${api.url}/dashboard/programs/${programId}/stripe`);
    // Nothing typed is not "saved".
    await submit('Save Stripe settings');
    expect(await textOf(page.locator('#webhook_secret-error'))).toBe('Paste the signing secret (whsec_…) of this endpoint in Stripe: nothing was saved.');
    expect(await page.getByRole('status').count()).toBe(0);
    await page.getByLabel(/Signing secret/).fill('sk_wrong_thing');
    await submit('Save Stripe settings');
    expect(await textOf(page.locator('#webhook_secret-error'))).toBe('The signing secret starts with whsec_.');
    await page.getByLabel(/Signing secret/).fill('whsec_dashboard_test');
    await submit('Save Stripe settings');
    await expect.poll(() => textOf(page.getByRole('status'))).toBe('Stripe settings saved.');
    // A payment whose lead is not recorded yet costs one attempt and waits (docs/stripe.md).
    const event = await fixture('checkout.session.completed.payment', { run: `dash${Date.now()}`, click_id: 'clk_not_yet', customer_key: 'late_user', program_id: programId, email: 'late@example.com' });
    expect((await deliver(api, `/api/v1/webhooks/stripe/${programId}`, event, { secret: 'whsec_dashboard_test' })).status).toBe(200);
    expect(await waitForEvent(db.pool, event.id, ['ignored'])).toMatchObject({ attempts: 1, reason: expect.stringContaining('waiting up to') });
    await page.goto(`${api.url}/dashboard/programs/${programId}/stripe`);
    await (page.getByText(/last event received .*signature verified/)).first().waitFor({ state: 'visible', timeout: 5000 });
    // The lead arrives: the waiting payment is attributed without anyone replaying it.
    const key = (globalThis as any).dashboardKey as string;
    const clickId = (await api.request('POST', '/api/v1/track/click', { body: { affiliate_url: 'https://brand.example/?aff=alice-dash' } })).body.click_id;
    await api.request('POST', '/api/v1/track/lead', { body: { click_id: clickId, customer_key: 'late_user' }, headers: bearer(key) });
    expect(await waitForEvent(db.pool, event.id, ['processed'])).toMatchObject({ attribution_step: 'customer_key' });
    // A payment in a currency the program does not take fails for good and waits in the inbox;
    // once the program takes every currency, replaying it from the inbox attributes it.
    const pounds = await fixture('checkout.session.completed.payment', { run: `dashgbp${Date.now()}`, click_id: clickId, customer_key: 'late_user', program_id: programId, email: 'late@example.com' });
    pounds.data.object.currency = 'gbp';
    expect((await deliver(api, `/api/v1/webhooks/stripe/${programId}`, pounds, { secret: 'whsec_dashboard_test' })).status).toBe(200);
    expect(await waitForEvent(db.pool, pounds.id, ['failed'])).toMatchObject({ reason: 'currency gbp is not supported' });
    await page.goto(`${api.url}/dashboard/programs/${programId}/inbox`);
    await expect.poll(() => textOf(page.locator('#inbox'))).toContain('currency gbp is not supported');
    // The inbox fits a phone: ids shortened (whole in the copy button), no sideways scroll.
    expect(await page.getByRole('button', { name: `Copy event id ${pounds.id}` }).count()).toBe(1);
    await page.setViewportSize({ width: 390, height: 900 });
    const widths = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, inner: window.innerWidth }));
    expect(widths.scroll).toBeLessThanOrEqual(widths.inner);
    await page.setViewportSize({ width: 1200, height: 900 });
    await page.goto(`${api.url}/dashboard/programs/${programId}/setup`);
    await page.getByRole('radio', { name: /Every ISO 4217 currency/ }).check();
    await submit('Save the currency setting');
    await page.goto(`${api.url}/dashboard/programs/${programId}/inbox`);
    await submit(`Replay ${pounds.id}`);
    await expect.poll(() => textOf(page.getByRole('status'))).toBe('Event queued again.');
    expect(new URL(page.url()).pathname).toBe(`/dashboard/programs/${programId}/inbox`);
    expect(await waitForEvent(db.pool, pounds.id, ['processed'])).toMatchObject({ attribution_step: 'click_id' });
    await page.reload();
    await expect.poll(() => textOf(page.locator('#inbox'))).toContain('Nothing waiting.');
  });

  it('settings errors appear next to their field; programs list', async () => {
    await page.goto(`${api.url}/dashboard/programs/${programId}/settings`);
    await page.getByLabel('Allowed browser origins (comma separated)').fill('not a url');
    await submit('Save settings');
    await expect.poll(() => textOf(page.locator('#allowed_origins-error'))).toContain('Not is not an origin like https://www.example.com');
    expect(await textOf(page.locator('.error-summary[role=alert]'))).toContain('Not is not an origin like https://www.example.com');
    // A problem in a field folded away (the recurring duration of a percent program) unfolds it.
    await page.getByLabel('Allowed browser origins (comma separated)').fill('');
    await page.locator('#duration_months').evaluate((input) => ((input as HTMLInputElement).value = '0'));
    await submit('Save settings');
    await page.locator('#duration_months-error').waitFor({ state: 'visible', timeout: 5000 });
    expect(await page.locator('#duration_months').isVisible()).toBe(true);
    // A URL for a domain is refused with what to type.
    await page.getByLabel('Domain').fill('https://brand.example/shop');
    await submit('Save settings');
    expect(await textOf(page.locator('#domain-error'))).toBe('Type the host name only, without https:// or a path: brand.example.');
    await page.goto(`${api.url}/dashboard/programs/999999`);
    expect(await textOf(page.getByRole('alert'))).toBe('Program not found');
    await page.goto(`${api.url}/dashboard`);
    await (page.getByRole('link', { name: 'Brand Shop' })).first().waitFor({ state: 'visible', timeout: 5000 });
  });
  it('a manager approves, runs a payout, exports it and marks it paid; the brand endpoint hears payout.paid, signed', async () => {
    const receiver = await startReceiver('/affix');
    const { received } = receiver;
    try {
      // The brand registers its endpoint; the secret is shown once.
      await page.goto(`${api.url}/dashboard/programs/${programId}/webhooks`);
      await page.getByLabel('URL (https)').fill(receiver.url);
      await submit('Add endpoint');
      const secret = (await page.locator('#new-secret-value').textContent())!.trim();
      expect(secret).toMatch(/^whsec_/);

      // What each partner is owed, per currency; commissions wait for approval.
      await page.goto(`${api.url}/dashboard/programs/${programId}/payouts`);
      expect(await textOf(page.locator('#owed tbody'))).toContain('Alice');
      const pending = (await api.pool.query("SELECT id, amount_cents - deducted_cents AS net FROM commissions WHERE program_id = $1 AND stage = 'pending' AND status <> 'reversed' ORDER BY id", [programId])).rows;
      expect(pending.length).toBeGreaterThan(0);
      // One click: no reason needed (one typed is kept).
      for (const c of pending) {
        await page.getByLabel('Reason (optional; kept in the ledger)').fill('checked with the customer');
        await submit(`Approve ${c.id}`);
        await expect.poll(() => textOf(page.getByRole('status'))).toBe('Commission approved.');
      }
      const owed = pending.reduce((sum: number, c: { net: number }) => sum + Number(c.net), 0);
      expect(await textOf(page.locator('#owed tbody tr').first())).toContain(`$${(owed / 100).toFixed(2)}`);

      // A run pays only partners with payout details: Alice's are PayPal's.
      const alice = (await api.pool.query("SELECT id FROM partners WHERE program_id = $1 AND name = 'Alice'", [programId])).rows[0].id;
      await api.request('PATCH', `/api/v1/admin/programs/${programId}/partners/${alice}/payout-details`, {
        body: { payout_method: 'paypal', payout_reference: 'alice@paypal.example' },
        headers: adminHeaders,
      });
      await submit('Run payout');
      await expect.poll(() => textOf(page.getByRole('status'))).toBe('Payout batch created: export it, pay, then mark each payout paid.');
      const payout = (await api.pool.query('SELECT id, batch_id, amount_cents, partner_id FROM payouts WHERE program_id = $1', [programId])).rows[0];
      expect(Number(payout.amount_cents)).toBe(owed);
      // The PayPal file holds the partners paid through PayPal.
      const csv = await page.request.get(`${api.url}${await page.getByRole('link', { name: 'PayPal Payouts' }).getAttribute('href')}`);
      expect(csv.headers()['content-type']).toContain('text/csv');
      const lines = (await csv.text()).trim().split('\r\n');
      expect(lines[0]).toBe('Email/Phone,Amount,Currency code,Reference ID,Note to recipient,Recipient wallet');
      expect(lines[1]).toContain(`alice@paypal.example,${(owed / 100).toFixed(2)},USD,payout-${payout.id},`);

      await page.getByLabel(`Payment reference for payout ${payout.id}`).fill('PAYPAL-7781');
      await submit(`Mark payout ${payout.id} paid`);
      await expect.poll(() => textOf(page.getByRole('status'))).toBe('Payout marked paid.');
      expect(await textOf(page.locator('#open-payouts'))).toContain('No payout waits to be paid.');
      expect(await textOf(page.locator('#owed tbody tr').first())).toContain(`$${(owed / 100).toFixed(2)}`); // now under Paid

      // The brand's endpoint heard each approval and the payment, each verified with its secret.
      await expect.poll(() => received.map((r) => JSON.parse(r.body).type).filter((t) => t === 'payout.paid').length, { timeout: 15_000 }).toBe(1);
      const paid = received.find((r) => JSON.parse(r.body).type === 'payout.paid')!;
      expect(JSON.parse(new Webhook(secret).verify(paid.body, paid.headers) ? paid.body : '{}')).toMatchObject({ data: { payout_id: payout.id, reference: 'PAYPAL-7781', amount_cents: owed, currency: 'USD' } });
      expect(received.filter((r) => JSON.parse(r.body).type === 'commission.approved')).toHaveLength(pending.length);
      await page.goto(`${api.url}/dashboard/programs/${programId}/webhooks`);
      await expect.poll(() => textOf(page.locator('#endpoints'))).toContain('payout.paid');
    } finally {
      await receiver.close();
    }
  });

  it('a paid payout that came back is marked failed: the reason is asked beside it, its balance is owed again', async () => {
    const payout = (await api.pool.query("SELECT id, amount_cents FROM payouts WHERE program_id = $1 AND status = 'paid' ORDER BY id DESC LIMIT 1", [programId])).rows[0];
    await page.goto(`${api.url}/dashboard/programs/${programId}/payouts`);
    expect(await textOf(page.locator('#sent-payouts'))).toContain('paid (PAYPAL-7781)');
    // Without a reason: refused beside its field, nothing changed.
    await submit(`Mark payout ${payout.id} failed`);
    const reason = page.getByLabel(`Why payout ${payout.id} failed or came back`);
    await expect.poll(() => reason.getAttribute('aria-invalid')).toBe('true');
    expect(await textOf(page.locator(`#failure_reason_${payout.id}-error`))).toBe('Say why the payout failed (what the bank or provider answered).');
    expect((await api.pool.query('SELECT status FROM payouts WHERE id = $1', [payout.id])).rows[0].status).toBe('paid');
    await reason.fill('PayPal returned it: the account is closed.');
    await submit(`Mark payout ${payout.id} failed`);
    await expect.poll(() => textOf(page.getByRole('status'))).toBe('Payout marked failed: its balance is owed again and the partner was asked to check their payout details.');
    expect(await textOf(page.locator('#sent-payouts'))).toContain('failed');
    expect(await page.getByRole('button', { name: `Mark payout ${payout.id} failed` }).count()).toBe(0);
    const after = (await api.pool.query('SELECT status, failure_reason FROM payouts WHERE id = $1', [payout.id])).rows[0];
    expect(after).toEqual({ status: 'failed', failure_reason: 'PayPal returned it: the account is closed.' });
    // Owed again: the next run may pay it.
    expect(await textOf(page.locator('#owed tbody tr').first())).toContain(`$${(Number(payout.amount_cents) / 100).toFixed(2)}`);
  });
  it('no page scrolls sideways at 390 px or 1280 px; the recurring duration shows only for recurring types', async () => {
    const alice = (await api.pool.query("SELECT id FROM partners WHERE program_id = $1 AND name = 'Alice'", [programId])).rows[0].id;
    const sections = ['', '/partners', '/applications', '/groups', `/partners/${alice}`, '/partners/import', '/links', '/activity', '/payouts', '/stripe', '/inbox', '/webhooks', '/keys', '/audit', '/settings'];
    const pages = ['/dashboard', '/dashboard/account', ...sections.map((s) => `/dashboard/programs/${programId}${s}`)];
    const keyId = (await api.pool.query('SELECT id FROM api_keys WHERE program_id = $1 AND revoked_at IS NULL ORDER BY id LIMIT 1', [programId])).rows[0].id;
    pages.push(`/dashboard/programs/${programId}/keys/${keyId}/regenerate`);
    for (const width of [390, 1280]) {
      await page.setViewportSize({ width, height: 900 });
      for (const path of pages) {
        await page.goto(`${api.url}${path}`);
        const { scroll, inner } = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, inner: window.innerWidth }));
        expect({ path, width, scroll: Math.min(scroll, inner) }).toEqual({ path, width, scroll });
        if (SHOTS) await page.screenshot({ path: `${SHOTS}/${screenshotName(path)}-${width}.png`, fullPage: true });
      }
    }
    await page.setViewportSize({ width: 1200, height: 900 });
    await page.goto(`${api.url}/dashboard`);
    const duration = page.getByLabel('Recurring commission duration (months, empty = forever)');
    await page.getByLabel('Commission type').selectOption('percent');
    expect(await duration.isVisible()).toBe(false);
    await page.getByLabel('Commission type').selectOption('recurring_percent');
    expect(await duration.isVisible()).toBe(true);
  });
  it('activity is paged, 50 rows a page, keeping the filter', async () => {
    for (let i = 0; i < 50; i++) {
      expect((await api.request('POST', '/api/v1/track/click', { body: { affiliate_url: 'https://brand.example/?aff=alice-dash' } })).status).toBe(200);
    }
    await page.goto(`${api.url}/dashboard/programs/${programId}/activity?mode=all`);
    expect(await page.locator('#activity tbody tr').count()).toBe(50);
    await page.getByRole('link', { name: 'Older' }).click();
    await page.waitForURL(/page=2/);
    expect(new URL(page.url()).searchParams.get('mode')).toBe('all');
    const older = await page.locator('#activity tbody tr').count();
    expect(older).toBeGreaterThan(0);
    expect(older).toBeLessThan(50);
    expect(await textOf(page.getByRole('navigation', { name: 'Activity pages' }))).toBe('Page 2 · Newer');
  });
});
