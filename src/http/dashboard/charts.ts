// Inline SVG charts, rendered on the server: daily clicks / leads / sales, and the funnel.
import { type Html, html, raw } from './html.js';
import { dataTable } from './table.js';

const COLORS = { clicks: '#4c6ef5', leads: '#f08c00', sales: '#2b8a3e' } as const;
type Series = { day: Date; clicks: number; leads: number; sales: number }[];

export function dailyChart(series: Series): Html {
  const width = 720;
  const height = 200;
  const max = Math.max(1, ...series.flatMap((d) => [d.clicks, d.leads, d.sales]));
  const slot = width / Math.max(1, series.length);
  const bar = Math.max(1, (slot - 4) / 3);
  const bars = series.flatMap((d, i) =>
    (['clicks', 'leads', 'sales'] as const).map((kind, k) => {
      const h = Math.round((d[kind] / max) * (height - 20));
      return `<rect x="${(i * slot + 2 + k * bar).toFixed(1)}" y="${height - h}" width="${bar.toFixed(1)}" height="${h}" fill="${COLORS[kind]}"><title>${d.day.toISOString().slice(0, 10)} ${kind}: ${d[kind]}</title></rect>`;
    }),
  );
  const total = (kind: 'clicks' | 'leads' | 'sales') => series.reduce((sum, d) => sum + d[kind], 0);
  const day = (d: Date) => d.toLocaleDateString('en-GB', { day: 'numeric', month: 'short', timeZone: 'UTC' });
  // Dates under the first, middle and last day; the scale's top value at the left.
  const ticks = series.length ? [0, Math.floor((series.length - 1) / 2), series.length - 1] : [];
  const labels = [...new Set(ticks)].map((i) => `<text x="${(i * slot + slot / 2).toFixed(1)}" y="${height + 14}" text-anchor="middle" font-size="11">${day(series[i]!.day)}</text>`);
  const empty = total('clicks') + total('leads') + total('sales') === 0;
  if (empty) return html`<p class="muted" id="chart-empty">No clicks, leads or sales between these dates yet.</p>`;
  return html`<figure>
<svg role="img" aria-labelledby="daily-title" width="100%" viewBox="0 -14 ${width} ${height + 32}" style="max-height:240px;background:#fafafa">
<title id="daily-title">Daily clicks, leads and sales</title><text x="2" y="-2" font-size="11">max ${max} a day</text>
<line x1="0" y1="${height}" x2="${width}" y2="${height}" stroke="#999"></line>${raw(bars.join(''))}${raw(labels.join(''))}</svg>
<figcaption><span style="color:${COLORS.clicks}">■</span> clicks ${total('clicks')} · <span style="color:${COLORS.leads}">■</span> leads ${total('leads')} ·
<span style="color:${COLORS.sales}">■</span> sales ${total('sales')} (${series.length} days)</figcaption></figure>`;
}

/** People, not events: leads over clicks, and customers who bought over leads (never above 100 %). */
export function funnelChart(totals: { clicks: number; leads: number; buyers: number }): Html {
  const max = Math.max(1, totals.clicks, totals.leads, totals.buyers);
  const pct = (a: number, b: number) => (b > 0 ? `${Math.round((Math.min(a, b) / b) * 100)}%` : '–');
  const kinds = [
    ['clicks', 'clicks', COLORS.clicks],
    ['leads', 'leads', COLORS.leads],
    ['buyers', 'customers who bought', COLORS.sales],
  ] as const;
  const rows = kinds.map(
    ([kind, label, color], i) =>
      `<rect x="190" y="${i * 34 + 4}" width="${Math.round((totals[kind] / max) * 440)}" height="26" fill="${color}"><title>${label}: ${totals[kind]}</title></rect><text x="0" y="${i * 34 + 22}">${label}</text><text x="${200 + Math.round((totals[kind] / max) * 440)}" y="${i * 34 + 22}">${totals[kind]}</text>`,
  );
  return html`<figure>
<svg role="img" aria-labelledby="funnel-title" width="100%" viewBox="0 0 720 110" style="max-height:130px">
<title id="funnel-title">Conversion funnel</title>${raw(rows.join(''))}</svg>
<figcaption>Click → lead ${pct(totals.leads, totals.clicks)} · lead → customer ${pct(totals.buyers, totals.leads)}</figcaption></figure>`;
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
  const grid = [0, top / 2, top].map(
    (value) => `<line x1="${left}" y1="${y(value).toFixed(1)}" x2="${width}" y2="${y(value).toFixed(1)}" stroke="${value === 0 ? '#767676' : '#ddd'}"></line>` +
      `<text x="${left - 4}" y="${(y(value) + 4).toFixed(1)}" text-anchor="end" font-size="11">${escapeXml(axisText(value))}</text>`,
  );
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
