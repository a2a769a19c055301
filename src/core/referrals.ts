// What a partner may know of the customers they referred (docs/partners.md, "Referrals"): never
// the brand's id of a person in clear, a status in three words, and when each commission can be
// paid. Pure rules; the portal and its CSV read them.
import { type CommissionSource, type CommissionState, COMMISSION_STATE_WORDS, NO_SALE_WORDS, holdEndsAt } from './commission-ledger.js';
import { csvField } from './csv.js';
import { majorUnits } from './money.js';
import type { Currency } from './types.js';

/**
 * A customer as their partner sees them: an email as j***@example.com; any other id the brand
 * gave (customer_key) as its first character and its last two around *** (u***42); none at all
 * as "no id given". The partner recognises their own referrals without learning the address.
 */
export function maskedCustomer(customerKey: string | null): string {
  const key = (customerKey ?? '').trim();
  if (key === '') return 'no id given';
  const at = key.lastIndexOf('@');
  if (at > 0 && at < key.length - 1) return `${[...key][0]}***@${key.slice(at + 1).toLowerCase()}`;
  const chars = [...key];
  return chars.length >= 6 ? `${chars[0]}***${chars.slice(-2).join('')}` : '***';
}

/** What the brand lets its partners see of a customer (Brand settings); masked_email is the default. */
export const CUSTOMER_LABELS = ['masked_email', 'masked_key', 'name'] as const;
export type CustomerLabel = (typeof CUSTOMER_LABELS)[number];
export const CUSTOMER_LABEL_WORDS: Record<CustomerLabel, string> = {
  masked_email: 'Masked email (j***@example.com)',
  masked_key: 'Masked customer id (u***42)',
  name: 'Name sent with the lead',
};

/** The masked id without the domain of an email: the first character and the last two of the whole key. */
function maskedKey(customerKey: string | null): string {
  const chars = [...(customerKey ?? '').trim()];
  if (chars.length === 0) return 'no id given';
  return chars.length >= 6 ? `${chars[0]}***${chars.slice(-2).join('')}` : '***';
}

/** A referred customer as the brand chose to show them to the partner who referred them. */
export function customerShown(c: { customerKey: string | null; customerName?: string | null }, label: CustomerLabel): string {
  if (label === 'name' && c.customerName) return c.customerName;
  return label === 'masked_key' ? maskedKey(c.customerKey) : maskedCustomer(c.customerKey);
}

export type ReferralStatus = 'lead' | 'customer' | 'refunded';

/** Lead (signed up, not paid), customer (has paid), or refunded (every sale refunded in full or charged back). */
export function referralStatus(c: { status: 'lead' | 'customer'; sales: number; refundedSales: number }): ReferralStatus {
  if (c.status === 'lead' || c.sales === 0) return c.status;
  return c.refundedSales >= c.sales ? 'refunded' : 'customer';
}

/** States whose commission will never be paid (or already was): no "available on" date to show. */
const NOT_WAITING: ReadonlySet<CommissionState> = new Set(['rejected', 'reversed', 'moved', 'test']);

/**
 * The day a commission can be paid: its hold ends (holdEndsAt, the rule approval applies). None
 * for one that never will be paid.
 */
export function availableOn(c: { state: CommissionState; createdAt: Date; holdDays: number }): Date | null {
  return NOT_WAITING.has(c.state) ? null : holdEndsAt(c.createdAt, c.holdDays);
}

const day = (at: Date | null) => (at ? at.toISOString().slice(0, 10) : '');
const line = (cells: unknown[]) => `${cells.map(csvField).join(',')}\r\n`;

export const REFERRALS_CSV_HEADER = line(['customer', 'first_seen', 'status', 'sales', 'currency', 'sales_amount', 'earned']);

/** A customer's lines: one per currency they bought in (a lead: one line without money). */
export function referralCsvLines(c: { customerKey: string | null; customerName?: string | null; firstSeen: Date; status: 'lead' | 'customer'; sales: number; refundedSales: number; money: Array<{ currency: string; saleCents: number; earnedCents: number }> }, label: CustomerLabel = 'masked_email'): string {
  const first = [customerShown(c, label), day(c.firstSeen), referralStatus(c), c.sales];
  if (c.money.length === 0) return line([...first, '', '', '']);
  return c.money.map((m) => line([...first, m.currency, majorUnits(m.saleCents, m.currency as Currency), majorUnits(m.earnedCents, m.currency as Currency)])).join('');
}

export const COMMISSIONS_CSV_HEADER = line(['commission_id', 'customer', 'sale_date', 'currency', 'sale_amount', 'commission', 'state', 'available_on', 'paid_on', 'why']);

/** Whom a commission was for, as the partner reads it: a sale's customer, a lead's (said to be a lead), else what paid it. */
export function commissionFor(c: { source?: CommissionSource; saleCents: number | null; customerKey: string | null; customerName?: string | null }, label: CustomerLabel): string {
  const source = c.source ?? (c.saleCents === null ? 'bounty' : 'sale');
  if (source === 'sale') return customerShown(c, label);
  if (source === 'lead' && (c.customerKey || c.customerName)) return `${NO_SALE_WORDS.lead}: ${customerShown(c, label)}`;
  return NO_SALE_WORDS[source];
}

export function commissionCsvLine(c: { id: number; source?: CommissionSource; customerKey: string | null; customerName?: string | null; saleAt: Date; currency: string; saleCents: number | null; earnedCents: number; state: CommissionState; createdAt: Date; holdDays: number; paidAt: Date | null; rewardWords?: string | null }, label: CustomerLabel = 'masked_email'): string {
  const currency = c.currency as Currency;
  // The customer column names a sale's or a lead's customer; the words say what paid the rest.
  return line([c.id, c.saleCents === null && c.source !== 'lead' ? '' : customerShown(c, label), day(c.saleAt), c.currency, c.saleCents === null ? '' : majorUnits(c.saleCents, currency), majorUnits(c.earnedCents, currency), COMMISSION_STATE_WORDS[c.state], day(availableOn(c)), day(c.paidAt), c.rewardWords ?? '']);
}

export const SUB_IDS_CSV_HEADER = line(['sub_id', 'clicks', 'leads', 'sales']);

export const subIdCsvLine = (s: { subId: string; clicks: number; leads: number; sales: number }): string => line([s.subId, s.clicks, s.leads, s.sales]);
