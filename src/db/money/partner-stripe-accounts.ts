// Partners' Stripe Express accounts (migrations/0066): one per enrollment, read by the program's
// scope (program_id, partner_id), found by its Stripe id when Stripe tells of a change.
import type { ExpressAccountState } from '../../core/stripe-express.js';
import type { Pool, PoolClient } from '../infra/pool.js';

type Db = Pool | PoolClient;

export interface ExpressAccountRow extends ExpressAccountState {
  programId: number;
  partnerId: number;
  stripeAccountId: string;
  country: string;
  stateAt: Date | null;
}

const COLUMNS = `program_id, partner_id, stripe_account_id, country, charges_enabled, payouts_enabled, details_submitted, currently_due, past_due, disabled_reason, state_at`;

const toRow = (r: Record<string, any>): ExpressAccountRow => ({
  programId: Number(r.program_id),
  partnerId: Number(r.partner_id),
  stripeAccountId: r.stripe_account_id,
  country: r.country,
  chargesEnabled: r.charges_enabled,
  payoutsEnabled: r.payouts_enabled,
  detailsSubmitted: r.details_submitted,
  currentlyDue: r.currently_due,
  pastDue: r.past_due,
  disabledReason: r.disabled_reason,
  stateAt: r.state_at,
});

/** The enrollment's account, if it has one. */
export async function expressAccountOf(db: Db, programId: number, partnerId: number): Promise<ExpressAccountRow | null> {
  const { rows } = await db.query(`SELECT ${COLUMNS} FROM partner_stripe_accounts WHERE program_id = $1 AND partner_id = $2`, [programId, partnerId]);
  return rows[0] ? toRow(rows[0]) : null;
}

/**
 * Records the account Stripe made for the enrollment. Two clicks at once both got the same
 * account (the same idempotency key): the second insert changes nothing. Answers the stored row,
 * and whether this call stored it.
 */
export async function recordExpressAccount(db: Db, account: { programId: number; partnerId: number; stripeAccountId: string; country: string }, state: ExpressAccountState, at: Date): Promise<{ row: ExpressAccountRow | null; inserted: boolean }> {
  const { rowCount } = await db.query(
    `INSERT INTO partner_stripe_accounts (program_id, partner_id, stripe_account_id, country, charges_enabled, payouts_enabled, details_submitted, currently_due, past_due, disabled_reason, state_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
     ON CONFLICT DO NOTHING`,
    [account.programId, account.partnerId, account.stripeAccountId, account.country, state.chargesEnabled, state.payoutsEnabled, state.detailsSubmitted, state.currentlyDue, state.pastDue, state.disabledReason, at],
  );
  // null: the account id is another enrollment's (never, unless Stripe answered with another key's account).
  return { row: await expressAccountOf(db, account.programId, account.partnerId), inserted: rowCount === 1 };
}

/** The account and its enrollment, locked for a change of state (found by Stripe's id: the webhook's look-up, its unique index). */
export async function lockExpressAccount(client: PoolClient, stripeAccountId: string): Promise<ExpressAccountRow | null> {
  const { rows } = await client.query(`SELECT ${COLUMNS} FROM partner_stripe_accounts WHERE stripe_account_id = $1 FOR UPDATE`, [stripeAccountId]);
  return rows[0] ? toRow(rows[0]) : null;
}

/** Stripe's state as of `at`; false when a newer one is already stored (an event delivered late). */
export async function setExpressState(client: PoolClient, stripeAccountId: string, state: ExpressAccountState, at: Date): Promise<boolean> {
  const { rowCount } = await client.query(
    `UPDATE partner_stripe_accounts SET charges_enabled = $2, payouts_enabled = $3, details_submitted = $4, currently_due = $5, past_due = $6, disabled_reason = $7,
            state_at = $8, updated_at = now()
      WHERE stripe_account_id = $1 AND (state_at IS NULL OR state_at <= $8)`,
    [stripeAccountId, state.chargesEnabled, state.payoutsEnabled, state.detailsSubmitted, state.currentlyDue, state.pastDue, state.disabledReason, at],
  );
  return rowCount === 1;
}

/** The person's payout details now (their profile's, which every enrollment of the account copies). */
export async function payoutDetailsNow(client: PoolClient, programId: number, partnerId: number): Promise<{ payoutMethod: string | null; payoutReference: string | null } | null> {
  const { rows } = await client.query(
    `SELECT pp.payout_method, pp.payout_reference FROM partners pa JOIN partner_profiles pp ON pp.id = pa.profile_id WHERE pa.program_id = $1 AND pa.id = $2 FOR UPDATE OF pp`,
    [programId, partnerId],
  );
  return rows[0] ? { payoutMethod: rows[0].payout_method, payoutReference: rows[0].payout_reference } : null;
}

/**
 * Points the person's payout details at the account (method stripe) or, with null, takes them
 * off it. Only the method and where to pay change; the payout currency stays.
 */
export async function setStripePayoutTarget(client: PoolClient, programId: number, partnerId: number, stripeAccountId: string | null): Promise<void> {
  await client.query(
    `UPDATE partner_profiles pp SET payout_method = $3, payout_reference = $4, updated_at = now()
       FROM partners pa WHERE pa.program_id = $1 AND pa.id = $2 AND pp.id = pa.profile_id`,
    [programId, partnerId, stripeAccountId ? 'stripe' : null, stripeAccountId],
  );
}
