// Paying a batch through PayPal or Wise (src/app/money/payout-providers.ts): the brand's sealed
// credentials, the sends (one request to the provider, its id reused by every retry) and each
// payout's item with the provider's outcome. Migration 0070.
import { JOB_SCHEMA, PROVIDER_PAYOUTS_QUEUE } from '../../core/queue-names.js';
import { insertJobs } from '../infra/job-rows.js';
import type { Pool, PoolClient } from '../infra/pool.js';

type Queryable = Pool | PoolClient;

export type PayoutProvider = 'paypal' | 'wise';
/** Who a send goes through: PayPal or Wise (the brand's credentials), or Stripe (the platform's key, migration 0074). */
export type SendProvider = PayoutProvider | 'stripe';
export type ItemOutcome = 'not_sent' | 'sending' | 'open' | 'paid' | 'failed';

export interface ProviderAccountRow {
  provider: PayoutProvider;
  clientId: string | null;
  profileId: number | null;
  secretSealed: string;
  secretLast4: string;
  sandbox: boolean;
  updatedAt: Date;
}

const toAccount = (r: any): ProviderAccountRow => ({
  provider: r.provider,
  clientId: r.client_id,
  profileId: r.profile_id === null ? null : Number(r.profile_id),
  secretSealed: r.secret_sealed,
  secretLast4: r.secret_last4,
  sandbox: r.sandbox,
  updatedAt: r.updated_at,
});

export async function providerAccounts(db: Queryable, programId: number): Promise<ProviderAccountRow[]> {
  const { rows } = await db.query('SELECT * FROM payout_provider_accounts WHERE program_id = $1 ORDER BY provider', [programId]);
  return rows.map(toAccount);
}

export async function providerAccount(db: Queryable, programId: number, provider: PayoutProvider): Promise<ProviderAccountRow | null> {
  const { rows } = await db.query('SELECT * FROM payout_provider_accounts WHERE program_id = $1 AND provider = $2', [programId, provider]);
  return rows[0] ? toAccount(rows[0]) : null;
}

/**
 * Saves the account; a secret left out (null) keeps the saved one. False when there is none to keep.
 */
export async function saveProviderAccount(
  db: Queryable,
  programId: number,
  provider: PayoutProvider,
  change: { clientId: string | null; profileId: number | null; secretSealed: string | null; secretLast4: string | null; sandbox: boolean; at: Date },
): Promise<boolean> {
  const { rowCount } = await db.query(
    `INSERT INTO payout_provider_accounts AS a (program_id, provider, client_id, profile_id, secret_sealed, secret_last4, sandbox, updated_at)
     SELECT $1, $2, $3, $4, $5, $6, $7, $8 WHERE $5::text IS NOT NULL
     ON CONFLICT (program_id, provider) DO UPDATE SET client_id = EXCLUDED.client_id, profile_id = EXCLUDED.profile_id, secret_sealed = EXCLUDED.secret_sealed,
       secret_last4 = EXCLUDED.secret_last4, sandbox = EXCLUDED.sandbox, updated_at = EXCLUDED.updated_at`,
    [programId, provider, change.clientId, change.profileId, change.secretSealed, change.secretLast4, change.sandbox, change.at],
  );
  if ((rowCount ?? 0) > 0) return true;
  const kept = await db.query(
    'UPDATE payout_provider_accounts SET client_id = $3, profile_id = $4, sandbox = $5, updated_at = $6 WHERE program_id = $1 AND provider = $2',
    [programId, provider, change.clientId, change.profileId, change.sandbox, change.at],
  );
  return (kept.rowCount ?? 0) > 0;
}

export async function batchExists(db: Queryable, programId: number, batchId: number): Promise<boolean> {
  const { rows } = await db.query('SELECT 1 FROM payout_batches WHERE program_id = $1 AND id = $2', [programId, batchId]);
  return rows.length > 0;
}

/** A batch's pending payouts paid by this method (the details they were made with), locked in id order. */
export async function lockPendingOfMethod(client: PoolClient, programId: number, batchId: number, method: SendProvider) {
  const { rows } = await client.query(
    `SELECT po.id, po.partner_id, pa.name AS partner_name, po.currency, po.amount_cents, coalesce(po.pay_to, pa.payout_reference) AS pay_to
       FROM payouts po JOIN partners pa ON pa.id = po.partner_id
      WHERE po.program_id = $1 AND po.batch_id = $2 AND po.status = 'pending' AND coalesce(po.payout_method, pa.payout_method) = $3
      ORDER BY po.id FOR UPDATE OF po`,
    [programId, batchId, method],
  );
  return rows.map((r) => ({
    payoutId: Number(r.id), partnerId: Number(r.partner_id), partnerName: r.partner_name as string, currency: r.currency as string,
    amountCents: Number(r.amount_cents), payTo: r.pay_to as string | null,
  }));
}

/** A send of these payouts, and its job, in the caller's transaction (the claim's). */
export async function insertSend(client: PoolClient, programId: number, batchId: number, provider: SendProvider, payoutIds: number[], at: Date, schema = JOB_SCHEMA): Promise<number> {
  const { rows } = await client.query(
    `WITH send AS (
       INSERT INTO provider_payout_sends (program_id, batch_id, provider, created_at) VALUES ($1, $2, $3, $4) RETURNING id
     ), items AS (
       INSERT INTO provider_payout_items AS i (payout_id, program_id, send_id, provider, outcome, updated_at)
       SELECT p, $1, send.id, $3, 'sending', $4 FROM send, unnest($5::bigint[]) AS p
       ON CONFLICT (payout_id) DO UPDATE SET send_id = EXCLUDED.send_id, provider = EXCLUDED.provider, outcome = 'sending', provider_item_id = NULL,
         provider_status = NULL, reason = NULL, sent_at = NULL, checked_at = NULL, updated_at = EXCLUDED.updated_at
     ), job AS (
       ${insertJobs({ schema, queue: '$6', data: "jsonb_build_object('sendId', send.id)", from: 'send' })}
     ) SELECT id FROM send`,
    [programId, batchId, provider, at, payoutIds, PROVIDER_PAYOUTS_QUEUE],
  );
  return Number(rows[0].id);
}

/** Payouts the provider cannot take: recorded with why (they stay pending). */
export async function markNotSent(db: Queryable, programId: number, provider: SendProvider, lines: { payoutId: number; reason: string }[], at: Date): Promise<void> {
  if (lines.length === 0) return;
  await db.query(
    `INSERT INTO provider_payout_items AS i (payout_id, program_id, send_id, provider, outcome, reason, updated_at)
     SELECT p, $1, NULL, $2, 'not_sent', r, $5 FROM unnest($3::bigint[], $4::text[]) AS x (p, r)
     ON CONFLICT (payout_id) DO UPDATE SET send_id = NULL, provider = EXCLUDED.provider, outcome = 'not_sent', reason = EXCLUDED.reason, provider_item_id = NULL,
       provider_status = NULL, sent_at = NULL, updated_at = EXCLUDED.updated_at`,
    [programId, provider, lines.map((l) => l.payoutId), lines.map((l) => l.reason.slice(0, 1000)), at],
  );
}

export interface SendRow {
  id: number;
  programId: number;
  batchId: number;
  provider: SendProvider;
  state: 'sending' | 'sent' | 'refused';
  providerBatchId: string | null;
  attempts: number;
}

const toSend = (r: any): SendRow => ({
  id: Number(r.id), programId: Number(r.program_id), batchId: Number(r.batch_id), provider: r.provider, state: r.state, providerBatchId: r.provider_batch_id, attempts: r.attempts,
});

/**
 * Takes the send for one attempt: only while it is still sending and nobody else holds it (an
 * attempt in flight holds it until `leaseUntil`; a crashed one loses it then). Null: done, or busy.
 */
export async function leaseSend(db: Queryable, sendId: number, now: Date, leaseUntil: Date): Promise<SendRow | null> {
  const { rows } = await db.query(
    `UPDATE provider_payout_sends SET lease_until = $3, attempts = attempts + 1
      WHERE id = $1 AND state = 'sending' AND (lease_until IS NULL OR lease_until <= $2) RETURNING *`,
    [sendId, now, leaseUntil],
  );
  return rows[0] ? toSend(rows[0]) : null;
}

export async function sendState(db: Queryable, sendId: number): Promise<SendRow['state'] | null> {
  const { rows } = await db.query('SELECT state FROM provider_payout_sends WHERE id = $1', [sendId]);
  return rows[0]?.state ?? null;
}

/** The attempt ended without finishing (the provider out of reach): the next one may start at once. */
export async function releaseSend(db: Queryable, sendId: number, error: string): Promise<void> {
  await db.query('UPDATE provider_payout_sends SET lease_until = NULL, error = $2 WHERE id = $1', [sendId, error.slice(0, 1000)]);
}

export async function finishSend(db: Queryable, sendId: number, end: { state: 'sent' | 'refused'; providerBatchId?: string | null; error?: string | null; at: Date }): Promise<void> {
  await db.query(
    `UPDATE provider_payout_sends SET state = $2, provider_batch_id = coalesce($3, provider_batch_id), error = $4, lease_until = NULL, sent_at = CASE WHEN $2 = 'sent' THEN $5 ELSE sent_at END WHERE id = $1`,
    [sendId, end.state, end.providerBatchId ?? null, end.error?.slice(0, 1000) ?? null, end.at],
  );
}

/** Sends left sending with no attempt holding them (a crash, a job that ran out of retries), created before `before`. */
export async function strandedSends(db: Queryable, now: Date, before: Date, limit: number): Promise<number[]> {
  const { rows } = await db.query(
    `SELECT id FROM provider_payout_sends WHERE state = 'sending' AND created_at < $2 AND (lease_until IS NULL OR lease_until <= $1) ORDER BY created_at LIMIT $3`,
    [now, before, limit],
  );
  return rows.map((r) => Number(r.id));
}

export interface ItemRow {
  payoutId: number;
  programId: number;
  sendId: number | null;
  provider: SendProvider;
  outcome: ItemOutcome;
  providerItemId: string | null;
  providerStatus: string | null;
  reason: string | null;
  sentAt: Date | null;
}

const toItem = (r: any): ItemRow => ({
  payoutId: Number(r.payout_id), programId: Number(r.program_id), sendId: r.send_id === null ? null : Number(r.send_id), provider: r.provider, outcome: r.outcome,
  providerItemId: r.provider_item_id, providerStatus: r.provider_status, reason: r.reason, sentAt: r.sent_at,
});

/** A send's items with what the provider needs of each payout. */
export async function sendItems(db: Queryable, sendId: number) {
  const { rows } = await db.query(
    `SELECT i.*, po.status, po.currency, po.amount_cents, pa.name AS partner_name, coalesce(po.pay_to, pa.payout_reference) AS pay_to
       FROM provider_payout_items i JOIN payouts po ON po.id = i.payout_id JOIN partners pa ON pa.id = po.partner_id
      WHERE i.send_id = $1 ORDER BY i.payout_id`,
    [sendId],
  );
  return rows.map((r) => ({ ...toItem(r), payoutStatus: r.status as string, currency: r.currency as string, amountCents: Number(r.amount_cents), partnerName: r.partner_name as string, payTo: r.pay_to as string | null }));
}

/** What the provider said of an item now. */
export async function recordItem(db: Queryable, payoutId: number, change: { outcome: ItemOutcome; providerItemId?: string | null; providerStatus?: string | null; reason?: string | null; at: Date; sent?: boolean }): Promise<void> {
  await db.query(
    `UPDATE provider_payout_items SET outcome = $2, provider_item_id = coalesce($3, provider_item_id), provider_status = coalesce($4, provider_status), reason = $5,
       sent_at = CASE WHEN $7 THEN coalesce(sent_at, $6) ELSE sent_at END, checked_at = $6, updated_at = $6
      WHERE payout_id = $1`,
    [payoutId, change.outcome, change.providerItemId ?? null, change.providerStatus ?? null, change.reason?.slice(0, 1000) ?? null, change.at, change.sent ?? false],
  );
}

/** Open items to ask the provider about, least recently asked first, with their send's provider batch. */
export async function openItems(db: Queryable, limit: number) {
  const { rows } = await db.query(
    `SELECT i.*, s.provider_batch_id, s.batch_id FROM provider_payout_items i JOIN provider_payout_sends s ON s.id = i.send_id
      WHERE i.outcome = 'open' ORDER BY i.checked_at NULLS FIRST LIMIT $1`,
    [limit],
  );
  return rows.map((r) => ({ ...toItem(r), providerBatchId: r.provider_batch_id as string | null }));
}

/** The items of these payouts of a program (the Payouts page's outcome column). */
export async function itemsOfPayouts(db: Queryable, programId: number, payoutIds: number[]): Promise<ItemRow[]> {
  if (payoutIds.length === 0) return [];
  const { rows } = await db.query('SELECT * FROM provider_payout_items WHERE payout_id = ANY($2::bigint[]) AND program_id = $1', [programId, payoutIds]);
  return rows.map(toItem);
}
