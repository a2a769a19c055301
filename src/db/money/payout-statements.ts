// A partner's payout statements: one payout with the commissions it paid and the clawbacks it
// netted, the brand's statement details, and the partner's invoice details. Every read is scoped
// by the partner row (a payout of another partner reads as none) or by the signed-in email.
import type { StatementClawback, StatementCommission } from '../../core/payout-statements.js';
import type { IssuedNumber } from '../../core/statement-numbers.js';
import { type StatementSnapshot, parseSnapshot } from '../../core/statement-snapshot.js';
import type { Currency } from '../../core/types.js';
import type { Pool, PoolClient } from '../infra/pool.js';

type Queryable = Pool | PoolClient;

export interface StatementPayout {
  id: number;
  partnerId: number;
  batchId: number;
  currency: Currency;
  amountCents: number;
  status: string;
  reference: string | null;
  paidAt: Date | null;
  createdAt: Date;
  /** Why it failed or came back ('failed' payouts only). */
  failureReason?: string | null;
  failedAt?: Date | null;
  /** As the run recorded them (null on payouts made before they were recorded). */
  payoutMethod: string | null;
  payTo: string | null;
  programName: string;
  brand: StatementDetails;
  partnerName: string;
  /** The partner row's email (the brand's to edit; a person's details reach the statement only when shared with this row). */
  partnerEmail: string | null;
  /** Issued when the payout was paid (never before, never again). */
  statementNumber: IssuedNumber | null;
  /** The title and parties as they were when the number was issued (null before, and on numbers issued before snapshots were kept). */
  statementSnapshot: StatementSnapshot | null;
}

export interface StatementDetails {
  legalName: string;
  address: string;
  taxId: string;
}

type PayoutStatementRead = { payout: StatementPayout; commissions: StatementCommission[]; clawbacks: StatementClawback[] };

/** One payout of this partner row (not canceled), its commissions and clawbacks; null when it is not theirs. */
export const partnerPayoutStatement = (db: Queryable, partnerId: number, payoutId: number) => payoutStatement(db, 'partner_id', partnerId, payoutId);

/** One payout of this program (not canceled), for the brand's own copy of the statement; null when it is not the program's. */
export const programPayoutStatement = (db: Queryable, programId: number, payoutId: number) => payoutStatement(db, 'program_id', programId, payoutId);

async function payoutStatement(db: Queryable, scopeColumn: 'partner_id' | 'program_id', scopeId: number, payoutId: number): Promise<PayoutStatementRead | null> {
  if (!Number.isSafeInteger(scopeId) || !Number.isSafeInteger(payoutId)) return null;
  const { rows } = await db.query(
    `SELECT p.id, p.batch_id, p.partner_id, p.currency, p.amount_cents, p.status, p.reference, p.paid_at, p.created_at, p.payout_method, p.pay_to, p.failure_reason, p.failed_at,
            pr.name AS program_name, pr.statement_legal_name, pr.statement_address, pr.statement_tax_id, pa.name AS partner_name, pa.email AS partner_email,
            sn.number AS statement_number, sn.prefix AS statement_prefix, sn.issued_at AS statement_issued_at, sn.snapshot AS statement_snapshot
       FROM payouts p JOIN programs pr ON pr.id = p.program_id JOIN partners pa ON pa.id = p.partner_id
       LEFT JOIN statement_numbers sn ON sn.payout_id = p.id
      WHERE p.id = $1 AND p.${scopeColumn} = $2 AND p.status <> 'canceled'`,
    [payoutId, scopeId],
  );
  const p = rows[0];
  if (!p) return null;
  const partnerId = Number(p.partner_id);
  // A payout that failed after it was paid gave its commissions and clawbacks back (they are owed
  // again): its numbered statement keeps the lines it paid, read from the ledger entries that
  // marking it paid wrote under it.
  const reversed = p.status === 'failed' && p.paid_at !== null;
  const [commissions, clawbacks] = await Promise.all(reversed ? [
    db.query(
      // As the paid branch below: a click day's line dated by its day, every line with its words.
      `SELECT c.id, s.processor_event_id, coalesce(s.occurred_at, d.day::timestamp AT TIME ZONE 'UTC', c.created_at) AS occurred_at, s.amount_cents AS sale_cents, l.paid_cents AS payout_cents, c.reward_words
         FROM commission_ledger l JOIN commissions c ON c.id = l.commission_id LEFT JOIN sales s ON s.id = c.sale_id LEFT JOIN click_reward_days d ON d.id = c.click_reward_day_id
        WHERE l.payout_id = $1 AND l.kind = 'paid' AND l.partner_id = $2 ORDER BY 3, c.id`,
      [payoutId, partnerId],
    ),
    db.query(
      `SELECT l.id, l.commission_id, l.paid_cents AS amount_cents, coalesce(made.created_at, l.created_at) AS created_at, s.processor_event_id, coalesce(s.occurred_at, c.created_at) AS occurred_at
         FROM commission_ledger l JOIN commissions c ON c.id = l.commission_id LEFT JOIN sales s ON s.id = c.sale_id
         LEFT JOIN LATERAL (SELECT m.created_at FROM commission_ledger m WHERE m.commission_id = l.commission_id AND m.kind = 'clawed_back' AND m.id < l.id ORDER BY m.id DESC LIMIT 1) made ON true
        WHERE l.payout_id = $1 AND l.kind = 'clawback_settled' AND l.partner_id = $2 ORDER BY l.id`,
      [payoutId, partnerId],
    ),
  ] : [
    db.query(
      // A bounty's, a lead's or a click day's commission has no sale: its date is its own (a click day's: the day), its words say what it paid for.
      `SELECT c.id, s.processor_event_id, coalesce(s.occurred_at, d.day::timestamp AT TIME ZONE 'UTC', c.created_at) AS occurred_at, s.amount_cents AS sale_cents, c.payout_cents, c.bounty_award_id, c.reward_words
         FROM commissions c LEFT JOIN sales s ON s.id = c.sale_id LEFT JOIN click_reward_days d ON d.id = c.click_reward_day_id
        WHERE c.payout_id = $1 AND c.partner_id = $2 ORDER BY 3, c.id`,
      [payoutId, partnerId],
    ),
    db.query(
      `SELECT k.id, k.commission_id, k.amount_cents, k.created_at, s.processor_event_id, coalesce(s.occurred_at, c.created_at) AS occurred_at
         FROM clawbacks k JOIN commissions c ON c.id = k.commission_id LEFT JOIN sales s ON s.id = c.sale_id
        WHERE k.payout_id = $1 AND k.partner_id = $2 ORDER BY k.created_at, k.id`,
      [payoutId, partnerId],
    ),
  ]);
  return {
    payout: {
      id: Number(p.id), partnerId, batchId: Number(p.batch_id), currency: p.currency, amountCents: Number(p.amount_cents), status: p.status, reference: p.reference,
      paidAt: p.paid_at, createdAt: p.created_at, failureReason: p.failure_reason, failedAt: p.failed_at, payoutMethod: p.payout_method, payTo: p.pay_to, programName: p.program_name,
      brand: { legalName: p.statement_legal_name, address: p.statement_address, taxId: p.statement_tax_id }, partnerName: p.partner_name,
      partnerEmail: p.partner_email,
      statementNumber: p.statement_number === null ? null : { number: Number(p.statement_number), prefix: p.statement_prefix, issuedAt: p.statement_issued_at },
      statementSnapshot: parseSnapshot(p.statement_snapshot),
    },
    commissions: commissions.rows.map((r) => ({
      commissionId: Number(r.id), transactionId: r.processor_event_id, saleDate: r.occurred_at, saleCents: r.sale_cents === null ? null : Number(r.sale_cents), paidCents: Number(r.payout_cents),
      words: r.reward_words ?? null,
    })),
    clawbacks: clawbacks.rows.map((r) => ({
      clawbackId: Number(r.id), commissionId: Number(r.commission_id), transactionId: r.processor_event_id, saleDate: r.occurred_at, amountCents: Number(r.amount_cents), madeAt: r.created_at,
    })),
  };
}

export interface InvoiceDetails {
  name: string;
  address: string;
  country: string;
  taxId: string;
}

/** The signed-in person's own invoice details, or null before they gave any (a brand reads them through partner-detail-shares.ts only). */
export async function invoiceDetails(db: Queryable, email: string): Promise<InvoiceDetails | null> {
  const { rows } = await db.query('SELECT name, address, country, tax_id FROM partner_invoice_details WHERE email = lower($1)', [email]);
  return rows[0] ? { name: rows[0].name, address: rows[0].address, country: rows[0].country, taxId: rows[0].tax_id } : null;
}

export async function saveInvoiceDetails(db: Queryable, email: string, details: InvoiceDetails, at: Date): Promise<void> {
  await db.query(
    `INSERT INTO partner_invoice_details (email, name, address, country, tax_id, updated_at) VALUES (lower($1), $2, $3, $4, $5, $6)
     ON CONFLICT (email) DO UPDATE SET name = EXCLUDED.name, address = EXCLUDED.address, country = EXCLUDED.country, tax_id = EXCLUDED.tax_id, updated_at = EXCLUDED.updated_at`,
    [email, details.name, details.address, details.country, details.taxId, at],
  );
}

/** The brand as its statements name it (the program's). */
export async function statementDetails(db: Queryable, programId: number): Promise<StatementDetails | null> {
  const { rows } = await db.query('SELECT statement_legal_name, statement_address, statement_tax_id FROM programs WHERE id = $1', [programId]);
  return rows[0] ? { legalName: rows[0].statement_legal_name, address: rows[0].statement_address, taxId: rows[0].statement_tax_id } : null;
}

export async function setStatementDetails(db: Queryable, programId: number, details: StatementDetails): Promise<void> {
  await db.query('UPDATE programs SET statement_legal_name = $2, statement_address = $3, statement_tax_id = $4 WHERE id = $1', [programId, details.legalName, details.address, details.taxId]);
}

/** The other programs of the account with a tax id on their statements (the brand's one series). */
export async function otherProgramsTaxIds(db: Queryable, accountId: number, programId: number): Promise<{ programName: string; taxId: string }[]> {
  const { rows } = await db.query("SELECT name, statement_tax_id FROM programs WHERE account_id = $1 AND id <> $2 AND statement_tax_id <> '' ORDER BY id", [accountId, programId]);
  return rows.map((r) => ({ programName: r.name, taxId: r.statement_tax_id }));
}
