// Test traffic stays apart (issue 43, item 9). On a new program the set-up page's test click, lead
// and sale say what they proved, and tick none of the checklist's steps; the test partner behind
// them never appears among the partners, in their export, the payouts or the counts. Real traffic
// (several partners, USD and EUR, a refund) then ticks the steps.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { adminOf, browserAppWithMail, hasChromium, screenshotsAt, signInToDashboard, submitWithKeyboard, textOf } from '../support/browser.js';
import { type TestApi, bearer } from '../support/harness.js';
import { listAccountPrograms } from '../../src/db/accounts/cli-logins.js';

let api: TestApi;
let page: Page;
browserAppWithMail('test-traffic-key-0123456789abcdef', (opened) => ({ api, page } = opened));
const admin = adminOf(() => api);

const steps = async () => (await page.locator('#steps ol.steps li').allInnerTexts()).map((text) => text.replace(/\s+/g, ' ').trim());

describe.skipIf(!hasChromium)('test traffic', () => {
  it('test events prove the wiring without ticking steps; the test partner is never listed, exported, paid or counted', async () => {
    page.setDefaultTimeout(5000);
    const account = await admin('POST', '/accounts', { email: 'owner@fresh.example', password: 'fresh owner password' });
    const program = await admin('POST', '/programs', {
      account_id: account.id, name: 'Fresh Shop', domain: 'fresh.example', commission_type: 'percent', commission_rate: 20, allowed_origins: ['https://fresh.example'],
    });
    const key = (await admin('POST', `/programs/${program.id}/keys`)).api_key;

    await signInToDashboard(page, api.url, 'owner@fresh.example', 'fresh owner password');
    const base = `${api.url}/dashboard/programs/${program.id}`;
    await page.goto(`${base}/setup`);
    const fresh = await steps();

    // A test click, lead and sale: each says what it recorded and that it is test traffic.
    for (const kind of ['click', 'lead', 'sale']) {
      await submitWithKeyboard(page, `Send a test ${kind}`);
      const said = (await page.getByRole('status').innerText()).replace(/\s+/g, ' ').trim();
      expect(said).toContain(`Sent a test ${kind}. Affix recorded: Click `);
      expect(said).toContain(`This proves the path works; it is test traffic, so the steps above wait for a real ${{ click: 'click', lead: 'signup', sale: 'sale' }[kind]}.`);
    }
    await screenshotsAt(page, 'test-traffic-setup');
    // Not one step ticked by them: the checklist reads as before.
    expect(await steps()).toEqual(fresh);
    expect(fresh).toEqual([
      'Done: ✓ Your backend has an API key.',
      'To do: ○ Give a partner a referral link. Go to Links',
      'Done: ✓ Your site may send clicks from the browser.',
      'To do: ○ Record a click: put the tracker on your site and open it through a referral link. Go to the tracker snippet',
      'To do: ○ Record a signup: call affix.signup() in the browser, or trackLead from your server. Go to the server lines',
      'To do: ○ Record a sale: connect Stripe, Paddle or Lemon Squeezy, or call trackSale from your server. Go to Stripe set-up',
    ]);
    const readiness = await api.request('GET', '/api/v1/programs/me/readiness', { headers: bearer(key) });
    expect(readiness.body).toMatchObject({ state: 'incomplete', blocker: 'referral_link', integration_verified: false, counts_24h: { clicks: 0, leads: 0, sales: 0 } });
    // `affix status` counts no partner and no event of them.
    const status = await api.request('GET', '/api/v1/cli/status', { headers: bearer(key) });
    expect(status.body.data).toMatchObject({ active_partners: 0, recent_events: { clicks_24h: 0, leads_24h: 0, sales_24h: 0 } });
    // The set-up page's day of traffic counts none of them either.
    await page.goto(`${base}/setup`);
    expect(await textOf(page.locator('#received-24h'))).toBe('Received in the last 24 hours: 0 clicks, 0 leads, 0 sales.');

    // The test partner is nowhere among the partners: the list, its count, its export.
    await page.goto(`${base}/partners`);
    expect(await page.locator('main').innerText()).not.toContain('Affix test partner');
    const csv = await page.evaluate(async (url) => (await fetch(url)).text(), `${base}/partners.csv`);
    expect(csv).not.toContain('Affix test partner');
    expect(csv.trim().split('\n')).toHaveLength(1);

    // Real traffic: three partners, sales in USD and EUR, one refunded.
    const track = async (path: string, body: unknown) => {
      const reply = await api.request('POST', `/api/v1/track/${path}`, { body, headers: bearer(key) });
      if (reply.status !== 200) throw new Error(`${path}: ${reply.status} ${JSON.stringify(reply.body)}`);
      return reply.body;
    };
    const people = [['Ana Souza', 'ana', 'USD', 12_000], ['Ben Okafor', 'ben', 'EUR', 8_000], ['Chloé Martin', 'chloe', 'USD', 4_900]] as const;
    for (const [name, code, currency, cents] of people) {
      const partner = await admin('POST', `/programs/${program.id}/partners`, { name, email: `${code}@partners.example` });
      await admin('POST', `/programs/${program.id}/links`, { partner_id: partner.id, short_link: `${code}-fresh` });
      const click = (await track('click', { affiliate_url: `https://fresh.example/?aff=${code}-fresh` })).click_id;
      await track('lead', { click_id: click, customer_key: `customer_${code}` });
      await track('sale', { transaction_id: `fresh_${code}`, amount_cents: cents, currency, customer_key: `customer_${code}` });
    }
    await track('refund', { transaction_id: 'fresh_chloe', refund_amount_cents: 4_900 });

    await page.goto(`${base}/setup`);
    expect((await steps()).every((step) => step.startsWith('Done: '))).toBe(true);
    await page.goto(`${base}/partners`);
    const listed = await page.locator('main').innerText();
    for (const [name] of people) expect(listed).toContain(name);
    expect(listed).not.toContain('Affix test partner');
    await screenshotsAt(page, 'test-traffic-partners');
    const exported = await page.evaluate(async (url) => (await fetch(url)).text(), `${base}/partners.csv`);
    expect(exported.trim().split('\n')).toHaveLength(1 + people.length);
    expect(exported).not.toContain('Affix test partner');
    // Payouts and the overview's partner filter: the real partners only.
    await page.goto(`${base}/payouts`);
    expect(await page.locator('main').innerText()).not.toContain('Affix test partner');
    await page.goto(base);
    expect(await page.locator('select#partner option').allInnerTexts()).toEqual(['All partners', ...people.map(([name]) => name)]);
    // The account's programs, as the CLI lists them, count three partners.
    expect((await listAccountPrograms(api.pool, account.id)).map((p) => p.partners)).toEqual([people.length]);
    expect(await textOf(page.locator('#readiness summary'))).toBe('Set-up complete: every step has been seen working.');
    await page.goto(`${base}/setup`);
    expect(await textOf(page.locator('#received-24h'))).toBe('Received in the last 24 hours: 3 clicks, 3 leads, 3 sales.');
  }, 60_000);
});
