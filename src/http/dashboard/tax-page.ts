// Partners' tax details on the dashboard (docs/payouts.md, "Tax details"): the threshold setting,
// the reminder of the partners a run holds back, and the year-end export — a page under Payouts
// for owner and finance (the `payouts` permission).
import type { Request, RequestHandler, Response, Router } from 'express';
import type { ManagementDeps } from '../../app/programs/management.js';
import type { Scope } from '../../app/accounts/scope.js';
import { remindTaxDetails, taxSettingsOf, updateTaxSettings, yearEndExport } from '../../app/money/tax-details.js';
import type { MailLinks } from '../../app/outbound/mail.js';
import { errors } from '../../core/errors.js';
import { toCurrency } from '../../core/currency.js';
import { majorUnits, parseMajorUnits } from '../../core/money.js';
import { type Currency, SUPPORTED_CURRENCIES } from '../../core/types.js';
import { exampleAmount, fieldErrors } from '../kit/forms.js';
import { type Html, field, html, raw } from '../kit/html.js';
import { sendCsv } from '../csv-stream.js';
import { sectionUrl, withProgramNav } from './program-page.js';

export interface TaxPageKit {
  form: RequestHandler[];
  app: () => ManagementDeps;
  scope: (res: Response) => Scope;
  ownProgram: (req: Request, res: Response) => Promise<number>;
  send: (res: Response, status: number, title: string, body: Html, flash?: string | null) => void;
  portal: () => { publicUrl: string };
}

/** Thresholds as typed in each currency's own units ("600.00"): `tax_threshold_XXX`, and the pair for another currency. */
function typedThresholds(form: Record<string, unknown>): Partial<Record<Currency, number | null>> {
  const read = (name: string) => String(form[name] ?? '').trim();
  const out: Partial<Record<Currency, number | null>> = {};
  const take = (currency: Currency, typed: string, name: string) => {
    const cents = typed === '' ? null : parseMajorUnits(typed, currency);
    if (typed !== '' && (cents === null || cents <= 0)) throw errors.invalid(`The threshold in ${currency} is not an amount`, { [name]: `Give an amount in ${currency}, like ${exampleAmount(currency)}, or leave it empty.` });
    out[currency] = cents;
  };
  for (const name of Object.keys(form)) {
    const code = name.startsWith('tax_threshold_') ? name.slice('tax_threshold_'.length) : '';
    if (/^[A-Z]{3}$/.test(code) && toCurrency(code)) take(code as Currency, read(name), name);
  }
  const otherCode = read('tax_threshold_other_currency');
  const otherAmount = read('tax_threshold_other');
  if (otherCode || otherAmount) {
    const currency = toCurrency(otherCode);
    if (!currency) throw errors.invalid('The other currency is not a currency code', { tax_threshold_other_currency: 'Give a currency code like GBP, CAD or JPY.' });
    if (!otherAmount) throw errors.invalid(`The threshold in ${currency} is empty`, { tax_threshold_other: `Give an amount in ${currency}, like ${exampleAmount(currency)}.` });
    take(currency, otherAmount, 'tax_threshold_other');
  }
  return out;
}

function taxPage(url: string, payoutsUrl: string, settings: { tax_details_required: boolean; tax_thresholds_cents: Partial<Record<Currency, number>> }, fe: Record<string, string>, year: number, typed?: Record<string, string>): Html {
  const thresholds = settings.tax_thresholds_cents;
  const shown = [...new Set([...SUPPORTED_CURRENCIES, ...(Object.keys(thresholds) as Currency[])])];
  // The page's navigation says the problems at the top (withProgramNav); each is beside its field here.
  return html`<section id="tax-settings"><h2>Tax details before payouts</h2>
<p>Partners give their tax details in the partner portal: legal name, country, address, and a US person's TIN (SSN or EIN, stored encrypted, shown masked) or a certification of foreign status. Required, a payout run does not pay a partner without them an amount that would bring what they are paid in that currency this calendar year (UTC) to the threshold or more; it stays owed and the Payouts page lists it. Each currency counts alone against its own threshold (no exchange rates); a currency without a threshold never needs them.</p>
<form method="post" action="${url}" novalidate>
<label class="check"><input type="checkbox" id="tax_details_required" name="tax_details_required" value="on" ${(typed ? typed.tax_details_required === 'on' : settings.tax_details_required) ? raw('checked') : ''}> Require tax details before a partner's payouts in a year reach the threshold</label>
${shown.map((currency) => field(`tax_threshold_${currency}`, `Threshold in ${currency} per calendar year (like ${currency === 'USD' ? '600.00' : exampleAmount(currency)}; empty for none)`, typed?.[`tax_threshold_${currency}`] ?? (thresholds[currency] === undefined ? '' : majorUnits(thresholds[currency]!, currency)), fe, 'inputmode="decimal"'))}
${field('tax_threshold_other_currency', 'Threshold in another currency: its code (like GBP, CAD or JPY)', typed?.tax_threshold_other_currency ?? '', fe, 'autocomplete="off" maxlength="3"')}
${field('tax_threshold_other', '…and the amount in it', typed?.tax_threshold_other ?? '', fe, 'inputmode="decimal"')}
<div><button type="submit">Save tax settings</button></div></form></section>
<section id="year-end"><h2>Year-end export</h2>
<p>Per partner and currency, what your paid payouts paid in a calendar year (failed or returned ones excluded), with the partner's tax details: legal name, address, country, and the TIN in full — the only place it is shown unmasked. What a 1099-NEC needs. Each download is recorded in the audit log.</p>
<ul>${[year, year - 1, year - 2].map((y) => html`<li><a href="${url}/${y}/export.csv" download>${y} as CSV</a></li>`)}</ul></section>
<p><a href="${payoutsUrl}#payout-settings">Back to Payouts</a></p>`;
}

export function registerTaxPageRoutes(router: Router, kit: TaxPageKit): void {
  const { form, app, scope, ownProgram, send } = kit;
  const path = '/dashboard/programs/:id/payouts/tax';
  const show = async (req: Request, res: Response, status: number, fe: Record<string, string>, flash: string | null = null, typed?: Record<string, string>) => {
    const id = await ownProgram(req, res);
    const settings = await taxSettingsOf(app(), scope(res), id);
    const url = `${sectionUrl(id, 'payouts')}/tax`;
    send(res, status, 'Tax details', withProgramNav(id, 'payouts', taxPage(url, sectionUrl(id, 'payouts'), settings, fe, app().now().getUTCFullYear(), typed), fe), flash);
  };
  router.get(path, (req, res) => show(req, res, 200, {}, req.query.done === 'saved' ? 'Tax settings saved.' : null));
  router.post(path, ...form, async (req, res) => {
    const id = await ownProgram(req, res);
    const body = req.body as Record<string, unknown>;
    try {
      await updateTaxSettings(app(), scope(res), id, { tax_details_required: body.tax_details_required === 'on', tax_thresholds_cents: typedThresholds(body) });
    } catch (error) {
      const fe = fieldErrors(error, { form: 'tax_details_required' });
      const typed = Object.fromEntries(Object.entries(body).map(([k, v]) => [k, String(v)]));
      return show(req, res, 400, Object.fromEntries(Object.entries(fe).map(([k, m]) => [k.startsWith('tax_thresholds_cents.') ? `tax_threshold_${k.split('.')[1]}` : k, m])), null, typed);
    }
    res.redirect(303, `${sectionUrl(id, 'payouts')}/tax?done=saved`);
  });
  router.post(`${path}/remind`, ...form, async (req, res) => {
    const id = await ownProgram(req, res);
    const partnerId = String((req.body as Record<string, unknown>).partner_id ?? '');
    const mailLinks: MailLinks = { publicUrl: kit.portal().publicUrl };
    await remindTaxDetails({ ...app(), mailLinks }, scope(res), id, partnerId === 'all' || !partnerId ? {} : { partner_ids: [partnerId] });
    res.redirect(303, `${sectionUrl(id, 'payouts')}?done=reminded_tax#missing-tax-details`);
  });
  router.get(`${path}/:year/export.csv`, async (req, res) => {
    const id = await ownProgram(req, res);
    const { year, csv } = await yearEndExport(app(), scope(res), id, { year: req.params.year });
    // It holds TINs: never kept by a cache on the way.
    res.set('Cache-Control', 'no-store');
    await sendCsv(res, `affix-tax-${year}.csv`, (async function* () { yield csv; })());
  });
}
