// The partner import in Chromium, a plain form without script: a CSV is checked (dry run) and
// then written from the confirming form, both carrying their CSRF token in the action URL; a file
// over 20 MB is answered 413 with the import page and the limit beside the file field (390 and
// 1280 px screenshots with AFFIX_SCREENSHOTS=1).
import { once } from 'node:events';
import { createWriteStream, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminOf, hasChromium, openBrowserApp, screenshotsAt, signInToDashboard, submitWithKeyboard, textOf } from '../support/browser.js';
import { type TestApi, count } from '../support/harness.js';

let opened: Awaited<ReturnType<typeof openBrowserApp>> | undefined;
let api: TestApi;
let page: Page;
const dir = mkdtempSync(join(tmpdir(), 'affix-import-'));

beforeAll(async () => {
  if (!hasChromium) return;
  opened = await openBrowserApp({ AFFIX_SECRET_KEY: 'partner-import-key-0123456789' }, {}, { width: 1280, height: 900 });
  ({ api, page } = opened);
}, 60_000);
afterAll(async () => {
  await opened?.close();
  rmSync(dir, { recursive: true, force: true });
});

const admin = adminOf(() => api);

/** A file of `bytes` bytes written a 64 KB chunk at a time (never held whole). */
async function bigFile(name: string, bytes: number): Promise<string> {
  const path = join(dir, name);
  const out = createWriteStream(path);
  const chunk = Buffer.alloc(64 * 1024, 'a');
  for (let left = bytes; left > 0; left -= chunk.length) {
    if (!out.write(left >= chunk.length ? chunk : chunk.subarray(0, left))) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  return path;
}

describe.skipIf(!hasChromium)('the partner import', () => {
  it('a file is checked then written; a file over 20 MB is answered beside the file field', async () => {
    page.setDefaultTimeout(10_000);
    const account = await admin('POST', '/accounts', { email: 'owner@import.example', password: 'correct horse battery' });
    const program = await admin('POST', '/programs', { account_id: account.id, name: 'Import Shop', domain: 'shop.example.com', commission_type: 'percent', commission_rate: 10 });
    const base = `${api.url}/dashboard/programs/${program.id}`;
    await signInToDashboard(page, api.url, 'owner@import.example', 'correct horse battery');

    // A good file: the dry run writes nothing, the confirming form writes the rows.
    const csv = join(dir, 'partners.csv');
    writeFileSync(csv, 'name,email,code\nAna Import,ana@import.test,ana-import\nBen Import,ben@import.test,ben-import\n');
    await page.goto(`${base}/partners/import`);
    await page.getByLabel(/^CSV file/).setInputFiles(csv);
    await submitWithKeyboard(page, 'Check the file (dry run)');
    expect(await textOf(page.locator('#import-report h2'))).toBe('Dry run: nothing was written');
    expect(await count(api.pool, "SELECT 1 FROM partners WHERE email LIKE '%@import.test'")).toBe(0);
    await submitWithKeyboard(page, 'Import the 2 good rows');
    expect(await textOf(page.locator('#import-report .ok'))).toBe('Written: 2 partners, 2 links.');
    expect(await count(api.pool, "SELECT 1 FROM partners WHERE program_id = $1 AND email LIKE '%@import.test'", [program.id])).toBe(2);

    // A file over 20 MB: the import page again, 413, the limit beside the file field.
    await page.goto(`${base}/partners/import`);
    await page.getByLabel(/^CSV file/).setInputFiles(await bigFile('too-big.csv', 20 * 1024 * 1024 + 1));
    const answer = page.waitForResponse((response) => response.request().method() === 'POST' && response.url().includes('/partners/import'));
    await submitWithKeyboard(page, 'Check the file (dry run)');
    expect((await answer).status()).toBe(413);
    expect(await textOf(page.locator('#file-error'))).toBe('The file is larger than 20 MB: split it into files of at most 20 MB.');
    expect(await page.getByLabel(/^CSV file/).getAttribute('aria-describedby')).toBe('file-error');
    // The summary at the top links to the field.
    expect(await page.locator('.error-summary a').getAttribute('href')).toBe('#file');
    await screenshotsAt(page, 'partner-import-too-large');
  }, 90_000);

  it('the confirm imports exactly what the dry run checked: a NUL the form would turn into U+FFFD stays the refused row', async () => {
    const account = await admin('POST', '/accounts', { email: 'owner@nul.example', password: 'correct horse battery' });
    const program = await admin('POST', '/programs', { account_id: account.id, name: 'Nul Shop', domain: 'shop.example.com', commission_type: 'percent', commission_rate: 10 });
    const base = `${api.url}/dashboard/programs/${program.id}`;
    await page.context().clearCookies();
    await signInToDashboard(page, api.url, 'owner@nul.example', 'correct horse battery');
    const csv = join(dir, 'nul.csv');
    writeFileSync(csv, 'name,email\nAnn\u0000Lee,ann@nul.test\nBob Nul,bob@nul.test\n');
    await page.goto(`${base}/partners/import`);
    await page.getByLabel(/^CSV file/).setInputFiles(csv);
    await submitWithKeyboard(page, 'Check the file (dry run)');
    expect(await textOf(page.locator('.problems li'))).toBe('Line 2: name must not contain line breaks, tabs or other control characters');
    expect(await textOf(page.locator('#import-report > p').first())).toMatch(/^2 rows: 1 new partner,/);
    // On a phone the dry run's tables fit: nothing scrolls sideways.
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await page.setViewportSize({ width: 1280, height: 900 });
    await submitWithKeyboard(page, 'Import the 1 good row');
    expect(await textOf(page.locator('#import-report .ok'))).toBe('Written: 1 partner, 0 links.');
    expect((await api.pool.query('SELECT name FROM partners WHERE program_id = $1 ORDER BY name', [program.id])).rows.map((r) => r.name)).toEqual(['Bob Nul']);
  }, 60_000);

  it('a Rewardful export whose campaigns are no group: the mapping step, its dry run, the import (390 and 1280 px)', async () => {
    const account = await admin('POST', '/accounts', { email: 'owner@map.example', password: 'correct horse battery' });
    const program = await admin('POST', '/programs', { account_id: account.id, name: 'Map Shop', domain: 'shop.example.com', commission_type: 'percent', commission_rate: 20 });
    await admin('POST', `/programs/${program.id}/groups`, { name: 'Creators', slug: 'creators', commission_type: 'percent', commission_rate: 30, hold_days: 30 });
    const base = `${api.url}/dashboard/programs/${program.id}`;
    await page.context().clearCookies();
    await signInToDashboard(page, api.url, 'owner@map.example', 'correct horse battery');
    const csv = join(dir, 'rewardful-affiliates.csv');
    writeFileSync(
      csv,
      [
        'id,email,first_name,last_name,paypal_email,campaign,token,created_at,state',
        '1f7c2a9e-3b1d-4c55-9a0e-6f1b2d3c4e5f,maria.lopez@map.test,María,López,maria.pay@map.test,Default Campaign,maria-lopez,2024-02-11T09:12:44Z,active',
        '2a8d3b0f-4c2e-4d66-8b1f-7a2c3e4d5f60,tom.baker@map.test,Tom,Baker,tom.pay@map.test,Default Campaign,tombaker,2024-02-19T14:03:10Z,active',
        '3b9e4c1a-5d3f-4e77-9c2a-8b3d4f5e6a71,jo.kim@map.test,Jo,Kim,,Default Campaign,jokim,2024-03-02T08:45:00Z,active',
        '4caf5d2b-6e4a-4f88-8d3b-9c4e5a6f7b82,lena.fischer@map.test,Lena,Fischer,lena.pay@map.test,Creators Q4 2023,lena-creates,2023-11-20T17:30:05Z,active',
        '5db06e3c-7f5b-4a99-9e4c-ad5f6b7a8c93,sam.okafor@map.test,Sam,Okafor,sam.pay@map.test,Creators Q4 2023,samokafor,2023-12-01T11:11:11Z,active',
        '6ec17f4d-806c-4baa-8f5d-be6a7c8b9da4,old.partner@map.test,Old,Partner,,Legacy 2021,oldpartner,2021-06-15T10:00:00Z,inactive',
        '',
      ].join('\n'),
    );
    await page.goto(`${base}/partners/import`);
    await page.getByLabel(/^CSV file/).setInputFiles(csv);
    await submitWithKeyboard(page, 'Check the file (dry run)');
    expect(await textOf(page.locator('#import-mapping h2'))).toBe('Map the file to this program');
    await screenshotsAt(page, 'partner-import-mapping');
    await page.getByLabel('“Default Campaign” (3 rows)').selectOption({ label: 'New group named …' });
    await page.locator('#new_name_0').fill('Rewardful');
    await page.getByLabel('“Creators Q4 2023” (2 rows)').selectOption({ label: 'Creators' });
    // A new group whose address name another group holds is refused beside its name, the choices kept.
    await page.getByLabel('“Legacy 2021” (1 row)').selectOption({ label: 'New group named …' });
    await page.locator('#new_name_2').fill('creators!');
    await submitWithKeyboard(page, 'Check the file with this mapping (dry run)');
    expect(await textOf(page.locator('#new_name_2-error'))).toBe('"Legacy 2021": the group "Creators" already has the address name "creators": map to it, or name the new group otherwise.');
    expect(await page.locator('.error-summary a').first().getAttribute('href')).toBe('#new_name_2');
    expect(await page.locator('#map_0').inputValue()).toBe('new');
    await screenshotsAt(page, 'partner-import-mapping-refused');
    await page.getByLabel('“Legacy 2021” (1 row)').selectOption({ label: 'No group' });
    await page.getByRole('checkbox', { name: /paypal_email/ }).check();
    await submitWithKeyboard(page, 'Check the file with this mapping (dry run)');
    expect(await textOf(page.locator('#import-report h2'))).toBe('Dry run: nothing was written');
    expect(await page.locator('#import-report table').first().locator('tbody td').allTextContents()).toEqual([
      'Default Campaign', '3', 'a new group “Rewardful” (made by the import)',
      'Creators Q4 2023', '2', 'the group “Creators”',
      'Legacy 2021', '1', 'no group',
    ]);
    await screenshotsAt(page, 'partner-import-mapped-dry-run');
    expect(await count(api.pool, 'SELECT 1 FROM partners WHERE program_id = $1', [program.id])).toBe(0);
    await submitWithKeyboard(page, 'Import the 6 good rows');
    expect(await textOf(page.locator('#import-report .ok'))).toBe('Written: 6 partners, 6 links, 1 new group.');
    const rows = (await api.pool.query('SELECT pa.email, g.name AS grp, pa.payout_method FROM partners pa LEFT JOIN partner_groups g ON g.id = pa.group_id WHERE pa.program_id = $1 ORDER BY pa.email', [program.id])).rows;
    expect(rows.map((r) => [r.email, r.grp, r.payout_method])).toEqual([
      ['jo.kim@map.test', 'Rewardful', null],
      ['lena.fischer@map.test', 'Creators', null],
      ['maria.lopez@map.test', 'Rewardful', null],
      ['old.partner@map.test', null, null],
      ['sam.okafor@map.test', 'Creators', null],
      ['tom.baker@map.test', 'Rewardful', null],
    ]);
  }, 90_000);
});
