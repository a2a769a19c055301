// TrackingTx over one pg client inside a transaction: every query the tracking use cases run.
import type { CommissionReason, SaleHistory } from '../../core/attribution.js';
import { type DeductionChange, createdEntry } from '../../core/commission-ledger.js';
import { errors } from '../../core/errors.js';
import type { FraudFacts } from '../../core/fraud.js';
import type { OutboundEvent } from '../../core/outbound-events.js';
import type { OutgoingMail } from '../../core/mail.js';
import { queueManagerMail } from '../outbound/mail-outbox.js';
import type {
  CommissionRefundPatch,
  CustomerPatch,
  NewCommission,
  NewCustomer,
  NewRefund,
  NewSale,
  NewTrackingEvent,
  PartnerTerms,
  TrackingTx,
  WrittenWithSale,
} from '../../core/ports.js';
import * as rewards from '../money/reward-rules.js';
import type { Currency } from '../../core/types.js';
import { countEventCte } from './hourly-counts.js';
import { SALE_ID_BY_TRANSACTION, insertCommissions, insertCustomers, insertSales, lookUpEach, stripeCustomerFree } from './tracking-sets.js';
import { appendEntries, entryParams } from '../money/ledger.js';
import { wakeAttributionWaits } from './attribution-waits.js';
import { DEFAULT_OUTBOUND_QUEUE, type OutboundQueue, writeMessage } from '../outbound/messages.js';
import type { PoolClient } from '../infra/pool.js';
import { prepared } from '../infra/prepared.js';
import { CLICK_BY_ID, COMMISSION_COLUMNS, CUSTOMER_COLUMNS, PROGRAM_COLUMNS, normalizeDecimal, toClick, toCommission, toCustomer, toLink, toProgram, toSale } from '../infra/rows.js';

/** Parameters for "no entry" (the statement's entry CTE is skipped). */
const NO_ENTRY = createdEntry(0);

// A sale's refund rows summed by kind: refunds net of failed ones, chargebacks taken and given
// back; one spelling for the per-source look-ups and the sale's total (`refundParts`).
const REFUNDS_NET = `coalesce(sum(amount_cents) FILTER (WHERE reason = 'refund' AND reverted_at IS NULL), 0)
  - coalesce(sum(amount_cents) FILTER (WHERE reason = 'refund_failed'), 0)`;
const CHARGEBACKS_TAKEN = `coalesce(sum(amount_cents) FILTER (WHERE reason = 'chargeback' AND reverted_at IS NULL), 0)`;
const CHARGEBACKS_GIVEN_BACK = `coalesce(sum(amount_cents) FILTER (WHERE reason = 'chargeback_reversed'), 0)`;

export class PgTrackingTx implements TrackingTx {
  private savepoints = 0;
  constructor(
    private readonly client: PoolClient,
    private readonly outbound: OutboundQueue = DEFAULT_OUTBOUND_QUEUE,
  ) {}

  /** Every statement with parameters is a named one (parsed and planned once per connection). */
  private query(text: string, values: unknown[]) {
    return this.client.query(prepared(text, values));
  }

  private async one<T>(sql: string, params: unknown[], map: (row: any) => T): Promise<T | null> {
    const { rows } = await this.query(sql, params);
    return rows[0] ? map(rows[0]) : null;
  }

  /** Event types some enabled endpoint of the program listens to, read with the program (no extra round trip). */
  private readonly listening = new Map<number, Set<string>>();

  getProgram(programId: number) {
    return this.one(PROGRAM_LISTENING, [programId], (row) => this.programRead(row));
  }

  private programRead(row: any) {
    this.listening.set(Number(row.id), new Set(row.listening_event_types));
    return toProgram(row);
  }

  findClick(clickId: string) {
    return this.one(CLICK_BY_ID, [clickId], toClick);
  }

  /*
   * The same call for many argument lists in one statement, results in their order: a worker's
   * batch sends its events' calls together (src/db/tracking/coalesced-tracking.ts). Only these calls.
   */
  readonly each = {
    getProgram: async (calls: [number][]) => (await lookUpEach(this.client, PROGRAM_LISTENING, ['bigint'], calls)).map((row) => row && this.programRead(row)),
    findClick: async (calls: [string][]) => (await lookUpEach(this.client, CLICK_BY_ID, ['text'], calls)).map((row) => row && toClick(row)),
    findSaleIdByTransactionId: async (calls: [number, string][]) =>
      (await lookUpEach(this.client, SALE_ID_BY_TRANSACTION, ['bigint', 'text'], calls)).map((row) => (row ? Number(row.id) : null)),
    findClickCustomer: async (calls: [string, number, string | null][]) =>
      (await lookUpEach(this.client, CLICK_CUSTOMER, ['text', 'bigint', 'text'], calls)).map((row) => toClickCustomer(row!)),
    partnerTerms: async (calls: [number][]) => (await lookUpEach(this.client, PARTNER_TERMS, ['bigint'], calls)).map((row) => row && toPartnerTerms(row)),
    fraudFacts: async (calls: [number, number, number][]) =>
      (await lookUpEach(this.client, FRAUD_FACTS, ['bigint', 'bigint', 'integer'], calls)).map((row) => toFraudFacts(row ?? {})),
    insertCustomer: (calls: [NewCustomer][]) => insertCustomers(this.client, calls.map(([customer]) => customer)),
    insertSale: (calls: [NewSale, WrittenWithSale][]) => insertSales(this.client, calls.map(([sale, withSale]) => ({ sale, withSale }))),
    insertCommission: (calls: [NewCommission][]) => insertCommissions(this.client, calls.map(([commission]) => commission)),
  };

  async insertTrackingEvent(event: NewTrackingEvent): Promise<void> {
    await this.query(
      `WITH ${countEventCte('$1', '$2', '$8', '$6')}
       INSERT INTO tracking_events (program_id, kind, customer_id, click_id, sale_id, test, details, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [event.programId, event.kind, event.customerId, event.clickId, event.saleId, event.test, event.details, event.createdAt],
    );
  }

  findCustomerByKey(programId: number, customerKey: string) {
    return this.one(
      `SELECT ${CUSTOMER_COLUMNS} FROM customers WHERE program_id = $1 AND customer_key = $2 FOR UPDATE`,
      [programId, customerKey],
      toCustomer,
    );
  }

  async customerKeyExistsInOtherProgram(programId: number, customerKey: string): Promise<boolean> {
    const { rowCount } = await this.query(
      'SELECT 1 FROM customers WHERE customer_key = $2 AND program_id <> $1 LIMIT 1',
      [programId, customerKey],
    );
    return (rowCount ?? 0) > 0;
  }

  findCustomerByClickId(clickId: string) {
    return this.one(`SELECT ${CUSTOMER_COLUMNS} FROM customers WHERE click_id = $1 FOR UPDATE`, [clickId], toCustomer);
  }

  async findClickCustomer(clickId: string, programId: number, customerKey: string | null) {
    const { rows } = await this.query(CLICK_CUSTOMER, [clickId, programId, customerKey]);
    return toClickCustomer(rows[0]);
  }

  async insertCustomer(customer: NewCustomer) {
    return (await insertCustomers(this.client, [customer]))[0]!;
  }

  async updateCustomer(customerId: number, patch: CustomerPatch): Promise<void> {
    const params: unknown[] = [customerId];
    const sets = customerSets(patch, params);
    if (sets.length === 0) return;
    // A key the customer gets now may be what a waiting payment names (wakeAttributionWaits).
    const newKeys = patch.customerKey !== undefined || patch.emailHash !== undefined || patch.click !== undefined || patch.processorCustomerId !== undefined;
    if (!newKeys) {
      await this.query(`UPDATE customers SET ${sets.join(', ')} WHERE id = $1`, params);
      return;
    }
    await this.query(
      `WITH updated AS (UPDATE customers SET ${sets.join(', ')} WHERE id = $1 RETURNING program_id, click_id, customer_key, email_hash, processor_customer_id),
       ${wakeAttributionWaits('updated')}
       SELECT 1`,
      params,
    );
  }

  findCustomerByEmailHash(programId: number, emailHash: Buffer) {
    return this.one(
      `SELECT ${CUSTOMER_COLUMNS} FROM customers WHERE program_id = $1 AND email_hash = $2
        ORDER BY lead_at DESC NULLS LAST, id DESC LIMIT 1 FOR UPDATE`,
      [programId, emailHash],
      toCustomer,
    );
  }

  findCustomerByProcessorCustomer(programId: number, processorCustomerId: string) {
    return this.one(
      `SELECT ${CUSTOMER_COLUMNS} FROM customers WHERE program_id = $1 AND processor_customer_id = $2 FOR UPDATE`,
      [programId, processorCustomerId],
      toCustomer,
    );
  }

  async bindProcessorCustomerIfFree(programId: number, customerId: number, processorCustomerId: string): Promise<void> {
    // A payment waiting for this processor customer (its checkout binds it) becomes due (wakeAttributionWaits).
    await this.query(
      `WITH updated AS (UPDATE customers SET processor_customer_id = $3 WHERE id = $2 AND ${stripeCustomerFree('$1', '$3')}
                         RETURNING program_id, click_id, customer_key, email_hash, processor_customer_id),
       ${wakeAttributionWaits('updated')}
       SELECT 1`,
      [programId, customerId, processorCustomerId],
    );
  }

  findSaleByPayment(programId: number, payment: { paymentIds: string[]; transactionIds: string[] }) {
    return this.one(
      `SELECT id, program_id, customer_id, processor_event_id, amount_cents, currency, test
         FROM sales
        WHERE program_id = $1 AND (provider_payment_id = ANY ($2::text[]) OR processor_event_id = ANY ($3::text[])
              OR details -> 'payment_ids' ?| $2::text[]
              OR processor_event_id IN (SELECT invoice_id FROM processor_payment_links
                                         WHERE program_id = $1 AND payment_id = ANY ($2::text[])))
        ORDER BY id LIMIT 1`,
      [programId, payment.paymentIds, payment.transactionIds],
      toSale,
    );
  }

  /** Within the program's brand (account): two brands never share a transaction id. */
  async findSaleIdByTransactionId(programId: number, transactionId: string): Promise<number | null> {
    const { rows } = await this.query(SALE_ID_BY_TRANSACTION, [programId, transactionId]);
    return rows[0]?.id ?? null;
  }

  /** One statement: the sale, then only if it was written (its transaction id free), the customer's change, the event and its count. */
  async insertSale(sale: NewSale, withSale: WrittenWithSale): Promise<number> {
    const [written] = await insertSales(this.client, [{ sale, withSale }]);
    if (written instanceof Error) throw written;
    return written!;
  }

  /** Locks the customer first: two sales of one customer at once decide "first sale" one after the other. */
  async saleHistory(customerId: number): Promise<SaleHistory> {
    await this.query('SELECT 1 FROM customers WHERE id = $1 FOR UPDATE', [customerId]);
    const { rows } = await this.query(
      // The (customer_id, occurred_at) index: the earliest paid sale is one probe.
      `SELECT s.id, s.occurred_at, s.processor_event_id, c.id AS commission_id
         FROM sales s LEFT JOIN commissions c ON c.sale_id = s.id AND c.moved_to_sale_id IS NULL
        WHERE s.customer_id = $1 AND NOT s.test AND s.amount_cents > 0
        ORDER BY s.occurred_at, s.processor_event_id LIMIT 1`,
      [customerId],
    );
    const row = rows[0];
    return {
      firstSale: row
        ? { saleId: Number(row.id), occurredAt: row.occurred_at, transactionId: row.processor_event_id, commissionId: row.commission_id === null ? null : Number(row.commission_id) }
        : null,
    };
  }

  async setCommissionReason(saleId: number, reason: CommissionReason): Promise<void> {
    await this.query('UPDATE sales SET commission_reason = $2 WHERE id = $1', [saleId, reason]);
  }

  async linkPaymentToInvoice(programId: number, paymentId: string, invoiceId: string): Promise<void> {
    await this.query(
      `INSERT INTO processor_payment_links (program_id, payment_id, invoice_id) VALUES ($1, $2, $3)
       ON CONFLICT (program_id, payment_id) DO NOTHING`,
      [programId, paymentId, invoiceId],
    );
  }

  async withSavepoint<T>(fn: () => Promise<T>): Promise<T> {
    const name = `affix_sp_${++this.savepoints}`;
    await this.client.query(`SAVEPOINT ${name}`);
    try {
      const result = await fn();
      await this.client.query(`RELEASE SAVEPOINT ${name}`);
      return result;
    } catch (error) {
      await this.client.query(`ROLLBACK TO SAVEPOINT ${name}`);
      throw error;
    }
  }

  async insertCommission(commission: NewCommission): Promise<number> {
    return (await insertCommissions(this.client, [commission]))[0]!;
  }

  async moveCommission(commissionId: number, toSaleId: number, change: DeductionChange | null): Promise<void> {
    await this.changeCommission(commissionId, 'moved_to_sale_id = $2, moved_at = now(), deducted_cents = amount_cents', [toSaleId], change);
  }

  findSaleInProgram(programId: number, transactionId: string) {
    return this.one(
      `SELECT id, program_id, customer_id, processor_event_id, amount_cents, currency, test
         FROM sales WHERE program_id = $1 AND processor_event_id = $2`,
      [programId, transactionId],
      toSale,
    );
  }

  /** A commission that moved to an earlier sale is no longer its sale's. */
  lockCommissionForSale(saleId: number) {
    return this.one(
      `SELECT ${COMMISSION_COLUMNS} FROM commissions WHERE sale_id = $1 AND moved_to_sale_id IS NULL FOR UPDATE`,
      [saleId],
      toCommission,
    );
  }

  async insertRefund(refund: NewRefund): Promise<boolean> {
    const { rowCount } = await this.query(
      `INSERT INTO refunds (sale_id, commission_id, refund_key, amount_cents, deduction_cents, reason, refund_reason, source)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
       ON CONFLICT (sale_id, refund_key) DO NOTHING`,
      [refund.saleId, refund.commissionId, refund.refundKey, refund.amountCents, refund.deductionCents, refund.reason,
        refund.refundReason, refund.source],
    );
    return (rowCount ?? 0) > 0;
  }

  async processorRefundedCents(saleId: number, source: string): Promise<number> {
    const { rows } = await this.query(
      `SELECT (${REFUNDS_NET})::bigint AS total FROM refunds WHERE sale_id = $1 AND source = $2`,
      [saleId, source],
    );
    return rows[0].total;
  }

  async chargebackAdjustmentCents(saleId: number, source: string): Promise<{ takenCents: number; givenBackCents: number }> {
    const { rows } = await this.query(
      `SELECT (${CHARGEBACKS_TAKEN})::bigint AS taken, (${CHARGEBACKS_GIVEN_BACK})::bigint AS given_back
         FROM refunds WHERE sale_id = $1 AND source = $2`,
      [saleId, source],
    );
    return { takenCents: Number(rows[0].taken), givenBackCents: Number(rows[0].given_back) };
  }

  async refundParts(saleId: number): Promise<{ refundsCents: number; chargebacksCents: number }> {
    const { rows } = await this.query(
      `WITH by_source AS (
         SELECT ${REFUNDS_NET} AS refunds, greatest(0, ${CHARGEBACKS_TAKEN} - ${CHARGEBACKS_GIVEN_BACK}) AS chargebacks
           FROM refunds WHERE sale_id = $1 GROUP BY source)
       SELECT coalesce(sum(refunds), 0)::bigint AS refunds, coalesce(sum(chargebacks), 0)::bigint AS chargebacks FROM by_source`,
      [saleId],
    );
    return { refundsCents: Number(rows[0].refunds), chargebacksCents: Number(rows[0].chargebacks) };
  }

  findActiveRefund(saleId: number, refundKey: string) {
    return this.one(
      `SELECT id, commission_id, amount_cents, deduction_cents FROM refunds
        WHERE sale_id = $1 AND refund_key = $2 AND reverted_at IS NULL FOR UPDATE`,
      [saleId, refundKey],
      (row) => ({ id: row.id, commissionId: row.commission_id, amountCents: row.amount_cents, deductionCents: row.deduction_cents }),
    );
  }

  async refundKeyUsed(saleId: number, refundKey: string): Promise<boolean> {
    const { rowCount } = await this.query('SELECT 1 FROM refunds WHERE sale_id = $1 AND refund_key = $2', [saleId, refundKey]);
    return (rowCount ?? 0) > 0;
  }

  async markRefundReverted(refundId: number): Promise<void> {
    await this.query('UPDATE refunds SET reverted_at = now() WHERE id = $1', [refundId]);
  }

  async updateCommissionAfterRefund(commissionId: number, patch: CommissionRefundPatch): Promise<void> {
    await this.changeCommission(commissionId, 'status = $2, refunded_total_cents = $3, deducted_cents = $4', [patch.status, patch.refundedTotalCents, patch.deductedCents], patch.ledger);
  }

  /**
   * One statement: the commission's change (`sets` with its parameters from $2), its ledger entry,
   * and (once a payout claimed or paid it) the clawback, remembering the payout it was made under.
   */
  private async changeCommission(commissionId: number, sets: string, values: unknown[], change: DeductionChange | null): Promise<void> {
    const flag = values.length + 2;
    const clawback = flag + 6;
    await this.query(
      `WITH commission AS (
         UPDATE commissions SET ${sets}, updated_at = now() WHERE id = $1
         RETURNING id, program_id, partner_id, currency, payout_id
       ), entry AS (${appendEntries('commission', flag + 1)} WHERE $${flag}::boolean)
       , clawback AS (
         INSERT INTO clawbacks (commission_id, program_id, partner_id, currency, amount_cents, made_under_payout_id)
         SELECT id, program_id, partner_id, currency, $${clawback}, payout_id FROM commission WHERE $${clawback}::bigint IS NOT NULL AND partner_id IS NOT NULL)
       SELECT 1`,
      [commissionId, ...values, change !== null, ...entryParams(change?.ledger ?? NO_ENTRY), change?.clawbackCents ?? null],
    );
  }

  async findPromoCode(programId: number, refs: string[]) {
    const { rows } = await this.query(
      `SELECT pc.id, pc.partner_id,
              (SELECT l.id FROM referral_links l WHERE l.partner_id = pc.partner_id AND l.program_id = pc.program_id ORDER BY l.enabled DESC, l.id LIMIT 1) AS link_id
         FROM promo_codes pc
        WHERE pc.program_id = $1 AND pc.active
          AND (pc.stripe_promotion_code_id = ANY ($2::text[]) OR pc.stripe_coupon_id = ANY ($2::text[])
               OR pc.processor_discount_id = ANY ($2::text[]) -- a Paddle discount Affix made (dsc_…)
               OR lower(pc.code) = ANY (SELECT lower(r) FROM unnest($2::text[]) r))
        ORDER BY (pc.stripe_promotion_code_id = ANY ($2::text[])) DESC NULLS LAST, pc.id LIMIT 1`,
      [programId, refs],
    );
    return rows[0] ? { id: Number(rows[0].id), partnerId: Number(rows[0].partner_id), linkId: rows[0].link_id === null ? null : Number(rows[0].link_id) } : null;
  }

  async notifyManagers(programId: number, mail: Omit<OutgoingMail, 'to'>): Promise<void> {
    await queueManagerMail(this.client, programId, mail);
  }

  async partnerTerms(partnerId: number): Promise<PartnerTerms | null> {
    const { rows } = await this.query(PARTNER_TERMS, [partnerId]);
    return rows[0] ? toPartnerTerms(rows[0]) : null;
  }

  rewardTerms(programId: number, groupId: number | null) {
    return rewards.rewardTerms(this.client, programId, groupId);
  }

  rewardHistory(customerId: number, paidAt: Date, transactionId: string) {
    return rewards.rewardHistory(this.client, customerId, paidAt, transactionId);
  }

  partnerFigures(programId: number, partnerId: number, from: Date, to: Date) {
    return rewards.partnerFigures(this.client, programId, partnerId, from, to);
  }

  lockRewardCaps(programId: number) {
    return rewards.lockRewardCaps(this.client, programId);
  }

  rewardUsage(scope: { programId: number; partnerId: number; customerId: number; currency: Currency; month: Date }) {
    return rewards.rewardUsage(this.client, scope);
  }

  async fraudFacts(customerId: number, partnerId: number, ipWindowMinutes: number): Promise<FraudFacts> {
    const { rows } = await this.query(FRAUD_FACTS, [customerId, partnerId, ipWindowMinutes]);
    return toFraudFacts(rows[0] ?? {});
  }

  /** Nothing to write (no statement at all) when no endpoint of the program listens to this type. */
  async emit(event: OutboundEvent): Promise<void> {
    const listening = this.listening.get(event.programId);
    if (listening && !listening.has(event.type)) return;
    await writeMessage(this.client, this.outbound, event);
  }
}

const PROGRAM_LISTENING = `SELECT ${PROGRAM_COLUMNS},
       (SELECT coalesce(array_agg(DISTINCT t), '{}') FROM webhook_endpoints e, unnest(e.event_types) t
         WHERE e.program_id = programs.id AND e.enabled) AS listening_event_types
  FROM programs WHERE id = $1`;


const CLICK_CUSTOMER = `WITH found AS (SELECT ${CUSTOMER_COLUMNS} FROM customers WHERE click_id = $1 FOR UPDATE)
SELECT found.*, EXISTS (SELECT 1 FROM customers WHERE program_id = $2 AND customer_key = $3) AS key_taken
  FROM (VALUES (1)) AS one (n) LEFT JOIN found ON true`;

const toClickCustomer = (row: any) => ({ existing: row.id === null ? null : toCustomer(row), keyTaken: row.key_taken as boolean });

export const PARTNER_TERMS = `SELECT status, source, group_id, override_id, commission_type, commission_rate, recurring_duration_months, hold_days, ban_id
  FROM partner_terms WHERE partner_id = $1`;

export const toPartnerTerms = (row: any): PartnerTerms => ({
  status: row.status,
  source: row.source,
  groupId: row.group_id === null ? null : Number(row.group_id),
  overrideId: row.override_id === null ? null : Number(row.override_id),
  commissionType: row.commission_type,
  commissionRate: normalizeDecimal(row.commission_rate),
  recurringDurationMonths: row.recurring_duration_months,
  holdDays: row.hold_days,
  banId: row.ban_id === null ? null : Number(row.ban_id),
});

const FRAUD_FACTS = `SELECT p.email AS partner_email, c.email_hash, host(k.ip) AS click_ip, c.clicked_at, host(c.lead_ip) AS lead_ip, c.lead_at,
       (SELECT count(*) FROM customers o
         WHERE o.program_id = c.program_id AND o.lead_ip = c.lead_ip
           AND o.lead_at BETWEEN c.lead_at - make_interval(mins => $3) AND c.lead_at)::int AS leads_from_ip,
       coalesce((SELECT o.partner_id <> $2 FROM customers o
                  WHERE o.program_id = c.program_id AND o.email_hash = c.email_hash AND o.id <> c.id AND o.partner_id IS NOT NULL
                    AND (o.created_at, o.id) < (c.created_at, c.id)
                  ORDER BY o.created_at, o.id LIMIT 1), false) AS other_partner
  FROM customers c LEFT JOIN partners p ON p.id = $2 LEFT JOIN clicks k ON k.click_id = c.click_id
 WHERE c.id = $1`;

const toFraudFacts = (row: any): FraudFacts => ({
  partnerEmail: row.partner_email ?? null,
  customerEmailHash: row.email_hash ?? null,
  clickIp: row.click_ip ?? null,
  clickedAt: row.clicked_at ?? null,
  leadIp: row.lead_ip ?? null,
  leadAt: row.lead_at ?? null,
  leadsFromIpInWindow: row.leads_from_ip ?? 0,
  emailReferredByAnotherPartner: row.other_partner ?? false,
});

/** `column = $n` for each field of the patch, its values appended to `params`. */
function customerSets(patch: CustomerPatch, params: unknown[]): string[] {
  const sets: string[] = [];
  const set = (column: string, value: unknown) => {
    params.push(value);
    sets.push(`${column} = $${params.length}`);
  };
  if (patch.customerKey !== undefined) set('customer_key', patch.customerKey);
  if (patch.processorCustomerId !== undefined) set('processor_customer_id', patch.processorCustomerId);
  if (patch.status !== undefined) set('status', patch.status);
  if (patch.emailHash !== undefined) set('email_hash', patch.emailHash);
  if (patch.provisionalLead !== undefined) set('provisional_lead', patch.provisionalLead);
  if (patch.leadAt !== undefined) set('lead_at', patch.leadAt);
  if (patch.convertedAt !== undefined) set('converted_at', patch.convertedAt);
  if (patch.leadIp !== undefined) set('lead_ip', patch.leadIp);
  if (patch.name !== undefined) set('name', patch.name);
  if (patch.click) {
    set('click_id', patch.click.clickId);
    set('clicked_at', patch.click.clickedAt);
    set('link_id', patch.click.linkId);
    set('partner_id', patch.click.partnerId);
  }
  return sets;
}
