// The program's Brand page (issue 44, item 1): the brand's name, pitch, reward summary and accent
// colour; its logo; and the application questions as an editor of rows. Every button posts the
// form (no script): add, remove, move up or down, save.
import type { brandPageData } from '../../app/programs/brand.js';
import { type QuestionRow, rowsOf } from '../../core/application-form.js';
import { BRAND_NAME_MAX, DEFAULT_ACCENT, LOGO_MAX_BYTES, MIN_CONTRAST, PITCH_MAX, REWARD_SUMMARY_MAX } from '../../core/brand.js';
import { APPLICATION_FIELD_TYPES, APPLICATION_FIELD_TYPE_WORDS } from '../../core/partners.js';
import { CUSTOMER_LABELS, CUSTOMER_LABEL_WORDS } from '../../core/referrals.js';
import { type Html, field, html, raw, select } from '../kit/html.js';

export interface BrandPageView {
  programId: number;
  publicUrl: string;
  data: Awaited<ReturnType<typeof brandPageData>>;
  fieldErrors: Record<string, string>;
  /** What a refused form held. */
  values?: Record<string, string>;
  /** The editor's rows as a refused post left them. */
  rows?: QuestionRow[];
}

const textarea = (name: string, label: string, value: string, fe: Record<string, string>, attrs = '', hint?: string): Html =>
  html`<label for="${name}">${label}</label>
<textarea id="${name}" name="${name}" rows="3" ${raw(attrs)} ${fe[name] || hint ? raw(`aria-describedby="${[hint ? `${name}-hint` : '', fe[name] ? `${name}-error` : ''].filter(Boolean).join(' ')}"`) : ''} ${fe[name] ? raw('aria-invalid="true"') : ''}>${value}</textarea>
${hint ? html`<p class="muted" id="${name}-hint">${hint}</p>` : ''}${fe[name] ? html`<p class="error" id="${name}-error">${fe[name]}</p>` : ''}`;

const check = (name: string, label: string, on: boolean) => html`<label class="check"><input type="checkbox" id="${name}" name="${name}" value="on" ${on ? raw('checked') : ''}> ${label}</label>`;

export function brandSection(view: BrandPageView): Html {
  const { brand, slug } = view.data;
  const fe = view.fieldErrors;
  const base = `/dashboard/programs/${view.programId}`;
  const v = (name: string, stored: string) => view.values?.[name] ?? stored;
  const accent = brand.accent ?? DEFAULT_ACCENT;
  const applyUrl = slug ? `${view.publicUrl}/apply/${slug}` : null;
  return html`<section id="brand"><h2>Your brand</h2>
<p class="muted">Partners see it on your application page${applyUrl ? html` (<a href="${applyUrl}">${applyUrl}</a>)` : ''}, on this program's pages of their portal, in the mails they get (<a href="${base}/settings/mail-previews">see every mail</a>) and under their QR codes.</p>
<div class="brand-preview" aria-label="Header preview" role="img" style="background:${accent}">${brand.logoPath ? html`<img src="${brand.logoPath}" alt="" class="logo">` : ''}<strong>${brand.name}</strong></div>
<form method="post" action="${base}/brand" novalidate>
${field('brand_name', `Name partners see (empty: the program's name, ${brand.programName})`, v('brand_name', brand.brandName ?? ''), fe, `maxlength="${BRAND_NAME_MAX}" class="medium" autocomplete="organization"`)}
${textarea('pitch', 'Pitch: why partners should promote you (a sentence or two)', v('pitch', brand.pitch), fe, `maxlength="${PITCH_MAX}"`, `At most ${PITCH_MAX} characters. Shown at the top of the application page and the portal.`)}
${field('reward_summary', 'Reward summary', v('reward_summary', brand.rewardSummary === brand.generatedSummary ? '' : brand.rewardSummary), fe, `maxlength="${REWARD_SUMMARY_MAX}" class="long" placeholder="${brand.generatedSummary}" aria-describedby="reward_summary-hint"`)}
<p class="muted" id="reward_summary-hint">Empty: written from your commission terms ("${brand.generatedSummary}").</p>
${field('accent_color', 'Accent colour (a hex code like #1d4ed8; empty: the default)', v('accent_color', brand.accent ?? ''), fe, 'class="short-code" autocomplete="off" spellcheck="false" aria-describedby="accent_color-hint"')}
<p class="muted" id="accent_color-hint"><span class="swatch" style="background:${accent}"></span> Used behind white text and as text on the page, so it needs a contrast of at least ${MIN_CONTRAST}:1 with both (WCAG AA).</p>
<div>${select('customer_label', 'What partners see of each customer they referred', v('customer_label', brand.customerLabel), [...CUSTOMER_LABELS], fe, CUSTOMER_LABEL_WORDS)}</div>
<p class="muted" id="customer_label-hint">On the portal's Referrals page and in its CSV files. A masked id hides an email's domain too. A name is what your backend sends as <code>customer_name</code> with the lead (see the API docs); a customer without one is shown masked.</p>
<div><button type="submit">Save the brand</button></div></form></section>
<section id="logo"><h2>Logo</h2>
${brand.logoPath ? html`<p><img src="${brand.logoPath}" alt="Your current logo" class="logo-large"></p>
<form method="post" action="${base}/brand/logo/remove"><button type="submit">Remove the logo</button></form>` : html`<p class="muted">No logo yet: the header shows your name alone.</p>`}
<form method="post" action="${base}/brand/logo" enctype="multipart/form-data" novalidate>
<label for="logo_file">${brand.logoPath ? 'Replace the logo' : 'Upload a logo'} (PNG, JPEG or WebP, at most ${LOGO_MAX_BYTES / 1024} KB)</label>
<input type="file" id="logo_file" name="logo" accept="image/png,image/jpeg,image/webp" ${fe.logo ? raw('aria-invalid="true" aria-describedby="logo-error"') : ''}>
${fe.logo ? html`<p class="error" id="logo-error">${fe.logo}</p>` : ''}
<div><button type="submit">Upload the logo</button></div></form></section>
${questionEditor(view, base)}`;
}

function questionEditor(view: BrandPageView, base: string): Html {
  const rows = view.rows ?? rowsOf(view.data.fields);
  const fe = view.fieldErrors;
  const types = [...APPLICATION_FIELD_TYPES];
  const v = (name: string) => view.values?.[name] ?? '';
  return html`<section id="questions"><h2>Application questions</h2>
<p class="muted">Asked after the applicant's name and email, in this order. Each button saves the questions as they stand.</p>
<form method="post" action="${base}/questions" novalidate>
<button type="submit" name="op" value="save" class="visually-hidden" tabindex="-1" aria-hidden="true">Save</button>
${rows.length === 0 ? html`<p>No question yet: applicants give their name and email and accept your terms.</p>` : html`<ol class="questions">${rows.map(
    (row, i) => html`<li><fieldset class="question"><legend>Question ${i + 1}${row.label ? html`: ${row.label}` : ''}</legend>
<input type="hidden" name="key_${i}" value="${row.key}">
${field(`label_${i}`, 'Label', row.label, fe, 'class="long"')}
${row.key ? html`<p class="muted">Stored as <code>${row.key}</code></p>` : ''}
${select(`type_${i}`, 'Type', row.type, types, fe, APPLICATION_FIELD_TYPE_WORDS)}
${check(`required_${i}`, 'Required', row.required)}
<div class="select-only${fe[`options_${i}`] ? ' has-error' : ''}">${textarea(`options_${i}`, 'Options (one a line)', row.options, fe)}</div>
<div class="row">${i > 0 ? html`<button type="submit" name="op" value="up:${i}">Move up<span class="visually-hidden"> ${row.label || `question ${i + 1}`}</span></button>` : ''}
${i < rows.length - 1 ? html`<button type="submit" name="op" value="down:${i}">Move down<span class="visually-hidden"> ${row.label || `question ${i + 1}`}</span></button>` : ''}
<button type="submit" name="op" value="remove:${i}" class="danger">Remove<span class="visually-hidden"> ${row.label || `question ${i + 1}`}</span></button></div></fieldset></li>`,
  )}</ol>`}
<input type="hidden" name="rows" value="${rows.length}">
<fieldset class="question new"><legend>Add a question</legend>
${field('new_label', 'Label', v('new_label'), fe, 'class="long"')}
${select('new_type', 'Type', v('new_type') || 'text', types, fe, APPLICATION_FIELD_TYPE_WORDS)}
${check('new_required', 'Required', v('new_required') === 'on')}
<div class="select-only${fe.new_options ? ' has-error' : ''}">${textarea('new_options', 'Options (one a line)', v('new_options'), fe)}</div>
<div><button type="submit" name="op" value="add">Add the question</button></div></fieldset>
${rows.length ? html`<div><button type="submit" name="op" value="save">Save the questions</button></div>` : ''}</form></section>`;
}
