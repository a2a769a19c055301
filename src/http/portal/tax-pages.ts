// The partner's tax details form (docs/payouts.md, "Tax details"): legal name, country, address,
// and either a US person's TIN (shown masked once saved, never again in full) or a certification
// of foreign status. Every problem is said in words beside its field.
import type { TaxDetailsView } from '../../app/money/tax-details.js';
import { COUNTRY_CODES, countryName } from '../../core/payout-statements.js';
import type { ShareChoice } from '../../db/money/partner-detail-shares.js';
import { type Html, errorSummary, field, html, raw } from '../kit/html.js';
import { shareFieldset } from './share-choices.js';

const COUNTRIES = COUNTRY_CODES.map((code) => [code, countryName(code)] as const).sort((a, b) => a[1].localeCompare(b[1]));

const invalid = (fe: Record<string, string>, name: string) => (fe[name] ? raw(`aria-invalid="true" aria-describedby="${name}-error"`) : '');
const error = (fe: Record<string, string>, name: string) => (fe[name] ? html`<p class="error" id="${name}-error">${fe[name]}</p>` : '');

function countrySelect(name: string, label: string, value: string, fe: Record<string, string>): Html {
  return html`<label for="${name}">${label}</label>
<select id="${name}" name="${name}" autocomplete="${name === 'country' ? 'country' : 'off'}" ${invalid(fe, name)}>
<option value="">Choose a country</option>
${COUNTRIES.map(([code, words]) => html`<option value="${code}" ${code === value ? raw('selected') : ''}>${words}</option>`)}</select>
${error(fe, name)}`;
}

/** A pair of radio buttons; the first carries the group's id (the error summary links to it). */
function radios(name: string, legend: string, value: string, options: [string, string][], fe: Record<string, string>): Html {
  return html`<fieldset ${fe[name] ? raw(`aria-describedby="${name}-error"`) : ''}><legend>${legend}</legend>${error(fe, name)}
${options.map(([option, words], i) => html`<label class="choice"><input type="radio" ${i === 0 ? raw(`id="${name}"`) : ''} name="${name}" value="${option}" ${option === value ? raw('checked') : ''} ${fe[name] ? raw('aria-invalid="true"') : ''}> ${words}</label>`)}</fieldset>`;
}

const day = (d: Date) => d.toISOString().slice(0, 10);

export function taxDetailsPage(saved: TaxDetailsView | null, fe: Record<string, string>, typed: Record<string, string> | undefined, today: string, choices: ShareChoice[], typedShares: number[] | null): Html {
  const v = (name: string, fromSaved: string | null | undefined) => typed?.[name] ?? fromSaved ?? '';
  const us = v('us_person', saved ? (saved.usPerson ? 'yes' : 'no') : '');
  return html`${errorSummary(fe)}<section id="tax-details"><h2>Your tax details</h2>
<p>Some brands must report what they pay you to the tax office (in the US, on a 1099-NEC from $600 a year) and need these before paying you more than that in a year. They belong to you, not to one program: given once, each program you share them with below has them.</p>
${saved
  ? html`<p id="tax-status"><strong>Given</strong> on ${day(saved.updatedAt)}: ${saved.legalName}, ${countryName(saved.country)}; ${saved.usPerson ? html`US person, ${saved.tinKind === 'ein' ? 'EIN' : 'SSN'} <span class="tin">${saved.tinMasked}</span>` : html`not a US person (foreign status certified on ${saved.foreignSignedOn})`}.</p>`
  : html`<p id="tax-status"><strong>Not given yet.</strong></p>`}
<form method="post" action="/portal/tax-details" novalidate>
${field('legal_name', 'Legal name (yours, or your business’s, as on your tax return)', v('legal_name', saved?.legalName), fe, 'autocomplete="name" required')}
${countrySelect('country', 'Country where you live (or your business is based)', v('country', saved?.country).toUpperCase(), fe)}
<label for="address">Address (street, postal code and city; one per line)</label>
<textarea id="address" name="address" rows="4" autocomplete="street-address" ${invalid(fe, 'address')}>${v('address', saved?.address)}</textarea>
${error(fe, 'address')}
${radios('us_person', 'Are you a US person (a US citizen or resident, or a US business)?', us, [['yes', 'Yes, I am a US person'], ['no', 'No, I am not a US person']], fe)}
<fieldset><legend>If you are a US person: your taxpayer identification number</legend>
${radios('tin_kind', 'Which number', v('tin_kind', saved?.tinKind), [['ssn', 'SSN (Social Security number)'], ['ein', 'EIN (Employer Identification Number)']], fe)}
${field('tin', saved?.tinMasked ? `TIN (9 digits; leave empty to keep ${saved.tinMasked})` : 'TIN (9 digits, like 123-45-6789 or 12-3456789)', '', fe, 'autocomplete="off" inputmode="numeric" spellcheck="false"')}
<p class="muted">Stored encrypted and shown masked (its last 4 digits) here; only the year-end tax export of a program you share them with, which its tax filing needs, holds it in full.</p></fieldset>
<fieldset><legend>If you are not a US person: certification of foreign status</legend>
<label class="choice"><input type="checkbox" id="certify" name="certify" value="on" ${typed ? (typed.certify ? raw('checked') : '') : saved && !saved.usPerson ? raw('checked') : ''} ${invalid(fe, 'certify')}> I certify that I am not a US person, that the person (or business) named below is the beneficial owner of the income paid, and that these details are true, correct and complete.</label>
${error(fe, 'certify')}
${field('foreign_name', 'Name of the person (or business) certifying', v('foreign_name', saved?.foreignName), fe, 'autocomplete="name"')}
${countrySelect('foreign_citizenship', 'Country of citizenship (or where the business is organized)', v('foreign_citizenship', saved?.foreignCitizenship).toUpperCase(), fe)}
${field('foreign_signed_on', 'Date signed', v('foreign_signed_on', saved?.foreignSignedOn ?? today), fe, 'type="date"')}
${field('foreign_signature', 'Signature: type your full name', v('foreign_signature', saved?.foreignSignature), fe, 'autocomplete="off"')}
</fieldset>
${shareFieldset(choices, typedShares)}
<div><button type="submit">Save tax details</button></div></form>
${saved && saved.history.length
  ? html`<h3>Changes</h3><ul id="tax-history">${saved.history.map((h) => html`<li>${h.changedAt.toISOString().slice(0, 16).replace('T', ' ')} UTC by ${h.changedBy}</li>`)}</ul>`
  : ''}
<p><a href="/portal">Back to your programs</a></p></section>`;
}
