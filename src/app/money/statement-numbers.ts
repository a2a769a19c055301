// The one place a payout's statement gets its number: called by the mark-paid path
// (src/app/money/payout-runs.ts, markPaid) that every way of paying ends in — by hand, a Stripe
// transfer, a provider's follower — inside its transaction, after the program's payout lock.
// With the number, the statement's title and parties are frozen as they are now (a snapshot):
// a numbered statement never changes afterwards.
import { statementParties } from '../../core/statement-snapshot.js';
import { type PoolClient } from '../../db/infra/pool.js';
import { sharedPartnerDetails } from '../../db/money/partner-detail-shares.js';
import { issueStatementNumber, setStatementSnapshot, statementNumberOf, statementPartiesSource } from '../../db/money/statement-numbers.js';

/** Issues the payout's number from its brand's series (once; the same one again on a retry), with its snapshot. */
export async function numberPaidStatement(client: PoolClient, payoutId: number, paidAt: Date) {
  const existing = await statementNumberOf(client, payoutId);
  if (existing) return existing;
  const issued = await issueStatementNumber(client, payoutId, paidAt);
  const source = await statementPartiesSource(client, payoutId);
  // The partner's invoice details only as shared with this enrollment (the brand's read of them).
  const invoice = (await sharedPartnerDetails(client, source.programId, [source.partnerId])).get(source.partnerId)?.invoice ?? null;
  await setStatementSnapshot(client, payoutId, statementParties({ ...source, invoice }));
  return issued;
}
