// A link's QR code with the brand's name under it (issue 44, item 1): the same code as qr.ts,
// with a white band and the name as text, so a printed or shared code says whose it is.
import escapeHtml from 'escape-html';
import { qrSvg } from './qr.js';

export async function brandedQrSvg(url: string, brandName: string): Promise<string> {
  const svg = await qrSvg(url);
  const size = Number(/viewBox="0 0 (\d+) \d+"/.exec(svg)?.[1] ?? 0);
  if (!size) return svg;
  const inner = svg.replace(/^<svg[^>]*>/, '').replace(/<\/svg>\s*$/, '');
  const name = brandName.length > 32 ? `${brandName.slice(0, 31)}…` : brandName;
  // The band is 5 modules high; the name fits the code's width (textLength squeezes a long one).
  const fit = name.length * 1.9 > size - 4 ? ` textLength="${size - 4}" lengthAdjust="spacingAndGlyphs"` : '';
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${size} ${size + 5}" shape-rendering="crispEdges"><rect width="${size}" height="${size + 5}" fill="#ffffff"/>${inner}<text x="${size / 2}" y="${size + 2.5}" text-anchor="middle" font-family="system-ui, sans-serif" font-size="3.2" font-weight="600" fill="#000000"${fit}>${escapeHtml(name)}</text></svg>`;
}
