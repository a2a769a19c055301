// Inline SVG charts, rendered on the server: daily clicks / leads / sales, and the funnel.
import { type Html, html, raw } from './html.js';
import { dataTable } from './table.js';

const COLORS = { clicks: '#4c6ef5', leads: '#f08c00', sales: '#2b8a3e' } as const;
type Series = { day: Date; clicks: number; leads: number; sales: number }[];

/** Daily clicks, signups and sales as grouped bars on a real axis, with tooltips and the same numbers as a table. */
export function dailyChart(series: Series): Html {
  const total = (kind: 'clicks' | 'leads' | 'sales') => series.reduce((sum, d) => sum + d[kind], 0);
  if (total('clicks') + total('leads') + total('sales') === 0) return html`<p class="muted" id="chart-empty">No clicks, leads or sales between these dates yet.</p>`;
  // Drawn for a phone's width (360 units): readable at 390 px, and no larger than 48rem on a desk.
  const width = 360;
  const height = 150;
  const left = 30;
  const top = niceTop(Math.max(1, ...series.flatMap((d) => [d.clicks, d.leads, d.sales])));
  const slot = (width - left) / Math.max(1, series.length);
  const bar = Math.max(0.5, (slot - 1) / 3);
  const y = (value: number) => height - (value / top) * height;
  // Counts are whole: a half-way line only where it is a whole number.
  const grid = axisLines([0, top / 2, top].filter(Number.isInteger), { left, width, y, text: String });
  const day = (d: Date) => d.toLocaleDateString('en-GB', { day: 'numeric', month: 'short', timeZone: 'UTC' });
  const bars = series.flatMap((d, i) =>
    (['clicks', 'leads', 'sales'] as const).map((kind, k) => {
      const h = (d[kind] / top) * height;
      return `<rect x="${(left + i * slot + 0.5 + k * bar).toFixed(1)}" y="${(height - h).toFixed(1)}" width="${bar.toFixed(1)}" height="${h.toFixed(1)}" fill="${COLORS[kind]}"><title>${day(d.day)} ${kind === 'leads' ? 'signups' : kind}: ${d[kind]}</title></rect>`;
    }),
  );
  // Dates under the first, middle and last day.
  const ticks = [...new Set([0, Math.floor((series.length - 1) / 2), series.length - 1])];
  const labels = ticks.map((i) => `<text x="${(left + i * slot + slot / 2).toFixed(1)}" y="${height + 14}" text-anchor="middle" font-size="11">${day(series[i]!.day)}</text>`);
  return html`<figure class="chart">
<svg role="img" aria-labelledby="daily-title" width="100%" viewBox="0 -10 ${width} ${height + 30}" style="max-width:48rem">
<title id="daily-title">Daily clicks, signups and sales</title>${raw(grid.join(''))}${raw(bars.join(''))}${raw(labels.join(''))}</svg>
<figcaption><span style="color:${COLORS.clicks}">■</span> clicks ${total('clicks')} · <span style="color:${COLORS.leads}">■</span> leads ${total('leads')} ·
<span style="color:${COLORS.sales}">■</span> sales ${total('sales')} (${series.length} days)</figcaption>
<details><summary>Daily numbers as a table</summary>${dataTable(['Day', 'Clicks', 'Signups', 'Sales'], series.map((d) => [day(d.day), d.clicks, d.leads, d.sales]), { id: 'daily-table' })}</details></figure>`;
}

/**
 * People, not events: clicks; the people who signed up; of those, the ones who bought (never more
 * than signed up). Everyone whose first paid sale fell in the period, signed up or not, is the
 * New customers card.
 */
export function funnelChart(totals: { clicks: number; leads: number; converted: number; buyers: number }): Html {
  const max = Math.max(1, totals.clicks, totals.leads, totals.converted);
  const pct = (a: number, b: number) => (b > 0 ? `${Math.round((Math.min(a, b) / b) * 100)}%` : '–');
  const kinds = [
    ['clicks', 'clicks', COLORS.clicks],
    ['leads', 'signups', COLORS.leads],
    ['converted', 'signups who bought', COLORS.sales],
  ] as const;
  // A label above each bar: the drawing keeps a phone's width (360 units) readable at 390 px.
  const rows = kinds.map(
    ([kind, label, color], i) =>
      `<text x="0" y="${i * 44 + 12}" font-size="12">${label}: ${totals[kind]}</text><rect x="0" y="${i * 44 + 16}" width="${Math.max(1, Math.round((totals[kind] / max) * 350))}" height="18" fill="${color}"><title>${label}: ${totals[kind]}</title></rect>`,
  );
  return html`<figure class="chart">
<svg role="img" aria-labelledby="funnel-title" width="100%" viewBox="0 0 360 132" style="max-width:32rem">
<title id="funnel-title">Conversion funnel</title>${raw(rows.join(''))}</svg>
<figcaption>Click → lead ${pct(totals.leads, totals.clicks)} · lead → customer ${pct(totals.converted, totals.leads)}</figcaption></figure>`;
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
