// The Discounts page (docs/discounts.md), in a browser, with a program's real-looking data: groups
// with a Stripe and a Paddle discount, partners with live codes, a refusal from the processor, sales
// in USD and EUR and a refund. No serious or critical axe-core violation at 390 and 1280 px, also
// with a refused form. With AFFIX_SCREENSHOTS=1 the page is saved
// (docs/screenshots/page-program-discounts-<width>.png, …-refused-<width>.png).
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminOf, axeAudit, hasChromium, openBrowserApp, screenshotsAt, signInToDashboard, submitWithKeyboard, textOf } from '../support/browser.js';
import { type TestApi, bearer, trackClick } from '../support/harness.js';

let opened: Awaited<ReturnType<typeof openBrowserApp>> | undefined;
let api: TestApi;
let page: Page;
const admin = adminOf(() => api);

beforeAll(async () => {
  if (!hasChromium) return;
  opened = await openBrowserApp({ AFFIX_SECRET_KEY: 'discounts-browser-key-0123456789', STRIPE_SECRET_KEY: 'sk_test_browser' }, { queueUrl: 'own' }, { width: 1280, height: 900 });
  ({ api, page } = opened);
});
afterAll(() => opened?.close());

async function seriousViolations(name: string): Promise<string[]> {
  const found: string[] = [];
  for (const width of [390, 1280]) {
    await page.setViewportSize({ width, height: 900 });
    const result = await axeAudit(page);
    for (const v of result.violations) if (v.impact === 'serious' || v.impact === 'critical') found.push(`${name} ${width}: ${v.id} ${v.nodes.slice(0, 2).map((n) => n.target.join(' ')).join(', ')}`);
  }
  await screenshotsAt(page, `page-${name}`);
  return found;
}

describe.skipIf(!hasChromium)('the Discounts page', () => {
  it('shows each group discount, its live codes and the processor’s refusal, with 0 serious or critical violations (also refused)', async () => {
    page.setDefaultTimeout(5000);
    const account = await admin('POST', '/accounts', { email: 'owner@discounts.example', password: 'discounts owner password' });
    const program = await admin('POST', '/programs', { account_id: account.id, name: 'Roastery', domain: 'shop.example.com', commission_type: 'percent', commission_rate: 20 });
    const groups: Record<string, number> = {};
    for (const [name, slug] of [['Creators', 'creators'], ['Agencies', 'agencies'], ['Newsletter writers', 'newsletter']] as const) {
      groups[name] = (await admin('POST', `/programs/${program.id}/groups`, { name, slug, commission_type: 'percent', commission_rate: 25, hold_days: 30 })).id;
    }
    const partners: Record<string, number> = {};
    for (const [name, code, group] of [['Ana Lima', 'ana-lima', 'Creators'], ['Bruno Costa', 'bruno', 'Creators'], ['Chloé Martin', 'chloe', 'Agencies'], ['Dev Patel', 'devp', 'Newsletter writers']] as const) {
      const partner = await admin('POST', `/programs/${program.id}/partners`, { name, email: `${code}@partner.example` });
      await admin('POST', `/programs/${program.id}/links`, { partner_id: partner.id, short_link: code });
      await admin('POST', `/programs/${program.id}/partners/bulk`, { action: 'move_group', partner_ids: [partner.id], group_id: groups[group] });
      partners[name] = partner.id;
    }
    // Sales in USD and EUR, one refunded.
    const key = (await admin('POST', `/programs/${program.id}/keys`)).api_key;
    for (const [n, aff, cents, currency] of [[1, 'ana-lima', 4_900, 'USD'], [2, 'bruno', 12_000, 'EUR'], [3, 'chloe', 29_900, 'USD']] as const) {
      const clickId = await trackClick(api, `https://shop.example.com/?aff=${aff}`);
      await api.request('POST', '/api/v1/track/sale', { body: { transaction_id: `disc_${n}`, amount_cents: cents, currency, click_id: clickId, customer_key: `disc_c${n}` }, headers: bearer(key) });
    }
    await api.request('POST', '/api/v1/track/refund', { body: { transaction_id: 'disc_2', refund_amount_cents: 12_000 }, headers: bearer(key) });

    // Stripe connected, Paddle's and Lemon Squeezy's keys saved; two groups give a discount.
    await api.pool.query("UPDATE programs SET stripe_account_id = 'acct_1Roastery' WHERE id = $1", [program.id]);
    await admin('PUT', `/programs/${program.id}/processor-api-keys/paddle`, { api_key: 'pdl_live_apikey_roastery', sandbox: false });
    await admin('PUT', `/programs/${program.id}/processor-api-keys/lemonsqueezy`, { api_key: 'ls_live_apikey_roastery', store_id: '4242' });
    const creators = await admin('PUT', `/programs/${program.id}/groups/${groups.Creators}/discount`, { processor: 'stripe', type: 'percent', percent: '20', duration: 'repeating', duration_months: 3 });
    const agencies = await admin('PUT', `/programs/${program.id}/groups/${groups.Agencies}/discount`, { processor: 'paddle', type: 'amount', amount: '10', currency: 'EUR', duration: 'once' });
    // What the job would have made (tested against the processors in test/discounts.test.ts), and a refusal.
    await api.pool.query(
      `INSERT INTO promo_codes (program_id, partner_id, code, stripe_promotion_code_id, group_discount_id) VALUES ($1, $2, 'ANALIMA', 'promo_1Ana', $4), ($1, $3, 'BRUNO', 'promo_1Bruno', $4)`,
      [program.id, partners['Ana Lima'], partners['Bruno Costa'], creators.id],
    );
    await api.pool.query("UPDATE group_discounts SET last_error = 'Paddle refused the request (409 discount_code_conflict): Discount code conflicts with Discount ID dsc_01hv8x', last_error_at = now() WHERE id = $1", [agencies.id]);

    await signInToDashboard(page, api.url, 'owner@discounts.example', 'discounts owner password');
    await page.goto(`${api.url}/dashboard/programs/${program.id}/discounts`);
    expect(await textOf(page.locator('#discounts h3'))).toBe('Agencies: €10.00 off the first payment');
    expect(await textOf(page.locator('#discounts .card').nth(1))).toContain('Stripe · 2 live codes');
    expect(await textOf(page.locator('#discounts .fail'))).toContain('Paddle last refused');
    const findings = await seriousViolations('program-discounts');

    // Refused: Paddle cannot repeat per month; the message beside the field and in the summary.
    await page.getByLabel('Group', { exact: true }).selectOption({ label: 'Newsletter writers' });
    await page.getByLabel('Processor', { exact: true }).selectOption('paddle');
    await page.getByLabel('Percentage off (for a percentage)').fill('15');
    await page.getByLabel('Applies to').selectOption('repeating');
    await page.getByLabel('Months (for a number of months)').fill('6');
    await submitWithKeyboard(page, 'Give the discount');
    expect(await textOf(page.locator('.error-summary'))).toContain('Paddle repeats a discount per billing period');
    findings.push(...(await seriousViolations('program-discounts-refused')));

    // Given: the page says the codes are being made.
    await page.getByLabel('Processor', { exact: true }).selectOption('stripe');
    await submitWithKeyboard(page, 'Give the discount');
    expect(await textOf(page.locator('.flash'))).toMatch(/codes are being made/);
    expect(findings).toEqual([]);
  });
});
