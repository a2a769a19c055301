// The overview's numbers at a glance: period presets, and a card per number with its change
// against as many days just before.
import type { SectionData } from '../../app/programs/dashboard-pages.js';
import { MEASURE_WORDS } from '../../core/measures.js';
import { formatMoney } from '../../core/money.js';
import { PRESETS, changeInWords, presetOf, presetPeriod } from '../../core/periods.js';
import type { Currency } from '../../core/types.js';
import type { ActivityFilter } from '../../db/reads/program-activity.js';
import { type Html, html, raw } from '../kit/html.js';
import { isoDay as day } from '../kit/components.js';

type Overview = Extract<SectionData, { section: 'overview' }>;
const DAY = 86_400_000;

/** Links to the presets, keeping the partner and events filter; the current one marked. */
export function presetLinks(base: string, filter: ActivityFilter, now: Date): Html {
  const current = presetOf(filter, now);
  const keep = `${filter.partnerId ? `&partner=${filter.partnerId}` : ''}&mode=${filter.mode}`;
  return html`<nav class="presets" aria-label="Periods">${PRESETS.map(({ key, words }) => {
    const period = presetPeriod(key, now);
    return html`<a href="${base}?from=${day(period.from)}&to=${day(new Date(period.to.getTime() - DAY))}${keep}" ${key === current ? raw('aria-current="true"') : ''}>${words}</a>`;
  })}</nav>`;
}

// The commission cards say the states as the Payouts page does (awaiting approval counts held ones too).
const MONEY = [
  [MEASURE_WORDS.revenue, 'revenue_cents'],
  [`${MEASURE_WORDS.commission} awaiting approval`, 'commission_pending_cents'],
  [`${MEASURE_WORDS.commission} approved`, 'commission_approved_cents'],
  [`${MEASURE_WORDS.commission} paid`, 'commission_paid_cents'],
] as const;

function card(label: string, lines: { value: string; change: string }[], id: string): Html {
  return html`<li class="kpi" id="kpi-${id}"><span class="kpi-label">${label}</span>${lines.map((line) =>
    html`<span class="kpi-value">${line.value}</span>${line.change ? html`<span class="kpi-change">${line.change}</span>` : ''}`)}</li>`;
}

/**
 * Clicks, leads, customers and sales, then money per currency: each with its change. Every card
 * counts the same period with the chart and the table below it (live only, by the day it happened).
 */
export function kpiCards(data: Overview, days: number): Html {
  const { funnel, kpis, before } = data;
  const versus = (now: number, then: number) => {
    const words = changeInWords(now, then);
    return words ? `${words} vs the ${days} days before` : '';
  };
  const sales = (rows: Overview['kpis']) => rows.reduce((sum, k) => sum + Number(k.sales), 0);
  const counts: [string, string, number, number][] = [
    [MEASURE_WORDS.clicks, 'clicks', funnel.clicks, before.funnel.clicks],
    [MEASURE_WORDS.leads, 'leads', funnel.leads, before.funnel.leads],
    [MEASURE_WORDS.customers, 'customers', funnel.buyers, before.funnel.buyers],
    [MEASURE_WORDS.sales, 'sales', sales(kpis), sales(before.kpis)],
  ];
  const currencies = [...new Set([...kpis, ...before.kpis].map((k) => k.currency))].sort();
  const money = MONEY.map(([label, column]) => {
    const lines = currencies.map((currency) => {
      const now = Number(kpis.find((k) => k.currency === currency)?.[column] ?? 0);
      const then = Number(before.kpis.find((k) => k.currency === currency)?.[column] ?? 0);
      return { value: formatMoney(now, currency as Currency), change: versus(now, then) };
    });
    return card(label, lines.length ? lines : [{ value: formatMoney(0, 'USD'), change: '' }], column.replace('_cents', ''));
  });
  return html`<ul class="kpis">${counts.map(([label, id, now, then]) => card(label, [{ value: now.toLocaleString('en-US'), change: versus(now, then) }], id))}${money}</ul>`;
}
