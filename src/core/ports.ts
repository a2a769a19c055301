// The repository interface the core needs. src/db implements it with SQL; the core never
// sees pg, express or pg-boss.
import type { PurchaseFacts } from './sale-facts.js';
import type { CommissionExplanation, PartnerFigures, PublishedRuleSet, RewardHistory } from './commission-rewards.js';
import type { RewardUsage } from './rewards.js';
import type { PartnerStatus, Terms } from './partners.js';
import type { OutgoingMail } from './mail.js';
import type { CommissionReason, SaleHistory } from './attribution.js';
import type { DeductionChange, LedgerEntry } from './commission-ledger.js';
import type { FraudFacts, FraudSignal } from './fraud.js';
import type { OutboundEvent } from './outbound-events.js';
import type {
  AttributionStep,
  Click,
  Commission,
  CommissionStatus,
  Currency,
  Customer,
  CustomerStatus,
  Program,
  RefundReason,
  ReferralLink,
  Sale,
} from './types.js';
import type { RateLimitHit, RequestCount } from './limits.js';

export interface ClickWithCode extends Click {
  /** short_link of the click's referral link (the `aff` value), if the link still exists. */
  shortLink: string | null;
}

export interface NewClick {
  clickId: string;
  programId: number;
  linkId: number;
  partnerId: number;
  attributedClickId: string;
  affiliateUrl: string;
  /** The link builder's sub-ID (?sub_id= of the affiliate URL), or null. */
  subId: string | null;
  pageUrl: string | null;
  referrerUrl: string | null;
  ip: string | null;
  userAgent: string | null;
  test: boolean;
  details: Record<string, unknown>;
  createdAt: Date;
}

export interface NewCustomer {
  programId: number;
  customerKey: string | null;
  status: CustomerStatus;
  clickId: string;
  clickedAt: Date;
  linkId: number | null;
  partnerId: number | null;
  emailHash: Buffer | null;
  provisionalLead: boolean;
  leadAt: Date | null;
  convertedAt: Date | null;
  /** The customer's IP at signup (fraud signals), when known. */
  leadIp?: string | null;
  /** Bound unless a customer of the program already holds it (as bindProcessorCustomerIfFree). */
  processorCustomerId?: string | null;
  /** The brand's name for its customer (the lead's `customer_name`). */
  name?: string | null;
}

export interface CustomerPatch {
  customerKey?: string;
  processorCustomerId?: string;
  status?: CustomerStatus;
  emailHash?: Buffer;
  provisionalLead?: boolean;
  leadAt?: Date;
  convertedAt?: Date;
  leadIp?: string;
  name?: string;
  click?: { clickId: string; clickedAt: Date; linkId: number | null; partnerId: number | null };
}

/**
 * What is written with a sale: the customer's conversion (a customer now, a provisional lead
 * settled; converted at `convertedAt` unless null, which keeps the customer's own), and the
 * sale's tracking event.
 */
export interface WrittenWithSale {
  customer: { id: number; convertedAt: Date | null } | null;
  event: Omit<NewTrackingEvent, 'saleId'>;
}

export interface NewTrackingEvent {
  programId: number;
  kind: 'click' | 'lead' | 'sale';
  customerId: number | null;
  clickId: string | null;
  saleId: number | null;
  test: boolean;
  details: Record<string, unknown>;
  createdAt: Date;
}

export interface NewSale {
  programId: number;
  customerId: number;
  partnerId: number | null;
  processorEventId: string;
  amountCents: number;
  currency: Currency;
  occurredAt: Date;
  provider: string | null;
  providerPaymentId: string | null;
  livemode: boolean | null;
  test: boolean;
  saleType: 'payment' | 'subscription' | null;
  isRecurring: boolean;
  subscriptionId: string | null;
  subscriptionInterval: 'monthly' | 'quarterly' | 'annual' | null;
  eventName: string | null;
  taxCents: number | null;
  attributionStep: AttributionStep;
  source: string;
  details: Record<string, unknown>;
  commissionReason: CommissionReason | null;
  /** Products, prices, interval and country, for the reward rules (none given: empty). */
  purchase?: PurchaseFacts;
}

export interface NewCommission {
  /** Its one source: a sale, or a lead (the customer it made a lead), or a partner's click day (docs/rewards.md). */
  saleId: number | null;
  leadCustomerId?: number | null;
  clickRewardDayId?: number | null;
  programId: number;
  partnerId: number;
  amountCents: number;
  currency: Currency;
  /** The ledger's first entry for it (written in the same statement). */
  ledger: LedgerEntry;
  /** Fraud signals: the commission is held for a manager instead of pending. */
  holdReasons: FraudSignal[];
  /** From a processor's test-mode payment: never approved, paid or exported. */
  test: boolean;
  /** The terms it is made under (stored with it) and the hold they give. */
  terms: Terms;
  /** The partner is banned: the commission is made rejected, stamped with the ban, with this entry after its first. */
  rejectedBy: { sanctionId: number; ledger: LedgerEntry } | null;
  /** What paid it and why, in words (src/core/commission-rewards.ts); stored with it, never rewritten. */
  explanation?: CommissionExplanation;
}

/** A partner's terms now (partner_terms view), with their enrollment's standing. */
export interface PartnerTerms extends Terms {
  status: PartnerStatus;
  banId: number | null;
}

export interface NewRefund {
  saleId: number;
  commissionId: number | null;
  refundKey: string;
  amountCents: number;
  deductionCents: number;
  reason: RefundReason;
  refundReason: string | null;
  source: string;
}

export interface CommissionRefundPatch {
  status: CommissionStatus;
  refundedTotalCents: number;
  deductedCents: number;
  /** What the change of the deduction writes to the ledger (and owes back, once paid), if it changed. */
  ledger: DeductionChange | null;
}

/** Everything the tracking use cases read and write, inside one transaction. */
export interface TrackingTx {
  getProgram(programId: number): Promise<Program | null>;
  findClick(clickId: string): Promise<ClickWithCode | null>;
  insertTrackingEvent(event: NewTrackingEvent): Promise<void>;

  findCustomerByKey(programId: number, customerKey: string): Promise<Customer | null>;
  customerKeyExistsInOtherProgram(programId: number, customerKey: string): Promise<boolean>;
  findCustomerByClickId(clickId: string): Promise<Customer | null>;
  /** In one statement: the customer bound to the click (locked), and whether a customer of the program holds the key. */
  findClickCustomer(clickId: string, programId: number, customerKey: string | null): Promise<{ existing: Customer | null; keyTaken: boolean }>;
  insertCustomer(customer: NewCustomer): Promise<Customer>;
  updateCustomer(customerId: number, patch: CustomerPatch): Promise<void>;

  findCustomerByEmailHash(programId: number, emailHash: Buffer): Promise<Customer | null>;
  findCustomerByProcessorCustomer(programId: number, processorCustomerId: string): Promise<Customer | null>;
  /** Sets the customer's processor customer unless a customer of the program already holds it (one statement). */
  bindProcessorCustomerIfFree(programId: number, customerId: number, processorCustomerId: string): Promise<void>;

  /** The sale with this transaction id in the program's brand (account), if any. */
  findSaleIdByTransactionId(programId: number, transactionId: string): Promise<number | null>;
  /** A sale of the program by its payment intent (or charge) id, or by its transaction id. */
  findSaleByPayment(programId: number, payment: { paymentIds: string[]; transactionIds: string[] }): Promise<Sale | null>;
  /**
   * Inserts the sale and, in the same statement, what comes with it; throws the duplicate-sale
   * error when the transaction id is taken (then nothing is written).
   */
  insertSale(sale: NewSale, withSale: WrittenWithSale): Promise<number>;
  /** The customer's earliest other paid (non-test) sale and the commission it holds: the first-sale rule's input, any recording order. */
  saleHistory(customerId: number): Promise<SaleHistory>;
  setCommissionReason(saleId: number, reason: CommissionReason): Promise<void>;
  /** Remembers that a payment (pi_/ch_) settled an invoice (in_), for refunds that name only the payment. */
  linkPaymentToInvoice(programId: number, paymentId: string, invoiceId: string): Promise<void>;
  /** Runs fn inside a savepoint: a failure rolls back fn's writes only, then rethrows. */
  withSavepoint<T>(fn: () => Promise<T>): Promise<T>;
  insertCommission(commission: NewCommission): Promise<number>;
  /**
   * The customer's first-sale commission moved to a sale made earlier: this one no longer counts
   * for its sale (its deduction becomes the whole amount), with the ledger entry and clawback given.
   */
  moveCommission(commissionId: number, toSaleId: number, change: DeductionChange | null): Promise<void>;

  findSaleInProgram(programId: number, transactionId: string): Promise<Sale | null>;
  lockCommissionForSale(saleId: number): Promise<Commission | null>;
  /** Inserts a refund; returns false when the same refund key was already counted. */
  insertRefund(refund: NewRefund): Promise<boolean>;
  updateCommissionAfterRefund(commissionId: number, patch: CommissionRefundPatch): Promise<void>;
  /**
   * Sum refunded (reason refund, not chargebacks) through this source so far: reverted ones
   * excluded, refunds that failed after being counted cumulatively taken back out.
   */
  processorRefundedCents(saleId: number, source: string): Promise<number>;
  /** A sale's chargeback adjustments from one processor: cents taken and cents given back. */
  chargebackAdjustmentCents(saleId: number, source: string): Promise<{ takenCents: number; givenBackCents: number }>;
  /**
   * What a sale's refunds count by their own amounts (reverted ones excluded, refunds that failed
   * later taken back out), and the chargebacks that stand (per source: taken less given back).
   */
  refundParts(saleId: number): Promise<{ refundsCents: number; chargebacksCents: number }>;
  findActiveRefund(saleId: number, refundKey: string): Promise<CountedRefund | null>;
  /** Any row under this key, reverted or not. */
  refundKeyUsed(saleId: number, refundKey: string): Promise<boolean>;
  markRefundReverted(refundId: number): Promise<void>;
  /** The active promo code of the program matching any of these ids, codes (any case) or coupon ids. */
  findPromoCode(programId: number, refs: string[]): Promise<{ id: number; partnerId: number; linkId: number | null } | null>;
  /** The terms a commission of this partner is made under now (override, then group, then program). */
  partnerTerms(partnerId: number): Promise<PartnerTerms | null>;
  /** The published reward rule set for a partner of this group (else the program's), and the group's name. */
  rewardTerms(programId: number, groupId: number | null): Promise<{ ruleSet: PublishedRuleSet | null; groupName: string | null }>;
  /** The customer's paid sales before this one (by when they were paid). */
  rewardHistory(customerId: number, paidAt: Date, transactionId: string): Promise<RewardHistory>;
  /** A partner's customers and revenue per currency over [from, to), for the tiers. */
  partnerFigures(programId: number, partnerId: number, from: Date, to: Date): Promise<PartnerFigures>;
  /** Serialises decisions under caps of one program until this transaction ends. */
  lockRewardCaps(programId: number): Promise<void>;
  /** What rule-made commissions already used of the caps, in the currency and the month. */
  rewardUsage(scope: { programId: number; partnerId: number; customerId: number; currency: Currency; month: Date }): Promise<RewardUsage>;
  /** What the fraud signals need to know about this customer and partner (src/core/fraud.ts). */
  fraudFacts(customerId: number, partnerId: number, ipWindowMinutes: number): Promise<FraudFacts>;
  /** A mail to the program's managers, written in this transaction (sent once it commits). */
  notifyManagers(programId: number, mail: Omit<OutgoingMail, 'to'>): Promise<void>;
  /** Tells the program's endpoints that listen to this type, in this transaction (no change without its event). */
  emit(event: OutboundEvent): Promise<void>;
}

export interface CountedRefund {
  id: number;
  commissionId: number | null;
  amountCents: number;
  deductionCents: number;
}

export interface ApiKeyRecord {
  keyId: number;
  programId: number;
  rotationMarkedAt: Date | null;
  rotateBy: Date | null;
  revokedAt: Date | null;
  /** The brand (account) owning the program is suspended. */
  accountSuspended: boolean;
}

export interface ReadinessFacts {
  /** Keys that still authenticate: not revoked, rotation deadline (if any) not passed. */
  activeKeys: number;
  activeLinks: number;
  allowedOrigins: number;
  /** The last origin the tracker was refused from, while the program still does not list it. */
  refusedOrigin: { origin: string; at: Date } | null;
  clickSeen: boolean;
  leadSeen: boolean;
  saleSeen: boolean;
  lastEventAt: Date | null;
  clicks24h: number;
  leads24h: number;
  sales24h: number;
}

/**
 * The click's own path, without BEGIN/COMMIT: one read for link and program (which may be up to
 * a second old), one atomic write for the click, its tracking event and the request's count.
 */
export interface ClickPath {
  findLinkWithProgram(shortLink: string): Promise<{ link: ReferralLink; program: Program | null } | null>;
  findClick(clickId: string): Promise<ClickWithCode | null>;
  /** With `count`: counted in the same statement, and nothing written when over its limit. */
  insertClickWithEvent(click: NewClick, event: Omit<NewTrackingEvent, 'clickId'>, count?: RequestCount): Promise<RateLimitHit | null>;
}

/** Runs tracking work in one transaction: what the processor's use cases need of a store. */
export interface Transactions {
  transaction<T>(fn: (tx: TrackingTx) => Promise<T>): Promise<T>;
}

export interface Store extends Transactions {
  clickPath(): ClickPath;
  findApiKeyByHash(keyHash: Buffer): Promise<ApiKeyRecord | null>;
  readinessFacts(programId: number, now: Date): Promise<ReadinessFacts>;
}
