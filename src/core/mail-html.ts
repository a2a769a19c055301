// A mail's HTML part, made from its text (docs/mail.md, "Text and HTML"): the text stays the mail's words
// (every template writes text once); the HTML shows them with the brand's name, logo and colour,
// paragraphs, and links people can click. Everything from the text is escaped; the markup is a
// single column that mail programs render alike, with the language, a title and the logo's alt.

export interface MailHtmlBrand {
  name: string;
  /** "#7a3e12" (contrast-checked when it was set: src/core/brand.ts). */
  accent: string | null;
  /** An absolute URL of the logo, when there is one. */
  logoUrl: string | null;
}

const escape = (text: string) => text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

const URL_PATTERN = /https?:\/\/[^\s<>"']+[^\s<>"'.,;:!?)]/g;

/** One line of text: escaped, its web addresses as links. */
function line(text: string, accent: string): string {
  let out = '';
  let last = 0;
  for (const match of text.matchAll(URL_PATTERN)) {
    out += escape(text.slice(last, match.index));
    out += `<a href="${escape(match[0])}" style="color:${accent}">${escape(match[0])}</a>`;
    last = match.index! + match[0].length;
  }
  return out + escape(text.slice(last));
}

/** An image shown after the paragraph holding `after` (the approval mail's QR code after the link). */
export interface MailHtmlImage {
  after: string;
  /** "cid:…": a part of the mail. */
  src: string;
  alt: string;
  /** CSS pixels a side (the image is square). */
  size: number;
}

const imageTag = (image: MailHtmlImage) =>
  `<p style="margin:0 0 16px"><img src="${escape(image.src)}" alt="${escape(image.alt)}" width="${image.size}" height="${image.size}" style="display:block;width:${image.size}px;height:${image.size}px;border:0"></p>`;

const paragraphs = (text: string, accent: string, style: string, image?: MailHtmlImage | null) =>
  text
    .split(/\n{2,}/)
    .map((p) => p.trim())
    .filter(Boolean)
    .map((p) => `<p style="${style}">${p.split('\n').map((l) => line(l, accent)).join('<br>')}</p>${image && p.includes(image.after) ? `\n${imageTag(image)}` : ''}`)
    .join('\n');

/** The HTML part of a mail whose text is `text` (its footer after a "--" line shown small). */
export function mailHtml(mail: { subject: string; text: string; brand: MailHtmlBrand | null; image?: MailHtmlImage | null }): string {
  const accent = mail.brand?.accent ?? '#1f4fd1';
  const [body, footer] = mail.text.split(/\n--\n/, 2) as [string, string | undefined];
  const name = mail.brand?.name ?? '';
  const header = mail.brand
    ? `<div style="border-bottom:4px solid ${accent};padding:0 0 12px;margin:0 0 20px">${
        mail.brand.logoUrl ? `<img src="${escape(mail.brand.logoUrl)}" alt="${escape(name)}" height="40" style="height:40px;vertical-align:middle;margin-right:8px">` : ''
      }<strong style="font-size:18px;vertical-align:middle">${escape(name)}</strong></div>`
    : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${escape(mail.subject)}</title></head>
<body style="margin:0;padding:24px;background:#f7f7f9;color:#1a1a1a;font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;font-size:16px;line-height:1.5">
<div role="article" aria-label="${escape(mail.subject)}" style="max-width:560px;margin:0 auto;background:#ffffff;padding:24px;border-radius:8px;overflow-wrap:anywhere;word-break:break-word">
${header}${paragraphs(body, accent, 'margin:0 0 16px', mail.image)}
${footer ? `<hr style="border:0;border-top:1px solid #ddd;margin:24px 0 12px">\n${paragraphs(footer, accent, 'margin:0 0 8px;font-size:13px;color:#555')}` : ''}
</div></body></html>
`;
}
