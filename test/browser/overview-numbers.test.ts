// The overview's numbers agree with each other and with the rows (issue 43, item 4): every card,
// the chart's totals, the funnel, the money table and the leaderboard count the same period the
// same way, in one vocabulary (clicks, leads, customers, sales, revenue, commission). Data are
// recorded through the real tracking API; the test recounts each figure from the base tables
// (clicks, tracking events, sales, commissions) and compares with what the page shows.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { presetPeriod } from '../../src/core/periods.js';
import { formatMoney } from '../../src/core/money.js';
import type { Currency } from '../../src/core/types.js';
import type { Pool } from '../../src/db/infra/pool.js';
import { adminOf, browserAppWithMail, hasChromium, screenshotsAt, signInToDashboard, textOf } from '../support/browser.js';
import type { TestApi } from '../support/harness.js';
import { seedRealisticProgram } from '../support/realistic-program.js';

let api: TestApi;
let page: Page;
let pool: Pool;
browserAppWithMail('overview-numbers-key-0123456789abcdef', (opened) => ({ api, page, db: { pool } } = opened));
const admin = adminOf(() => api);

const squash = (text: string) => text.replace(/\s+/g, ' ').trim();
const cards = async () => (await page.locator('ul.kpis li.kpi').allInnerTexts()).map(squash);
const count = async (sql: string, params: unknown[]) => Number((await pool.query(sql, params)).rows[0].n);
const perCurrency = async (sql: string, params: unknown[]) =>
  (await pool.query(sql, params)).rows.map((r) => [r.currency as string, Number(r.cents)] as const).sort(([a], [b]) => a.localeCompare(b));

describe.skipIf(!hasChromium)('the overview: one period, one definition, recounted from the rows', () => {
  it('every card, the chart, the funnel, the money table and the leaderboard match a recount of the base tables', async () => {
    page.setDefaultTimeout(5000);
    const now = new Date();
    const shop = await seedRealisticProgram(api, admin, now);
    const { from, to } = presetPeriod('7d', now);
    const args = [shop.programId, from, to];

    // The recount, from the base tables: live rows only; a sale on the day it happened.
    const clicks = await count('SELECT count(*) AS n FROM clicks WHERE program_id = $1 AND NOT test AND created_at >= $2 AND created_at < $3', args);
    const leads = await count(
      `SELECT count(*) AS n FROM tracking_events WHERE program_id = $1 AND kind = 'lead' AND NOT test AND coalesce(details ->> 'settled', 'false') <> 'true' AND created_at >= $2 AND created_at < $3`,
      args,
    );
    const customers = await count(
      `SELECT count(*) AS n FROM (SELECT DISTINCT ON (customer_id) occurred_at FROM sales WHERE program_id = $1 AND NOT test AND customer_id IS NOT NULL ORDER BY customer_id, id) first
        WHERE occurred_at >= $2 AND occurred_at < $3`,
      args,
    );
    const sales = await count('SELECT count(*) AS n FROM sales WHERE program_id = $1 AND NOT test AND occurred_at >= $2 AND occurred_at < $3', args);
    const revenue = await perCurrency('SELECT currency, sum(amount_cents) AS cents FROM sales WHERE program_id = $1 AND NOT test AND occurred_at >= $2 AND occurred_at < $3 GROUP BY currency', args);
    const commission = (states: string[]) =>
      perCurrency(
        `SELECT s.currency, coalesce(sum(c.earned_cents) FILTER (WHERE c.state = ANY ($4::text[])), 0) AS cents
           FROM sales s JOIN commission_states c ON c.sale_id = s.id
          WHERE s.program_id = $1 AND NOT s.test AND s.occurred_at >= $2 AND s.occurred_at < $3 GROUP BY s.currency`,
        [...args, states],
      );
    const earned = await commission(['pending', 'held', 'approved', 'in_payout', 'paid', 'reversed', 'rejected', 'moved']);
    const [awaiting, approved, paid] = [await commission(['pending', 'held']), await commission(['approved', 'in_payout']), await commission(['paid'])];
    // The data are what the test means them to be: several partners, two currencies, refunds, a late sale.
    expect([clicks, leads, customers, sales]).toEqual([9, 3, 4, 5]);
    expect(revenue.map(([c]) => c)).toEqual(['EUR', 'USD']);

    await signInToDashboard(page, api.url, shop.accountEmail, shop.password);
    await page.goto(`${api.url}/dashboard/programs/${shop.programId}`);
    await page.getByRole('link', { name: 'Last 7 days' }).click();

    const money = (rows: (readonly [string, number])[]) => rows.map(([currency, cents]) => formatMoney(cents, currency as Currency));
    const values = (text: string) => text.replace(/ (new|no change|[+−][<\d%]+\S*) vs the 7 days before/g, '');
    expect((await cards()).map(values)).toEqual([
      `Clicks ${clicks}`,
      `Leads ${leads}`,
      `Customers ${customers}`,
      `Sales ${sales}`,
      `Revenue ${money(revenue).join(' ')}`,
      `Commission awaiting approval ${money(awaiting).join(' ')}`,
      `Commission approved ${money(approved).join(' ')}`,
      `Commission paid ${money(paid).join(' ')}`,
    ]);
    // Nothing on the page counts another period: no "last 24 h" beside the period's cards.
    expect(await page.locator('main').innerText()).not.toMatch(/24 h/);

    // The chart's legend and its table: the cards' numbers, in the cards' words.
    const legend = squash(await page.locator('figure.daily figcaption').innerText());
    expect(legend).toBe(`Clicks ${clicks} (bars, left axis) · Leads ${leads} · Sales ${sales} (lines, right axis) · 7 days`);
    const daily = await page.locator('#daily-table tbody tr').evaluateAll((rows) => rows.map((row) => [...row.querySelectorAll('td')].slice(1).map((td) => Number(td.textContent))));
    const sum = (k: number) => daily.reduce((total, row) => total + row[k]!, 0);
    expect([sum(0), sum(1), sum(2)]).toEqual([clicks, leads, sales]);
    expect(await page.locator('#daily-table thead th').allTextContents()).toEqual(['Day', 'Clicks', 'Leads', 'Sales']);

    // The funnel draws the same three numbers as the cards.
    expect(await page.locator('figure.funnel svg text').allTextContents()).toEqual([`Clicks: ${clicks}`, `Leads: ${leads}`, `Customers: ${customers}`]);
    expect(await textOf(page.locator('figure.funnel figcaption'))).toBe(`Click → lead ${Math.round((leads / clicks) * 100)}% · click → customer ${Math.round((customers / clicks) * 100)}%`);

    // The money table: the same sales and money per currency.
    const table = await page.locator('#kpis tbody tr').evaluateAll((rows) => rows.map((row) => [...row.querySelectorAll('td')].map((td) => td.textContent)));
    const salesIn = async (currency: string) => count('SELECT count(*) AS n FROM sales WHERE program_id = $1 AND NOT test AND occurred_at >= $2 AND occurred_at < $3 AND currency = $4', [...args, currency]);
    const of = (rows: (readonly [string, number])[], currency: string) => formatMoney(rows.find(([c]) => c === currency)?.[1] ?? 0, currency as Currency);
    expect(table).toEqual(
      await Promise.all(revenue.map(async ([currency]) => [currency, String(await salesIn(currency)), ...[revenue, earned, awaiting, approved, paid].map((rows) => of(rows, currency))])),
    );

    // The leaderboard: each partner's numbers recounted from the rows, ranked by revenue in the
    // currency with the most sales (USD here).
    const partnerRows = await pool.query(
      `SELECT p.id, p.name,
              (SELECT count(*) FROM clicks k WHERE k.program_id = p.program_id AND k.partner_id = p.id AND NOT k.test AND k.created_at >= $2 AND k.created_at < $3) AS clicks,
              (SELECT count(*) FROM tracking_events e JOIN customers cu ON cu.id = e.customer_id WHERE e.program_id = p.program_id AND cu.partner_id = p.id AND e.kind = 'lead' AND NOT e.test AND e.created_at >= $2 AND e.created_at < $3) AS leads,
              (SELECT count(*) FROM (SELECT DISTINCT ON (customer_id) partner_id, occurred_at FROM sales WHERE program_id = p.program_id AND NOT test AND customer_id IS NOT NULL ORDER BY customer_id, id) f
                WHERE f.partner_id = p.id AND f.occurred_at >= $2 AND f.occurred_at < $3) AS customers,
              (SELECT count(*) FROM sales s WHERE s.partner_id = p.id AND NOT s.test AND s.occurred_at >= $2 AND s.occurred_at < $3) AS sales,
              (SELECT coalesce(sum(s.amount_cents), 0) FROM sales s WHERE s.partner_id = p.id AND NOT s.test AND s.currency = 'USD' AND s.occurred_at >= $2 AND s.occurred_at < $3) AS usd
         FROM partners p WHERE p.program_id = $1`,
      args,
    );
    const expected = partnerRows.rows
      .map((r) => ({ name: r.name as string, counts: [r.clicks, r.leads, r.customers, r.sales].map(String), usd: Number(r.usd), customers: Number(r.customers), sales: Number(r.sales), id: Number(r.id) }))
      .sort((a, b) => b.usd - a.usd || b.customers - a.customers || b.sales - a.sales || a.id - b.id);
    expect(await textOf(page.locator('#leaderboard h2'))).toBe('Top partners: Revenue (USD)');
    const leaders = await page.locator('#leaders tbody tr').evaluateAll((rows) => rows.map((row) => [...row.querySelectorAll('td')].map((td) => (td as HTMLElement).innerText.trim())));
    expect(leaders.map((row) => row.slice(1, 6))).toEqual(expected.map((p) => [p.name, ...p.counts]));
    // Each partner's revenue and commission per currency, as the rows say.
    const partnerMoney = async (partnerId: number, column: string) =>
      (await perCurrency(
        `SELECT s.currency, sum(${column}) AS cents FROM sales s LEFT JOIN commission_states c ON c.sale_id = s.id
          WHERE s.program_id = $1 AND s.partner_id = $4 AND NOT s.test AND s.occurred_at >= $2 AND s.occurred_at < $3 GROUP BY s.currency`,
        [...args, partnerId],
      )).map(([currency, cents]) => formatMoney(cents, currency as Currency)).join('\n') || '–';
    expect(leaders.map((row) => row.slice(6))).toEqual(
      await Promise.all(expected.map(async (p) => [await partnerMoney(p.id, 's.amount_cents'), await partnerMoney(p.id, 'coalesce(c.earned_cents, 0)')])),
    );
    // The leaderboard's customers and sales add up to the cards'.
    expect(leaders.reduce((total, row) => total + Number(row[4]), 0)).toBe(customers);
    expect(leaders.reduce((total, row) => total + Number(row[5]), 0)).toBe(sales);
    // Ranked by customers instead.
    await page.getByRole('link', { name: 'Customers', exact: true }).click();
    expect(await textOf(page.locator('#leaderboard h2'))).toBe('Top partners: Customers');
    const byCustomers = await page.locator('#leaders tbody tr td:nth-child(5)').allInnerTexts();
    expect(byCustomers.map(Number)).toEqual([...byCustomers.map(Number)].sort((a, b) => b - a));

    // One partner: every figure counts that partner's rows only.
    const ana = shop.partners[0]!;
    await page.goto(`${api.url}/dashboard/programs/${shop.programId}?from=${from.toISOString().slice(0, 10)}&to=${new Date(to.getTime() - 86_400_000).toISOString().slice(0, 10)}&partner=${ana.id}`);
    const anaRow = expected.find((p) => p.id === ana.id)!;
    expect((await cards()).slice(0, 4).map(values)).toEqual([`Clicks ${anaRow.counts[0]}`, `Leads ${anaRow.counts[1]}`, `Customers ${anaRow.counts[2]}`, `Sales ${anaRow.counts[3]}`]);

    await page.goto(`${api.url}/dashboard/programs/${shop.programId}`);
    await page.getByRole('link', { name: 'Last 7 days' }).click();
    await screenshotsAt(page, 'overview-numbers');
  }, 120_000);
});
