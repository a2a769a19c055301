// Partners' tax details (docs/payouts.md, "Tax details"): the portal form (kept per sign-in email,
// like invoice details; the TIN sealed, only ever shown masked), the brand's threshold before
// which a run pays without them, the partners a run holds back, and the year-end export (the one
// place a TIN is opened), audited at every download.
import { z } from 'zod';
import { changedFields } from '../../core/audit.js';
import { type PayoutLine, hasPayoutDetails } from '../../core/commission-ledger.js';
import { errors } from '../../core/errors.js';
import { MAX_AMOUNT_CENTS, formatMoney, majorUnits } from '../../core/money.js';
import { COUNTRY_CODES } from '../../core/payout-statements.js';
import { type TaxHeldLine, type TaxThresholds, type TinKind, calendarYear, formattedTin, linesByTaxDetails, maskedTin, parseTin, yearEndCsv } from '../../core/tax-details.js';
import type { Currency } from '../../core/types.js';
import { toCurrency } from '../../core/currency.js';
import * as tax from '../../db/money/tax-details.js';
import { sharedPartnerDetails } from '../../db/money/partner-detail-shares.js';
import { type ShareDeps, sharesOfForm } from './partner-detail-shares.js';
import * as payouts from '../../db/money/commissions-and-payouts.js';
import { type Pool, type PoolClient, withTransaction } from '../../db/infra/pool.js';
import { queueMails } from '../../db/outbound/mail-outbox.js';
import { type MailLinks, mailBrand, taxDetailsReminderMail } from '../outbound/mail.js';
import { type ManagementDeps, audit, parseInput } from '../programs/management.js';
import { type Scope, programInScope } from '../accounts/scope.js';

/** The details as every page and answer shows them: the TIN masked, never more. */
export interface TaxDetailsView {
  legalName: string;
  country: string;
  address: string;
  usPerson: boolean;
  tinKind: TinKind | null;
  tinMasked: string | null;
  foreignName: string | null;
  foreignCitizenship: string | null;
  foreignSignedOn: string | null;
  foreignSignature: string | null;
  updatedAt: Date;
  history: { changedAt: Date; changedBy: string }[];
}

export async function taxDetailsOf(deps: ManagementDeps, email: string): Promise<TaxDetailsView | null> {
  const [stored, history] = await Promise.all([tax.taxDetails(deps.pool, email), tax.taxDetailsHistory(deps.pool, email)]);
  if (!stored) return null;
  const { tinSealed: _sealed, tinLast4, ...rest } = stored;
  return { ...rest, tinMasked: stored.tinKind && tinLast4 ? maskedTin(stored.tinKind, tinLast4) : null, history };
}

const country = (message: string) => z.string({ error: message }).trim().toUpperCase().refine((code) => COUNTRY_CODES.includes(code), message);

const taxInput = z
  .object({
    legal_name: z.string({ error: 'Give your legal name (or your business’s) as on your tax return.' }).trim().min(1, 'Give your legal name (or your business’s) as on your tax return.').max(200, 'At most 200 characters.'),
    country: country('Choose the country you live in (or your business is based in).'),
    address: z
      .string({ error: 'Give your address.' })
      .max(600, 'The address is at most 600 characters.')
      .transform((text) => text.split(/\r?\n/).map((line) => line.trim()).filter(Boolean))
      .refine((lines) => lines.length >= 1, 'Give your address (street, postal code and city).')
      .refine((lines) => lines.length <= 6, 'The address has at most 6 lines.')
      .refine((lines) => lines.every((line) => line.length <= 100), 'Each line of the address is at most 100 characters.')
      .transform((lines) => lines.join('\n')),
    us_person: z.enum(['yes', 'no'], { error: 'Say whether you are a US person (a US citizen, resident or business).' }),
    tin_kind: z.enum(['ssn', 'ein']).optional().catch(undefined),
    tin: z.string().trim().max(20, 'A TIN has 9 digits.').optional(),
    certify: z.union([z.literal('on'), z.literal('true'), z.literal(true)]).optional().catch(undefined),
    foreign_name: z.string().trim().max(200, 'At most 200 characters.').optional(),
    foreign_citizenship: z.string().trim().toUpperCase().optional(),
    foreign_signed_on: z.string().trim().optional(),
    foreign_signature: z.string().trim().max(200, 'At most 200 characters.').optional(),
  });

/**
 * The signed-in person's tax details, validated and saved with a line of history (who, when). A
 * US person's TIN is sealed before it is stored; left blank, the one given before stays (it is
 * never shown, so it cannot be typed back). Anyone else certifies foreign status. `share` lists
 * the enrollments (partner ids) ticked to see them.
 */
export async function saveTaxDetails(deps: ShareDeps, email: string, input: unknown, by = email): Promise<TaxDetailsView> {
  // Every problem at once, in the form's order: the schema's and the rules between fields.
  const result = taxInput.safeParse(input);
  const fields: Record<string, string> = {};
  if (!result.success) for (const issue of result.error.issues) fields[issue.path.join('.') || 'legal_name'] ??= issue.message;
  const typed = (name: string) => {
    const value = (input as Record<string, unknown> | null)?.[name];
    return typeof value === 'string' ? value.trim() : '';
  };
  const current = await tax.taxDetails(deps.pool, email);
  const today = deps.now().toISOString().slice(0, 10);
  let tin: { kind: TinKind; sealed: string; last4: string } | null = null;
  const tinKind = typed('tin_kind') === 'ssn' || typed('tin_kind') === 'ein' ? (typed('tin_kind') as TinKind) : null;
  if (typed('us_person') === 'yes') {
    if (!tinKind) fields.tin_kind = 'Choose SSN or EIN.';
    else if (!typed('tin')) {
      if (current?.usPerson && current.tinKind === tinKind && current.tinSealed) tin = { kind: current.tinKind, sealed: current.tinSealed, last4: current.tinLast4! };
      else fields.tin = `Give your ${tinKind === 'ssn' ? 'SSN' : 'EIN'} (9 digits).`;
    } else {
      const checked = parseTin(tinKind, typed('tin'));
      if ('problem' in checked) fields.tin = checked.problem;
      else if (Object.keys(fields).length === 0) {
        if (!deps.secretBox) throw errors.badRequest('Tax details cannot be stored: AFFIX_SECRET_KEY is not set (a TIN is kept encrypted)');
        tin = { kind: tinKind, sealed: deps.secretBox.seal(checked.digits), last4: checked.digits.slice(5) };
      }
    }
  } else if (typed('us_person') === 'no') {
    const name = typed('foreign_name');
    const signedOn = typed('foreign_signed_on');
    if (!typed('certify')) fields.certify = 'Tick the statement to certify that you are not a US person.';
    if (!name) fields.foreign_name = 'Give the name of the person (or business) certifying.';
    if (!COUNTRY_CODES.includes(typed('foreign_citizenship').toUpperCase())) fields.foreign_citizenship = 'Choose your country of citizenship (or where your business is organized).';
    if (!/^\d{4}-\d{2}-\d{2}$/.test(signedOn) || Number.isNaN(Date.parse(`${signedOn}T00:00:00Z`))) fields.foreign_signed_on = 'Give the date as YYYY-MM-DD.';
    else if (signedOn > today) fields.foreign_signed_on = 'The date cannot be in the future.';
    if (!typed('foreign_signature')) fields.foreign_signature = 'Type your full name as your signature.';
    else if (name && typed('foreign_signature').toLowerCase() !== name.toLowerCase()) fields.foreign_signature = 'Type the same name as above as your signature.';
  }
  const order = ['legal_name', 'country', 'address', 'us_person', 'tin_kind', 'tin', 'certify', 'foreign_name', 'foreign_citizenship', 'foreign_signed_on', 'foreign_signature'];
  const sorted = Object.fromEntries(Object.entries(fields).sort(([a], [b]) => order.indexOf(a) - order.indexOf(b)));
  const first = Object.entries(sorted)[0];
  if (first || !result.success) throw errors.invalid(first![1], sorted);
  const parsed = result.data;
  const foreign = parsed.us_person === 'no';
  const details = {
    legalName: parsed.legal_name, country: parsed.country, address: parsed.address, usPerson: !foreign,
    tinKind: tin?.kind ?? null, tinSealed: tin?.sealed ?? null, tinLast4: tin?.last4 ?? null,
    foreignName: foreign ? parsed.foreign_name! : null, foreignCitizenship: foreign ? parsed.foreign_citizenship! : null,
    foreignSignedOn: foreign ? parsed.foreign_signed_on! : null, foreignSignature: foreign ? parsed.foreign_signature! : null,
  };
  // With the enrollments ticked to share them with (the others unshared), in one transaction.
  const saveShares = await sharesOfForm(deps, email, input);
  await withTransaction(deps.pool, async (client) => {
    await tax.saveTaxDetails(client, email, details, deps.now(), by);
    await saveShares(client);
  });
  return (await taxDetailsOf(deps, email))!;
}

const thresholdCents = z.coerce
  .number({ error: 'A threshold is a whole number in the currency’s smallest unit.' })
  .int('A threshold is a whole number in the currency’s smallest unit.')
  .min(1, 'A threshold is more than 0.')
  .max(MAX_AMOUNT_CENTS, 'A threshold is at most 10^12.');

export const taxSettingsInput = z.object({
  tax_details_required: z.union([z.boolean(), z.enum(['true', 'false', 'on', '']).transform((v) => v === 'true' || v === 'on')]).optional(),
  /** Per currency in its smallest unit (60000 is $600); null: that currency never needs tax details. */
  tax_thresholds_cents: z
    .record(z.string(), thresholdCents.nullish(), { error: 'Give the thresholds per currency, like {"USD": 60000}.' })
    .superRefine((value, ctx) => {
      for (const key of Object.keys(value)) if (!toCurrency(key)) ctx.addIssue({ code: 'custom', path: [key], message: `${key} is not an ISO 4217 currency code (like USD, GBP or JPY).` });
    })
    .transform((value) => Object.fromEntries(Object.entries(value).map(([key, cents]) => [toCurrency(key)!, cents])) as Partial<Record<Currency, number | null>>)
    .optional(),
});

export interface TaxSettingsView {
  tax_details_required: boolean;
  tax_thresholds_cents: TaxThresholds;
}

const view = (s: tax.TaxSettings): TaxSettingsView => ({ tax_details_required: s.required, tax_thresholds_cents: s.thresholds });

export async function taxSettingsOf(deps: ManagementDeps, scope: Scope, programId: number): Promise<TaxSettingsView> {
  await programInScope(deps, scope, programId);
  return view((await tax.taxSettings(deps.pool, programId))!);
}

/** Whether runs need tax details, and the threshold per currency (each kept when absent). Audited as `tax_settings.updated`. */
export async function updateTaxSettings(deps: ManagementDeps, scope: Scope, programId: number, input: unknown): Promise<TaxSettingsView> {
  await programInScope(deps, scope, programId);
  const parsed = parseInput(taxSettingsInput, input);
  return withTransaction(deps.pool, async (client) => {
    const current = (await tax.taxSettings(client, programId))!;
    const thresholds: TaxThresholds = { ...current.thresholds };
    for (const [currency, cents] of Object.entries(parsed.tax_thresholds_cents ?? {}) as [Currency, number | null | undefined][]) {
      if (cents === null) delete thresholds[currency];
      else if (cents !== undefined) thresholds[currency] = cents;
    }
    const next = { required: parsed.tax_details_required ?? current.required, thresholds };
    await tax.setTaxSettings(client, programId, next);
    await audit(client, scope, [{ programId, action: 'tax_settings.updated', objectType: 'program', objectId: programId, changes: changedFields({ ...view(current) }, { ...view(next) }) }]);
    return view(next);
  });
}

/** A line a run held back for tax details, with the partner's name. */
export interface TaxWaitingLine extends TaxHeldLine {
  partnerName: string;
}

/**
 * Inside a run's transaction: which lines it may pay and which wait for tax details (a partner
 * without them whose payouts this calendar year, UTC, would reach the program's threshold).
 */
export async function holdForTaxDetails(client: Pool | PoolClient, programId: number, lines: PayoutLine[], now: Date): Promise<{ pay: PayoutLine[]; held: TaxWaitingLine[] }> {
  const settings = (await tax.taxSettings(client, programId))!;
  if (!settings.required || lines.length === 0) return { pay: lines, held: [] };
  const partnerIds = [...new Set(lines.map((l) => l.partnerId))];
  const { from, to } = calendarYear(now.getUTCFullYear());
  const [paid, shared] = await Promise.all([tax.paidInYear(client, programId, partnerIds, from, to), sharedPartnerDetails(client, programId, partnerIds)]);
  // Tax details count only when the person shared them with this enrollment.
  const split = linesByTaxDetails(lines, settings, (partnerId, currency) => paid.get(`${partnerId}:${currency}`) ?? 0, (partnerId) => !!shared.get(partnerId)?.tax);
  if (split.held.length === 0) return { pay: split.pay, held: [] };
  const names = new Map((await payouts.partnersByIds(client, programId, [...new Set(split.held.map((h) => h.partnerId))])).map((p) => [p.partnerId, p.name]));
  return { pay: split.pay, held: split.held.map((h) => ({ ...h, partnerName: names.get(h.partnerId) ?? '' })) };
}

/** "$700.00 to Ana": a held line in words. */
export const heldWords = (held: TaxWaitingLine[]): string => held.map((h) => `${formatMoney(h.amountCents, h.currency)} to ${h.partnerName}`).join(', ');

export const yearInput = z.object({
  year: z.coerce.number({ error: 'Give the year, like 2026.' }).int('Give the year, like 2026.').min(2000, 'Give a year from 2000.').max(2100, 'Give a year up to 2100.'),
});

/**
 * The year-end export: per partner and currency, what the program's paid payouts paid in the
 * calendar year (UTC; failed and canceled ones paid nothing), with the tax details the person
 * shared with this program — the TIN unmasked, here only. Every download is audited (`tax_export.downloaded`, with the year).
 */
export async function yearEndExport(deps: ManagementDeps, scope: Scope, programId: number, input: unknown): Promise<{ year: number; csv: string }> {
  await programInScope(deps, scope, programId);
  const { year } = parseInput(yearInput, input);
  const { from, to } = calendarYear(year);
  const paid = await tax.yearEndRows(deps.pool, programId, from, to);
  // Only the tax details each person shared with this program; the others' rows say not shared.
  const shared = await sharedPartnerDetails(deps.pool, programId, [...new Set(paid.map((r) => r.partnerId))]);
  const rows = paid.map((r) => ({ ...r, tax: shared.get(r.partnerId)?.tax ?? null }));
  if (rows.some((r) => r.tax?.tinSealed) && !deps.secretBox) throw errors.badRequest('The export cannot open the TINs: AFFIX_SECRET_KEY is not set');
  const csv = yearEndCsv(
    year,
    rows.map((r) => ({
      ...r,
      tax: r.tax && {
        legalName: r.tax.legalName, country: r.tax.country, address: r.tax.address, usPerson: r.tax.usPerson, tinKind: r.tax.tinKind,
        tin: r.tax.tinSealed && r.tax.tinKind ? formattedTin(r.tax.tinKind, deps.secretBox!.open(r.tax.tinSealed)) : null,
        foreignCertifiedOn: r.tax.foreignSignedOn, updatedAt: r.tax.updatedAt,
      },
    })),
    (cents, currency) => majorUnits(cents, currency),
  );
  await audit(deps.pool, scope, [{ programId, action: 'tax_export.downloaded', objectType: 'tax_year', objectId: year, changes: { rows: { from: null, to: rows.length } } }]);
  return { year, csv };
}

/**
 * The partners the next run would hold back for tax details, as things stand: each one's owed
 * balance per currency (approved, not in an open payout; with payout details, else they wait for
 * those first) against the threshold. For the Payouts page and the reminder.
 */
export async function partnersNeedingTaxDetails(deps: ManagementDeps, scope: Scope, programId: number): Promise<TaxWaitingLine[]> {
  await programInScope(deps, scope, programId);
  return heldForTaxDetails(deps, programId);
}

/** The same for a program already checked against the caller's scope (the Payouts page's loader). */
export async function heldForTaxDetails(deps: Pick<ManagementDeps, 'pool' | 'now'>, programId: number): Promise<TaxWaitingLine[]> {
  const owed = (await payouts.partnerBalances(deps.pool, programId))
    .filter((b) => b.approvedCents - b.inPayoutCents > 0 && hasPayoutDetails(b))
    .map((b) => ({ partnerId: b.partnerId, currency: b.currency, amountCents: b.approvedCents - b.inPayoutCents }));
  return (await holdForTaxDetails(deps.pool, programId, owed, deps.now())).held;
}

export const remindTaxInput = z.object({
  /** The partners to remind; absent: every partner a run would hold back for tax details. */
  partner_ids: z.array(z.coerce.number().int().positive(), { error: 'partner_ids must be a list of partner ids.' }).max(100_000).optional(),
});

/** Mails the partners held back for tax details (or those named of them) a reminder, one a partner a day at most; audited per partner. */
export async function remindTaxDetails(deps: ManagementDeps & { mailLinks: MailLinks }, scope: Scope, programId: number, input: unknown): Promise<{ reminded: number; partners: number }> {
  const body = parseInput(remindTaxInput, input ?? {});
  const program = await programInScope(deps, scope, programId);
  const held = await partnersNeedingTaxDetails(deps, scope, programId);
  const named = body.partner_ids === undefined ? null : new Set(body.partner_ids);
  const owedOf = new Map<number, { currency: Currency; cents: number }[]>();
  for (const h of held) if (named === null || named.has(h.partnerId)) owedOf.set(h.partnerId, [...(owedOf.get(h.partnerId) ?? []), { currency: h.currency, cents: h.amountCents }]);
  if (owedOf.size === 0) throw errors.conflict('Nobody to remind: no partner is waiting for tax details', 'nobody_to_remind');
  const day = deps.now().toISOString().slice(0, 10);
  const recipients = await payouts.partnersToRemind(deps.pool, programId, [...owedOf.keys()]);
  const brand = await mailBrand(deps.pool, programId);
  const mails = recipients.map((p) => taxDetailsReminderMail(deps.mailLinks, { programId, programName: program.name, brand, email: p.email, partnerId: p.partnerId, owed: owedOf.get(p.partnerId)!, day }));
  return withTransaction(deps.pool, async (client) => {
    const reminded = await queueMails(client, mails);
    await audit(client, scope, recipients.map((p) => ({ programId, action: 'partner.tax_details_reminded', objectType: 'partner', objectId: p.partnerId })));
    return { reminded, partners: recipients.length };
  });
}
