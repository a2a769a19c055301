// The tracking transaction's statements for many rows at once. A worker's batch sends the same
// statement of several events as one (src/db/tracking/coalesced-tracking.ts); PgTrackingTx's own methods
// are these with one row, so each statement is written once. Rows come back in the order given.
import { errors } from '../../core/errors.js';
import type { NewCommission, NewCustomer, NewSale, WrittenWithSale } from '../../core/ports.js';
import type { Customer } from '../../core/types.js';
import { termsSnapshot } from '../../core/partners.js';
import { countEventsCte } from './hourly-counts.js';
import { appendEntriesOf } from '../money/ledger.js';
import { wakeAttributionWaits } from './attribution-waits.js';
import type { PoolClient } from '../infra/pool.js';
import { prepared } from '../infra/prepared.js';
import { type Column, columnValues, unnestRows } from '../infra/row-sets.js';
import { CUSTOMER_COLUMNS, toCustomer } from '../infra/rows.js';

type Row = Record<string, any>;

/** The rows as the CTE `input`, each with a new id drawn from `sequence` (written with that id, so rows and results pair up). */
const input = <T>(columns: readonly Column<T>[], sequence: string) => `input AS (SELECT nextval('${sequence}'::regclass) AS id, t.* FROM ${unnestRows(columns)})`;

// A scalar account: the plan is one probe of the sales' (account_id, processor_event_id) key, prepared or not.
export const SALE_ID_BY_TRANSACTION = 'SELECT id FROM sales WHERE account_id = (SELECT account_id FROM programs WHERE id = $1) AND processor_event_id = $2';

/**
 * A look-up written for one set of parameters ($1, $2, ...), run for many: each set's rows (at
 * most one is kept), or null when it found none. `types` are the parameters' types.
 */
export async function lookUpEach(client: PoolClient, single: string, types: readonly string[], params: readonly unknown[][]): Promise<(Row | null)[]> {
  const body = single.replace(/\$(\d+)/g, (_, n) => `t.p${n}`);
  const columns = types.map((type, i): Column<readonly unknown[]> => [`p${i + 1}`, type, (set) => set[i]]);
  const { rows } = await client.query(
    prepared(
      `SELECT t.ord, r.* FROM ${unnestRows(columns)}
         LEFT JOIN LATERAL (SELECT true AS found_, s.* FROM (${body}) s LIMIT 1) r ON true`,
      columnValues(columns, params),
    ),
  );
  const found: (Row | null)[] = params.map(() => null);
  for (const row of rows) if (row.found_) found[Number(row.ord) - 1] = row;
  return found;
}

/** No customer of the program holds this processor customer yet: the first one bound keeps it. */
export const stripeCustomerFree = (programId: string, processorCustomerId: string) =>
  `NOT EXISTS (SELECT 1 FROM customers WHERE program_id = ${programId} AND processor_customer_id = ${processorCustomerId})`;

const CUSTOMER_INPUT: readonly Column<NewCustomer>[] = [
  ['program_id', 'bigint', (c) => c.programId],
  ['customer_key', 'text', (c) => c.customerKey],
  ['status', 'text', (c) => c.status],
  ['click_id', 'text', (c) => c.clickId],
  ['clicked_at', 'timestamptz', (c) => c.clickedAt],
  ['link_id', 'bigint', (c) => c.linkId],
  ['partner_id', 'bigint', (c) => c.partnerId],
  ['email_hash', 'bytea', (c) => c.emailHash],
  ['provisional_lead', 'boolean', (c) => c.provisionalLead],
  ['lead_at', 'timestamptz', (c) => c.leadAt],
  ['converted_at', 'timestamptz', (c) => c.convertedAt],
  ['lead_ip', 'inet', (c) => c.leadIp ?? null],
  ['processor_customer_id', 'text', (c) => c.processorCustomerId ?? null],
  ['name', 'text', (c) => c.name ?? null],
];

/**
 * New customers; each gets its processor customer unless a customer of the program holds it already.
 * Payments waiting for one of their keys become due (wakeAttributionWaits).
 */
export async function insertCustomers(client: PoolClient, customers: readonly NewCustomer[]): Promise<Customer[]> {
  const { rows } = await client.query(
    prepared(
      `WITH ${input(CUSTOMER_INPUT, 'customers_id_seq')},
       written AS (
         INSERT INTO customers (id, program_id, customer_key, status, click_id, clicked_at, link_id, partner_id, email_hash,
                                provisional_lead, lead_at, converted_at, lead_ip, name, processor_customer_id)
         SELECT i.id, i.program_id, i.customer_key, i.status, i.click_id, i.clicked_at, i.link_id, i.partner_id, i.email_hash,
                i.provisional_lead, i.lead_at, i.converted_at, i.lead_ip, i.name,
                CASE WHEN ${stripeCustomerFree('i.program_id', 'i.processor_customer_id')} THEN i.processor_customer_id END
           FROM input i ORDER BY i.ord
         RETURNING ${CUSTOMER_COLUMNS}, email_hash, processor_customer_id
       ), ${wakeAttributionWaits('written')}
       SELECT written.* FROM written JOIN input i USING (id) ORDER BY i.ord`,
      columnValues(CUSTOMER_INPUT, customers),
    ),
  );
  return rows.map(toCustomer);
}

type SaleWithWrites = { sale: NewSale; withSale: WrittenWithSale };

const SALE_INPUT: readonly Column<SaleWithWrites>[] = [
  ['program_id', 'bigint', ({ sale }) => sale.programId],
  ['customer_id', 'bigint', ({ sale }) => sale.customerId],
  ['partner_id', 'bigint', ({ sale }) => sale.partnerId],
  ['processor_event_id', 'text', ({ sale }) => sale.processorEventId],
  ['amount_cents', 'bigint', ({ sale }) => sale.amountCents],
  ['currency', 'text', ({ sale }) => sale.currency],
  ['occurred_at', 'timestamptz', ({ sale }) => sale.occurredAt],
  ['provider', 'text', ({ sale }) => sale.provider],
  ['provider_payment_id', 'text', ({ sale }) => sale.providerPaymentId],
  ['livemode', 'boolean', ({ sale }) => sale.livemode],
  ['test', 'boolean', ({ sale }) => sale.test],
  ['sale_type', 'text', ({ sale }) => sale.saleType],
  ['is_recurring', 'boolean', ({ sale }) => sale.isRecurring],
  ['subscription_id', 'text', ({ sale }) => sale.subscriptionId],
  ['subscription_interval', 'text', ({ sale }) => sale.subscriptionInterval],
  ['event_name', 'text', ({ sale }) => sale.eventName],
  ['tax_cents', 'bigint', ({ sale }) => sale.taxCents],
  ['attribution_step', 'text', ({ sale }) => sale.attributionStep],
  ['source', 'text', ({ sale }) => sale.source],
  ['details', 'jsonb', ({ sale }) => sale.details],
  ['commission_reason', 'text', ({ sale }) => sale.commissionReason],
  // Lists go as jsonb: unnest would flatten a text[][].
  ['product_ids', 'jsonb', ({ sale }) => JSON.stringify(sale.purchase?.productIds ?? [])],
  ['price_ids', 'jsonb', ({ sale }) => JSON.stringify(sale.purchase?.priceIds ?? [])],
  ['billing_interval', 'text', ({ sale }) => sale.purchase?.interval ?? null],
  ['buyer_country', 'text', ({ sale }) => sale.purchase?.country ?? null],
  ['event_program_id', 'bigint', ({ withSale }) => withSale.event.programId],
  ['event_kind', 'text', ({ withSale }) => withSale.event.kind],
  ['event_customer_id', 'bigint', ({ withSale }) => withSale.event.customerId],
  ['event_click_id', 'text', ({ withSale }) => withSale.event.clickId],
  ['event_test', 'boolean', ({ withSale }) => withSale.event.test],
  ['event_details', 'jsonb', ({ withSale }) => withSale.event.details],
  ['event_created_at', 'timestamptz', ({ withSale }) => withSale.event.createdAt],
  ['converted_customer_id', 'bigint', ({ withSale }) => withSale.customer?.id ?? null],
  ['converted_at', 'timestamptz', ({ withSale }) => withSale.customer?.convertedAt ?? null],
];

/**
 * Sales, each (only if it was written: its transaction id free in the brand) with its tracking
 * event and count and its customer's conversion. A sale whose transaction id was taken is the
 * duplicate-sale error naming the sale that holds it; nothing of it is written.
 */
export async function insertSales(client: PoolClient, sales: readonly SaleWithWrites[]): Promise<(number | Error)[]> {
  const { rows } = await client.query(
    prepared(
      `WITH ${input(SALE_INPUT, 'sales_id_seq')},
       sale AS (
         INSERT INTO sales (id, program_id, customer_id, partner_id, processor_event_id, amount_cents, currency, occurred_at,
                            provider, provider_payment_id, livemode, test, sale_type, is_recurring, subscription_id,
                            subscription_interval, event_name, tax_cents, attribution_step, source, details, commission_reason, account_id,
                            product_ids, price_ids, billing_interval, buyer_country)
         SELECT i.id, i.program_id, i.customer_id, i.partner_id, i.processor_event_id, i.amount_cents, i.currency, i.occurred_at,
                i.provider, i.provider_payment_id, i.livemode, i.test, i.sale_type, i.is_recurring, i.subscription_id,
                i.subscription_interval, i.event_name, i.tax_cents, i.attribution_step, i.source, i.details, i.commission_reason, p.account_id,
                ARRAY(SELECT jsonb_array_elements_text(i.product_ids)), ARRAY(SELECT jsonb_array_elements_text(i.price_ids)), i.billing_interval, i.buyer_country
           FROM input i JOIN programs p ON p.id = i.program_id ORDER BY i.ord
         ON CONFLICT (account_id, processor_event_id) DO NOTHING
         RETURNING id
       ), written AS (SELECT i.* FROM input i JOIN sale USING (id)),
       ${countEventsCte('written', 'event_program_id', 'event_kind', 'event_created_at', 'event_test')},
       event AS (
         INSERT INTO tracking_events (program_id, kind, customer_id, click_id, sale_id, test, details, created_at, sale_occurred_at)
         SELECT w.event_program_id, w.event_kind, w.event_customer_id, w.event_click_id, w.id, w.event_test, w.event_details, w.event_created_at, w.occurred_at
           FROM written w ORDER BY w.ord
       ), conversion AS (
         UPDATE customers c SET status = 'customer', provisional_lead = false, converted_at = coalesce(w.converted_at, c.converted_at)
           FROM written w WHERE c.id = w.converted_customer_id
       )
       SELECT i.ord, i.program_id, i.processor_event_id, sale.id FROM input i LEFT JOIN sale USING (id) ORDER BY i.ord`,
      columnValues(SALE_INPUT, sales),
    ),
  );
  return Promise.all(
    rows.map(async (row) => {
      if (row.id !== null) return Number(row.id);
      // Another transaction committed the same transaction id first.
      const { rows: held } = await client.query(prepared(SALE_ID_BY_TRANSACTION, [row.program_id, row.processor_event_id]));
      return errors.duplicateSale(held[0]?.id ?? 0);
    }),
  );
}

const COMMISSION_INPUT: readonly Column<NewCommission>[] = [
  ['sale_id', 'bigint', (c) => c.saleId],
  ['lead_customer_id', 'bigint', (c) => c.leadCustomerId ?? null],
  ['click_reward_day_id', 'bigint', (c) => c.clickRewardDayId ?? null],
  ['program_id', 'bigint', (c) => c.programId],
  ['partner_id', 'bigint', (c) => c.partnerId],
  ['amount_cents', 'bigint', (c) => c.amountCents],
  ['currency', 'text', (c) => c.currency],
  ['hold_reasons', 'jsonb', (c) => JSON.stringify(c.holdReasons)],
  ['test', 'boolean', (c) => c.test],
  ['terms', 'jsonb', (c) => termsSnapshot(c.terms)],
  ['hold_days', 'integer', (c) => c.terms.holdDays],
  ['sanction_id', 'bigint', (c) => c.rejectedBy?.sanctionId ?? null],
  ['rule_set_id', 'bigint', (c) => c.explanation?.ruleSetId ?? null],
  ['rule_id', 'text', (c) => c.explanation?.ruleId ?? null],
  ['reward_words', 'text', (c) => c.explanation?.words ?? null],
  ['reward_month', 'date', (c) => c.explanation?.rewardMonth?.toISOString().slice(0, 10) ?? null],
  ['entry_kind', 'text', (c) => c.ledger.kind],
  ['entry_pending', 'bigint', (c) => c.ledger.pendingCents],
  ['entry_approved', 'bigint', (c) => c.ledger.approvedCents],
  ['entry_paid', 'bigint', (c) => c.ledger.paidCents],
  ['entry_reason', 'text', (c) => c.ledger.reason],
  ['ban_kind', 'text', (c) => c.rejectedBy?.ledger.kind ?? null],
  ['ban_pending', 'bigint', (c) => c.rejectedBy?.ledger.pendingCents ?? null],
  ['ban_approved', 'bigint', (c) => c.rejectedBy?.ledger.approvedCents ?? null],
  ['ban_paid', 'bigint', (c) => c.rejectedBy?.ledger.paidCents ?? null],
  ['ban_reason', 'text', (c) => c.rejectedBy?.ledger.reason ?? null],
];

/** Commissions, each with its first ledger entry, and (a banned partner's) the rejection's entry after it. */
export async function insertCommissions(client: PoolClient, commissions: readonly NewCommission[]): Promise<number[]> {
  const { rows } = await client.query(
    prepared(
      `WITH ${input(COMMISSION_INPUT, 'commissions_id_seq')},
       held AS (SELECT i.*, ARRAY(SELECT jsonb_array_elements_text(i.hold_reasons)) AS holds FROM input i),
       commission AS (
         INSERT INTO commissions (id, sale_id, lead_customer_id, click_reward_day_id, program_id, partner_id, amount_cents, currency, stage, hold_reasons, test, terms, hold_days,
                                  rejected_by_sanction_id, stage_before_sanction, rule_set_id, rule_id, reward_words, reward_month)
         SELECT h.id, h.sale_id, h.lead_customer_id, h.click_reward_day_id, h.program_id, h.partner_id, h.amount_cents, h.currency,
                CASE WHEN h.sanction_id IS NOT NULL THEN 'rejected' WHEN cardinality(h.holds) > 0 THEN 'held' ELSE 'pending' END,
                nullif(h.holds, '{}'), h.test, h.terms, h.hold_days, h.sanction_id,
                CASE WHEN h.sanction_id IS NULL THEN NULL WHEN cardinality(h.holds) > 0 THEN 'held' ELSE 'pending' END,
                h.rule_set_id, h.rule_id, h.reward_words, h.reward_month
           FROM held h ORDER BY h.ord
         RETURNING id, program_id, partner_id, currency
       ), made AS (SELECT i.* FROM commission c JOIN input i USING (id)),
       entry AS (${appendEntriesOf('made', ['s.entry_kind', 's.entry_pending', 's.entry_approved', 's.entry_paid', 's.entry_reason'])}),
       banned AS (${appendEntriesOf('made', ['s.ban_kind', 's.ban_pending', 's.ban_approved', 's.ban_paid', 's.ban_reason'])} WHERE s.sanction_id IS NOT NULL)
       SELECT i.id FROM input i ORDER BY i.ord`,
      columnValues(COMMISSION_INPUT, commissions),
    ),
  );
  return rows.map((row) => Number(row.id));
}
