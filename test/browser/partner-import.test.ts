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
import { adminOf, hasChromium, openBrowserApp, screenshotsAt, submitWithKeyboard, textOf } from '../support/browser.js';
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
    await page.goto(`${api.url}/dashboard/login`);
    await page.getByLabel('Email').fill('owner@import.example');
    await page.getByLabel('Password').fill('correct horse battery');
    await page.getByLabel('Password').press('Enter');
    await page.waitForURL(`${api.url}/dashboard`);

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
});
