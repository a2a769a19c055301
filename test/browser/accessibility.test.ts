// axe-core (WCAG 2.1 A and AA) on every dashboard, portal, sign-in and application page, at
// 390 and 1280 px, with data on them: no serious or critical violation. With AFFIX_SCREENSHOTS=1
// each page is also saved at both widths (docs/screenshots/page-<name>-<width>.png).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { PROGRAM_SECTIONS } from '../../src/app/programs/dashboard-pages.js';
import { adminOf, axeAudit, type BrowserAppWithMail, browserAppWithMail, hasChromium, screenshotsAt, signInToDashboard, submitWithKeyboard } from '../support/browser.js';
import { type TestApi, bearer, trackClick } from '../support/harness.js';

let api: TestApi;
let page: Page;
let smtp: BrowserAppWithMail['smtp'];
browserAppWithMail('accessibility-key-0123456789abcdef', (opened) => ({ api, page, smtp } = opened));
const admin = adminOf(() => api);

interface Finding {
  page: string;
  width: number;
  rule: string;
  impact: string;
  targets: string[];
}

/** The serious and critical violations of the page as it is now, at both widths. */
async function audit(name: string): Promise<Finding[]> {
  const found: Finding[] = [];
  for (const width of [390, 1280]) {
    await page.setViewportSize({ width, height: 900 });
    const result = await axeAudit(page);
    for (const violation of result.violations) {
      if (violation.impact !== 'serious' && violation.impact !== 'critical') continue;
      found.push({ page: name, width, rule: violation.id, impact: violation.impact, targets: violation.nodes.slice(0, 3).map((node) => node.target.join(' ')) });
    }
  }
  await screenshotsAt(page, `page-${name}`);
  return found;
}

describe.skipIf(!hasChromium)('accessibility', () => {
  it('every page: 0 serious or critical axe-core violations at 390 and 1280 px', async () => {
    page.setDefaultTimeout(5000);
    const account = await admin('POST', '/accounts', { email: 'owner@axe.example', password: 'axe owner password' });
    const program = await admin('POST', '/programs', { account_id: account.id, name: 'Axe Shop', domain: 'shop.example.com', commission_type: 'percent', commission_rate: 20 });
    await admin('PATCH', `/programs/${program.id}/application-settings`, { applications_open: true, slug: 'axe-shop', terms_text: 'Be honest.', field_lines: 'website | Your website | url | required' });
    await admin('POST', `/programs/${program.id}/groups`, { name: 'Creators', slug: 'creators', commission_type: 'percent', commission_rate: 25, hold_days: 30 });
    const ana = await admin('POST', `/programs/${program.id}/partners`, { name: 'Ana', email: 'ana@partner.example' });
    await admin('POST', `/programs/${program.id}/links`, { partner_id: ana.id, short_link: 'ana-axe' });
    const key = (await admin('POST', `/programs/${program.id}/keys`)).api_key;
    for (const [n, cents] of [[1, 12_500], [2, 4_900]] as const) {
      const clickId = await trackClick(api, 'https://shop.example.com/?aff=ana-axe');
      await api.request('POST', '/api/v1/track/sale', { body: { transaction_id: `axe_${n}`, amount_cents: cents, click_id: clickId, customer_key: `axe_c${n}` }, headers: bearer(key) });
    }
    // One approved and owed to Ana, who has no payout details: the Payouts page lists her under "Missing payout details".
    const first = (await api.pool.query("SELECT c.id FROM commissions c JOIN sales s ON s.id = c.sale_id WHERE s.processor_event_id = 'axe_1'")).rows[0].id;
    await admin('POST', `/programs/${program.id}/commissions/${first}/approve`, {});
    await api.request('POST', '/apply/axe-shop', {
      raw: new URLSearchParams({ name: 'Bo', email: 'bo@applicant.example', answer_website: 'https://bo.example', terms: 'on' }).toString(),
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    });

    // The brand on the apply page and the portal (issue 44, item 1): its name, pitch and accent.
    await api.pool.query("UPDATE programs SET brand_name = 'Axe Coffee', brand_pitch = 'Coffee worth talking about.', accent_color = '#7a3e12' WHERE id = $1", [program.id]);
    // The Stripe page's live check and the inbox (issue 45, item 2): a saved signing secret with
    // its last failure (both on the program's Stripe endpoint) and a Paddle event that needs a look.
    await admin('PATCH', `/programs/${program.id}/stripe`, { webhook_secret: 'whsec_axe_program_secret' });
    await api.pool.query(
      "UPDATE processor_endpoints SET last_signature_error = 'No signature matched the signing secret saved here.', last_signature_error_at = now() WHERE program_id = $1 AND processor = 'stripe'",
      [program.id],
    );
    await api.pool.query(
      `INSERT INTO webhook_events (event_key, endpoint, program_id, type, livemode, payload, status, reason, attempts)
       VALUES ('paddle:evt_01hv8axe0000000000000000dead', 'program', $1, 'adjustment.created', true, '{}', 'dead', 'the sale this refers to is not recorded yet', 6)`,
      [program.id],
    );
    const findings: Finding[] = [];
    // Signed out: the sign-in pages and the public application page.
    for (const [name, path] of [['dashboard-sign-in', '/dashboard/login'], ['forgot-password', '/dashboard/password/forgot'], ['portal-sign-in', '/portal/login'], ['apply', '/apply/axe-shop'], ['not-found', '/dashboard/nowhere']] as const) {
      await page.goto(`${api.url}${path}`);
      findings.push(...(await audit(name)));
    }

    // The manager's pages.
    await signInToDashboard(page, api.url, 'owner@axe.example', 'axe owner password');
    const base = `${api.url}/dashboard/programs/${program.id}`;
    const pages: [string, string][] = [
      ['programs', '/dashboard'],
      ['team', '/dashboard/team'],
      ['account', '/dashboard/account'],
      ...PROGRAM_SECTIONS.map((section): [string, string] => [`program-${section}`, `${base.slice(api.url.length)}${section === 'overview' ? '' : `/${section}`}`]),
      ['program-payouts-held', `${base.slice(api.url.length)}/payouts?stage=held`],
      ['program-payouts-approved', `${base.slice(api.url.length)}/payouts?stage=approved`],
      ['program-payouts-filtered', `${base.slice(api.url.length)}/payouts?stage=pending&partner=${ana.id}&from=2020-01-01&to=2030-12-31`],
      ['partner', `${base.slice(api.url.length)}/partners/${ana.id}`],
      ['partner-import', `${base.slice(api.url.length)}/partners/import`],
      ['program-statement-details', `${base.slice(api.url.length)}/payouts/statement-details`],
      ['program-tax-details', `${base.slice(api.url.length)}/payouts/tax`],
      ['program-domains', `${base.slice(api.url.length)}/settings/domains`],
      ['program-mail-previews', `${base.slice(api.url.length)}/settings/mail-previews`],
    ];
    for (const [name, path] of pages) {
      await page.goto(`${api.url}${path}`);
      findings.push(...(await audit(name)));
    }
    // A refused form (its errors beside the fields and in the summary) is checked too.
    await page.goto(`${base}/settings`);
    await page.getByLabel('Domain').fill('https://shop.example.com/x');
    await submitWithKeyboard(page, 'Save settings');
    findings.push(...(await audit('program-settings-refused')));
    // The brand's colour refused for its contrast, beside its field.
    await page.goto(`${base}/brand`);
    await page.getByLabel(/^Accent colour/).fill('#ffcc00');
    await submitWithKeyboard(page, 'Save the brand');
    findings.push(...(await audit('program-brand-refused')));
    // The import's mapping step (a Rewardful export whose campaigns are no group) and its dry run.
    const exportFile = join(mkdtempSync(join(tmpdir(), 'affix-axe-')), 'rewardful.csv');
    writeFileSync(exportFile, 'id,email,first_name,last_name,paypal_email,campaign,token,created_at\n1,lee@axe.test,Lee,Axe,lee.pay@axe.test,Default Campaign,lee-axe,2024-01-02T10:00:00Z\n');
    await page.goto(`${base}/partners/import`);
    await page.getByLabel(/^CSV file/).setInputFiles(exportFile);
    await submitWithKeyboard(page, 'Check the file (dry run)');
    findings.push(...(await audit('partner-import-mapping')));
    await page.getByLabel('“Default Campaign” (1 row)').selectOption({ label: 'No group' });
    await submitWithKeyboard(page, 'Check the file with this mapping (dry run)');
    findings.push(...(await audit('partner-import-dry-run')));

    // The partner's portal.
    await admin('POST', `/programs/${program.id}/partners/${ana.id}/invite`);
    await expect.poll(() => smtp.lastLink('ana@partner.example'), { timeout: 5000 }).not.toBeNull();
    await page.context().clearCookies();
    await page.goto(smtp.lastLink('ana@partner.example')!.replace(/^https?:\/\/[^/]+/, api.url));
    await submitWithKeyboard(page, 'Sign in');
    findings.push(...(await audit('portal')));
    await page.goto(`${api.url}/portal/programs/${ana.id}?link_id=&path=/pricing&sub_id=axe`);
    findings.push(...(await audit('portal-program')));
    await page.goto(`${api.url}/portal/programs/${ana.id}/referrals`);
    findings.push(...(await audit('portal-referrals')));
    // A paid payout: its page, its statement, the invoice details form (and the form refused).
    await admin('PATCH', `/programs/${program.id}/partners/${ana.id}/payout-details`, { payout_method: 'bank_transfer', payout_reference: 'DE89370400440532013000' });
    const payout = (await admin('POST', `/programs/${program.id}/payouts/run`)).payouts[0].id;
    await admin('POST', `/programs/${program.id}/payouts/${payout}/paid`, { reference: 'SEPA-AXE-1' });
    await page.goto(`${api.url}/portal/programs/${ana.id}/payouts/${payout}`);
    findings.push(...(await audit('portal-payout')));
    await page.goto(`${api.url}/portal/programs/${ana.id}/payouts/${payout}/statement`);
    findings.push(...(await audit('portal-statement')));
    await page.goto(`${api.url}/portal/invoice-details`);
    await page.getByLabel('VAT or tax id (if you have one)').fill('DE<1>');
    await submitWithKeyboard(page, 'Save invoice details');
    findings.push(...(await audit('portal-invoice-details-refused')));
    await page.goto(`${api.url}/portal/tax-details`);
    await submitWithKeyboard(page, 'Save tax details');
    findings.push(...(await audit('portal-tax-details-refused')));
    // The same payout came back: its page says so, why, and links to the payout details.
    await admin('POST', `/programs/${program.id}/payouts/${payout}/fail`, { reason: 'The bank returned it: account closed' });
    await page.goto(`${api.url}/portal/programs/${ana.id}/payouts/${payout}`);
    expect(await page.locator('#payout-failed').textContent()).toContain('The bank returned it: account closed');
    findings.push(...(await audit('portal-payout-failed')));
    // Its statement keeps its number and says it was reversed, in the portal and on the brand's copy.
    await page.goto(`${api.url}/portal/programs/${ana.id}/payouts/${payout}/statement`);
    findings.push(...(await audit('portal-statement-reversed')));
    await page.context().clearCookies();
    await signInToDashboard(page, api.url, 'owner@axe.example', 'axe owner password');
    await page.goto(`${base}/payouts/${payout}/statement`);
    expect(await page.locator('#statement-reversed').textContent()).toContain('The bank returned it: account closed');
    findings.push(...(await audit('program-statement-reversed')));

    expect(findings).toEqual([]);
  }, 300_000);
});
