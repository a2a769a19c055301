// Server-rendered HTML: a tagged template that escapes every interpolation (escape-html) unless
// it is already rendered HTML.
import escapeHtml from 'escape-html';

export class Html {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

export type Part = Html | string | number | boolean | null | undefined | Part[];

const render = (part: Part): string => {
  if (part === null || part === undefined || part === false) return '';
  if (Array.isArray(part)) return part.map(render).join('');
  if (part instanceof Html) return part.value;
  return escapeHtml(String(part));
};

export function html(strings: TemplateStringsArray, ...parts: Part[]): Html {
  return new Html(strings.reduce((out, text, index) => out + text + (index < parts.length ? render(parts[index]!) : ''), ''));
}

export const raw = (value: string) => new Html(value);

export const INLINE_STYLE = `
:root{--ink:#1b1b1f;--page:#f7f7f9;--surface:#fff;--brand:#23234a;--bad:#b00020;--good:#1b6e20;--warn:#8a6d00;--muted:#555;--line:#ccd;--line-soft:#eee;--radius:8px}
/* The look's tokens: colours with AA contrast on --surface and --page, one radius; components use them. */
.empty{color:var(--muted)}
body{font-family:system-ui,sans-serif;margin:0;color:var(--ink);background:var(--page)}
header{background:var(--brand);color:var(--surface);padding:.6rem 1.5rem;display:flex;gap:1.5rem;align-items:center}
header a{color:var(--surface)}main{max-width:72rem;margin:0 auto;padding:1.5rem}
section{background:var(--surface);border:1px solid var(--line);border-radius:var(--radius);padding:1rem 1.25rem;margin-bottom:1.25rem}
h1{font-size:1.5rem}h2{font-size:1.15rem;margin-top:0}table{border-collapse:collapse;width:100%}
th,td{text-align:left;padding:.35rem .5rem;border-bottom:1px solid var(--line-soft);font-size:.9rem;vertical-align:top}
label{display:block;margin-top:.6rem;font-weight:600}input,select{font-size:1rem;padding:.35rem;min-width:16rem}
button,a.button{font-size:.95rem;padding:.4rem .9rem;margin-top:.6rem;cursor:pointer}
a.button{display:inline-block;border:1px solid #767676;border-radius:2px;background:#efefef;color:#000;text-decoration:none}
.error{color:var(--bad);font-weight:600;margin:.2rem 0}.ok{color:var(--good)}.muted{color:var(--muted)}
.why,.compact td small.why{display:block;font-size:.75rem;line-height:1.15}
.flash{background:#e8f4ea;border:1px solid #9ac79f;padding:.6rem 1rem;border-radius:6px;margin-bottom:1rem}
.key{font-family:monospace;background:#fff7d6;padding:.4rem;border:1px solid #e0c860;word-break:break-all}
.pass{color:var(--good)}.fail{color:var(--bad)}.unknown{color:var(--warn)}.inline{display:inline}
a:focus,a.button:focus,button:focus,input:focus,select:focus{outline:3px solid #ffbf47;outline-offset:2px}
nav.tabs{margin-bottom:1rem;border-bottom:1px solid var(--line)}nav.tabs a{padding:.3rem 0}
nav.tabs a[aria-current=page]{font-weight:700;text-decoration:none;color:var(--ink);border-bottom:3px solid var(--brand)}
form.filter{display:flex;flex-wrap:wrap;gap:0 1rem;align-items:flex-end}form.filter input,form.filter select{min-width:10rem}
td.reason{min-width:14rem;max-width:32rem;white-space:normal}
pre{white-space:pre-wrap;overflow-wrap:anywhere;max-width:32rem;font-size:.8rem}
label.check{display:flex;gap:.5rem;align-items:center;font-weight:400}label.check input{min-width:0;width:auto;flex-shrink:0}fieldset{border:0;padding:0;margin:.6rem 0 0}
/* The page never scrolls sideways: long words wrap; on narrow screens each table row is a card.
   A table cell never breaks a word or a number ("Currenc/y", "$0.0/0"): cells wrap between words only. */
body{overflow-wrap:anywhere}th,td{overflow-wrap:normal;word-break:normal;hyphens:manual}
td time{white-space:nowrap}td code{white-space:nowrap;display:inline-block;max-width:100%;overflow:hidden;text-overflow:ellipsis;vertical-align:bottom;padding-bottom:.2em}
input,select{max-width:100%;box-sizing:border-box}header{flex-wrap:wrap}nav.tabs{display:flex;flex-wrap:wrap;gap:.25rem 1rem}
@media (max-width:40rem){main{padding:.75rem}input,select{min-width:0;width:100%}section{padding:.75rem}
table.cards,table.cards tbody,table.cards tr,table.cards td{display:block;width:auto}
table.cards thead{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}
table.cards tr{border:1px solid var(--line);border-radius:var(--radius);padding:.4rem .7rem;margin-bottom:.6rem;background:var(--surface)}
table.cards td{border:0;padding:.15rem 0}
table.cards td::before{content:attr(data-label);display:block;font-size:.8rem;font-weight:600;color:var(--muted)}
table.cards td[data-label=""]::before{content:none}table.cards td:empty{display:none}}
input[type=checkbox],input[type=radio]{width:auto;min-width:0}
/* The set-up page: steps in words, code to copy. */
ol.steps{list-style:none;padding:0;margin:.4rem 0}ol.steps li{margin:.35rem 0}ol.steps li.pass{color:var(--good)}
pre[id]{max-width:none;background:#f0f0f4;border:1px solid var(--line);border-radius:6px;padding:.6rem .8rem;font-size:.85rem}
.test-buttons button{margin-right:.5rem}.qr svg{width:12rem;height:12rem;display:block}
ul.kpis{list-style:none;padding:0;margin:.75rem 0;display:grid;gap:.6rem;grid-template-columns:repeat(auto-fill,minmax(11rem,1fr))}
li.kpi{border:1px solid var(--line);border-radius:var(--radius);padding:.5rem .75rem;background:var(--surface);display:flex;flex-direction:column}
.kpi-label{font-size:.8rem;font-weight:600;color:var(--muted)}.kpi-value{font-size:1.35rem;font-weight:700}.kpi-change{font-size:.8rem;color:var(--muted)}
/* The daily chart is drawn for a phone and for a desk; each width shows its own (the text stays readable). */
figure.daily svg.wide{display:none}@media (min-width:40.01rem){figure.daily svg.wide{display:block}figure.daily svg.narrow{display:none}}
.swatch{display:inline-block;width:.8em;height:.8em;border-radius:2px;vertical-align:-.05em}
nav.presets{display:flex;flex-wrap:wrap;gap:.25rem 1rem;margin:.25rem 0 .5rem}nav.presets a[aria-current]{font-weight:700;color:var(--ink)}figure.chart{margin:.5rem 0}ul.events{columns:16rem;margin:.3rem 0}
/* A keyboard user skips the header; the header's quiet text stays readable on its dark background. */
a.skip{position:absolute;left:-999px;top:.5rem}a.skip:focus{left:.5rem;z-index:10;background:var(--surface);color:var(--ink);padding:.4rem .8rem}
header .muted{color:#d9d9f2}
/* Lists as cards: readable at any width, no sideways scrolling. */
ul.cards{list-style:none;padding:0;margin:.5rem 0;display:grid;gap:.75rem;grid-template-columns:repeat(auto-fill,minmax(17rem,1fr))}
li.card{border:1px solid var(--line);border-radius:var(--radius);padding:.6rem .8rem;background:var(--surface);min-width:0}li.card h3{margin:.2rem 0;font-size:1.05rem}li.card p{margin:.2rem 0}
dl.numbers,dl.answers{display:grid;grid-template-columns:repeat(auto-fit,minmax(5.5rem,1fr));gap:.25rem .75rem;margin:.4rem 0}dl.numbers dt,dl.answers dt{font-size:.8rem;color:var(--muted)}dl.numbers dd,dl.answers dd{margin:0;font-weight:600}
dl.answers{grid-template-columns:1fr}
.badge{display:inline-block;font-size:.75rem;font-weight:600;padding:.05rem .45rem;border-radius:999px;border:1px solid #767676;color:var(--ink);background:#f0f0f4;vertical-align:middle}
.badge.approved,.badge.invited{background:#e3f1e4;border-color:#2e7d32}.badge.banned,.badge.rejected{background:#fbe4e6;border-color:var(--bad)}.badge.applied{background:#fff4d6;border-color:var(--warn)}
label.pick{margin:0;font-size:.85rem}.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
fieldset.bulk{border:1px solid var(--line);border-radius:var(--radius);padding:.5rem .8rem;margin-top:.75rem}fieldset.bulk legend{font-weight:600}
textarea{font:inherit;width:100%;max-width:48rem;box-sizing:border-box}ul.signals{color:#8a1c1c;margin:.3rem 0}.lead{font-size:1.1rem}
.terms{max-height:16rem;overflow:auto;border:1px solid var(--line);padding:.25rem .75rem;border-radius:6px}.terms pre{font-family:inherit;font-size:.95rem;max-width:none}
/* The recurring duration only means something for recurring commission types (no script needed). */
form:has(select[name=commission_type]) .recurring-only{display:none}
form:has(select[name=commission_type] option[value^=recurring]:checked) .recurring-only,form:has(select[name=commission_type]) .recurring-only.has-error{display:block}
/* Lists whose rows are ticked for a bulk action: the bar shows once a row is ticked (CSS alone, no script; without :has it always shows). */
.bulk-scope .bulk-bar{display:none}.bulk-scope:has(input[name=partner_ids]:checked) .bulk-bar,.bulk-scope:has(input[name=all_matching]:checked) .bulk-bar,.bulk-scope .bulk-bar.has-error{display:block}
.bulk-scope:has(input[name=partner_ids]:checked) .bulk-hint,.bulk-scope:has(input[name=all_matching]:checked) .bulk-hint{display:none}
@supports not selector(:has(*)){.bulk-scope .bulk-bar{display:block}.bulk-scope .bulk-hint{display:none}}
@media (min-width:40rem){.bulk-bar{position:sticky;bottom:0;z-index:2;background:var(--surface);box-shadow:0 -2px 8px rgba(0,0,0,.15)}.bulk-bar fieldset.bulk{display:flex;flex-wrap:wrap;gap:0 1rem;align-items:flex-end}.bulk-bar fieldset.bulk input,.bulk-bar fieldset.bulk select{min-width:10rem}}
th.num,td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}th[aria-sort] a{font-weight:700}table th a{color:var(--ink)}
@media (max-width:40rem){th.num,td.num{text-align:left}table.partners-table tr{display:grid;grid-template-columns:repeat(4,minmax(0,1fr));gap:.3rem .6rem}table.partners-table td[data-label=Partner]{grid-column:2/-1}table.partners-table td[data-label=Status]{grid-column:span 2}table.partners-table td[data-label=Joined]{grid-column:span 2}table.partners-table .badge{white-space:nowrap;overflow-wrap:normal}
#money-table tr,#links-table tr,#payouts-table tr,#commissions-table tr{display:grid;grid-template-columns:repeat(3,minmax(0,1fr));gap:.2rem .6rem}#commissions-table td[data-label=Why]{grid-column:1/-1}}
table.partners-table tr:has(input:checked){background:#eef0ff}.bulk-bar fieldset.bulk>div{min-width:0}.bulk-bar fieldset.bulk label{margin-top:.3rem}
.decide{display:flex;flex-wrap:wrap;gap:0 1rem;align-items:flex-start}.decide details{flex:1 1 12rem}.decide details[open]{flex-basis:100%}
details.reject>summary,details.destructive>summary{display:inline-block;cursor:pointer;margin-top:.6rem;padding:.35rem .9rem;border:1px solid var(--bad);border-radius:2px;color:var(--bad)}
details.destructive{margin-top:.4rem}button.danger{background:var(--bad);color:var(--surface);border:1px solid var(--bad);border-radius:2px}
button.approve{background:var(--good);color:var(--surface);border:1px solid var(--good);border-radius:2px}
/* The program's pages in two groups (program-page.ts): the daily work, then set-up and integrations on a quieter row, folded on a phone. */
nav.sections{margin-bottom:1rem;border-bottom:1px solid var(--line);padding-bottom:.1rem}nav.sections ul{list-style:none;margin:0;padding:0;display:flex;flex-wrap:wrap;gap:.2rem 1.1rem}
nav.sections ul.work a{display:inline-block;padding:.35rem 0;font-size:1.02rem}nav.sections details.setup{font-size:.88rem;margin:.2rem 0 .35rem}
nav.sections details.setup summary{color:var(--muted);font-weight:600;cursor:pointer;padding:.2rem 0}nav.sections details.setup ul{gap:.2rem .9rem}nav.sections details.setup a{display:inline-block;padding:.2rem 0}
nav.sections a[aria-current=page]{font-weight:700;text-decoration:none;color:var(--ink);border-bottom:3px solid var(--brand)}
@media (min-width:40.01rem){nav.sections details.setup{display:flex;flex-wrap:wrap;gap:.2rem .9rem;align-items:baseline}nav.sections details.setup::details-content{content-visibility:visible;display:contents}
nav.sections details.setup summary{list-style:none;cursor:default;pointer-events:none}nav.sections details.setup summary::-webkit-details-marker{display:none}}
/* Fields as wide as what they hold: numbers and amounts short, codes shorter, lists and secrets long. */
input[inputmode=numeric],input[inputmode=decimal]{min-width:0;width:9rem}input[maxlength="3"]{min-width:0;width:6rem}
input.medium,input[type=email],input[type=url]{width:26rem}input.long{width:100%;max-width:44rem}
/* Dense lists (the Payouts page's commissions): buttons sit in their row; on narrow screens a row's cells flow side by side. */
.compact td{padding-top:.2rem;padding-bottom:.2rem}.compact td button{margin-top:0;padding:.15rem .6rem}.compact td .muted{font-size:.85rem}div.row,form.row{display:flex;flex-wrap:wrap;gap:0 1rem;align-items:baseline}
.ask{background:#fff4d6;border:1px solid var(--warn);padding:.6rem 1rem;border-radius:6px;margin:.75rem 0}.ask button,.ask a.button{margin-right:.5rem}
@media (max-width:40rem){.compact table.cards td{display:inline-block;margin-right:.9rem;vertical-align:baseline;padding:.05rem 0}.compact table.cards tr{padding:.3rem .6rem;margin-bottom:.4rem}.compact table.cards td::before{display:inline;margin-right:.3rem}}
/* The brand's page: the header as partners see it, the question editor's rows. */
.brand-preview{display:flex;align-items:center;gap:.6rem;color:var(--surface);padding:.6rem 1rem;border-radius:var(--radius);margin:.5rem 0}.logo-large{max-height:5rem;max-width:16rem}
ol.questions{padding-left:1.2rem}
/* A question's options only for a choice from a list (no script; without :has they always show). */
fieldset.question:has(select[name^=type_],select[name=new_type]) .select-only{display:none}fieldset.question:has(option[value=select]:checked) .select-only,fieldset.question .select-only.has-error{display:block}.pitch p.lead{margin:0}
fieldset.question{border:1px solid var(--line);border-radius:var(--radius);padding:.5rem .8rem;margin:.5rem 0}fieldset.question legend{font-weight:600}input.short-code{width:9rem;min-width:0}
strong.brand{display:flex;align-items:center;gap:.6rem;font-size:1.1rem}img.logo{max-height:2.5rem;max-width:10rem;background:var(--surface);border-radius:4px;padding:2px}
/* The Rewards page (rewards-page.ts): ordered rules as cards; the backtest's rows three across on a phone. */
ol.cards{list-style:none;padding:0;margin:.5rem 0;display:grid;gap:.75rem}@media (max-width:40rem){table.backtest tr{display:grid;grid-template-columns:repeat(3,minmax(0,1fr));gap:.2rem .6rem}table.backtest td:first-child,table.backtest td[data-label^=Rule]{grid-column:1/-1}}
.error-summary{border:2px solid var(--bad);border-radius:6px;padding:.4rem 1rem;margin-bottom:1rem;background:var(--surface)}.error-summary ul{margin:.2rem 0}.error-summary a{color:var(--bad)}
`;

/** The one bit of script: copy buttons (progressive enhancement; the link text stays selectable). */
export const INLINE_SCRIPT = `document.addEventListener('click', function (e) {
  var b = e.target.closest && e.target.closest('[data-copy]');
  if (!b || !navigator.clipboard) return;
  navigator.clipboard.writeText(b.getAttribute('data-copy')).then(function () { b.textContent = 'Copied'; });
});
document.addEventListener('click', function (e) { if (e.target.closest && e.target.closest('[data-print]')) window.print(); });`;

/** Whose page it is: the brand's name, logo and accent (the apply page, the portal's program pages), or a neutral name. */
export interface PageBrand {
  name: string;
  logoPath?: string | null;
  /** A hex colour the brand chose (contrast-checked by src/core/brand.ts). */
  accent?: string | null;
}

const brandStyle = (accent: string | null | undefined) =>
  accent && /^#[0-9a-f]{6}$/.test(accent)
    ? html`<style>:root{--brand:${accent}}header .muted{color:var(--surface)}main form>div>button[type=submit]{background:var(--brand);color:var(--surface);border:1px solid var(--brand);border-radius:4px}</style>`
    : '';

export function page(title: string, body: Html, options: { email?: string; flash?: string | null; header?: Html; team?: boolean; brand?: PageBrand } = {}): string {
  const brand = options.brand;
  return html`<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · ${brand?.name ?? 'Affix'}</title><style>${raw(INLINE_STYLE)}</style>${brandStyle(brand?.accent)}</head><body>
<a class="skip" href="#main">Skip to the content</a>
<header>${brand ? html`<strong class="brand">${brand.logoPath ? html`<img src="${brand.logoPath}" alt="" class="logo">` : ''}${brand.name}</strong>` : html`<strong>Affix</strong>`}${options.header ? options.header : options.email ? html`<a href="/dashboard">Programs</a>${options.team ? html`<a href="/dashboard/team">Team</a>` : ''}<a href="/dashboard/account">Sign-ins</a><span class="muted">${options.email}</span>
<form method="post" action="/dashboard/logout" class="inline"><button type="submit">Sign out</button></form>` : ''}</header>
<main id="main" tabindex="-1">${options.flash ? html`<div class="flash" role="status">${options.flash}</div>` : ''}<h1>${title}</h1>${body}</main>
<script>${raw(INLINE_SCRIPT)}</script></body></html>`.value;
}

/** A labelled input with its error next to it (aria-invalid, aria-describedby). */
export function field(name: string, label: string, value: string, errors: Record<string, string>, attrs = ''): Html {
  const error = errors[name];
  return html`<label for="${name}">${label}</label>
<input id="${name}" name="${name}" value="${value}" ${raw(attrs)} ${error ? raw(`aria-invalid="true" aria-describedby="${name}-error"`) : ''}>
${error ? html`<p class="error" id="${name}-error">${error}</p>` : ''}`;
}

/**
 * Every problem of a refused form, announced at the top and linked to its field: a screen reader
 * hears it at once, and a problem whose field is folded away or not on the page is still said.
 */
export function errorSummary(errors: Record<string, string>): Html {
  const entries = Object.entries(errors);
  if (entries.length === 0) return html``;
  return html`<div class="error-summary" role="alert"><p class="error">${entries.length === 1 ? 'There is a problem:' : `There are ${entries.length} problems:`}</p>
<ul>${entries.map(([name, message]) => html`<li><a href="#${name}">${message}</a></li>`)}</ul></div>`;
}

/** `words`: what each option says (its value otherwise). */
export function select(name: string, label: string, value: string, options: string[], errors: Record<string, string>, words: Record<string, string> = {}): Html {
  const error = errors[name];
  return html`<label for="${name}">${label}</label>
<select id="${name}" name="${name}" ${error ? raw(`aria-invalid="true" aria-describedby="${name}-error"`) : ''}>
${options.map((option) => html`<option value="${option}" ${option === value ? raw('selected') : ''}>${words[option] ?? option}</option>`)}
</select>${error ? html`<p class="error" id="${name}-error">${error}</p>` : ''}`;
}
