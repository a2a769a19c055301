// The reward-rule backtest (issue 46 item 4, docs/rewards.md): what a draft rule set would have
// paid for stored sales, beside what their commissions earned. Pure: the caller feeds the sales
// in the order they were paid; each is decided by the same evaluator as live commissions
// (decideReward), with the tier, tenure and caps the live path would have read at that time —
// caps and the budget as running sums kept here, in that order, starting at zero at the period's start.
import { type PartnerFigures, type RuleSetDocument, rewardMonth, saleRewardFacts, tierWindow } from './commission-rewards.js';
import { type RewardRuleSet, decideReward } from './rewards.js';
import type { PurchaseFacts } from './sale-facts.js';
import type { Currency } from './types.js';

/** A stored sale as the backtest reads it. */
export interface BacktestSale {
  saleId: number;
  partnerId: number;
  customerId: number;
  amountCents: number;
  currency: Currency;
  paidAt: Date;
  purchase: PurchaseFacts;
  /** The customer's paid sales before this one. */
  firstPaidAt: Date | null;
  earlierPaidSales: number;
  /** What its commission earned (0: none) and the rule that made it (null: the commission type, or none). */
  actualCents: number;
  actualRuleId: string | null;
  /** false: read only for partners' tier figures (before the period, or a partner out of the scope). */
  decide: boolean;
}

export interface BacktestChange {
  sale_id: number;
  partner_id: number;
  paid_at: string;
  currency: Currency;
  amount_cents: number;
  actual_cents: number;
  draft_cents: number;
  actual_rule_id: string | null;
  draft_rule_id: string | null;
}

export interface BacktestTotals {
  currency: Currency;
  sales: number;
  actual_cents: number;
  draft_cents: number;
  difference_cents: number;
}

export interface BacktestResult {
  sales: number;
  totals: BacktestTotals[];
  partners: (BacktestTotals & { partner_id: number })[];
  rules: (BacktestTotals & { rule_id: string | null })[];
  changes: { count: number; first: BacktestChange[] };
}

export const BACKTEST_CHANGES_SHOWN = 100;

interface PartnerWindow {
  sales: { at: number; customerId: number; currency: Currency; cents: number }[];
  head: number;
  customers: Map<number, number>;
  revenue: Map<Currency, number>;
}

/** Feed sales in paid order (occurred_at, then id); `result()` at the end. */
export class Backtest {
  private readonly set: RewardRuleSet;
  private readonly usage = new Map<string, number>();
  private readonly windows = new Map<number, PartnerWindow>();
  private readonly totals = new Map<string, BacktestTotals & { partner_id?: number; rule_id?: string | null }>();
  private readonly changes: BacktestChange[] = [];
  private changeCount = 0;
  private decided = 0;

  constructor(private readonly document: RuleSetDocument) {
    this.set = { version: 0, ...document };
  }

  add(sale: BacktestSale): void {
    const figures = this.document.tiers?.length ? this.figuresBefore(sale) : null;
    if (sale.decide) this.decideOne(sale, figures);
    if (this.document.tiers?.length) this.remember(sale);
  }

  private figuresBefore(sale: BacktestSale): PartnerFigures | null {
    const window = tierWindow(this.document, sale.paidAt);
    const w = this.windows.get(sale.partnerId);
    if (!window || !w) return { customers: 0, revenue: {} };
    const from = window.from.getTime();
    while (w.head < w.sales.length && w.sales[w.head]!.at < from) {
      const old = w.sales[w.head++]!;
      const left = (w.customers.get(old.customerId) ?? 1) - 1;
      if (left === 0) w.customers.delete(old.customerId);
      else w.customers.set(old.customerId, left);
      w.revenue.set(old.currency, (w.revenue.get(old.currency) ?? 0) - old.cents);
    }
    return { customers: w.customers.size, revenue: Object.fromEntries(w.revenue) as Partial<Record<Currency, number>> };
  }

  private remember(sale: BacktestSale): void {
    let w = this.windows.get(sale.partnerId);
    if (!w) this.windows.set(sale.partnerId, (w = { sales: [], head: 0, customers: new Map(), revenue: new Map() }));
    w.sales.push({ at: sale.paidAt.getTime(), customerId: sale.customerId, currency: sale.currency, cents: sale.amountCents });
    w.customers.set(sale.customerId, (w.customers.get(sale.customerId) ?? 0) + 1);
    w.revenue.set(sale.currency, (w.revenue.get(sale.currency) ?? 0) + sale.amountCents);
  }

  private decideOne(sale: BacktestSale, figures: PartnerFigures | null): void {
    const facts = saleRewardFacts(
      { amountCents: sale.amountCents, currency: sale.currency, paidAt: sale.paidAt, purchase: sale.purchase },
      { firstPaidAt: sale.firstPaidAt, earlierPaidSales: sale.earlierPaidSales },
      this.document,
      figures,
    );
    const month = rewardMonth(sale.paidAt).getTime();
    const keys = { customer: `c${sale.customerId}:${sale.currency}`, partnerMonth: `p${sale.partnerId}:${month}:${sale.currency}`, programMonth: `m${month}:${sale.currency}` };
    const used = (key: string) => this.usage.get(key) ?? 0;
    const decision = decideReward(this.set, facts, { customer: used(keys.customer), partnerMonth: used(keys.partnerMonth), programMonth: used(keys.programMonth) });
    const cents = decision.pays ? decision.cents : 0;
    const ruleId = decision.rule?.id ?? null;
    if (cents > 0) for (const key of Object.values(keys)) this.usage.set(key, used(key) + cents);
    this.decided += 1;
    this.count(`t:${sale.currency}`, { currency: sale.currency }, sale, cents);
    this.count(`p:${sale.partnerId}:${sale.currency}`, { currency: sale.currency, partner_id: sale.partnerId }, sale, cents);
    this.count(`r:${ruleId ?? ''}:${sale.currency}`, { currency: sale.currency, rule_id: ruleId }, sale, cents);
    // The rule that paid, compared: a sale no commission paid has none, under either set.
    if (cents !== sale.actualCents || (cents > 0 ? ruleId : null) !== (sale.actualCents > 0 ? sale.actualRuleId : null)) {
      this.changeCount += 1;
      if (this.changes.length < BACKTEST_CHANGES_SHOWN) {
        this.changes.push({
          sale_id: sale.saleId, partner_id: sale.partnerId, paid_at: sale.paidAt.toISOString(), currency: sale.currency, amount_cents: sale.amountCents,
          actual_cents: sale.actualCents, draft_cents: cents, actual_rule_id: sale.actualRuleId, draft_rule_id: ruleId,
        });
      }
    }
  }

  private count(key: string, head: { currency: Currency; partner_id?: number; rule_id?: string | null }, sale: BacktestSale, cents: number): void {
    let row = this.totals.get(key);
    if (!row) this.totals.set(key, (row = { ...head, currency: sale.currency, sales: 0, actual_cents: 0, draft_cents: 0, difference_cents: 0 }));
    row.sales += 1;
    row.actual_cents += sale.actualCents;
    row.draft_cents += cents;
    row.difference_cents = row.draft_cents - row.actual_cents;
  }

  result(): BacktestResult {
    const of = (prefix: string) => [...this.totals.entries()].filter(([k]) => k.startsWith(prefix)).map(([, v]) => v);
    const byCurrency = (a: BacktestTotals, b: BacktestTotals) => a.currency.localeCompare(b.currency);
    return {
      sales: this.decided,
      totals: of('t:').sort(byCurrency),
      partners: (of('p:') as unknown as (BacktestTotals & { partner_id: number })[]).sort((a, b) => a.partner_id - b.partner_id || byCurrency(a, b)),
      rules: (of('r:') as unknown as (BacktestTotals & { rule_id: string | null })[]).sort((a, b) => String(a.rule_id).localeCompare(String(b.rule_id)) || byCurrency(a, b)),
      changes: { count: this.changeCount, first: this.changes },
    };
  }
}

/** Where the reads start: tiers count the partner's sales over a trailing window before the period's first sale. */
export const backtestReadFrom = (document: RuleSetDocument, from: Date): Date => tierWindow(document, from)?.from ?? from;
