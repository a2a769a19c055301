// What partners see carries the brand: its name, pitch, reward summary, accent colour and logo
// (issue 44, item 1). The rules here are the only ones: the colour's contrast (WCAG 2 AA), the
// logo's type read from its bytes, the lengths of the texts.

/** WCAG 2 AA for normal text: the accent carries white text (header, buttons) and is text on the page. */
export const MIN_CONTRAST = 4.5;
/** The colours the accent meets: white text on it, and the page's background (src/http/kit/html.ts --page). */
export const WHITE = '#ffffff';
export const PAGE_BACKGROUND = '#f7f7f9';
/** The service's own accent when the brand chose none. */
export const DEFAULT_ACCENT = '#23234a';

export const BRAND_NAME_MAX = 80;
export const PITCH_MAX = 280;
export const REWARD_SUMMARY_MAX = 160;
export const LOGO_MAX_BYTES = 200 * 1024;

const HEX = /^#?([0-9a-f]{6}|[0-9a-f]{3})$/i;

/** "#1A2b3c", "1a2b3c" or "#abc" as "#1a2b3c"; null when it is not a hex colour. */
export function normalizeHex(text: string): string | null {
  const m = HEX.exec(text.trim());
  if (!m) return null;
  const digits = m[1]!.toLowerCase();
  return `#${digits.length === 3 ? [...digits].map((d) => d + d).join('') : digits}`;
}

const channel = (value: number) => {
  const c = value / 255;
  return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
};

/** Relative luminance (WCAG 2). */
function luminance(hex: string): number {
  const n = Number.parseInt(hex.slice(1), 16);
  return 0.2126 * channel((n >> 16) & 255) + 0.7152 * channel((n >> 8) & 255) + 0.0722 * channel(n & 255);
}

/** The contrast ratio of two colours, 1 to 21. */
export function contrastRatio(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

/** The ratio as people read it: rounded down to two decimals (4.499 is not 4.5). */
export const ratioWords = (ratio: number) => `${(Math.floor(ratio * 100) / 100).toFixed(2)}:1`;

/** The accent's lowest contrast: against white text on it and against the page it sits on. */
export const accentContrast = (hex: string) => Math.min(contrastRatio(hex, WHITE), contrastRatio(hex, PAGE_BACKGROUND));

/** The same hue made darker, step by step, until it passes (the suggestion a refusal makes). */
export function darkerPassing(hex: string): string {
  const n = Number.parseInt(hex.slice(1), 16);
  const rgb = [(n >> 16) & 255, (n >> 8) & 255, n & 255];
  for (let f = 0.95; f > 0; f -= 0.05) {
    const candidate = `#${rgb.map((c) => Math.round(c * f).toString(16).padStart(2, '0')).join('')}`;
    if (accentContrast(candidate) >= MIN_CONTRAST) return candidate;
  }
  return '#000000';
}

export type AccentVerdict = { ok: true; color: string } | { ok: false; message: string; ratio?: number; suggestion?: string };

/**
 * The brand's accent colour: a hex colour whose contrast with white text and with the page is at
 * least 4.5:1, so every page keeps AA contrast. A refusal names the ratio, the minimum and a
 * darker colour of the same hue that passes.
 */
export function checkAccent(text: string): AccentVerdict {
  const color = normalizeHex(text);
  if (!color) return { ok: false, message: 'Give a colour as a hex code, like #1d4ed8.' };
  const ratio = accentContrast(color);
  if (ratio >= MIN_CONTRAST) return { ok: true, color };
  const suggestion = darkerPassing(color);
  return {
    ok: false,
    ratio,
    suggestion,
    message: `${color} has a contrast of ${ratioWords(ratio)} with white text and the page; at least ${MIN_CONTRAST}:1 is needed (WCAG AA). A darker shade such as ${suggestion} passes.`,
  };
}

export type LogoType = 'image/png' | 'image/jpeg' | 'image/webp';
export const LOGO_TYPES: readonly LogoType[] = ['image/png', 'image/jpeg', 'image/webp'];

/** The image's type from its first bytes (never the name or the declared type); null for anything else (SVG, HTML, GIF…). */
export function sniffLogo(bytes: Uint8Array): LogoType | null {
  const starts = (sig: number[], at = 0) => bytes.length >= at + sig.length && sig.every((b, i) => bytes[at + i] === b);
  if (starts([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  if (starts([0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (starts([0x52, 0x49, 0x46, 0x46]) && starts([0x57, 0x45, 0x42, 0x50], 8)) return 'image/webp';
  return null;
}

export type LogoVerdict = { ok: true; type: LogoType } | { ok: false; message: string };

export function checkLogo(bytes: Uint8Array): LogoVerdict {
  if (bytes.length === 0) return { ok: false, message: 'Choose an image file.' };
  if (bytes.length > LOGO_MAX_BYTES) return { ok: false, message: `The logo is ${Math.ceil(bytes.length / 1024)} KB: at most ${LOGO_MAX_BYTES / 1024} KB.` };
  const type = sniffLogo(bytes);
  if (!type) return { ok: false, message: 'The logo must be a PNG, JPEG or WebP image (SVG is refused: it can carry script).' };
  return { ok: true, type };
}

/** Where a program's logo is served; the hash in the address lets browsers keep it for a year. */
export const logoPath = (programId: number, sha256: string) => `/brand-logos/${programId}/${sha256}`;

/** What pages, mail and QR codes show of the brand. */
export interface Brand {
  name: string;
  pitch: string;
  rewardSummary: string;
  accent: string | null;
  logoPath: string | null;
}

/** The brand as shown: its own name or the program's, its summary or the one written from the terms. */
export function brandOf(p: { programId: number; programName: string; brandName: string | null; pitch: string; rewardSummary: string | null; accent: string | null; logoSha256: string | null }, generatedSummary: string): Brand {
  return {
    name: p.brandName ?? p.programName,
    pitch: p.pitch,
    rewardSummary: p.rewardSummary ?? generatedSummary,
    accent: p.accent,
    logoPath: p.logoSha256 ? logoPath(p.programId, p.logoSha256) : null,
  };
}

/** A question's key from its label ("Your website" → your_website), unique among `taken`. */
export function keyFromLabel(label: string, taken: ReadonlySet<string>): string {
  let base = label
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 36);
  if (!/^[a-z]/.test(base)) base = `q_${base}`.replace(/_+$/, '').slice(0, 36);
  if (base === 'q') base = 'question';
  let key = base;
  for (let n = 2; taken.has(key); n++) key = `${base}_${n}`;
  return key;
}
