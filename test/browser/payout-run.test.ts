// A payout run pays only partners who can be paid (issue 43, item 1): six partners are owed in
// USD and EUR, two gave payout details (PayPal, Wise). "Run payout" pays those two; the other
// four stay owed, are listed as missing payout details with a one-click reminder (mailed through
// the queue), and the run's summary says how many and how much waits. Each export holds its payout.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { approveDueCommissions } from '../../src/app/money/commission-lifecycle.js';
import { adminOf, type BrowserAppWithMail, browserAppWithMail, hasChromium, screenshotsAt, signInToDashboard, submitWithKeyboard, textOf } from '../support/browser.js';
import { type TestApi, bearer, trackClick } from '../support/harness.js';

let api: TestApi;
let page: Page;
let smtp: BrowserAppWithMail['smtp'];
browserAppWithMail('payout-run-key-0123456789abcdef', (opened) => ({ api, page, smtp } = opened));

const admin = adminOf(() => api);
const submit = (name: string) => submitWithKeyboard(page, name);
const seen = async (selector: string) => (await page.locator(selector).first().innerText()).replace(/\s+/g, ' ').trim();

describe.skipIf(!hasChromium)('a payout run pays only partners with payout details', () => {
  it('pays the two with details; the four without stay owed, are listed, reminded in one click, and the summary says what waits', async () => {
    page.setDefaultTimeout(5000);
    const account = await admin('POST', '/accounts', { email: 'owner@payrun.example', password: 'correct horse battery' });
    const program = await admin('POST', '/programs', { account_id: account.id, name: 'Northwind Apps', domain: 'shop.example.com', commission_type: 'percent', commission_rate: 20, accept_all_currencies: true });
    const base = `${api.url}/dashboard/programs/${program.id}`;
    await admin('PATCH', `/programs/${program.id}/payout-settings`, { hold_days: 0, payout_minimums_cents: { USD: 1000, EUR: 1000 } });
    const key = (await admin('POST', `/programs/${program.id}/keys`)).api_key;
    const track = (path: string, body: unknown) => api.request('POST', `/api/v1/track/${path}`, { body, headers: bearer(key) });

    const people = [
      { name: 'Ana Silva', details: { payout_method: 'paypal', payout_reference: 'ana.payouts@paypal.example' }, sales: [[49_00, 'USD'], [129_00, 'USD']] },
      { name: 'Bruno Keller', details: { payout_method: 'wise', payout_reference: 'bruno@wise.example' }, sales: [[89_00, 'EUR'], [59_00, 'EUR']] },
      { name: 'Chloé Martin', details: null, sales: [[199_00, 'EUR']] },
      { name: 'Dev Patel', details: null, sales: [[79_00, 'USD'], [99_00, 'USD']] },
      { name: 'Emma Nowak', details: null, sales: [[249_00, 'USD']] },
      { name: 'Farid Haddad', details: null, sales: [[69_00, 'EUR'], [149_00, 'USD']] },
    ] as const;
    let n = 0;
    const partners: Record<string, number> = {};
    for (const p of people) {
      const email = `${p.name.split(' ')[0]!.toLowerCase().normalize('NFD').replace(/[^a-z]/g, '')}@partners.example`;
      const made = await admin('POST', `/programs/${program.id}/partners`, { name: p.name, email });
      partners[p.name] = made.id;
      const code = `pr-${made.id}`;
      await admin('POST', `/programs/${program.id}/links`, { partner_id: made.id, short_link: code });
      if (p.details) await admin('PATCH', `/programs/${program.id}/partners/${made.id}/payout-details`, p.details);
      for (const [cents, currency] of p.sales) {
        const click = await trackClick(api, `https://shop.example.com/?aff=${code}`);
        const sale = await track('sale', { transaction_id: `pr_${++n}`, amount_cents: cents, currency, click_id: click, customer_key: `pr_customer_${n}` });
        expect(sale.status).toBe(200);
      }
    }
    // A refund: Dev's second customer asked for half back.
    expect((await track('refund', { transaction_id: 'pr_6', refund_amount_cents: 39_50, reason: 'refund', refund_id: 're_pr_6' })).status).toBe(200);
    await approveDueCommissions({ pool: api.pool, secretBox: null, now: () => new Date(Date.now() + 60_000) });

    await signInToDashboard(page, api.url, 'owner@payrun.example', 'correct horse battery');
    await page.goto(`${base}/payouts`);

    // Before the run: the four are listed, and the button says they will not be paid.
    expect(await seen('#missing-details')).toContain('4 partners are owed');
    expect(await seen('#owed form')).toContain('4 partners without payout details');
    await submit('Run payout');

    // The summary: two paid, four not, and what stays owed ($ and € apart).
    const summary = await seen('#run-summary');
    expect(summary).toMatch(/^Batch \d+: 2 payouts, €29\.60 and \$35\.60\. 4 partners not paid: no payout details\. €53\.60 and \$107\.30 stays owed to them/);
    // Only payouts with somewhere to pay are open; none goes to a sign-in email or to nobody.
    const open = await seen('#open-payouts table tbody');
    expect(open).toContain('paypal: ana.payouts@paypal.example');
    expect(open).toContain('wise: bruno@wise.example');
    expect(await page.locator('#open-payouts tbody tr').count()).toBe(2);
    expect(open).not.toContain('@partners.example');
    // Each export holds its payout: PayPal's Ana, Wise's Bruno.
    const exportOf = async (format: string) => {
      const href = await page.getByRole('link', { name: format === 'paypal' ? 'PayPal Payouts' : 'Wise batch' }).first().getAttribute('href');
      return (await (await page.request.get(`${api.url}${href}`)).text()).trim().split('\r\n');
    };
    const paypal = await exportOf('paypal');
    expect(paypal.slice(1).map((l) => l.split(',').slice(0, 3).join(','))).toEqual(['ana.payouts@paypal.example,35.60,USD']);
    const wise = await exportOf('wise');
    expect(wise).toHaveLength(2);
    expect(wise[1]).toContain('bruno@wise.example');

    // Still owed and listed, each with a one-click reminder.
    const missing = await seen('#missing-details table');
    for (const name of ['Chloé Martin', 'Dev Patel', 'Emma Nowak', 'Farid Haddad']) expect(missing).toContain(name);
    expect(missing).toContain('€13.80 and $29.80'); // Farid: EUR and USD
    await screenshotsAt(page, 'payout-run');
    await submit('Remind Dev Patel');
    expect(await textOf(page.getByRole('status'))).toBe('Reminder queued: the partner gets a link to add their payout details (at most one a day).');
    await expect.poll(() => smtp.mails.filter((m) => m.to === 'dev@partners.example').length, { timeout: 10_000 }).toBe(1);
    const mail = smtp.mails.find((m) => m.to === 'dev@partners.example')!;
    expect(mail.subject).toBe('Northwind Apps: add your payout details to be paid $27.70');
    expect(mail.text).toContain(`/portal/programs/${partners['Dev Patel']}#payout-details`);
    // All at once: the three others get theirs; Dev none more today.
    await submit('Remind all 4');
    await expect.poll(() => smtp.mails.filter((m) => m.subject.includes('add your payout details')).length, { timeout: 10_000 }).toBe(4);
    expect(smtp.mails.filter((m) => m.to === 'dev@partners.example')).toHaveLength(1);

    // A second run: nothing more can be paid, and it says why.
    await submit('Run payout');
    expect(await seen('#owed .error')).toBe('Nothing to pay: all 4 partners owed at or above the minimum have no payout details yet (€53.60 and $107.30); remind them to add them.');
  });
});
