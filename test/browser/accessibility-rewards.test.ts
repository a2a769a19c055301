// Issue 46, item 3, in Chromium at 390 and 1280 px: commissions made by reward rules (a group's
// set, the program's set with an annual-plan rule and a monthly budget) and by the commission
// type explain themselves on the dashboard's commission rows (Payouts, a partner's page) and the
// portal's referrals page: several partners, USD and EUR, a refund, a lead paid in EUR and a day
// of clicks paid in USD (issue 46, item 2). axe-core finds nothing
// serious or critical; with AFFIX_SCREENSHOTS=1 each page is saved at both widths.
import { randomBytes } from 'node:crypto';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { sha256 } from '../../src/core/secrets.js';
import { runClickRewards } from '../../src/jobs/click-reward-jobs.js';
import { OPERATOR } from '../../src/app/accounts/scope.js';
import { publishDraft } from '../../src/app/money/reward-rules.js';
import { adminOf, axeAudit, browserAppWithMail, hasChromium, screenshotsAt, signInToDashboard } from '../support/browser.js';
import { type TestApi, bearer, trackClick } from '../support/harness.js';

let api: TestApi;
let page: Page;
browserAppWithMail('rewards-browser-key-0123456789abcdef', (opened) => ({ api, page } = opened));
const admin = adminOf(() => api);

async function seriousAt(name: string): Promise<string[]> {
  const found: string[] = [];
  for (const width of [390, 1280]) {
    await page.setViewportSize({ width, height: 900 });
    for (const v of (await axeAudit(page)).violations) if (v.impact === 'serious' || v.impact === 'critical') found.push(`${name} ${width}: ${v.id}`);
  }
  await screenshotsAt(page, `rewards-${name}`);
  return found;
}

const percent = (rate: string) => ({ throughMonth: null, amount: { type: 'percent', rate } });

describe.skipIf(!hasChromium)('commissions explain themselves (accessibility)', () => {
  it('the payouts list, a partner page and the portal referrals show why each commission is what it is; 0 serious or critical violations', async () => {
    page.setDefaultTimeout(5000);
    const account = await admin('POST', '/accounts', { email: 'owner@rewards.example', password: 'rewards owner password' });
    const program = await admin('POST', '/programs', { account_id: account.id, name: 'Lumen Notes', domain: 'lumen.example', commission_type: 'percent', commission_rate: 20 });
    const key = (await admin('POST', `/programs/${program.id}/keys`)).api_key;
    const creators = await admin('POST', `/programs/${program.id}/groups`, { name: 'Creators', slug: 'creators', commission_type: 'percent', commission_rate: 25, hold_days: 30 });
    const partner = async (name: string, email: string, code: string, groupId: number | null = null) => {
      const p = await admin('POST', `/programs/${program.id}/partners`, { name, email, ...(groupId ? { group_id: groupId } : {}) });
      await admin('POST', `/programs/${program.id}/links`, { partner_id: p.id, short_link: code });
      await api.pool.query('UPDATE partners SET invited_at = now() WHERE id = $1', [p.id]);
      return p.id as number;
    };
    const maya = await partner('Maya Reyes', 'maya@creator.example', 'maya', creators.id);
    await partner('Leo Park', 'leo@blog.example', 'leo');
    await partner('Sara Lind', 'sara@newsletter.example', 'sara');
    let n = 0;
    const sale = async (code: string, cents: number, currency: string, extra: Record<string, unknown> = {}) => {
      const clickId = await trackClick(api, `https://lumen.example/pricing?aff=${code}`);
      const transactionId = `lumen_${++n}`;
      const reply = await api.request('POST', '/api/v1/track/sale', {
        body: { transaction_id: transactionId, amount_cents: cents, currency, click_id: clickId, customer_key: `buyer${n}@customer.example`, ...extra },
        headers: bearer(key),
      });
      if (reply.status !== 200) throw new Error(JSON.stringify(reply.body));
      return transactionId;
    };

    // Before any rule set: the commission type pays, and says so.
    await sale('sara', 4_900, 'USD', { interval: 'month' });
    // The program's rules: annual plans 30 % for 3 months, German buyers 25 %, else 15 %; a budget of 1,000.00 USD a month.
    await admin('PUT', `/programs/${program.id}/reward-rules/draft`, {
      rule_set: {
        monthlyBudget: { USD: 100_000 },
        rules: [
          { id: 'annual', name: 'Annual plans', event: 'sale', when: { intervals: ['year'] }, duration: { kind: 'months', months: 3 }, steps: [percent('30')] },
          { id: 'germany', name: 'Germany', event: 'sale', when: { countries: ['DE'] }, duration: { kind: 'lifetime' }, steps: [percent('25')] },
          // A lead recorded by the brand's server pays 2.00 EUR; clicks 0.05 USD each, once a day.
          { id: 'signups', name: 'Signups', event: 'lead', currency: 'EUR', when: {}, duration: { kind: 'lifetime' }, steps: [{ throughMonth: null, amount: { type: 'flat', rate: '2' } }] },
          { id: 'clicks', name: 'Clicks', event: 'click', currency: 'USD', when: {}, duration: { kind: 'lifetime' }, steps: [{ throughMonth: null, amount: { type: 'flat', rate: '0.05' } }] },
        ],
        defaults: { sale: { id: 'default', name: 'Default', event: 'sale', when: {}, duration: { kind: 'months', months: 12 }, steps: [percent('15')] } },
      },
    });
    const now = new Date();
    const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
    // Published two days ago (a click day is paid by the version in force at its start).
    await publishDraft({ pool: api.pool, secretBox: null, now: () => new Date(today - 2 * 86_400_000) }, OPERATOR, program.id, {});
    // The Creators' own set: 30 % through month 3, then 20 % to month 12.
    await admin('PUT', `/programs/${program.id}/reward-rules/draft`, {
      group_id: creators.id,
      rule_set: { rules: [{ id: 'launch', name: 'Creator launch', event: 'sale', when: {}, duration: { kind: 'months', months: 12 }, steps: [{ throughMonth: 3, amount: { type: 'percent', rate: '30' } }, { throughMonth: 12, amount: { type: 'percent', rate: '20' } }] }], defaults: {} },
    });
    await admin('POST', `/programs/${program.id}/reward-rules/publish`, { group_id: creators.id });

    await sale('maya', 99_000, 'USD', { interval: 'year', product_id: 'prod_pro', country: 'US' });
    const refunded = await sale('maya', 8_900, 'EUR', { interval: 'month', country: 'DE' });
    await sale('leo', 99_000, 'USD', { interval: 'year', country: 'GB' });
    await sale('leo', 7_900, 'EUR', { interval: 'month', country: 'DE' });
    await sale('sara', 4_900, 'USD', { interval: 'month', country: 'FR' });
    const refund = await api.request('POST', '/api/v1/track/refund', { body: { transaction_id: refunded }, headers: bearer(key) });
    expect(refund.status).toBe(200);
    // Leo: a signup his link brought, and 37 clicks yesterday (UTC), paid by the daily job.
    const leadClick = await trackClick(api, 'https://lumen.example/?aff=leo');
    expect((await api.request('POST', '/api/v1/track/lead', { body: { click_id: leadClick, customer_key: 'signup1@customer.example' }, headers: bearer(key) })).status).toBe(200);
    const leoLink = (await api.pool.query("SELECT id, partner_id FROM referral_links WHERE program_id = $1 AND short_link = 'leo'", [program.id])).rows[0];
    await api.pool.query(
      `INSERT INTO clicks (click_id, program_id, link_id, partner_id, attributed_click_id, affiliate_url, created_at)
       SELECT x.id, $1, $2, $3, x.id, 'https://lumen.example/?aff=leo', $4 FROM (SELECT 'clk_' || md5(random()::text || g) AS id FROM generate_series(1, 37) g) x`,
      [program.id, leoLink.id, leoLink.partner_id, new Date(today - 12 * 3_600_000)],
    );
    const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined } as never;
    expect(await runClickRewards({ pool: api.pool, now: () => now, logger: quiet }, { programId: program.id })).toBeGreaterThanOrEqual(1);

    const words = (await api.pool.query('SELECT reward_words FROM commissions WHERE program_id = $1 ORDER BY id', [program.id])).rows.map((r) => r.reward_words);
    expect(words).toEqual([
      '20 % — program terms, first paid sale',
      "30 % — group Creators, rule 'Creator launch', month 1 of 12",
      "30 % — group Creators, rule 'Creator launch', month 1 of 12",
      "30 % — rule 'Annual plans' (interval year), month 1 of 3",
      "25 % — rule 'Germany' (country DE)",
      '15 % — default, month 1 of 12',
      "€2.00 — rule 'Signups'",
      `$0.05 × 37 clicks on ${new Date(today - 86_400_000).toISOString().slice(0, 10)} — rule 'Clicks'`,
    ]);

    const findings: string[] = [];
    await signInToDashboard(page, api.url, 'owner@rewards.example', 'rewards owner password');
    const base = `${api.url}/dashboard/programs/${program.id}`;
    await page.goto(`${base}/payouts?stage=pending`);
    expect(await page.locator('#commissions tbody').innerText()).toContain("30 % — rule 'Annual plans' (interval year), month 1 of 3");
    findings.push(...(await seriousAt('payouts')));
    await page.goto(`${base}/partners/${leoLink.partner_id}`);
    expect(await page.locator('#commissions-table').innerText()).toContain("€2.00 — rule 'Signups'");
    expect(await page.locator('#commissions-table').innerText()).toContain('× 37 clicks');
    expect(await page.locator('#commissions-table').innerText()).toContain('A lead (no sale)');
    expect(await page.locator('#commissions-table').innerText()).toContain('Clicks (no sale)');
    findings.push(...(await seriousAt('partner-lead-clicks')));
    await page.goto(`${base}/partners/${maya}`);
    expect(await page.locator('#commissions-table').innerText()).toContain("30 % — group Creators, rule 'Creator launch', month 1 of 12");
    findings.push(...(await seriousAt('partner')));

    const token = randomBytes(24).toString('base64url');
    await api.pool.query("INSERT INTO partner_sessions (token_hash, email, expires_at) VALUES ($1, 'maya@creator.example', now() + interval '1 hour')", [sha256(token)]);
    await page.context().addCookies([{ name: 'affix_portal', value: token, url: `${api.url}/portal` }]);
    await page.goto(`${api.url}/portal/programs/${maya}/referrals`);
    expect(await page.locator('#commission-table').innerText()).toContain("30 % — group Creators, rule 'Creator launch', month 1 of 12");
    findings.push(...(await seriousAt('portal-referrals')));
    expect(findings).toEqual([]);
  }, 120_000);
});
