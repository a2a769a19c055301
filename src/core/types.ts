// Plain data the core works on. Ids are numbers (program and account ids are numeric on the wire).
import type { FraudThresholds } from './fraud.js';

export type CommissionType = 'percent' | 'fixed' | 'recurring_percent' | 'recurring_fixed';
export const COMMISSION_TYPES: readonly CommissionType[] = ['percent', 'fixed', 'recurring_percent', 'recurring_fixed'];

export type LeadAuth = 'browser_allowed' | 'server_required';
export const LEAD_AUTH_VALUES: readonly LeadAuth[] = ['browser_allowed', 'server_required'];

/**
 * An ISO 4217 code in Affix's table (src/core/iso-4217.ts), upper case ("USD", "JPY", "KWD").
 * Text from outside becomes one only through src/core/currency.ts (toCurrency, acceptedCurrency).
 */
export type Currency = Uppercase<string>;
/** The contract's currencies (spec §8): every program takes these; others only when it opts in. */
export const SUPPORTED_CURRENCIES: readonly Currency[] = ['USD', 'EUR', 'VND'];

export type CustomerStatus = 'click' | 'lead' | 'customer';
export type CommissionStatus = 'pending' | 'refunded' | 'reversed';
export type RefundReason = 'refund' | 'chargeback' | 'refund_failed' | 'chargeback_reversed';

/** Which rule bound a sale to its customer (spec §6 order, plus the API's two inputs). */
/** The spec's four steps, then ours: a promotion code the brand mapped to a partner. */
export type AttributionStep = 'click_id' | 'email' | 'stripe_customer' | 'customer_key' | 'promo_code';

export interface Program {
  id: number;
  accountId: number;
  name: string;
  domain: string;
  commissionType: CommissionType;
  /** Decimal string as stored (numeric), e.g. "20" or "12.5". */
  commissionRate: string;
  recurringDurationMonths: number | null;
  attributionWindowDays: number;
  leadAuth: LeadAuth;
  allowedOrigins: string[];
  /** Stripe events with livemode false are test events (no commission) unless this is false. */
  livemodeOnlyCommissions: boolean;
  /** Days a commission stays pending before it is approved (a group may set its own). */
  holdDays: number;
  /** When a commission is held for review (src/core/fraud.ts). */
  fraud: FraudThresholds;
  /** Off (the default): USD, EUR and VND only, as the contract says; on: every ISO 4217 currency. */
  acceptAllCurrencies: boolean;
  createdAt: Date;
}

export interface ReferralLink {
  id: number;
  shortLink: string;
  programId: number | null;
  partnerId: number | null;
  enabled: boolean;
}

export interface Click {
  clickId: string;
  programId: number;
  linkId: number | null;
  partnerId: number | null;
  attributedClickId: string;
  createdAt: Date;
}

export interface Customer {
  id: number;
  programId: number;
  customerKey: string | null;
  status: CustomerStatus;
  clickId: string | null;
  clickedAt: Date | null;
  partnerId: number | null;
  provisionalLead: boolean;
  leadAt: Date | null;
  convertedAt: Date | null;
}

/** A customer found (or made) for a payment, and the attribution step that found it. */
export interface ResolvedCustomer {
  customer: Customer;
  step: AttributionStep;
  /** Created by this transaction: it has no sale yet, so its sale history is not read. */
  created?: boolean;
}

export interface Sale {
  id: number;
  programId: number;
  customerId: number | null;
  processorEventId: string;
  amountCents: number;
  currency: Currency;
  test: boolean;
}

export interface Commission {
  id: number;
  saleId: number;
  partnerId: number | null;
  amountCents: number;
  currency: Currency;
  status: CommissionStatus;
  refundedTotalCents: number;
  deductedCents: number;
  /** Lifecycle (docs/payouts.md): pending, approved, paid. */
  stage: 'pending' | 'held' | 'approved' | 'paid' | 'rejected';
  payoutId: number | null;
}
