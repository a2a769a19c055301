// Inline SVG charts, rendered on the server: daily clicks / leads / sales, and the funnel.
import { type Html, html, raw } from './html.js';

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
  return html`<figure>
<svg role="img" aria-labelledby="daily-title" width="100%" viewBox="0 0 ${width} ${height}" preserveAspectRatio="none" style="max-height:220px;background:#fafafa">
<title id="daily-title">Daily clicks, leads and sales</title>${raw(bars.join(''))}</svg>
<figcaption><span style="color:${COLORS.clicks}">■</span> clicks ${total('clicks')} · <span style="color:${COLORS.leads}">■</span> leads ${total('leads')} ·
<span style="color:${COLORS.sales}">■</span> sales ${total('sales')} (${series.length} days)</figcaption></figure>`;
}

export function funnelChart(series: Series): Html {
  const totals = { clicks: 0, leads: 0, sales: 0 };
  for (const d of series) {
    totals.clicks += d.clicks;
    totals.leads += d.leads;
    totals.sales += d.sales;
  }
  const max = Math.max(1, totals.clicks, totals.leads, totals.sales);
  const pct = (a: number, b: number) => (b > 0 ? `${Math.round((a / b) * 100)}%` : '–');
  const rows = (['clicks', 'leads', 'sales'] as const).map(
    (kind, i) =>
      `<rect x="110" y="${i * 34 + 4}" width="${Math.round((totals[kind] / max) * 480)}" height="26" fill="${COLORS[kind]}"></rect><text x="0" y="${i * 34 + 22}">${kind}</text><text x="${120 + Math.round((totals[kind] / max) * 480)}" y="${i * 34 + 22}">${totals[kind]}</text>`,
  );
  return html`<figure>
<svg role="img" aria-labelledby="funnel-title" width="100%" viewBox="0 0 720 110" style="max-height:130px">
<title id="funnel-title">Conversion funnel</title>${raw(rows.join(''))}</svg>
<figcaption>Click → lead ${pct(totals.leads, totals.clicks)} · lead → sale ${pct(totals.sales, totals.leads)}</figcaption></figure>`;
}
