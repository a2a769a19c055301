// Who sees a person's invoice and tax details (docs/payouts.md, "Who sees a partner's details").
// They are kept per sign-in email, but the email on a partner row is the brand's to edit: so a
// brand reads them only for the enrollments the person ticked "Share with …" on the portal's
// forms. Nothing is shared until ticked (a program added under their email later starts unshared);
// unticking ends the share. One share covers both forms' details.
import * as shares from '../../db/money/partner-detail-shares.js';
import { partnersOfEmail } from '../../db/partners/portal.js';
import type { PoolClient } from '../../db/infra/pool.js';
import type { ManagementDeps } from '../programs/management.js';

export type ShareDeps = ManagementDeps & { brandAccountId?: number | null };

/** The person's enrollments the form lists (on a brand's own portal host, only that brand's), each with whether it has their details. */
export async function shareChoicesOf(deps: ShareDeps, email: string): Promise<shares.ShareChoice[]> {
  const own = await partnersOfEmail(deps.pool, email, deps.brandAccountId ?? null);
  return shares.shareChoices(deps.pool, email, own.map((p) => p.partnerId));
}

/** The partner ids ticked in a form's `share` boxes (one value or a list; anything else ignored). */
export function tickedShares(value: unknown): number[] {
  const values = Array.isArray(value) ? value : value === undefined || value === null ? [] : [value];
  return values.map((v) => Number(v)).filter((id) => Number.isSafeInteger(id) && id > 0);
}

/**
 * Reads, before the save, what the form listed; `saveShares` then writes the ticks in the details'
 * transaction: the listed enrollments ticked are shared, the others not; a tick for an enrollment
 * the form did not list (not the person's) is ignored.
 */
export async function sharesOfForm(deps: ShareDeps, email: string, input: unknown) {
  const listed = (await partnersOfEmail(deps.pool, email, deps.brandAccountId ?? null)).map((p) => p.partnerId);
  const ticked = tickedShares((input as Record<string, unknown> | null)?.share).filter((id) => listed.includes(id));
  return (client: PoolClient) => shares.setShares(client, email, listed, ticked, deps.now());
}
