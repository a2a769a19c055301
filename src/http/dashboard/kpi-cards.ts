// The overview's numbers at a glance: period presets, and a card per number with its change
// against as many days just before.
import type { SectionData } from '../../app/dashboard.js';
import { formatMoney } from '../../core/money.js';
import { PRESETS, changeInWords, presetOf, presetPeriod } from '../../core/periods.js';
import type { Currency } from '../../core/types.js';
import type { ActivityFilter } from '../../db/dashboard.js';
import { type Html, html, raw } from './html.js';
import { isoDay as day } from '../views/components.js';

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

const MONEY = [
  ['Revenue', 'revenue_cents'],
  ['Commission pending', 'commission_pending_cents'],
  ['Commission approved', 'commission_approved_cents'],
  ['Commission paid', 'commission_paid_cents'],
] as const;

function card(label: string, lines: { value: string; change: string }[], id: string): Html {
  return html`<li class="kpi" id="kpi-${id}"><span class="kpi-label">${label}</span>${lines.map((line) =>
    html`<span class="kpi-value">${line.value}</span>${line.change ? html`<span class="kpi-change">${line.change}</span>` : ''}`)}</li>`;
}

/** Clicks, signups, customers, then money per currency: each with its change. */
export function kpiCards(data: Overview, days: number): Html {
  const { funnel, kpis, before } = data;
  const versus = (now: number, then: number) => {
    const words = changeInWords(now, then);
    return words ? `${words} vs the ${days} days before` : '';
  };
  const counts: [string, string, number, number][] = [
    ['Clicks', 'clicks', funnel.clicks, before.funnel.clicks],
    ['Signups', 'leads', funnel.leads, before.funnel.leads],
    ['New customers', 'customers', funnel.buyers, before.funnel.buyers],
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
