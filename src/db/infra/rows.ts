// Row -> core object mappers, one place for column names.
import type { ClickWithCode } from '../../core/ports.js';
import type { Commission, Customer, Program, ReferralLink, Sale } from '../../core/types.js';

type Row = Record<string, any>;

export const PROGRAM_COLUMNS = `id, account_id, name, domain, commission_type, commission_rate, recurring_duration_months,
  attribution_window_days, lead_auth, allowed_origins, livemode_only_commissions, created_at,
  fraud_min_signup_seconds, fraud_max_leads_per_ip, fraud_ip_window_minutes, hold_days, accept_all_currencies`;

export const toProgram = (row: Row): Program => ({
  id: row.id,
  accountId: row.account_id,
  name: row.name,
  domain: row.domain,
  commissionType: row.commission_type,
  commissionRate: normalizeDecimal(row.commission_rate),
  recurringDurationMonths: row.recurring_duration_months,
  attributionWindowDays: row.attribution_window_days,
  leadAuth: row.lead_auth,
  allowedOrigins: row.allowed_origins,
  livemodeOnlyCommissions: row.livemode_only_commissions,
  holdDays: row.hold_days,
  fraud: {
    minSignupSeconds: row.fraud_min_signup_seconds,
    maxLeadsPerIp: row.fraud_max_leads_per_ip,
    ipWindowMinutes: row.fraud_ip_window_minutes,
  },
  acceptAllCurrencies: row.accept_all_currencies,
  createdAt: row.created_at,
});

/** numeric(14,4) comes back as "20.0000"; keep "20". */
export const normalizeDecimal = (value: string): string => (value.includes('.') ? value.replace(/\.?0+$/, '') : value);

export const toLink = (row: Row): ReferralLink => ({
  id: row.id,
  shortLink: row.short_link,
  programId: row.program_id,
  partnerId: row.partner_id,
  enabled: row.enabled,
});

/** A click with its link's code, by click id ($1): read by the click path and the tracking transaction. */
export const CLICK_BY_ID = `SELECT c.click_id, c.program_id, c.link_id, c.partner_id, c.attributed_click_id, c.created_at, l.short_link
  FROM clicks c LEFT JOIN referral_links l ON l.id = c.link_id
 WHERE c.click_id = $1 LIMIT 1`;

export const toClick = (row: Row): ClickWithCode => ({
  clickId: row.click_id,
  programId: row.program_id,
  linkId: row.link_id,
  partnerId: row.partner_id,
  attributedClickId: row.attributed_click_id,
  createdAt: row.created_at,
  shortLink: row.short_link ?? null,
});

export const CUSTOMER_COLUMNS = `id, program_id, customer_key, status, click_id, clicked_at, partner_id, provisional_lead, lead_at, converted_at`;

export const toCustomer = (row: Row): Customer => ({
  id: row.id,
  programId: row.program_id,
  customerKey: row.customer_key,
  status: row.status,
  clickId: row.click_id,
  clickedAt: row.clicked_at,
  partnerId: row.partner_id,
  provisionalLead: row.provisional_lead,
  leadAt: row.lead_at,
  convertedAt: row.converted_at,
});

export const toSale = (row: Row): Sale => ({
  id: row.id,
  programId: row.program_id,
  customerId: row.customer_id,
  processorEventId: row.processor_event_id,
  amountCents: row.amount_cents,
  currency: row.currency,
  test: row.test,
});

export const toCommission = (row: Row): Commission => ({
  id: row.id,
  saleId: row.sale_id,
  partnerId: row.partner_id,
  amountCents: row.amount_cents,
  currency: row.currency,
  status: row.status,
  refundedTotalCents: row.refunded_total_cents,
  deductedCents: row.deducted_cents,
  stage: row.stage,
  payoutId: row.payout_id,
});

export const COMMISSION_COLUMNS = 'id, sale_id, partner_id, amount_cents, currency, status, refunded_total_cents, deducted_cents, stage, payout_id';
