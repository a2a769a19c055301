// A program's payout settings (hold days, minimums per currency, currencies) and a partner's
// payout details, with the request fields they share with other forms (FORM_BOOLEAN, HOLD_DAYS).
import { z } from 'zod';
import { type PayoutMinimums } from '../../core/commission-ledger.js';
import Stripe from 'stripe';
import { errors } from '../../core/errors.js';
import { MAX_AMOUNT_CENTS } from '../../core/money.js';
import type { Currency } from '../../core/types.js';
import { toCurrency } from '../../core/currency.js';
import * as payouts from '../../db/money/commissions-and-payouts.js';
import { withTransaction } from '../../db/infra/pool.js';
import { type ManagementDeps, audit, parseInput } from '../programs/management.js';
import { type Scope, programInScope } from '../accounts/scope.js';
import { changedFields } from '../../core/audit.js';

const minimumCents = z.coerce
  .number({ error: 'A minimum payout is a whole number in the currency’s smallest unit.' })
  .int('A minimum payout is a whole number in the currency’s smallest unit.')
  .min(0, 'A minimum payout cannot be negative.')
  .max(MAX_AMOUNT_CENTS, 'A minimum payout is at most 10^12.');

export const HOLD_DAYS = z.coerce
  .number({ error: 'Hold period must be a whole number of days.' })
  .int('Hold period must be a whole number of days.')
  .min(0, 'Hold period is 0 to 365 days.')
  .max(365, 'Hold period is 0 to 365 days.');

/**
 * One minimum per currency, in its own minor unit (5000 is $50, 5000 yen, 5.000 KWD):
 * {"USD": 5000, "JPY": 5000}. Keys are ISO 4217 codes (any case); null removes a minimum.
 */
export const PAYOUT_MINIMUMS = z
  .record(z.string(), minimumCents.nullish(), { error: 'Give the minimums per currency, like {"USD": 5000}.' })
  .superRefine((value, ctx) => {
    const seen = new Map<string, string>();
    for (const key of Object.keys(value)) {
      const code = toCurrency(key);
      if (!code) ctx.addIssue({ code: 'custom', path: [key], message: `${key} is not an ISO 4217 currency code (like USD, GBP or JPY).` });
      // "usd" and "USD" are one currency: which amount was meant is not guessed.
      else if (seen.has(code)) ctx.addIssue({ code: 'custom', path: [key], message: `${seen.get(code)} and ${key} are both ${code}: give one minimum per currency.` });
      else seen.set(code, key);
    }
  })
  .transform((value) => Object.fromEntries(Object.entries(value).map(([key, cents]) => [toCurrency(key)!, cents])) as Partial<Record<Currency, number | null>>);

/** A currency named in a request (a payout currency, a list's money column): any ISO 4217 code, in any case. */
export const CURRENCY_CODE = z
  .string({ error: 'Give a currency code like USD, EUR or GBP.' })
  .transform((value, ctx) => {
    const code = toCurrency(value);
    if (!code) ctx.addIssue({ code: 'custom', message: 'Give a currency code like USD, EUR or GBP.' });
    return code ?? ('USD' as Currency);
  });

/** A checkbox or a JSON boolean. */
export const FORM_BOOLEAN = z.union([z.boolean(), z.enum(['true', 'false', 'on', '']).transform((v) => v === 'true' || v === 'on')]);

export const settingsInput = z.object({
  // Each setting is kept as it is when absent.
  hold_days: HOLD_DAYS.optional(),
  // One minimum per currency (5000 is $50 but 5000 yen): {"USD": 5000, "JPY": 5000}; a currency left out keeps its minimum, null removes it.
  payout_minimums_cents: PAYOUT_MINIMUMS.optional(),
  payout_minimum_cents: z
    .unknown()
    .refine((value) => value === undefined, 'Replaced by payout_minimums_cents: one minimum per currency, like {"USD": 5000, "VND": 1000000}.')
    .optional(),
  // Fraud thresholds: each kept as it is when absent.
  fraud_min_signup_seconds: z.coerce.number({ error: 'Give whole seconds.' }).int('Give whole seconds.').min(0, 'Cannot be negative.').max(86_400, 'At most a day.').optional(),
  fraud_max_leads_per_ip: z.coerce.number({ error: 'Give a whole number.' }).int('Give a whole number.').min(1, 'At least 1.').max(100_000, 'Too large.').optional(),
  fraud_ip_window_minutes: z.coerce.number({ error: 'Give whole minutes.' }).int('Give whole minutes.').min(1, 'At least 1 minute.').max(43_200, 'At most 30 days.').optional(),
  partners_can_create_links: FORM_BOOLEAN.optional(),
  partner_link_limit: z.coerce.number({ error: 'Give a whole number of links.' }).int('Give a whole number of links.').min(1, 'At least 1 link.').max(1000, 'At most 1000 links.').optional(),
});

export async function payoutSettings(deps: ManagementDeps, scope: Scope, programId: number) {
  await programInScope(deps, scope, programId);
  return (await payouts.payoutSettings(deps.pool, programId))!;
}

export async function updatePayoutSettings(deps: ManagementDeps, scope: Scope, programId: number, input: unknown) {
  await programInScope(deps, scope, programId);
  const parsed = parseInput(settingsInput, input);
  const current = (await payouts.payoutSettings(deps.pool, programId))!;
  const minimums: PayoutMinimums = { ...current.payoutMinimumsCents };
  for (const [currency, value] of Object.entries(parsed.payout_minimums_cents ?? {}) as [Currency, number | null | undefined][]) {
    if (value === null) delete minimums[currency];
    else if (value !== undefined) minimums[currency] = value;
  }
  const settings: payouts.PayoutSettings = {
    holdDays: parsed.hold_days ?? current.holdDays,
    payoutMinimumsCents: minimums,
    fraud: {
      minSignupSeconds: parsed.fraud_min_signup_seconds ?? current.fraud.minSignupSeconds,
      maxLeadsPerIp: parsed.fraud_max_leads_per_ip ?? current.fraud.maxLeadsPerIp,
      ipWindowMinutes: parsed.fraud_ip_window_minutes ?? current.fraud.ipWindowMinutes,
    },
    partnersCanCreateLinks: parsed.partners_can_create_links ?? current.partnersCanCreateLinks,
    partnerLinkLimit: parsed.partner_link_limit ?? current.partnerLinkLimit,
  };
  return withTransaction(deps.pool, async (client) => {
    await payouts.setPayoutSettings(client, programId, settings);
    await audit(client, scope, [{ programId, action: 'payout_settings.updated', objectType: 'program', objectId: programId, changes: changedFields({ ...current }, { ...settings }) }]);
    return settings;
  });
}

export const detailsInput = z
  .object({
    payout_method: z.enum(['paypal', 'wise', 'bank_transfer', 'stripe'], { error: 'Choose PayPal, Wise, bank transfer or Stripe.' }).nullish(),
    payout_reference: z.string().trim().max(200, 'At most 200 characters.').nullish(),
    payout_currency: CURRENCY_CODE.nullish(),
  })
  .superRefine((value, ctx) => {
    const reference = value.payout_reference ?? '';
    if (value.payout_method && !reference) ctx.addIssue({ code: 'custom', path: ['payout_reference'], message: 'Give the email, IBAN or account id to pay.' });
    // An address without a method pays nobody: the method is chosen, never assumed.
    if (!value.payout_method && reference) ctx.addIssue({ code: 'custom', path: ['payout_method'], message: 'Choose how you are paid.' });
    if ((value.payout_method === 'paypal' || value.payout_method === 'wise') && reference && !z.email().safeParse(reference).success) {
      ctx.addIssue({ code: 'custom', path: ['payout_reference'], message: 'PayPal and Wise pay to an email address.' });
    }
    if (value.payout_method === 'stripe' && reference && !/^acct_\w+$/.test(reference)) {
      ctx.addIssue({ code: 'custom', path: ['payout_reference'], message: 'A Stripe connected account id starts with acct_.' });
    }
  });

/** The brand sets how a partner is paid (the partner will too, from the portal). */
export async function setPayoutDetails(deps: ManagementDeps, scope: Scope, programId: number, partnerId: number, input: unknown) {
  await programInScope(deps, scope, programId);
  const parsed = parseInput(detailsInput, input);
  const details: payouts.PayoutDetails = {
    payoutMethod: parsed.payout_method ?? null,
    payoutReference: parsed.payout_reference || null,
    payoutCurrency: parsed.payout_currency ?? null,
  };
  if (!Number.isSafeInteger(partnerId)) throw errors.notFound('Partner not found');
  return withTransaction(deps.pool, async (client) => {
    if (!(await payouts.setPartnerPayoutDetails(client, programId, partnerId, details))) throw errors.notFound('Partner not found');
    // Where a partner is paid is what a fraudster changes: recorded (method, and that the account changed).
    await audit(client, scope, [{ programId, action: 'partner.payout_details_updated', objectType: 'partner', objectId: partnerId, changes: { payout_method: { from: null, to: details.payoutMethod }, payout_reference: { from: null, to: details.payoutReference ? 'set' : 'removed' } } }]);
    return details;
  });
}
