// Reward rule sets (docs/rewards.md): a draft and published versions per program and per group,
// and what deciding a sale under them reads: the customer's earlier paid sales, the partner's
// figures over the tier window, and what caps have used. Every read is scoped by the program
// (or the customer) and served by an index on that scope.
import type { PartnerFigures, PublishedRuleSet, RewardHistory, RuleSetDocument } from '../../core/commission-rewards.js';
import type { RewardUsage } from '../../core/rewards.js';
import type { Currency } from '../../core/types.js';
import type { Pool, PoolClient } from '../infra/pool.js';
import { prepared } from '../infra/prepared.js';

type Queryable = Pool | PoolClient;

export interface RuleSetRow {
  id: number;
  programId: number;
  groupId: number | null;
  version: number;
  document: RuleSetDocument;
  publishedAt: Date | null;
  updatedAt: Date;
}

const toRow = (r: any): RuleSetRow => ({
  id: Number(r.id),
  programId: Number(r.program_id),
  groupId: r.group_id === null ? null : Number(r.group_id),
  version: r.version,
  document: r.rules,
  publishedAt: r.published_at,
  updatedAt: r.updated_at,
});

const COLUMNS = 'id, program_id, group_id, version, rules, published_at, updated_at';

/** Every draft and version of the program and its groups (the scope index, by program). */
export async function listRuleSets(db: Queryable, programId: number): Promise<RuleSetRow[]> {
  const { rows } = await db.query(
    `SELECT ${COLUMNS} FROM reward_rule_sets WHERE program_id = $1 ORDER BY coalesce(group_id, 0), version DESC`,
    [programId],
  );
  return rows.map(toRow);
}

/** Whether the group is one of the program's. */
export async function groupInProgram(db: Queryable, programId: number, groupId: number): Promise<boolean> {
  const { rows } = await db.query('SELECT 1 FROM partner_groups WHERE id = $1 AND program_id = $2', [groupId, programId]);
  return rows.length > 0;
}

/** Writes the scope's draft (version 0), replacing the one there. */
export async function putDraft(db: Queryable, programId: number, groupId: number | null, document: RuleSetDocument): Promise<RuleSetRow> {
  const { rows } = await db.query(
    `INSERT INTO reward_rule_sets (program_id, group_id, version, rules) VALUES ($1, $2, 0, $3)
     ON CONFLICT (program_id, coalesce(group_id, 0), version) DO UPDATE SET rules = EXCLUDED.rules, updated_at = now()
     RETURNING ${COLUMNS}`,
    [programId, groupId, JSON.stringify(document)],
  );
  return toRow(rows[0]);
}

/** The scope's draft, locked (publishing reads it once, whoever else publishes). */
export async function lockDraft(client: PoolClient, programId: number, groupId: number | null): Promise<RuleSetRow | null> {
  const { rows } = await client.query(
    `SELECT ${COLUMNS} FROM reward_rule_sets WHERE program_id = $1 AND coalesce(group_id, 0) = coalesce($2::bigint, 0) AND version = 0 FOR UPDATE`,
    [programId, groupId],
  );
  return rows[0] ? toRow(rows[0]) : null;
}

/** Copies the draft to the scope's next version; the draft stays, to be edited on. */
export async function publishDraft(client: PoolClient, draft: RuleSetRow, now: Date): Promise<RuleSetRow> {
  const { rows } = await client.query(
    `INSERT INTO reward_rule_sets (program_id, group_id, version, rules, published_at)
     SELECT $1, $2, coalesce(max(version), 0) + 1, $3, $4
       FROM reward_rule_sets WHERE program_id = $1 AND coalesce(group_id, 0) = coalesce($2::bigint, 0)
     RETURNING ${COLUMNS}`,
    [draft.programId, draft.groupId, JSON.stringify(draft.document), now],
  );
  return toRow(rows[0]);
}

// ---- what deciding a sale reads (inside its tracking transaction) --------------------------------

/**
 * The latest published version for the group, else the program's; and the group's name (for
 * the words). Two probes of the scope index (a backwards range, one row each). With $3, the
 * versions published by then (a click day is paid by the version in force at its start).
 */
export const REWARD_TERMS = `
  SELECT (SELECT name FROM partner_groups WHERE id = $2 AND program_id = $1) AS group_name,
         r.id, r.version, r.group_id, r.rules
    FROM (SELECT 1) one
    LEFT JOIN LATERAL (
      (SELECT id, version, group_id, rules, 0 AS pick FROM reward_rule_sets
        WHERE program_id = $1 AND coalesce(group_id, 0) = coalesce($2::bigint, -1) AND version > 0 AND ($3::timestamptz IS NULL OR published_at <= $3)
        ORDER BY version DESC LIMIT 1)
      UNION ALL
      (SELECT id, version, group_id, rules, 1 AS pick FROM reward_rule_sets
        WHERE program_id = $1 AND coalesce(group_id, 0) = 0 AND version > 0 AND ($3::timestamptz IS NULL OR published_at <= $3)
        ORDER BY version DESC LIMIT 1)
      ORDER BY pick LIMIT 1
    ) r ON true`;

/** The published version that pays a partner of this group (else the program's): its version and whose it is. */
export async function payingVersion(db: Queryable, programId: number, groupId: number | null): Promise<{ version: number; groupName: string | null } | null> {
  const { rows } = await db.query(prepared(REWARD_TERMS, [programId, groupId, null]));
  const r = rows[0];
  return r && r.id !== null ? { version: r.version, groupName: r.group_id === null ? null : r.group_name } : null;
}

export async function rewardTerms(client: PoolClient, programId: number, groupId: number | null, at: Date | null = null): Promise<{ ruleSet: PublishedRuleSet | null; groupName: string | null }> {
  const { rows } = await client.query(prepared(REWARD_TERMS, [programId, groupId, at]));
  const r = rows[0] ?? {};
  const groupName: string | null = r.group_name ?? null;
  if (r.id === null || r.id === undefined) return { ruleSet: null, groupName };
  return {
    ruleSet: { id: Number(r.id), version: r.version, groupId: r.group_id === null ? null : Number(r.group_id), groupName: r.group_id === null ? null : groupName, document: r.rules },
    groupName,
  };
}

/** The customer's paid (non-test) sales before this one, by when they were paid (the (customer_id, occurred_at) index). */
export const REWARD_HISTORY = `
  SELECT min(occurred_at) AS first_paid_at, count(*)::int AS earlier
    FROM sales
   WHERE customer_id = $1 AND NOT test AND amount_cents > 0
     AND (occurred_at < $2 OR (occurred_at = $2 AND processor_event_id < $3))`;

export async function rewardHistory(client: PoolClient, customerId: number, paidAt: Date, transactionId: string): Promise<RewardHistory> {
  const { rows } = await client.query(prepared(REWARD_HISTORY, [customerId, paidAt, transactionId]));
  return { firstPaidAt: rows[0]?.first_paid_at ?? null, earlierPaidSales: rows[0]?.earlier ?? 0 };
}

/** A partner's customers and revenue per currency over [from, to] (sales_partner_occurred_idx); the sale deciding is not stored yet. */
export const PARTNER_FIGURES = `
  SELECT currency, count(DISTINCT customer_id)::int AS customers, sum(amount_cents)::bigint AS revenue
    FROM sales
   WHERE program_id = $1 AND partner_id = $2 AND NOT test AND occurred_at >= $3 AND occurred_at <= $4
   GROUP BY ROLLUP (currency)`;

export async function partnerFigures(client: PoolClient, programId: number, partnerId: number, from: Date, to: Date): Promise<PartnerFigures> {
  const { rows } = await client.query(prepared(PARTNER_FIGURES, [programId, partnerId, from, to]));
  const revenue: Partial<Record<Currency, number>> = {};
  let customers = 0;
  for (const row of rows) {
    if (row.currency === null) customers = row.customers;
    else revenue[row.currency as Currency] = Number(row.revenue);
  }
  return { customers, revenue };
}

/**
 * Decisions under caps run one at a time per program, each reading what the ones before it
 * committed (the lock is the transaction's: released at commit or rollback).
 */
export async function lockRewardCaps(client: PoolClient, programId: number): Promise<void> {
  await client.query(prepared("SELECT pg_advisory_xact_lock(hashtext('affix:reward-caps'), $1::int)", [programId]));
}

/**
 * What rule-made commissions already used: the customer's (all time: their sales, then each one's
 * commission), the partner's and the program's in the month (commissions_reward_month_idx), in the currency.
 */
export const REWARD_USAGE = `
  SELECT (SELECT coalesce(sum(c.amount_cents), 0) FROM sales s JOIN commissions c ON c.sale_id = s.id
           WHERE s.customer_id = $3 AND c.currency = $4 AND c.rule_id IS NOT NULL AND c.moved_to_sale_id IS NULL)::bigint AS customer,
         (SELECT coalesce(sum(amount_cents), 0) FROM commissions
           WHERE program_id = $1 AND reward_month = $5 AND partner_id = $2 AND currency = $4)::bigint AS partner_month,
         (SELECT coalesce(sum(amount_cents), 0) FROM commissions
           WHERE program_id = $1 AND reward_month = $5 AND currency = $4)::bigint AS program_month`;

export async function rewardUsage(
  client: PoolClient,
  scope: { programId: number; partnerId: number; customerId: number | null; currency: Currency; month: Date },
): Promise<RewardUsage> {
  const { rows } = await client.query(prepared(REWARD_USAGE, [scope.programId, scope.partnerId, scope.customerId, scope.currency, scope.month.toISOString().slice(0, 10)]));
  return { customer: Number(rows[0].customer), partnerMonth: Number(rows[0].partner_month), programMonth: Number(rows[0].program_month) };
}
