// Issue 44, item 3, in Chromium at 390 and 1280 px: a partner's referrals page lists the customers
// they referred (emails masked, lead / customer / refunded), each commission with its state, the
// day it can be paid and the day it was paid, clicks per day, and clicks, leads and sales per
// sub-ID; the CSVs say the same; nothing of another partner's; axe finds nothing serious.
import { randomBytes } from 'node:crypto';
import { parse } from 'csv-parse/sync';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { sha256 } from '../../src/core/secrets.js';
import { adminOf, axeAudit, browserAppWithMail, hasChromium, screenshotsAt } from '../support/browser.js';
import { type TestApi, bearer, trackClick } from '../support/harness.js';

let api: TestApi;
let page: Page;
browserAppWithMail('referrals-browser-key-0123456789abcdef', (opened) => ({ api, page } = opened));
const admin = adminOf(() => api);

const seriousViolations = async () =>
  (await axeAudit(page)).violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id);
const rows = (selector: string) =>
  page.locator(`${selector} tbody tr`).evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => (td.textContent ?? '').replace(/\s+/g, ' ').trim())));
const day = (at: Date) => at.toISOString().slice(0, 10);

describe.skipIf(!hasChromium)("a partner's referrals", () => {
  it('customers masked with their status, commissions with state and available-on, clicks per day and per sub-ID, the same as CSV', async () => {
    page.setDefaultTimeout(5000);
    const account = await admin('POST', '/accounts', { email: 'owner@northwind.example' });
    const program = await admin('POST', '/programs', { account_id: account.id, name: 'Northwind Outfitters', domain: 'northwind.example', commission_type: 'percent', commission_rate: 20 });
    const key = (await admin('POST', `/programs/${program.id}/keys`)).api_key;
    const track = async (kind: string, body: unknown) => {
      const reply = await api.request('POST', `/api/v1/track/${kind}`, { body, headers: bearer(key) });
      if (reply.status !== 200) throw new Error(`${kind}: ${reply.status} ${JSON.stringify(reply.body)}`);
    };
    const partner = async (name: string, email: string, code: string) => {
      const p = await admin('POST', `/programs/${program.id}/partners`, { name, email });
      await admin('POST', `/programs/${program.id}/links`, { partner_id: p.id, short_link: code });
      await api.pool.query('UPDATE partners SET invited_at = now() WHERE id = $1', [p.id]);
      return p.id as number;
    };
    const maya = await partner('Maya Reyes', 'maya@creator.example', 'maya');
    const leo = await partner('Leo Park', 'leo@creator.example', 'leo');
    const click = (code: string, sub?: string) => trackClick(api, `https://northwind.example/jackets?aff=${code}${sub ? `&sub_id=${sub}` : ''}`);

    // Maya: 4 clicks from her YouTube review, 2 from her newsletter, 3 untagged.
    const yt = [await click('maya', 'yt-review'), await click('maya', 'yt-review'), await click('maya', 'yt-review'), await click('maya', 'yt-review')];
    const news = [await click('maya', 'newsletter'), await click('maya', 'newsletter')];
    for (let i = 0; i < 3; i += 1) await click('maya');
    // Jane signs up and buys ($120); user_8812 only signs up; Bob buys in EUR and is refunded in full; Anna buys ($50), approved and paid.
    await track('lead', { click_id: yt[0], customer_key: 'jane.doe@gmail.com', email: 'jane.doe@gmail.com', customer_name: 'Jane (Pro, yearly)' });
    await track('sale', { transaction_id: 'nw_jane_1', amount_cents: 12_000, currency: 'USD', customer_key: 'jane.doe@gmail.com' });
    await track('lead', { click_id: yt[1], customer_key: 'user_8812' });
    await track('sale', { transaction_id: 'nw_bob_1', amount_cents: 8_000, currency: 'EUR', click_id: news[0], customer_key: 'bob@company.de' });
    await track('refund', { transaction_id: 'nw_bob_1' });
    const annaClick = await click('maya');
    await track('sale', { transaction_id: 'nw_anna_1', amount_cents: 5_000, currency: 'USD', click_id: annaClick, customer_key: 'anna@example.org' });
    // Leo's customer, whom Maya must never see.
    await track('sale', { transaction_id: 'nw_leo_1', amount_cents: 9_900, currency: 'USD', click_id: await click('leo', 'yt-review'), customer_key: 'secret.buyer@leo.example' });

    const commission = async (txn: string) => (await api.pool.query('SELECT c.id, c.created_at FROM commissions c JOIN sales s ON s.id = c.sale_id WHERE s.processor_event_id = $1', [txn])).rows[0];
    const anna = await commission('nw_anna_1');
    await admin('PATCH', `/programs/${program.id}/partners/${maya}/payout-details`, { payout_method: 'paypal', payout_reference: 'maya@paypal.example' });
    await admin('POST', `/programs/${program.id}/commissions/${anna.id}/approve`, { reason: 'checked' });
    const run = await admin('POST', `/programs/${program.id}/payouts/run`);
    await admin('POST', `/programs/${program.id}/payouts/${run.payouts[0].id}/paid`, { reference: 'PAYPAL-MAYA-1' });
    const jane = await commission('nw_jane_1');
    const holdDays = (await api.pool.query('SELECT hold_days FROM programs WHERE id = $1', [program.id])).rows[0].hold_days as number;
    const availableOn = (c: { created_at: Date }) => day(new Date(c.created_at.getTime() + holdDays * 86_400_000));

    // Maya signs in (a session as the mailed link makes one) and opens her referrals from the program page.
    const token = randomBytes(24).toString('base64url');
    await api.pool.query("INSERT INTO partner_sessions (token_hash, email, expires_at) VALUES ($1, 'maya@creator.example', now() + interval '1 hour')", [sha256(token)]);
    await page.context().addCookies([{ name: 'affix_portal', value: token, url: `${api.url}/portal` }]);
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${api.url}/portal/programs/${maya}`);
    await page.getByRole('link', { name: /Your referrals/ }).click();
    expect(new URL(page.url()).pathname).toBe(`/portal/programs/${maya}/referrals`);

    // Newest first: Anna, Bob (refunded), user_8812 (a lead), Jane. Emails masked, the brand's id of a person too.
    expect(await rows('#customer-table')).toEqual([
      ['a***@example.org', expect.any(String), 'customer', '1', '$50.00', '$10.00'],
      ['b***@company.de', expect.any(String), 'refunded', '1', '€80.00', '€0.00'],
      ['u***12', expect.any(String), 'lead', '0', '—', '—'],
      ['j***@gmail.com', expect.any(String), 'customer', '1', '$120.00', '$24.00'],
    ]);
    const today = day(new Date());
    expect(await rows('#commission-table')).toEqual([
      // Each commission says why it is what it is (docs/rewards.md).
      [today, 'a***@example.org', '$50.00', '$10.00 20 % — program terms, first paid sale', 'paid', availableOn(anna), today],
      [today, 'b***@company.de', '€80.00', '€0.00 20 % — program terms, first paid sale', 'reversed', '—', '—'],
      [today, 'j***@gmail.com', '$120.00', '$24.00 20 % — program terms, first paid sale', 'awaiting approval', availableOn(jane), '—'],
    ]);
    expect(await rows('#sub-id-table')).toEqual([['yt-review', '4', '2', '1'], ['newsletter', '2', '1', '1']]);
    expect(await page.locator('#daily-clicks p').first().textContent()).toBe('10 clicks in the last 30 days (UTC days).');
    const body = await page.locator('main').innerText();
    expect(body).not.toContain('leo.example');
    expect(body).not.toContain('jane.doe');
    expect(await seriousViolations()).toEqual([]);
    await screenshotsAt(page, 'portal-referrals');

    // The CSVs: the same rows, the same masks, the signed-in partner's only.
    const csv = async (name: string) => (await (await page.request.get(`${api.url}/portal/programs/${maya}/${name}`)).text()).split('\r\n').filter(Boolean);
    expect((await csv('referrals.csv')).map((l) => l.split(',').filter((_, i) => i !== 1))).toEqual([
      'customer,status,sales,currency,sales_amount,earned'.split(','),
      ['a***@example.org', 'customer', '1', 'USD', '50.00', '10.00'],
      ['b***@company.de', 'refunded', '1', 'EUR', '80.00', '0.00'],
      ['u***12', 'lead', '0', '', '', ''],
      ['j***@gmail.com', 'customer', '1', 'USD', '120.00', '24.00'],
    ]);
    // The words carry commas: read as CSV.
    const commissionsCsv = parse((await csv('commissions.csv')).join('\r\n'), { bom: true }) as string[][];
    expect(commissionsCsv.map((l) => l.slice(1))).toEqual([
      'customer,sale_date,currency,sale_amount,commission,state,available_on,paid_on,why'.split(','),
      ['a***@example.org', today, 'USD', '50.00', '10.00', 'paid', availableOn(anna), today, '20 % — program terms, first paid sale'],
      ['b***@company.de', today, 'EUR', '80.00', '0.00', 'reversed', '', '', '20 % — program terms, first paid sale'],
      ['j***@gmail.com', today, 'USD', '120.00', '24.00', 'awaiting approval', availableOn(jane), '', '20 % — program terms, first paid sale'],
    ]);
    expect(await csv('sub-ids.csv')).toEqual(['sub_id,clicks,leads,sales', 'yt-review,4,2,1', 'newsletter,2,1,1']);
    // Leo's page is not hers: the same 404 as a page that does not exist.
    expect((await page.request.get(`${api.url}/portal/programs/${leo}/referrals`)).status()).toBe(404);

    // The brand chooses to show the name its backend sent with the lead (issue 44, item 3): Jane by
    // that name, the others (no name sent) masked as before; the page and the CSV alike.
    await admin('PATCH', `/programs/${program.id}/brand`, { customer_label: 'name' });
    await page.reload();
    expect((await rows('#customer-table')).map((r) => r[0])).toEqual(['a***@example.org', 'b***@company.de', 'u***12', 'Jane (Pro, yearly)']);
    expect((await rows('#commission-table')).map((r) => r[1])).toEqual(['a***@example.org', 'b***@company.de', 'Jane (Pro, yearly)']);
    expect((await csv('referrals.csv')).at(-1)).toContain('"Jane (Pro, yearly)"');
    expect(await seriousViolations()).toEqual([]);
    await screenshotsAt(page, 'portal-referrals-named');
  }, 120_000);
});
