// Every mail the program sends, with sample data (Settings → Mail previews; issue 44, item 4):
// the text and the HTML side by side (one above the other on a phone). The HTML is shown in an
// iframe made from `srcdoc` with `sandbox="allow-same-origin"`: no script runs in it (no
// allow-scripts; the page's Content-Security-Policy applies to it too), forms and pop-ups are
// off, and only its images load with the manager's session (the QR code comes from the dashboard).
import type { Request, RequestHandler, Response, Router } from 'express';
import type { ManagementDeps } from '../../app/programs/management.js';
import type { Scope } from '../../app/accounts/scope.js';
import { type MailPreview, SAMPLE_PARTNER, mailPreviews, previewQrPng } from '../../app/outbound/mail-previews.js';
import { QR_CID } from '../../app/outbound/mail.js';
import { type Html, html } from '../kit/html.js';
import { sectionUrl, withProgramNav } from './program-page.js';

export interface MailPreviewsKit {
  app: () => ManagementDeps;
  scope: (res: Response) => Scope;
  ownProgram: (req: Request, res: Response) => Promise<number>;
  send: (res: Response, status: number, title: string, body: Html, flash?: string | null) => void;
  publicUrl: string;
}

/** The page's own layout: two panes from 60rem up; the iframe as tall as a short mail. */
const STYLE = html`<style>
.mail-preview{border-top:1px solid var(--line);padding-top:.5rem;margin-top:1.5rem}
.mail-preview dl{display:grid;grid-template-columns:max-content 1fr;gap:.1rem .75rem;margin:.25rem 0 .75rem}
.mail-preview dd{margin:0;overflow-wrap:anywhere}
.mail-panes{display:grid;gap:1rem}
.mail-panes pre{max-width:none;background:#fff;border:1px solid var(--line);border-radius:6px;padding:.6rem .8rem;margin:0;font-size:.8rem}
.mail-panes iframe{width:100%;border:1px solid var(--line);border-radius:6px;background:#f7f7f9}
.mail-panes h4{margin:0 0 .25rem;font-size:.95rem}
@media (min-width:60rem){.mail-panes{grid-template-columns:1fr 1fr}}
</style>`;

/**
 * The frame's height in pixels, guessed from the text (a frame cannot size itself without script):
 * the brand's header and margins, each line wrapped at about 40 characters, the image. Taller
 * mail scrolls inside the frame.
 */
function frameHeight(p: MailPreview): number {
  const rows = p.rendered.text.split('\n').reduce((n, line) => n + Math.max(1, Math.ceil(line.length / 40)), 0);
  return Math.min(900, Math.max(240, 150 + rows * 24 + (p.rendered.images.length ? 200 : 0)));
}

function previewSection(p: MailPreview, qrUrl: string): Html {
  // The QR code is a part of the mail (`cid:`); here the same image comes from the dashboard.
  const srcdoc = p.rendered.html.replaceAll(`cid:${QR_CID}`, qrUrl);
  return html`<section class="mail-preview" id="mail-${p.id}" aria-labelledby="mail-${p.id}-title"><h3 id="mail-${p.id}-title">${p.title}</h3>
<dl><dt>To</dt><dd>${p.audience === 'partner' ? `${SAMPLE_PARTNER.name} <${SAMPLE_PARTNER.email}> (a sample partner)` : p.kind === 'member_invitation' || p.kind === 'password_reset' ? 'A member of your team (a sample address)' : 'Your managers (by their roles)'}</dd>
<dt>From</dt><dd>${p.fromName}</dd><dt>Subject</dt><dd>${p.subject}</dd>${p.rendered.images.length ? html`<dt>Parts</dt><dd>text, HTML, and its QR code as an inline PNG</dd>` : html`<dt>Parts</dt><dd>text and HTML</dd>`}</dl>
<div class="mail-panes"><div><h4 id="mail-${p.id}-text">Text</h4><pre aria-labelledby="mail-${p.id}-text" tabindex="0">${p.rendered.text}</pre></div>
<div><h4>HTML</h4><iframe sandbox="allow-same-origin" srcdoc="${srcdoc}" title="HTML of the mail “${p.title}”" loading="lazy" style="height:${frameHeight(p)}px"></iframe></div></div></section>`;
}

export function mailPreviewsBody(programId: number, previews: MailPreview[]): Html {
  const base = `${sectionUrl(programId, 'settings')}/mail-previews`;
  return html`${STYLE}<section id="mail-previews"><h2>Mail previews</h2>
<p>Every mail the program sends, as it goes out, with sample data: your brand's name, logo and colour, your own hosts, and a sample partner. Change the brand on the <a href="${sectionUrl(programId, 'brand')}">Brand</a> page and the previews follow. Only the managers' notice of a payout run ready to pay is not shown here.</p>
<nav aria-label="Mail templates"><ul>${previews.map((p) => html`<li><a href="#mail-${p.id}">${p.title}</a></li>`)}</ul></nav>
${previews.map((p) => previewSection(p, `${base}/referral-qr.png`))}
<p><a href="${sectionUrl(programId, 'settings')}">Back to Settings</a></p></section>`;
}

export function registerMailPreviewsRoutes(router: Router, kit: MailPreviewsKit): void {
  const { app, scope, ownProgram, send } = kit;
  const path = '/dashboard/programs/:id/settings/mail-previews';
  const read: RequestHandler = async (req, res) => {
    const id = await ownProgram(req, res);
    const previews = await mailPreviews({ ...app(), publicUrl: kit.publicUrl }, scope(res), id);
    send(res, 200, 'Mail previews', withProgramNav(id, 'settings', mailPreviewsBody(id, previews)));
  };
  router.get(path, read);
  router.get(`${path}/referral-qr.png`, async (req, res) => {
    const id = await ownProgram(req, res);
    res.type('image/png').setHeader('Cache-Control', 'private, max-age=60');
    res.send(await previewQrPng(app(), scope(res), id));
  });
}
