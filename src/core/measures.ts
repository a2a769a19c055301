// The numbers' one vocabulary: what every dashboard and portal page calls each count, and what
// it counts (the README's "Reading the numbers" says the same). Counted live only, on the day
// the thing happened (UTC): a sale on its occurred_at, a click and a lead when recorded.

export const MEASURE_WORDS = {
  /** Referral clicks recorded. */
  clicks: 'Clicks',
  /** People who signed up (a lead recorded); settling a provisional lead is not a new one. */
  leads: 'Leads',
  /** People whose first paid sale fell in the period, with a signup before or not. */
  customers: 'Customers',
  /** Payments attributed to a partner (each renewal too). */
  sales: 'Sales',
  /** What those sales amounted to, per currency, before refunds. */
  revenue: 'Revenue',
  /** What the sales' commissions earn now (after refunds), per currency. */
  commission: 'Commission',
} as const;
export type Measure = keyof typeof MEASURE_WORDS;

export const RANKINGS = ['revenue', 'commission', 'customers'] as const;
export type Ranking = (typeof RANKINGS)[number];

export interface PartnerNumbers {
  partnerId: number;
  customers: number;
  sales: number;
  money: { currency: string; revenueCents: number; commissionCents: number }[];
}

/**
 * The leaderboard's order. Money is never added across currencies: revenue and commission rank
 * by `currency` (the program's currency with the most sales in the period), then by customers
 * and sales; customers rank by customers, then sales. Ties keep the partner's id order.
 */
export function rankPartners<P extends PartnerNumbers>(partners: P[], by: Ranking, currency: string | null): P[] {
  const amount = (p: P) => {
    const money = p.money.find((m) => m.currency === currency);
    return by === 'revenue' ? money?.revenueCents ?? 0 : by === 'commission' ? money?.commissionCents ?? 0 : 0;
  };
  return [...partners].sort((a, b) => amount(b) - amount(a) || b.customers - a.customers || b.sales - a.sales || a.partnerId - b.partnerId);
}
