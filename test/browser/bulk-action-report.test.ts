// A large bulk action from the dashboard, in a browser: the form answers at once with the report
// page, which shows the progress chunk by chunk (the test drives the job) with no serious or
// critical axe-core violation at 390 and 1280 px. With AFFIX_SCREENSHOTS=1 the page is saved
// running and done (docs/screenshots/bulk-action-<state>-<width>.png).
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBulkActionJob } from '../../src/jobs/bulk-action-jobs.js';
import { createLogger } from '../../src/platform/logger.js';
import { BULK_ACTIONS_QUEUE } from '../../src/core/queue-names.js';
import { adminOf, axeAudit, hasChromium, openBrowserApp, screenshotsAt, signInToDashboard, submitWithKeyboard, textOf } from '../support/browser.js';
import type { TestApi } from '../support/harness.js';

let opened: Awaited<ReturnType<typeof openBrowserApp>> | undefined;
let api: TestApi;
let page: Page;
const admin = adminOf(() => api);

beforeAll(async () => {
  if (!hasChromium) return;
  opened = await openBrowserApp({ AFFIX_SECRET_KEY: 'bulk-report-browser-key-0123456' }, { queueUrl: 'own' }, { width: 1280, height: 900 });
  ({ api, page } = opened);
});
afterAll(() => opened?.close());

/** The worker's part, by hand: the next chunk. */
async function nextChunk(): Promise<string | null> {
  const [job] = await api.queue!.fetch<unknown>(BULK_ACTIONS_QUEUE);
  if (!job) return null;
  const deps = { pool: api.pool, secretBox: null, now: () => new Date(api.clock.now), logger: createLogger('silent'), mailLinks: { publicUrl: api.url } };
  const outcome = await runBulkActionJob(deps, job.data);
  await api.queue!.complete(BULK_ACTIONS_QUEUE, job.id);
  return outcome;
}

async function seriousViolations(): Promise<string[]> {
  const found: string[] = [];
  for (const width of [390, 1280]) {
    await page.setViewportSize({ width, height: 900 });
    const result = await axeAudit(page);
    for (const v of result.violations) if (v.impact === 'serious' || v.impact === 'critical') found.push(`${width}: ${v.id}`);
  }
  await page.setViewportSize({ width: 1280, height: 900 });
  return found;
}

describe.skipIf(!hasChromium)('the report page of a large bulk action', () => {
  it('the form answers at once with the report page; it fills in as chunks finish', async () => {
    page.setDefaultTimeout(5000);
    const account = await admin('POST', '/accounts', { email: 'owner@bulk.example', password: 'bulk owner password' });
    const program = await admin('POST', '/programs', { account_id: account.id, name: 'Bulk Shop', domain: 'shop.example.com', commission_type: 'percent', commission_rate: 20 });
    await api.pool.query(
      `INSERT INTO partners (program_id, name, email, status, tags)
       SELECT $1, 'Spammer ' || g, 'spammer' || g || '@fake.example', 'approved', '{spam}' FROM generate_series(1, 1200) AS g`,
      [program.id],
    );

    await signInToDashboard(page, api.url, 'owner@bulk.example', 'bulk owner password');
    // The page reloads itself while the action runs (its Refresh header, tested in test/bulk-actions.test.ts):
    // here the test reloads it, so that the audit and the screenshots see a page that holds still.
    let reloadEvery: string | undefined;
    await page.route(/\/partners\/bulk\/\d+$/, async (route) => {
      const response = await route.fetch();
      const { refresh, ...headers } = response.headers();
      reloadEvery = refresh;
      await route.fulfill({ response, headers });
    });
    await page.goto(`${api.url}/dashboard/programs/${program.id}/partners?tag=spam`);
    await page.getByLabel('Apply to every partner this search matches').check();
    await page.getByLabel('Action', { exact: true }).selectOption('ban');
    await page.getByLabel('Reason (needed to reject and ban; one for the batch)').fill('fake traffic');
    await submitWithKeyboard(page, 'Apply to the selected partners');
    expect(page.url()).toMatch(new RegExp(`/dashboard/programs/${program.id}/partners/bulk/\\d+$`));
    expect(await textOf(page.locator('h1'))).toMatch(/^Ban: bulk action \d+$/);
    expect(await textOf(page.locator('#bulk-action h2'))).toBe('Waiting to start');
    expect(await textOf(page.locator('label[for=bulk-progress]'))).toBe('Partners handled: 0 of about 1,200');

    expect(await nextChunk()).toBe('chunk');
    await page.reload();
    expect(await textOf(page.locator('#bulk-action h2'))).toBe('Running');
    expect(await textOf(page.locator('label[for=bulk-progress]'))).toBe('Partners handled: 500 of about 1,200');
    expect(reloadEvery).toBe('5');
    expect(await page.getByRole('link', { name: 'Stop reloading' }).count()).toBe(1);
    expect(await seriousViolations()).toEqual([]);
    await screenshotsAt(page, 'bulk-action-running');

    expect(await nextChunk()).toBe('chunk');
    expect(await nextChunk()).toBe('done');
    await page.reload();
    expect(await textOf(page.locator('#bulk-action h2'))).toBe('Done');
    expect(await textOf(page.locator('label[for=bulk-progress]'))).toBe('Partners handled: 1,200');
    expect(reloadEvery).toBeUndefined();
    expect(await page.getByRole('link', { name: 'Stop reloading' }).count()).toBe(0);
    expect(await seriousViolations()).toEqual([]);
    await screenshotsAt(page, 'bulk-action-done');
  }, 120_000);
});
