// Every pg-boss queue's name, in one place: the queue's set-up (src/platform/queue.ts), the SQL
// that writes jobs beside its rows (src/db/) and the job handlers (src/jobs/) all read them here.
// Policies, schedules and handlers stay with the set-up and the jobs (docs/operations.md).

/** pg-boss's schema (its default): where the SQL of src/db/ writes a job beside its row. */
export const JOB_SCHEMA = 'pgboss';

/** A queue as the SQL that writes its jobs needs it. */
export interface JobQueue {
  schema: string;
  name: string;
}

/** Every processor's stored webhook events, one job per inbox row (src/jobs/processor-event-job.ts). */
export const PROCESSOR_EVENTS_QUEUE = 'processor-events';
/** Processor events' jobs out of retries. */
export const PROCESSOR_EVENTS_DEAD_QUEUE = 'processor-events-dead';
/** Where the intake writes a job beside its inbox row. */
export const PROCESSOR_EVENTS_JOB_QUEUE = { schema: JOB_SCHEMA, name: PROCESSOR_EVENTS_QUEUE } as const;

/** Outbound webhooks' deliveries, a job per delivery (src/db/outbound/messages.ts). */
export const OUTBOUND_QUEUE = 'webhook-deliveries';
/** The scheduled approval of commissions whose hold is over (docs/payouts.md). */
export const APPROVALS_QUEUE = 'commission-approvals';
/** Partners' daily digest and managers' summary mail. */
export const DIGEST_QUEUE = 'commission-digests';
/** A bulk action's chunks (src/jobs/bulk-action-jobs.ts). */
export const BULK_ACTIONS_QUEUE = 'partner-bulk-actions';
/** Jobs out of retries: their bulk action is marked failed (src/jobs/bulk-action-jobs.ts). */
export const BULK_ACTIONS_DEAD_QUEUE = 'partner-bulk-actions-dead';
/** A group discount's codes made or deactivated in the brand's processor (src/jobs/discount-jobs.ts). */
export const DISCOUNT_CODES_QUEUE = 'discount-codes';
/** Discount-code jobs out of retries. */
export const DISCOUNT_CODES_DEAD_QUEUE = 'discount-codes-dead';
/** A batch's payouts sent through PayPal or Wise, a job per send (src/jobs/provider-payout-jobs.ts). */
export const PROVIDER_PAYOUTS_QUEUE = 'provider-payouts';
/** Every 5 minutes: PayPal items and Wise transfers followed until they settle (src/jobs/provider-payout-jobs.ts). */
export const PROVIDER_PAYOUTS_FOLLOW_QUEUE = 'provider-payouts-follow';
/** Performance bounties' evaluation: every few minutes, and per program on demand (src/jobs/bounty-jobs.ts). */
export const BOUNTY_CHECKS_QUEUE = 'bounty-checks';
/** Every hour: click rewards paid per partner for each ended UTC day (src/jobs/click-reward-jobs.ts). */
export const CLICK_REWARDS_QUEUE = 'click-rewards';
/** Every minute: rate-limit windows, sign-in places and payloads past retention (src/jobs/upkeep-jobs.ts). */
export const HOUSEKEEPING_QUEUE = 'housekeeping';
/** Every hour: click partitions ahead, counter and rollup shards folded (src/jobs/upkeep-jobs.ts). */
export const HOURLY_UPKEEP_QUEUE = 'hourly-upkeep';

/**
 * Queues' earlier names: their jobs are moved to the new name at start (src/db/infra/renamed-queues.ts),
 * a queue before its dead letter. `stripe-events` until migration 0060 (issue 45).
 */
export const RENAMED_QUEUES = [
  { from: 'stripe-events', to: PROCESSOR_EVENTS_QUEUE },
  { from: 'stripe-events-dead', to: PROCESSOR_EVENTS_DEAD_QUEUE },
] as const;
