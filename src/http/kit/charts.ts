// Inline SVG charts, rendered on the server: daily clicks / leads / sales, the funnel, bars.
import { type Html, html, raw } from './html.js';
import { dataTable } from './table.js';
import { MEASURE_WORDS } from '../../core/measures.js';

const COLORS = { clicks: '#4c6ef5', leads: '#c25e00', sales: '#2b8a3e' } as const;
type Series = { day: Date; clicks: number; leads: number; sales: number }[];
const KINDS = ['clicks', 'leads', 'sales'] as const;

/**
 * Daily clicks as bars on the left axis, leads and sales as lines on a right axis of their own
 * (on the clicks' scale they were a pixel high), with tooltips and the same numbers as a table.
 * Drawn twice: for a phone's width (360 units) and for a desk (960 units), the page shows the
 * one that fits, so the chart fills its card and its text stays readable at either width.
 */
export function dailyChart(series: Series): Html {
  const total = (kind: (typeof KINDS)[number]) => series.reduce((sum, d) => sum + d[kind], 0);
  if (total('clicks') + total('leads') + total('sales') === 0) return html`<p class="muted" id="chart-empty">No clicks, leads or sales between these dates yet.</p>`;
  const legend = KINDS.map((kind) => html`<span class="swatch" style="background:${COLORS[kind]}"></span> ${MEASURE_WORDS[kind]} ${total(kind).toLocaleString('en-US')}${kind === 'clicks' ? ' (bars, left axis)' : kind === 'sales' ? ' (lines, right axis)' : ''}`);
  return html`<figure class="chart daily">
${dailyDrawing(series, { width: 360, labels: 3, className: 'narrow' })}${dailyDrawing(series, { width: 960, labels: 7, className: 'wide' })}
<figcaption>${legend.map((part, i) => html`${i ? ' · ' : ''}${part}`)} · ${series.length} days</figcaption>
<details><summary>Daily numbers as a table</summary>${dataTable(['Day', MEASURE_WORDS.clicks, MEASURE_WORDS.leads, MEASURE_WORDS.sales], series.map((d) => [dayText(d.day), d.clicks, d.leads, d.sales]), { id: 'daily-table' })}</details></figure>`;
}

const dayText = (d: Date) => d.toLocaleDateString('en-GB', { day: 'numeric', month: 'short', timeZone: 'UTC' });

function dailyDrawing(series: Series, { width, labels, className }: { width: number; labels: number; className: string }): Html {
  const height = 150;
  const left = 34;
  const right = width - 30;
  const clicksTop = niceTop(Math.max(1, ...series.map((d) => d.clicks)));
  const countsTop = niceTop(Math.max(1, ...series.flatMap((d) => [d.leads, d.sales])));
  const slot = (right - left) / Math.max(1, series.length);
  const y = (top: number) => (value: number) => height - (value / top) * height;
  // Counts are whole: a half-way line only where it is a whole number.
  const grid = axisLines([0, clicksTop / 2, clicksTop].filter(Number.isInteger), { left, width: right, y: y(clicksTop), text: String });
  const rightAxis = [0, countsTop / 2, countsTop].filter(Number.isInteger).map(
    (value) => `<text x="${right + 5}" y="${(y(countsTop)(value) + 4).toFixed(1)}" font-size="11">${value}</text>`,
  );
  const center = (i: number) => left + i * slot + slot / 2;
  const bars = series.map((d, i) => {
    const h = (d.clicks / clicksTop) * height;
    return `<rect x="${(left + i * slot + slot * 0.15).toFixed(1)}" y="${(height - h).toFixed(1)}" width="${Math.max(0.5, slot * 0.7).toFixed(1)}" height="${h.toFixed(1)}" fill="${COLORS.clicks}" fill-opacity="0.55"><title>${dayText(d.day)} clicks: ${d.clicks}</title></rect>`;
  });
  const lines = (['leads', 'sales'] as const).map((kind) => {
    const points = series.map((d, i) => `${center(i).toFixed(1)},${y(countsTop)(d[kind]).toFixed(1)}`);
    const dots = series.length <= 62 ? series.map((d, i) => `<circle cx="${center(i).toFixed(1)}" cy="${y(countsTop)(d[kind]).toFixed(1)}" r="2.5" fill="${COLORS[kind]}"><title>${dayText(d.day)} ${kind}: ${d[kind]}</title></circle>`) : [];
    return `<polyline points="${points.join(' ')}" fill="none" stroke="${COLORS[kind]}" stroke-width="2"${kind === 'leads' ? ' stroke-dasharray="5 3"' : ''}></polyline>${dots.join('')}`;
  });
  // Dates under evenly spread days; the first starts at its day and the last ends at its day, so neither is cut.
  const count = Math.min(labels, series.length);
  const ticks = [...new Set(Array.from({ length: count }, (_, k) => (count === 1 ? 0 : Math.round((k * (series.length - 1)) / (count - 1)))))];
  const dates = ticks.map((i) => {
    const anchor = ticks.length > 1 && i === 0 ? 'start' : ticks.length > 1 && i === series.length - 1 ? 'end' : 'middle';
    const x = anchor === 'start' ? left + i * slot : anchor === 'end' ? left + (i + 1) * slot : center(i);
    return `<text x="${x.toFixed(1)}" y="${height + 16}" text-anchor="${anchor}" font-size="11">${dayText(series[i]!.day)}</text>`;
  });
  return html`<svg class="${className}" role="img" aria-labelledby="daily-title-${className}" width="100%" viewBox="0 -10 ${width} ${height + 32}">
<title id="daily-title-${className}">Daily clicks (bars, left axis), leads and sales (lines, right axis)</title>${raw(grid.join(''))}${raw(rightAxis.join(''))}${raw(bars.join(''))}${raw(lines.join(''))}${raw(dates.join(''))}</svg>`;
}

/**
 * The period's clicks, leads and customers: the cards' own numbers, and what share of the
 * clicks became each (every figure on the page counts the same period the same way).
 */
export function funnelChart(totals: { clicks: number; leads: number; buyers: number }): Html {
  const max = Math.max(1, totals.clicks, totals.leads, totals.buyers);
  const pct = (a: number) => (totals.clicks > 0 ? `${Math.round((a / totals.clicks) * 100)}%` : '–');
  const kinds = [
    [totals.clicks, MEASURE_WORDS.clicks, COLORS.clicks],
    [totals.leads, MEASURE_WORDS.leads, COLORS.leads],
    [totals.buyers, MEASURE_WORDS.customers, COLORS.sales],
  ] as const;
  // A label above each bar: the drawing keeps a phone's width (360 units) readable at 390 px.
  const rows = kinds.map(
    ([value, label, color], i) =>
      `<text x="0" y="${i * 44 + 12}" font-size="12">${label}: ${value.toLocaleString('en-US')}</text><rect x="0" y="${i * 44 + 16}" width="${Math.max(1, Math.round((value / max) * 350))}" height="18" fill="${color}"><title>${label}: ${value}</title></rect>`,
  );
  return html`<figure class="chart funnel">
<svg role="img" aria-labelledby="funnel-title" width="100%" viewBox="0 0 360 132" style="max-width:32rem">
<title id="funnel-title">Clicks, leads and customers</title>${raw(rows.join(''))}</svg>
<figcaption>Click → lead ${pct(totals.leads)} · click → customer ${pct(totals.buyers)}</figcaption></figure>`;
}

/** The y-axis: a gridline at each value (the base darker) and the value's text left of it. */
function axisLines(values: number[], at: { left: number; width: number; y: (value: number) => number; text: (value: number) => string }): string[] {
  return values.map(
    (value) => `<line x1="${at.left}" y1="${at.y(value).toFixed(1)}" x2="${at.width}" y2="${at.y(value).toFixed(1)}" stroke="${value === 0 ? '#767676' : '#ddd'}"></line>` +
      `<text x="${at.left - 5}" y="${(at.y(value) + 4).toFixed(1)}" text-anchor="end" font-size="11">${escapeXml(at.text(value))}</text>`,
  );
}

/** A nice top for an axis: 1, 2 or 5 times a power of ten, at or above `max`. */
function niceTop(max: number): number {
  if (max <= 0) return 1;
  const power = 10 ** Math.floor(Math.log10(max));
  return ([1, 2, 5, 10].map((m) => m * power).find((top) => top >= max) ?? 10 * power);
}

/**
 * Bars with a real y-axis (gridlines and their values at 0, half and the top), a label under
 * each bar, a tooltip on each, and the same numbers as a table beside it: readable at 390 px
 * (the drawing is made for a phone's width and grows no larger than 40rem).
 */
export function barChart(id: string, title: string, bars: { label: string; short?: string; value: number; valueText: string }[], axisText: (value: number) => string): Html {
  const width = 360;
  const height = 160;
  const left = 64;
  const top = niceTop(Math.max(0, ...bars.map((b) => b.value)));
  const slot = (width - left) / Math.max(1, bars.length);
  const y = (value: number) => height - (value / top) * height;
  const grid = axisLines([0, top / 2, top], { left, width, y, text: axisText });
  const drawn = bars.map((b, i) => {
    const h = (b.value / top) * height;
    const x = left + i * slot + slot * 0.15;
    return `<rect x="${x.toFixed(1)}" y="${(height - h).toFixed(1)}" width="${(slot * 0.7).toFixed(1)}" height="${h.toFixed(1)}" fill="#4c6ef5"><title>${escapeXml(`${b.label}: ${b.valueText}`)}</title></rect>` +
      `<text x="${(left + i * slot + slot / 2).toFixed(1)}" y="${height + 14}" text-anchor="middle" font-size="10">${escapeXml(b.short ?? b.label)}</text>`;
  });
  return html`<figure class="chart"><svg role="img" aria-labelledby="${id}-title" viewBox="0 -8 ${width} ${height + 26}" width="100%" style="max-width:40rem">
<title id="${id}-title">${title}</title>${raw(grid.join(''))}${raw(drawn.join(''))}</svg>
<details><summary>${title}: as a table</summary>${dataTable(['Period', 'Amount'], bars.map((b) => [b.label, b.valueText]), { id: `${id}-table` })}</details></figure>`;
}

const escapeXml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
