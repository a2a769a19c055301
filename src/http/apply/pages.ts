// The application page: the program's terms and rewards, then the form (name, email, the
// brand's questions, the terms to accept). Every field keyboard-reachable, errors beside them.
import type { applicationPage } from '../../app/partners/applications.js';
import type { Brand } from '../../core/brand.js';
import { type Html, field, html, raw } from '../kit/html.js';

/** The brand's pitch, in its words, above the terms. */
const brandIntro = (brand: Brand): Html => (brand.pitch ? html`<section aria-label="About ${brand.name}" class="pitch"><p class="lead">${brand.pitch}</p></section>` : html``);

type Found = Awaited<ReturnType<typeof applicationPage>>;

export function applicationForm(found: Found, action: string, values: Record<string, string>, errors: Record<string, string>, notice: string | null, brand?: Brand): Html {
  const { program, group, groups, reward } = found;
  const v = (name: string) => values[name] ?? '';
  const question = (f: Found['program']['fields'][number]) => {
    const name = `answer_${f.key}`;
    const label = `${f.label}${f.required ? '' : ' (optional)'}`;
    const error = errors[name];
    const invalid = error ? raw(`aria-invalid="true" aria-describedby="${name}-error"`) : '';
    const problem = error ? html`<p class="error" id="${name}-error">${error}</p>` : '';
    const required = f.required ? raw('required') : '';
    switch (f.type) {
      case 'select':
        return html`<label for="${name}">${label}</label><select id="${name}" name="${name}" ${required} ${invalid}>
<option value="">Choose…</option>${(f.options ?? []).map((o) => html`<option value="${o}" ${o === v(name) ? raw('selected') : ''}>${o}</option>`)}</select>
${problem}`;
      case 'long_text':
        return html`<label for="${name}">${label}</label><textarea id="${name}" name="${name}" rows="4" ${required} ${invalid}>${v(name)}</textarea>${problem}`;
      case 'checkbox':
        return html`<label class="check"><input type="checkbox" id="${name}" name="${name}" value="on" ${v(name) ? raw('checked') : ''} ${required} ${invalid}> ${label}</label>${problem}`;
      case 'url':
        return field(name, label, v(name), errors, `type="url" inputmode="url" ${f.required ? 'required' : ''}`);
      case 'email':
        return field(name, label, v(name), errors, `type="email" ${f.required ? 'required' : ''}`);
      default:
        return field(name, label, v(name), errors, f.required ? 'required' : '');
    }
  };
  // The brand's own summary on its program's page; a group's page says the group's terms.
  const summary = group || !brand ? reward : brand.rewardSummary;
  const termsError = errors.accept_terms;
  return html`${brand ? brandIntro(brand) : ''}<section aria-labelledby="reward"><h2 id="reward">What you earn${group ? html` as ${group.name}` : ''}</h2>
<p class="lead">${summary.charAt(0).toUpperCase() + summary.slice(1)}, for each customer you refer to <strong>${program.domain}</strong>.</p>
${group ? html`<p class="muted">Commissions are approved ${group.hold_days} days after the sale.</p>` : ''}
${groups.length ? html`<p>Or apply to: ${groups.map((g, i) => html`${i ? ', ' : ''}<a href="${action.replace(/\/$/, '')}/${g.slug}">${g.name}</a>`)}</p>` : ''}</section>
<section aria-labelledby="apply"><h2 id="apply">Apply</h2>
${notice ? html`<p class="error" role="alert">${notice}</p>` : ''}
<form method="post" action="${action}" novalidate>
${field('name', 'Your name', v('name'), errors, 'autocomplete="name" required')}
${field('email', 'Your email', v('email'), errors, 'type="email" autocomplete="email" required')}
${program.fields.map(question)}
${field('code', 'Your link code (optional; empty for a random one)', v('code'), errors, 'autocomplete="off" spellcheck="false"')}
<p class="muted" id="code-hint">What follows ?aff= in your link, like ${program.domain}/?aff=jane: 3 to 64 letters, digits, - or _.</p>
<h3>Program terms (version ${program.termsVersion})</h3>
<div class="terms" tabindex="0" role="region" aria-label="Program terms">${program.termsText ? html`<pre>${program.termsText}</pre>` : html`<p class="muted">The brand has not written terms beyond the reward above.</p>`}</div>
<input type="hidden" name="terms_version" value="${program.termsVersion}">
<label class="check"><input type="checkbox" id="accept_terms" name="accept_terms" value="on" ${v('accept_terms') ? raw('checked') : ''} ${termsError ? raw('aria-invalid="true" aria-describedby="accept_terms-error"') : ''}> I accept the program terms</label>
${termsError ? html`<p class="error" id="accept_terms-error">${termsError}</p>` : ''}
<div><button type="submit">Send my application</button></div></form></section>`;
}

export const receivedPage = (message: string): Html => html`<section><p role="status">${message}</p></section>`;
