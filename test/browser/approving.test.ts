// Approving commissions (issue 43, item 2): 24 pending commissions of four partners in USD and
// EUR, some past their hold, one refunded in part. One click approves (no reason needed);
// "approve everything past its hold" shows its count and sum first; the table filters by
// partner, state and days and shows each row's hold; a bulk approval that would override a
// hold says so and asks. The page stays short: a compact table, not a form per row.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { adminOf, type BrowserAppWithMail, browserAppWithMail, hasChromium, screenshotsAt, signInToDashboard, submitWithKeyboard, textOf } from '../support/browser.js';
import { type TestApi, bearer, trackClick } from '../support/harness.js';

let api: TestApi;
let page: Page;
browserAppWithMail('approving-key-0123456789abcdef', (opened) => ({ api, page } = opened as BrowserAppWithMail));

const admin = adminOf(() => api);
const submit = (name: string) => submitWithKeyboard(page, name);
const seen = async (selector: string) => (await page.locator(selector).first().innerText()).replace(/\s+/g, ' ').trim();
const DAY = 86_400_000;

describe.skipIf(!hasChromium)('approving commissions', () => {
  it('one click approves; past its hold in one action with its count and sum; filters; a hold override asks first; the page is short', async () => {
    page.setDefaultTimeout(5000);
    const account = await admin('POST', '/accounts', { email: 'owner@approve.example', password: 'correct horse battery' });
    const program = await admin('POST', '/programs', { account_id: account.id, name: 'Fjord Studio', domain: 'shop.example.com', commission_type: 'percent', commission_rate: 20, accept_all_currencies: true });
    const base = `${api.url}/dashboard/programs/${program.id}`;
    await admin('PATCH', `/programs/${program.id}/payout-settings`, { hold_days: 30 });
    const key = (await admin('POST', `/programs/${program.id}/keys`)).api_key;
    const track = (path: string, body: unknown) => api.request('POST', `/api/v1/track/${path}`, { body, headers: bearer(key) });

    // 24 sales: four partners, six each, USD and EUR; the older ones past the 30-day hold.
    const names = ['Ana Silva', 'Bruno Keller', 'Chloé Martin', 'Dev Patel'];
    const ids: Record<string, number[]> = {};
    const now = Date.now();
    let n = 0;
    for (const name of names) {
      const partner = await admin('POST', `/programs/${program.id}/partners`, { name, email: `${name.split(' ')[0]!.toLowerCase().normalize('NFD').replace(/[^a-z]/g, '')}@partners.example` });
      await admin('POST', `/programs/${program.id}/links`, { partner_id: partner.id, short_link: `ap-${partner.id}` });
      await admin('PATCH', `/programs/${program.id}/partners/${partner.id}/payout-details`, { payout_method: 'paypal', payout_reference: `${partner.id}@paypal.example` });
      ids[name] = [];
      for (let i = 0; i < 6; i++) {
        const click = await trackClick(api, `https://shop.example.com/?aff=ap-${partner.id}`);
        const txn = `ap_${++n}`;
        expect((await track('sale', { transaction_id: txn, amount_cents: 2900 + n * 500, currency: i % 2 === 1 ? 'EUR' : 'USD', click_id: click, customer_key: `ap_customer_${n}` })).status).toBe(200);
        const { rows } = await api.pool.query('SELECT c.id FROM commissions c JOIN sales s ON s.id = c.sale_id WHERE s.processor_event_id = $1', [txn]);
        const id = Number(rows[0].id);
        ids[name]!.push(id);
        // Made 1 to 45 days ago: sales of the last month and a half (the first two of each partner are past the hold).
        await api.pool.query('UPDATE commissions SET created_at = $2 WHERE id = $1', [id, new Date(now - (i < 2 ? 40 + i * 3 : 25 - i * 4) * DAY)]);
      }
    }
    expect((await track('refund', { transaction_id: 'ap_3', refund_amount_cents: 1000, reason: 'refund', refund_id: 're_ap_3' })).status).toBe(200);

    await signInToDashboard(page, api.url, 'owner@approve.example', 'correct horse battery');
    await page.goto(`${base}/payouts?stage=pending`);

    // Compact: no reason field and no form per row; each row shows its hold.
    expect(await page.locator('#commissions tbody input:not([type=checkbox])').count()).toBe(0);
    expect(await page.locator('#commissions tbody form').count()).toBe(0);
    const [a1, , , , , a6] = ids['Ana Silva']!;
    expect(await seen(`#commissions tbody tr:has(input[value="${a1}"]) td[data-label=Hold]`)).toMatch(/^Over \(\d{4}-\d\d-\d\d\)$/);
    expect(await seen(`#commissions tbody tr:has(input[value="${a6}"]) td[data-label=Hold]`)).toMatch(/^Until \d{4}-\d\d-\d\d \(\d+ days\)$/);
    await screenshotsAt(page, 'approving');
    const heights = await page.evaluate(() => document.documentElement.scrollHeight);
    await page.setViewportSize({ width: 390, height: 900 });
    const narrow = await page.evaluate(() => document.documentElement.scrollHeight);
    await page.setViewportSize({ width: 1280, height: 900 });
    console.log(`payouts page with 24 pending commissions: ${heights} px at 1280, ${narrow} px at 390`);
    expect(heights).toBeLessThan(4577 / 2);
    expect(narrow).toBeLessThan(11_164 / 2);

    // The count and sum first: 8 past their hold (Ana, Bruno, Chloé, Dev: 2 each).
    expect(await seen('#past-hold')).toMatch(/^8 commissions are past their hold: €[\d.,]+ and \$[\d.,]+\./);

    // One click, no reason.
    await submit(`Approve ${a6}`);
    expect(await textOf(page.getByRole('status'))).toBe('Commission approved.');
    expect((await api.pool.query('SELECT stage FROM commissions WHERE id = $1', [a6])).rows[0].stage).toBe('approved');

    // Everything past its hold, in one action.
    await submit('Approve the 8 commissions past their hold');
    expect(await textOf(page.getByRole('status'))).toMatch(/: 8 changed\.$/);
    expect(await page.locator('#past-hold').count()).toBe(0);
    const stages = await api.pool.query("SELECT count(*) FILTER (WHERE stage = 'approved')::int AS approved FROM commissions WHERE program_id = $1", [program.id]);
    expect(stages.rows[0].approved).toBe(9);

    // Filter by partner: Bruno's four still pending.
    await page.locator('#filter_partner').selectOption({ label: 'Bruno Keller' });
    await submit('Filter');
    expect(await page.locator('#commissions tbody tr').count()).toBe(4);
    expect(await seen('#commissions tbody')).not.toContain('Ana Silva');
    // ...and by days: made in the last ten days.
    const weekAgo = new Date(now - 10 * DAY).toISOString().slice(0, 10);
    await page.locator('#filter_from').fill(weekAgo);
    await submit('Filter');
    const recent = await page.locator('#commissions tbody tr').count();
    expect(recent).toBe(2);
    await screenshotsAt(page, 'approving-filtered');

    // A bulk approval of commissions still in their hold says so and asks.
    const [, , , , b3, b4] = ids['Bruno Keller']!;
    await page.getByLabel(`Select commission ${b3}`).check();
    await page.getByLabel(`Select commission ${b4}`).check();
    await submit('Apply to the selected commissions');
    expect(await seen('#hold-question')).toMatch(/^2 of these commissions are still in their hold period \(.+\)\. Approving now overrides the hold/);
    expect((await api.pool.query('SELECT count(*)::int AS n FROM commissions WHERE id = ANY ($1::bigint[]) AND stage = $2', [[b3, b4], 'pending'])).rows[0].n).toBe(2);
    await screenshotsAt(page, 'approving-hold-question');
    await page.getByRole('button', { name: /^Approve all 2 .*overriding the hold$/ }).click();
    await page.waitForURL(/done=bulk/);
    expect(await textOf(page.getByRole('status'))).toMatch(/: 2 changed\.$/);
    // The filter is kept after the action.
    expect(page.url()).toContain(`from=${weekAgo}`);
    expect((await api.pool.query('SELECT count(*)::int AS n FROM commissions WHERE id = ANY ($1::bigint[]) AND stage = $2', [[b3, b4], 'approved'])).rows[0].n).toBe(2);
  });
});
