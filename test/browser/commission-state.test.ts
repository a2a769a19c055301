// One commission's state is one fact: a manager walks one commission through approval and
// payment and rejects another held for fraud, in Chromium; the overview, activity and its CSV,
// partners, payouts, the partner's portal and the assistant's explain_sale all say the same.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { explainSale } from '../../src/app/reads/assistant-reads.js';
import { PgStore } from '../../src/db/tracking/store.js';
import { adminOf, type BrowserAppWithMail, browserAppWithMail, hasChromium, screenshotsAt, signInToDashboard, submitWithKeyboard, textOf } from '../support/browser.js';
import { type TestApi, bearer, trackClick } from '../support/harness.js';

let api: TestApi;
let page: Page;
let smtp: BrowserAppWithMail['smtp'];
browserAppWithMail('commission-state-key-0123456789', (opened) => ({ api, page, smtp } = opened));

const admin = adminOf(() => api);
const submit = (name: string) => submitWithKeyboard(page, name);
/** What a person reads in the element: cells apart, whitespace collapsed. */
const seen = async (selector: string) => (await page.locator(selector).first().innerText()).replace(/\s+/g, ' ').trim();
const shot = (name: string) => screenshotsAt(page, name);

describe.skipIf(!hasChromium)('one commission state on every surface', () => {
  it('paid and rejected read the same on the overview, activity, CSV, partners, payouts, portal and explain_sale', async () => {
    page.setDefaultTimeout(5000);
    const account = await admin('POST', '/accounts', { email: 'owner@state.example', password: 'correct horse battery' });
    const program = await admin('POST', '/programs', { account_id: account.id, name: 'State Shop', domain: 'shop.example.com', commission_type: 'percent', commission_rate: 20 });
    const base = `${api.url}/dashboard/programs/${program.id}`;
    await admin('PATCH', `/programs/${program.id}/payout-settings`, { hold_days: 30 });
    const ana = await admin('POST', `/programs/${program.id}/partners`, { name: 'Ana', email: 'ana@partner.example' });
    await admin('POST', `/programs/${program.id}/links`, { partner_id: ana.id, short_link: 'ana-state' });
    await admin('PATCH', `/programs/${program.id}/partners/${ana.id}/payout-details`, { payout_method: 'paypal', payout_reference: 'ana@paypal.example' });
    const key = (await admin('POST', `/programs/${program.id}/keys`)).api_key;
    const track = (path: string, body: unknown) => api.request('POST', `/api/v1/track/${path}`, { body, headers: bearer(key) });

    // A: a customer's first sale, 5000 -> 1000. B: Ana referring herself (her own email): held for fraud.
    const clickA = await trackClick(api, 'https://shop.example.com/?aff=ana-state');
    expect((await track('sale', { transaction_id: 'state_a', amount_cents: 5000, click_id: clickA, customer_key: 'state_customer_a' })).status).toBe(200);
    const clickB = await trackClick(api, 'https://shop.example.com/?aff=ana-state');
    expect((await track('lead', { click_id: clickB, customer_key: 'state_customer_b', email: 'ana@partner.example' })).status).toBe(200);
    expect((await track('sale', { transaction_id: 'state_b', amount_cents: 3000, customer_key: 'state_customer_b' })).status).toBe(200);
    const commission = async (txn: string) =>
      Number((await api.pool.query('SELECT c.id FROM commissions c JOIN sales s ON s.id = c.sale_id WHERE s.processor_event_id = $1', [txn])).rows[0].id);
    const [a, b] = [await commission('state_a'), await commission('state_b')];

    // The manager signs in, approves A early, runs a payout and marks it paid; rejects B.
    await signInToDashboard(page, api.url, 'owner@state.example', 'correct horse battery');
    await page.goto(`${base}/payouts?stage=pending`);
    await page.getByLabel('Reason (optional; kept in the ledger)').fill('checked with the customer');
    await submit(`Approve ${a}`);
    await submit('Run payout');
    const payout = (await api.pool.query('SELECT id FROM payouts WHERE program_id = $1', [program.id])).rows[0].id;
    await page.getByLabel(`Payment reference for payout ${payout}`).fill('PAYPAL-STATE-1');
    await submit(`Mark payout ${payout} paid`);
    await expect.poll(() => textOf(page.getByRole('status'))).toBe('Payout marked paid.');
    await page.goto(`${base}/payouts?stage=held`);
    // Without a reason: refused on the same tab, beside the field, and announced.
    await submit(`Release ${b}`);
    expect(await seen('nav[aria-label="Commission states"] [aria-current=page]')).toBe('Held for review');
    expect(await textOf(page.locator('#bulk_reason-error'))).toBe('Give a reason.');
    expect(await seen('.error-summary[role=alert]')).toContain('Give a reason.');
    await page.getByLabel('Reason (needed to release, reject or take back; kept in the ledger)').fill('self-referral confirmed');
    await submit(`Reject ${b}`);

    // Payouts: A under Paid, B under Rejected, nothing awaiting approval.
    await page.goto(`${base}/payouts?stage=pending`);
    expect(await seen('#commissions')).toContain('None.');
    await page.goto(`${base}/payouts?stage=paid`);
    expect(await seen('#commissions tbody')).toContain(`${a} Ana $10.00`);
    await shot('commission-state-payouts-paid');
    await page.goto(`${base}/payouts?stage=rejected`);
    expect(await seen('#commissions tbody')).toContain(`${b} Ana $0.00`);

    // Minimums are typed in each currency's own units; a wrong one is refused beside its field, and nothing is saved.
    await page.locator('#payout-settings > details > summary').click();
    await page.getByLabel('Minimum payout in USD (like 50.00; empty for none)').fill('ten dollars');
    await submit('Save payout settings');
    expect(await textOf(page.locator('#payout_minimum_USD-error'))).toBe('Give an amount in USD, like 50.00.');
    await page.getByLabel('Minimum payout in USD (like 50.00; empty for none)').fill('50');
    await submit('Save payout settings');
    expect((await admin('GET', `/programs/${program.id}/payout-settings`)).payout_minimums_cents).toEqual({ USD: 5000 });

    // Overview: 10.00 earned and paid, nothing awaiting approval (B earns nothing).
    await page.goto(base);
    expect(await seen('#kpis tbody')).toBe('USD 2 $80.00 $10.00 $0.00 $0.00 $10.00');
    await shot('commission-state-overview');

    // Activity and its CSV: the same states.
    await page.goto(`${base}/activity`);
    const activity = await seen('#activity tbody');
    expect(activity).toMatch(/state_a: \$50\.00 \w+ \$10\.00 \(paid\)/);
    expect(activity).toMatch(/state_b: \$30\.00 \w+ \$0\.00 \(rejected\)/);
    const csv = await (await page.request.get(`${await page.getByRole('link', { name: 'Download as CSV' }).getAttribute('href').then((href) => `${api.url}${href}`)}`)).text();
    const rows = csv.trim().split('\r\n').map((line) => line.split(','));
    const column = rows[0]!.indexOf('commission_state');
    expect(rows.filter((r) => r[1] === 'sale').map((r) => [r[5], r[column], r[column - 1]]).sort()).toEqual([
      ['state_a', 'paid', '1000'],
      ['state_b', 'rejected', '0'],
    ]);

    // Partners: Ana's commission total counts the paid one only.
    await page.goto(`${base}/partners`);
    expect(await seen('#partners tbody tr')).toContain('Ana ana@partner.example Approved 2 1 2 $80.00 $10.00');

    // The assistant's explain_sale reads the same state.
    const reads = { pool: api.pool, store: new PgStore(api.pool), now: () => new Date() };
    expect(await explainSale(reads, program.id, 'state_a')).toMatchObject({ commission_state: 'paid', commission_earned_cents: 1000 });
    expect(await explainSale(reads, program.id, 'state_b')).toMatchObject({ commission_state: 'rejected', commission_earned_cents: 0 });

    // The partner's portal: paid 10.00 and rejected 0.00, never "awaiting approval".
    await admin('POST', `/programs/${program.id}/partners/${ana.id}/invite`);
    await expect.poll(() => smtp.lastLink('ana@partner.example'), { timeout: 5000 }).not.toBeNull();
    await page.goto(smtp.lastLink('ana@partner.example')!.replace(/^https?:\/\/[^/]+/, api.url));
    await submit('Sign in');
    expect(await seen(`#program-${ana.id}`)).toContain('20% of the first paid sale, for each customer you refer.');
    await page.goto(`${api.url}/portal/programs/${ana.id}`);
    expect(await seen('#terms-summary')).toContain('Your commission: 20% of the first paid sale, for each customer you refer to shop.example.com.');
    const portal = await seen('#commission-states');
    expect(portal).toContain('paid 1 $10.00');
    expect(portal).toContain('rejected 1 $0.00');
    expect(portal).not.toContain('awaiting approval');
    await shot('commission-state-portal');
  });
});
