// Charts and tables read as numbers (issue 43, item 5): no table cell breaks a word or a number
// at 390 or 1280 px on any program page or the portal; money is money everywhere (Activity's
// refunds too); Activity's time of a sale is when it happened (what the charts and statements
// count), not when it was recorded, and its dates and order go by that time; the daily chart fills its card, keeps its last date whole
// and shows sales on an axis of their own; the overview ranks partners.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { PROGRAM_SECTIONS } from '../../src/app/programs/dashboard-pages.js';
import { adminOf, type BrowserAppWithMail, browserAppWithMail, hasChromium, screenshotsAt, signInToDashboard, submitWithKeyboard } from '../support/browser.js';
import type { TestApi } from '../support/harness.js';
import { seedRealisticProgram } from '../support/realistic-program.js';

let api: TestApi;
let page: Page;
let smtp: BrowserAppWithMail['smtp'];
browserAppWithMail('tables-test-key-0123456789abcdef', (opened) => ({ api, page, smtp } = opened));
const admin = adminOf(() => api);

interface Break {
  width: number;
  where: string;
  word: string;
}

/**
 * Every word of every visible table cell on one line, and no cell's content wider than the cell;
 * the page never scrolls sideways. A word is a run of non-space characters.
 */
async function brokenWords(where: string): Promise<Break[]> {
  const found: Break[] = [];
  for (const width of [390, 1280]) {
    await page.setViewportSize({ width, height: 900 });
    const breaks = await page.evaluate(() => {
      const out: string[] = [];
      if (document.documentElement.scrollWidth > document.documentElement.clientWidth) out.push(`the page scrolls sideways (${document.documentElement.scrollWidth} px)`);
      for (const cell of document.querySelectorAll('td, th')) {
        if (cell.getClientRects().length === 0) continue; // folded away
        // Read by screen readers only (a narrow screen's column names, shown beside each cell instead).
        let clipped = false;
        for (let e: Element | null = cell; e; e = e.parentElement) if (getComputedStyle(e).clip !== 'auto') clipped = true;
        if (clipped) continue;
        if (cell.scrollWidth > cell.clientWidth + 1) out.push(`overflows: ${cell.textContent?.trim()}`);
        const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
          const text = node.textContent ?? '';
          for (const match of text.matchAll(/\S+/g)) {
            const range = document.createRange();
            range.setStart(node, match.index!);
            range.setEnd(node, match.index! + match[0].length);
            const lines = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
            if (lines.size > 1) out.push(match[0]);
          }
        }
      }
      return out;
    });
    found.push(...breaks.map((word) => ({ width, where, word })));
  }
  await page.setViewportSize({ width: 1280, height: 900 });
  return found;
}

describe.skipIf(!hasChromium)('charts and tables', () => {
  it('no word broken in a table cell at 390 or 1280 px; money and the sale\'s own time everywhere; a chart that fills its card with two axes; a leaderboard', async () => {
    page.setDefaultTimeout(5000);
    const now = new Date();
    const shop = await seedRealisticProgram(api, admin, now, 'Tables');
    await signInToDashboard(page, api.url, shop.accountEmail, shop.password);
    const base = `${api.url}/dashboard/programs/${shop.programId}`;

    // Activity: refunds as money, and the late sale at the time it happened.
    await page.goto(`${base}/activity`);
    const refunds = await page.locator('#activity td[data-label="Refunds"]').allInnerTexts();
    expect(refunds.filter(Boolean).sort()).toEqual(['chargeback €49.00', 'refund $14.50']);
    const late = page.locator('#activity tbody tr', { has: page.locator(`[title="${shop.lateSale.transactionId}"]`) });
    expect(await late.locator('td[data-label="When (UTC)"]').innerText()).toBe(shop.lateSale.occurredAt.toISOString().replace('T', ' ').slice(0, 16));
    // The order and the period go by the same time: newest first by when each happened (the late
    // sale among the events of three days ago, not at the top with today's), and the sale of 20
    // days ago, recorded today, outside the last 14 days.
    const when = () => page.locator('#activity td[data-label="When (UTC)"] time').evaluateAll((times) => times.map((t) => t.getAttribute('datetime')!));
    const times = await when();
    expect(times.length).toBeGreaterThan(10);
    expect(times).toEqual([...times].sort().reverse());
    const sale = (transactionId: string) => page.locator('#activity tbody tr', { has: page.locator(`[title="${transactionId}"]`) });
    expect(await sale(shop.oldSale.transactionId).count()).toBe(0);
    const day = (d: Date) => d.toISOString().slice(0, 10);
    await page.goto(`${base}/activity?from=${day(shop.lateSale.occurredAt)}&to=${day(shop.lateSale.occurredAt)}`);
    expect(await sale(shop.lateSale.transactionId).count()).toBe(1);
    await page.goto(`${base}/activity?from=${day(now)}&to=${day(now)}`);
    expect(await sale(shop.lateSale.transactionId).count()).toBe(0);
    expect(await sale(shop.oldSale.transactionId).count()).toBe(0);
    expect((await when()).every((t) => t.startsWith(day(now)))).toBe(true);
    await page.goto(`${base}/activity?from=${day(shop.oldSale.occurredAt)}&to=${day(shop.oldSale.occurredAt)}`);
    expect(await sale(shop.oldSale.transactionId).count()).toBe(1);
    await page.goto(`${base}/activity`);
    await screenshotsAt(page, 'tables-activity');

    // The overview's chart: the whole card wide at 1280 px, every label inside the drawing at
    // both widths, sales on their own axis (the day with the most sales reaches the top half).
    await page.goto(base);
    await page.getByRole('link', { name: 'Last 7 days' }).click();
    for (const width of [390, 1280]) {
      await page.setViewportSize({ width, height: 900 });
      const chart = await page.evaluate(() => {
        const svg = [...document.querySelectorAll('figure.daily svg')].find((s) => s.getClientRects().length > 0)!;
        const box = svg.getBoundingClientRect();
        const card = svg.closest('section')!;
        const style = getComputedStyle(card);
        const inner = card.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
        const outside = [...svg.querySelectorAll('text')].filter((t) => {
          const r = t.getBoundingClientRect();
          return r.left < box.left - 0.5 || r.right > box.right + 0.5;
        }).map((t) => t.textContent);
        const base = svg.querySelector('line')!.getBoundingClientRect().top;
        const sales = [...svg.querySelectorAll('circle')].filter((c) => c.querySelector('title')!.textContent!.includes('sales'));
        const highest = Math.min(...sales.map((c) => c.getBoundingClientRect().top));
        const top = Math.min(...[...svg.querySelectorAll('line')].map((l) => l.getBoundingClientRect().top));
        return { share: box.width / inner, outside, salesReach: (base - highest) / (base - top), lastDate: [...svg.querySelectorAll('text')].at(-1)!.textContent };
      });
      expect(chart.outside, `labels cut at ${width} px`).toEqual([]);
      expect(chart.share, `chart width at ${width} px`).toBeGreaterThan(0.95);
      // 2 sales on the busiest day against 6 clicks: on the clicks' axis (top 10) they reached a fifth.
      expect(chart.salesReach, `sales at ${width} px`).toBeGreaterThan(0.3);
      expect(chart.lastDate).toBe(now.toLocaleDateString('en-GB', { day: 'numeric', month: 'short', timeZone: 'UTC' }));
    }
    await page.setViewportSize({ width: 1280, height: 900 });
    expect(await page.locator('#leaders tbody tr').count()).toBe(3);
    await screenshotsAt(page, 'tables-overview');

    // Every program page and the partner's page, then the portal: no word broken in a cell.
    const found: Break[] = [];
    for (const section of PROGRAM_SECTIONS) {
      await page.goto(`${base}${section === 'overview' ? '' : `/${section}`}`);
      found.push(...(await brokenWords(section)));
    }
    await page.goto(`${base}/payouts?stage=approved`);
    found.push(...(await brokenWords('payouts approved')));
    await page.goto(`${base}/partners/${shop.partners[0]!.id}`);
    found.push(...(await brokenWords('partner')));
    await admin('POST', `/programs/${shop.programId}/partners/${shop.partners[0]!.id}/invite`);
    await expect.poll(() => smtp.lastLink('ana@tables-partners.example'), { timeout: 5000 }).not.toBeNull();
    await page.context().clearCookies();
    await page.goto(smtp.lastLink('ana@tables-partners.example')!.replace(/^https?:\/\/[^/]+/, api.url));
    await submitWithKeyboard(page, 'Sign in');
    found.push(...(await brokenWords('portal')));
    await page.goto(`${api.url}/portal/programs/${shop.partners[0]!.id}`);
    found.push(...(await brokenWords('portal program')));
    expect(found).toEqual([]);
  }, 180_000);
});
