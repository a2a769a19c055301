// The one place a payout's statement gets its number: called by the mark-paid path
// (src/app/money/payout-runs.ts, markPaid) that every way of paying ends in — by hand, a Stripe
// transfer, a provider's follower — inside its transaction, after the program's payout lock.
import { type PoolClient } from '../../db/infra/pool.js';
import { issueStatementNumber } from '../../db/money/statement-numbers.js';

/** Issues the payout's number from its brand's series (once; the same one again on a retry). */
export const numberPaidStatement = (client: PoolClient, payoutId: number, paidAt: Date) => issueStatementNumber(client, payoutId, paidAt);
