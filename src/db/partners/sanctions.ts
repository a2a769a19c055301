// Sanctions (ban, archive) of a program's partners: recording one also disables the partner's
// links, rejects their open commissions and cancels their open payouts; lifting one restores
// exactly what it changed. Runs in the caller's transaction.
import type { PartnerStatus } from '../../core/partners.js';
import { linksChanged } from '../tracking/link-cache.js';
import type { PoolClient } from '../infra/pool.js';

export async function insertSanctions(
  client: PoolClient,
  programId: number,
  kind: 'ban' | 'archive',
  reason: string,
  partners: { id: number; status: PartnerStatus }[],
  at: Date,
): Promise<Map<number, number>> {
  if (partners.length === 0) return new Map();
  const { rows } = await client.query(
    `INSERT INTO partner_sanctions (program_id, partner_id, kind, reason, status_before, created_at)
     SELECT $1, p.id, $2, $3, p.status, $4 FROM unnest($5::bigint[], $6::text[]) AS p (id, status) RETURNING id, partner_id`,
    [programId, kind, reason, at, partners.map((p) => p.id), partners.map((p) => p.status)],
  );
  return new Map(rows.map((r) => [Number(r.partner_id), Number(r.id)]));
}

/** The active sanctions of these partners (at most one each). */
export async function activeSanctions(client: PoolClient, partnerIds: number[]) {
  const { rows } = await client.query(
    'SELECT id, partner_id, kind, status_before FROM partner_sanctions WHERE partner_id = ANY ($1::bigint[]) AND lifted_at IS NULL',
    [partnerIds],
  );
  return rows.map((r) => ({ id: Number(r.id), partnerId: Number(r.partner_id), kind: r.kind as 'ban' | 'archive', statusBefore: r.status_before as PartnerStatus }));
}

/** Turns off the partners' enabled links, each stamped with its partner's sanction. */
export async function disableLinksUnder(client: PoolClient, sanctions: Map<number, number>): Promise<number> {
  if (sanctions.size === 0) return 0;
  const { rowCount } = await client.query(
    `UPDATE referral_links l SET enabled = false, disabled_by_sanction_id = s.sanction_id, updated_at = now()
       FROM unnest($1::bigint[], $2::bigint[]) AS s (partner_id, sanction_id)
      WHERE l.partner_id = s.partner_id AND l.enabled`,
    [[...sanctions.keys()], [...sanctions.values()]],
  );
  linksChanged();
  return rowCount ?? 0;
}

/**
 * Rejects the partners' pending and held commissions under their sanction: each row keeps the
 * stage it had and the sanction's id; the ledger takes what each still owed out of pending.
 */
export async function rejectCommissionsUnder(client: PoolClient, sanctions: Map<number, number>, reason: string): Promise<number> {
  if (sanctions.size === 0) return 0;
  const { rowCount } = await client.query(
    `WITH changed AS (
       UPDATE commissions c SET stage_before_sanction = c.stage, stage = 'rejected', rejected_by_sanction_id = s.sanction_id, updated_at = now()
         FROM unnest($1::bigint[], $2::bigint[]) AS s (partner_id, sanction_id)
        WHERE c.partner_id = s.partner_id AND c.stage IN ('pending', 'held') AND c.moved_to_sale_id IS NULL
        RETURNING c.id, c.program_id, c.partner_id, c.currency, c.amount_cents - c.deducted_cents AS net)
     INSERT INTO commission_ledger (program_id, partner_id, commission_id, currency, kind, pending_cents, reason)
     SELECT program_id, partner_id, id, currency, 'rejected', -net, $3 FROM changed`,
    [[...sanctions.keys()], [...sanctions.values()], reason],
  );
  return rowCount ?? 0;
}

/** The partners' payouts not yet paid (pending: a Stripe transfer in flight is left to finish). */
export async function openPayoutsOf(client: PoolClient, programId: number, partnerIds: number[]): Promise<{ id: number; partnerId: number }[]> {
  const { rows } = await client.query(
    "SELECT id, partner_id FROM payouts WHERE program_id = $1 AND partner_id = ANY ($2::bigint[]) AND status = 'pending' ORDER BY id",
    [programId, partnerIds],
  );
  return rows.map((r) => ({ id: Number(r.id), partnerId: Number(r.partner_id) }));
}

export async function stampPayoutCanceled(client: PoolClient, payoutId: number, sanctionId: number): Promise<void> {
  await client.query('UPDATE payouts SET canceled_by_sanction_id = $2 WHERE id = $1', [payoutId, sanctionId]);
}

/**
 * Lifts sanctions: exactly the rows each stamped come back. Links it turned off are on again;
 * commissions it rejected (and nobody changed since) return to the stage they had, owed their
 * net as it is now (a refund meanwhile counted). Returns how many of each came back.
 */
export async function liftSanctions(client: PoolClient, sanctionIds: number[], reason: string | null, at: Date): Promise<{ links: number; commissions: number }> {
  if (sanctionIds.length === 0) return { links: 0, commissions: 0 };
  const links = await client.query(
    'UPDATE referral_links SET enabled = true, disabled_by_sanction_id = NULL, updated_at = now() WHERE disabled_by_sanction_id = ANY ($1::bigint[])',
    [sanctionIds],
  );
  linksChanged();
  const commissions = await client.query(
    `WITH restored AS (
       UPDATE commissions SET stage = stage_before_sanction, stage_before_sanction = NULL, rejected_by_sanction_id = NULL, updated_at = now()
        WHERE rejected_by_sanction_id = ANY ($1::bigint[]) AND stage = 'rejected'
        RETURNING id, program_id, partner_id, currency, amount_cents - deducted_cents AS net)
     INSERT INTO commission_ledger (program_id, partner_id, commission_id, currency, kind, pending_cents, reason)
     SELECT program_id, partner_id, id, currency, 'reinstated', net, $2 FROM restored`,
    [sanctionIds, reason ?? 'sanction lifted'],
  );
  await client.query('UPDATE partner_sanctions SET lifted_at = $2, lift_reason = $3 WHERE id = ANY ($1::bigint[])', [sanctionIds, at, reason]);
  return { links: links.rowCount ?? 0, commissions: commissions.rowCount ?? 0 };
}
