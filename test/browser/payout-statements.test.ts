// Issue 44, item 6: the partner side of payouts. The portal lists each payout with its method and
// reference; a payout shows its lines (each commission it paid, each clawback it netted, summing
// to the payout to the cent); its statement prints with the brand's and the partner's details;
// the partner's invoice details, given once, are on every statement numbered after, of each program
// they shared them with; a numbered statement keeps the details it was issued with;
// another partner's payout or statement is the same 404 as none.
import { randomBytes } from 'node:crypto';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256 } from '../../src/core/secrets.js';
import { adminOf, axeAudit, hasChromium, openBrowserApp, screenshotsAt, signInToDashboard, submitWithKeyboard, textOf as visibleText } from '../support/browser.js';
import { type TestApi, bearer, trackClick } from '../support/harness.js';

let opened: Awaited<ReturnType<typeof openBrowserApp>> | undefined;
let api: TestApi;
let page: Page;
beforeAll(async () => {
  if (!hasChromium) return;
  opened = await openBrowserApp({ AFFIX_SECRET_KEY: 'payout-statements-key-0123456789' }, {}, { width: 1280, height: 900 });
  ({ api, page } = opened);
}, 60_000);
afterAll(async () => {
  await opened?.close();
});
const admin = adminOf(() => api);
const textOf = (selector: string) => visibleText(page.locator(selector));
/** Each row of a table as its cells' text. */
const rows = (selector: string) =>
  page.locator(`${selector} tbody tr`).evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => (td.textContent ?? '').replace(/\s+/g, ' ').trim())));
/** What a person reads in the element (line breaks kept as spaces). */
const seen = async (selector: string) => (await page.locator(selector).first().innerText()).replace(/\s+/g, ' ').trim();
const seriousViolations = async () =>
  (await axeAudit(page)).violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id);
/** axe at 390 and 1280 px, and nothing scrolls sideways. */
async function checkedAtBothWidths(name: string) {
  for (const width of [390, 1280]) {
    await page.setViewportSize({ width, height: 900 });
    expect({ name, width, violations: await seriousViolations() }).toEqual({ name, width, violations: [] });
    const { scroll, inner } = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, inner: window.innerWidth }));
    expect({ name, width, scroll: Math.min(scroll, inner) }).toEqual({ name, width, scroll });
  }
  await screenshotsAt(page, name);
}

async function signInPartner(email: string) {
  const token = randomBytes(24).toString('base64url');
  await api.pool.query("INSERT INTO partner_sessions (token_hash, email, expires_at) VALUES ($1, $2, now() + interval '1 hour')", [sha256(token), email]);
  await page.context().addCookies([{ name: 'affix_portal', value: token, url: `${api.url}/portal` }]);
}

/** A program, its partners, sales in its currency; approve, run and pay as the brand does. */
async function shop(name: string, domain: string) {
  const account = await admin('POST', '/accounts', { email: `owner@${domain}`, password: 'statement owner password' });
  const program = await admin('POST', '/programs', { account_id: account.id, name, domain, commission_type: 'percent', commission_rate: 20 });
  const key = (await admin('POST', `/programs/${program.id}/keys`)).api_key;
  const track = async (path: string, body: unknown) => {
    const reply = await api.request('POST', `/api/v1/track/${path}`, { body, headers: bearer(key) });
    if (reply.status !== 200) throw new Error(`${path}: ${reply.status} ${JSON.stringify(reply.body)}`);
    return reply.body;
  };
  const partner = async (partnerName: string, email: string, code: string, method: string, reference: string) => {
    const p = await admin('POST', `/programs/${program.id}/partners`, { name: partnerName, email });
    await admin('POST', `/programs/${program.id}/links`, { partner_id: p.id, short_link: code });
    await admin('PATCH', `/programs/${program.id}/partners/${p.id}/payout-details`, { payout_method: method, payout_reference: reference });
    await api.pool.query('UPDATE partners SET invited_at = now() WHERE id = $1', [p.id]);
    return p.id as number;
  };
  const sale = async (code: string, transactionId: string, cents: number, currency: string) => {
    const clickId = await trackClick(api, `https://${domain}/?aff=${code}`);
    await track('lead', { click_id: clickId, customer_key: `${transactionId}_customer`, email: `${transactionId}@buyer.example` });
    await track('sale', { transaction_id: transactionId, amount_cents: cents, currency, customer_key: `${transactionId}_customer` });
    return Number((await api.pool.query('SELECT c.id FROM commissions c JOIN sales s ON s.id = c.sale_id WHERE s.processor_event_id = $1', [transactionId])).rows[0].id);
  };
  const payAll = async (commissionIds: number[], reference: string) => {
    for (const id of commissionIds) await admin('POST', `/programs/${program.id}/commissions/${id}/approve`, {});
    const run = await admin('POST', `/programs/${program.id}/payouts/run`);
    for (const payout of run.payouts) await admin('POST', `/programs/${program.id}/payouts/${payout.id}/paid`, { reference: `${reference}-${payout.partner_id}` });
    return run.payouts as Array<{ id: number; partner_id: number; amount_cents: number }>;
  };
  return { program, account, track, partner, sale, payAll };
}

describe.skipIf(!hasChromium)('payout statements in the portal', () => {
  it('payouts with lines, method and reference; a printable statement with both parties; invoice details once; no other partner’s payout', async () => {
    page.setDefaultTimeout(5000);
    // Northwind Books (USD): Ana paid by bank transfer, Ben by PayPal; sales, a payout, then a refund
    // after it was paid (a clawback) netted in Ana's second payout.
    const books = await shop('Northwind Books', 'northwind.example');
    const ana = await books.partner('Ana Alvarez', 'ana@partner.example', 'ana', 'bank_transfer', 'DE89 3704 0044 0532 0130 00');
    const ben = await books.partner('Ben Brandt', 'ben@partner.example', 'ben', 'paypal', 'ben@paypal.example');
    const a1 = await books.sale('ana', 'ch_3PqA7nLkdIwHu7ix0aB1cD2e', 12_500, 'USD');
    const a2 = await books.sale('ana', 'ch_3PqA9xLkdIwHu7ix1fG3hI4j', 4_999, 'USD');
    const a3 = await books.sale('ana', 'ch_3PqB2mLkdIwHu7ix2kL5mN6o', 30_000, 'USD');
    const b1 = await books.sale('ben', 'ch_3PqC4rLkdIwHu7ix3pQ7rS8t', 8_900, 'USD');
    // The brand's statement details, set on its Payouts page before it pays (a numbered statement keeps
    // the details it was issued with; a tax id with a stray character is refused).
    await signInToDashboard(page, api.url, 'owner@northwind.example', 'statement owner password');
    await page.goto(`${api.url}/dashboard/programs/${books.program.id}/payouts`);
    await page.locator('#payout-settings > details > summary').click();
    await page.getByRole('link', { name: 'Statement details' }).click();
    await page.getByLabel('Legal name (your company as it invoices)').fill('Northwind Books Ltd');
    await page.getByLabel('Address (one per line)').fill('12 Harbour Street\n\nBristol BS1 4QA\nUnited Kingdom');
    await page.getByLabel('VAT or tax id').fill('GB123456789!');
    await submitWithKeyboard(page, 'Save statement details');
    expect(await textOf('#tax_id-error')).toBe('A tax id has letters and digits (spaces, dots, dashes and slashes between them), like DE123456789.');
    expect(await page.getByLabel('Address (one per line)').inputValue()).toBe('12 Harbour Street\n\nBristol BS1 4QA\nUnited Kingdom');
    await checkedAtBothWidths('statement-details-refused');
    await page.getByLabel('VAT or tax id').fill('gb 123 4567 89');
    await submitWithKeyboard(page, 'Save statement details');
    expect(await textOf('[role="status"]')).toBe('Statement details saved: statements numbered from now on show them (an issued statement keeps its own).');
    expect(await page.getByLabel('VAT or tax id').inputValue()).toBe('GB 123 4567 89');
    await checkedAtBothWidths('statement-details');

    const first = await books.payAll([a1, a2, a3, b1], 'SEPA-2026-11');
    const anaFirst = first.find((p) => p.partner_id === ana)!;
    const benFirst = first.find((p) => p.partner_id === ben)!;
    // Half of the $49.99 sale refunded after it was paid: a clawback of its commission, in the next payout.
    await books.track('refund', { transaction_id: 'ch_3PqA9xLkdIwHu7ix1fG3hI4j', refund_amount_cents: 2_500, refund_id: 're_1' });
    const a4 = await books.sale('ana', 'ch_3PqD6uLkdIwHu7ix4uV9wX0y', 19_900, 'USD');
    // Atelier Lumière (EUR): the same person, another program.
    const atelier = await shop('Atelier Lumière', 'atelier-lumiere.example');
    const anaEur = await atelier.partner('Ana Alvarez', 'ana@partner.example', 'ana-atelier', 'wise', 'ana.alvarez@wise.example');
    const e1 = await atelier.sale('ana-atelier', 'pi_3QeF1aGhT8uVw2Xy3z4A5b6C', 24_000, 'EUR');

    // Ana's first statement, numbered when it was paid, before she gave invoice details: issued as it
    // is, it names her as the program knows her; the portal offers the form for later ones.
    await signInPartner('ana@partner.example');
    await page.goto(`${api.url}/portal/programs/${ana}/payouts/${anaFirst.id}`);
    expect((await rows('#lines')).map((r) => [r[2], r[3], r[4]])).toEqual([['Commission', '$125.00', '$25.00'], ['Commission', '$49.99', '$10.00'], ['Commission', '$300.00', '$60.00']]);
    expect(await textOf('#lines-total')).toBe('Total paid: $95.00');
    await page.getByRole('link', { name: `Statement of payout ${anaFirst.id} (print or save as PDF)` }).click();
    expect(await seen('#statement-from')).toBe('FROM Northwind Books Ltd for Northwind Books 12 Harbour Street Bristol BS1 4QA United Kingdom VAT / tax id: GB 123 4567 89');
    // The brand gave its VAT id: a self-billing invoice, numbered in the brand's series when it was paid (Ana's and Ben's first payouts 1 and 2, Ana's second 3).
    const numberOf = async (payoutId: number) => Number((await api.pool.query('SELECT number FROM statement_numbers WHERE payout_id = $1', [payoutId])).rows[0].number);
    expect([await numberOf(anaFirst.id), await numberOf(benFirst.id)].sort()).toEqual([1, 2]);
    const anaFirstNumber = await numberOf(anaFirst.id);
    expect(await textOf('#statement-title')).toBe(`Self-billing invoice ${anaFirstNumber}`);
    expect(await seen('#statement-to')).toBe('TO Ana Alvarez ana@partner.example');
    expect(await seen('#statement-issued')).toBe('This statement is issued: it keeps the details it was issued with and does not change. For later statements of Northwind Books, add or share your invoice details.');

    // The invoice details form, from the statement: refused fields say why; saved, back to the statement.
    await page.getByRole('link', { name: 'add or share your invoice details' }).click();
    expect(new URL(page.url()).pathname).toBe('/portal/invoice-details');
    await page.getByLabel('VAT or tax id (if you have one)').fill('DE 123<456');
    await page.getByLabel('Address (street, postal code and city; one per line)').fill(['Kastanienallee 12', 'Hinterhaus', '2. OG', 'links', 'c/o Studio', '10435', 'Berlin'].join('\n'));
    await submitWithKeyboard(page, 'Save invoice details');
    expect(await textOf('#name-error')).toBe('Give the name to put on your statements (yours or your company’s).');
    expect(await textOf('#address-error')).toBe('The address has at most 6 lines.');
    expect(await textOf('#tax_id-error')).toContain('A tax id has letters and digits');
    await checkedAtBothWidths('portal-invoice-details-refused');
    await page.getByLabel('Name (yours or your company’s)').fill('Ana Alvarez Studio');
    await page.getByLabel('Address (street, postal code and city; one per line)').fill('Kastanienallee 12\n10435 Berlin');
    await page.getByLabel('Country').selectOption({ label: 'Germany' });
    await page.getByLabel('VAT or tax id (if you have one)').fill('de123456789');
    // Come from Northwind Books' statement: that program is ticked to share them with; Atelier Lumière is not.
    expect(await page.getByLabel('Share with Northwind Books (Northwind Books Ltd)').isChecked()).toBe(true);
    expect(await page.getByLabel('Share with Atelier Lumière (atelier-lumiere.example)').isChecked()).toBe(false);
    await submitWithKeyboard(page, 'Save invoice details');
    expect(new URL(page.url()).pathname).toBe(`/portal/programs/${ana}/payouts/${anaFirst.id}/statement`);
    expect(await textOf('[role="status"]')).toBe('Invoice details saved: they are on the statements of the programs you share them with.');
    // Issued before: unchanged.
    expect(await seen('#statement-to')).toBe('TO Ana Alvarez ana@partner.example');
    expect(await seen('#statement-issued')).toBe('This statement is issued: it keeps the details it was issued with and does not change. Changes to your invoice details appear on later statements.');
    expect(await seen('#statement dl')).toMatch(new RegExp(`^Number ${anaFirstNumber} Issue date \\d{4}-\\d\\d-\\d\\d Payout ${anaFirst.id}, made \\d{4}-\\d\\d-\\d\\d Paid on \\d{4}-\\d\\d-\\d\\d$`));

    // She shares them with Atelier Lumière too (the form lists both programs under her email).
    await page.goto(`${api.url}/portal/invoice-details`);
    expect(await page.getByLabel('Share with Northwind Books (Northwind Books Ltd)').isChecked()).toBe(true);
    await page.getByLabel('Share with Atelier Lumière (atelier-lumiere.example)').check();
    await page.locator('#share-with').scrollIntoViewIfNeeded();
    await checkedAtBothWidths('portal-invoice-details-shares');
    await submitWithKeyboard(page, 'Save invoice details');
    expect(await textOf('[role="status"]')).toBe('Invoice details saved: they appear on the statements of the programs you share them with.');

    // The brand pays again: the second payout (netting the clawback) and Atelier Lumière's, numbered with her details.
    const second = await books.payAll([a4], 'SEPA-2026-12');
    const anaSecond = second.find((p) => p.partner_id === ana)!;
    const [anaEurPayout] = await atelier.payAll([e1], 'WISE-8841');
    expect(await numberOf(anaSecond.id)).toBe(3);
    // Each payout's lines add up to what it paid, to the cent (commissions at what the payout paid, plus the clawbacks it netted).
    for (const payout of [anaFirst, anaSecond, benFirst, anaEurPayout!]) {
      const { rows: [sum] } = await api.pool.query(
        `SELECT (SELECT coalesce(sum(payout_cents), 0) FROM commissions WHERE payout_id = $1) + (SELECT coalesce(sum(amount_cents), 0) FROM clawbacks WHERE payout_id = $1) AS lines`,
        [payout.id],
      );
      expect(Number(sum.lines), `payout ${payout.id}`).toBe(payout.amount_cents);
    }
    expect(anaSecond.amount_cents).toBe(3_980 - 500); // 20 % of $199.00, less the $25.00 refunded of the $49.99 sale's $10.00 commission

    // The partner's payouts: newest first, each with its method, reference and statement.
    await page.goto(`${api.url}/portal/programs/${ana}`);
    const history = await rows('#payout-history');
    expect(history.map((r) => r.slice(0, 5))).toEqual([
      [`Payout ${anaSecond.id} (1 commission)`, '$34.80', 'Paid', 'Bank transfer', `SEPA-2026-12-${ana}`],
      [`Payout ${anaFirst.id} (3 commissions)`, '$95.00', 'Paid', 'Bank transfer', `SEPA-2026-11-${ana}`],
    ]);
    const statementLinks = page.locator('#payout-history tbody tr').first().getByRole('link');
    expect(await statementLinks.evaluateAll((links) => links.map((a) => [a.textContent, a.getAttribute('href')]))).toEqual([
      [`Payout ${anaSecond.id}`, `/portal/programs/${ana}/payouts/${anaSecond.id}`],
      [`Statement ${anaSecond.id}`, `/portal/programs/${ana}/payouts/${anaSecond.id}/statement`],
      [`Statement of payout ${anaSecond.id} as CSV`, `/portal/programs/${ana}/payouts/${anaSecond.id}/statement.csv`],
    ]);
    await checkedAtBothWidths('portal-payouts');

    // One payout: where it went (the IBAN masked but its last 4), and its lines with the clawback.
    await page.getByRole('link', { name: `Payout ${anaSecond.id}`, exact: true }).click();
    expect(new URL(page.url()).pathname).toBe(`/portal/programs/${ana}/payouts/${anaSecond.id}`);
    expect(await seen('#payout-summary dl')).toMatch(new RegExp(`^Amount \\$34\\.80 State Paid Made on \\d{4}-\\d\\d-\\d\\d Paid on \\d{4}-\\d\\d-\\d\\d Sent with Bank transfer to •••• 3000 Payment reference SEPA-2026-12-${ana}$`));
    expect(await page.content()).not.toContain('0532'); // no more of the IBAN than its last four
    const lines = await rows('#lines');
    const today = ((await api.pool.query('SELECT created_at FROM clawbacks WHERE payout_id = $1', [anaSecond.id])).rows[0].created_at as Date).toISOString().slice(0, 10);
    expect(lines.map((r) => r.slice(1))).toEqual([
      ['ch_3PqD6uL…V9wX0y', 'Commission', '$199.00', '$39.80'], // the transaction id shortened (whole in its title)
      ['ch_3PqA9xL…G3hI4j', `Clawback: refunded or charged back on ${today}, after it was paid`, '—', '-$5.00'],
    ]);
    expect(await textOf('#lines-total')).toBe('Total paid: $34.80');
    await checkedAtBothWidths('portal-payout');

    // The second statement, issued with her invoice details.
    await page.goto(`${api.url}/portal/programs/${ana}/payouts/${anaSecond.id}/statement`);
    const anaSecondNumber = await numberOf(anaSecond.id);
    expect(await textOf('#statement-title')).toBe(`Self-billing invoice ${anaSecondNumber}`);
    expect(await seen('#statement-to')).toBe('TO Ana Alvarez Studio Kastanienallee 12 10435 Berlin Germany VAT / tax id: DE123456789 ana@partner.example');
    expect(await page.locator('#invoice-missing').count()).toBe(0);
    expect((await rows('#statement-lines')).map((r) => r[3])).toEqual(['$39.80', '-$5.00']);
    expect(await textOf('#statement-total')).toBe('$34.80');
    await checkedAtBothWidths('portal-statement');

    // Printed: only the statement (no portal header, no links back, no notice), every line and the total.
    await page.emulateMedia({ media: 'print' });
    const printed = await seen('body');
    expect(printed).not.toContain('Sign out');
    expect(printed).not.toContain('Back to payout');
    expect(printed).not.toContain('Print or save as PDF');
    expect(printed).not.toContain('This statement is issued');
    expect(printed).toMatch(new RegExp(`^Self-billing invoice ${anaSecondNumber} Number ${anaSecondNumber} .* FROM Northwind Books Ltd .* TO Ana Alvarez Studio .* Total \\(USD\\) \\$34\\.80 Paid with: Bank transfer to •••• 3000; payment reference SEPA-2026-12-${ana}\\.`));
    await page.emulateMedia({ media: 'screen' });

    // Atelier Lumière's statement (in euros) carries them too.
    await page.goto(`${api.url}/portal/programs/${anaEur}/payouts/${anaEurPayout!.id}/statement`);
    expect(await seen('#statement-from')).toBe('FROM Atelier Lumière'); // no statement details: the program's name alone
    expect(await textOf('#statement-title')).toBe('Statement 1'); // no VAT id: a statement, numbered 1 in that brand's own series
    expect(await seen('#statement-to')).toContain('Ana Alvarez Studio Kastanienallee 12 10435 Berlin Germany VAT / tax id: DE123456789');
    expect(await textOf('#statement-total')).toBe('€48.00');
    expect(await seen('#statement > p')).toBe(`Paid with: Wise to a•••@wise.example; payment reference WISE-8841-${anaEur}.`);
    // The form shows what was saved.
    await page.goto(`${api.url}/portal/invoice-details`);
    expect(await page.getByLabel('Country').inputValue()).toBe('DE');
    expect(await page.getByLabel('Name (yours or your company’s)').inputValue()).toBe('Ana Alvarez Studio');

    // Another partner's payout or statement: the same 404 as one that does not exist.
    const notFound = async (path: string) => {
      const reply = await page.request.get(`${api.url}${path}`, { maxRedirects: 0 });
      return { path, status: reply.status(), says: (await reply.text()).match(/<main[^>]*>([\s\S]*)<\/main>/)?.[1]?.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ').trim() };
    };
    const missingPayout = anaEurPayout!.id + 1000;
    for (const suffix of ['', '/statement', '/statement.csv']) {
      const ownRowOtherPayout = await notFound(`/portal/programs/${ana}/payouts/${benFirst.id}${suffix}`);
      const ownRowNoPayout = await notFound(`/portal/programs/${ana}/payouts/${missingPayout}${suffix}`);
      expect(ownRowOtherPayout).toEqual({ ...ownRowNoPayout, path: ownRowOtherPayout.path });
      expect(ownRowOtherPayout.status).toBe(404);
      const otherRow = await notFound(`/portal/programs/${ben}/payouts/${benFirst.id}${suffix}`);
      const noRow = await notFound(`/portal/programs/${ben + 1000}/payouts/${benFirst.id}${suffix}`);
      expect(otherRow).toEqual({ ...noRow, path: otherRow.path });
      expect(otherRow.status).toBe(404);
    }

    // The brand's copy, from its Payouts page: Ben's payout came back after it was paid; its
    // statement keeps its number and says it was reversed.
    await admin('POST', `/programs/${books.program.id}/payouts/${benFirst.id}/fail`, { reason: 'Account closed.' });
    const benNumber = await numberOf(benFirst.id);
    await page.goto(`${api.url}/dashboard/programs/${books.program.id}/payouts`);
    await page.locator('#sent-payouts').scrollIntoViewIfNeeded();
    await checkedAtBothWidths('brand-payouts-sent');
    await page.getByRole('link', { name: `Statement of payout ${benFirst.id}`, exact: true }).click();
    expect(new URL(page.url()).pathname).toBe(`/dashboard/programs/${books.program.id}/payouts/${benFirst.id}/statement`);
    expect(await textOf('#statement-title')).toBe(`Self-billing invoice ${benNumber}`);
    expect(await seen('#statement-reversed')).toMatch(/^Reversed on \d{4}-\d\d-\d\d: Account closed\. /);
    expect(await seen('#statement-to')).toBe('TO Ben Brandt ben@partner.example');
    expect(await textOf('#statement-total')).toBe('$17.80'); // the lines it paid, kept though they are owed again
    await checkedAtBothWidths('brand-statement-reversed');
    await page.goto(`${api.url}/dashboard/programs/${books.program.id}/payouts/${anaSecond.id}/statement`);
    expect(await seen('#statement-to')).toBe('TO Ana Alvarez Studio Kastanienallee 12 10435 Berlin Germany VAT / tax id: DE123456789 ana@partner.example');
    expect(await textOf('#statement-total')).toBe('$34.80');
    await checkedAtBothWidths('brand-statement');
    // Another brand's payout: 404.
    expect((await page.request.get(`${api.url}/dashboard/programs/${books.program.id}/payouts/${anaEurPayout!.id}/statement`)).status()).toBe(404);
  }, 120_000);
});
