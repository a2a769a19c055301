// Click rewards (docs/rewards.md "Leads and clicks"): which programs have a published click rule,
// each partner's counted clicks per ended UTC day (the page rollups: what the dashboard counts),
// and a paid (or decided) day with its commission. The day's unique key (program, partner, day)
// makes a repeated or concurrent run pay nothing twice.
import type { PartnerTerms } from '../../core/ports.js';
import type { NewCommission } from '../../core/ports.js';
import type { Pool, PoolClient } from '../infra/pool.js';
import { PARTNER_TERMS, toPartnerTerms } from '../tracking/tracking-tx.js';
import { insertCommissions } from '../tracking/tracking-sets.js';

type Queryable = Pool | PoolClient;

/** A published set pays clicks when it has a click rule or a click default. */
const hasClickRule = (set = 'reward_rule_sets') => `(${set}.rules -> 'defaults' ? 'click' OR ${set}.rules -> 'rules' @> '[{"event": "click"}]')`;

/**
 * Every program whose click days may still be decided: a published version that pays clicks and
 * was in force at some time since `since` (the look-back's first day): the scope's newest, or one
 * a later version replaced after `since`. A program whose click rule was removed longer ago
 * drops out (its days were decided while the rule was in force). Click-paying versions are a few
 * rows; the scope's unique (program, group, version) index answers "replaced, and when".
 */
export async function programsWithClickRules(db: Queryable, since: Date): Promise<number[]> {
  const { rows } = await db.query(
    `SELECT DISTINCT s.program_id FROM reward_rule_sets s
      WHERE s.version > 0 AND ${hasClickRule('s')}
        AND NOT EXISTS (SELECT 1 FROM reward_rule_sets n
                         WHERE n.program_id = s.program_id AND coalesce(n.group_id, 0) = coalesce(s.group_id, 0) AND n.version > s.version AND n.published_at < $1)
      ORDER BY s.program_id`,
    [since],
  );
  return rows.map((r) => Number(r.program_id));
}

/** When the program's first click rule was published (null: none is). */
export async function clickRulesSince(db: Queryable, programId: number): Promise<Date | null> {
  const { rows } = await db.query(`SELECT min(published_at) AS since FROM reward_rule_sets WHERE program_id = $1 AND version > 0 AND ${hasClickRule()}`, [programId]);
  return rows[0]?.since ?? null;
}

export interface ClickDay {
  partnerId: number;
  /** The UTC day, "2026-11-26". */
  day: string;
  clicks: number;
}

/**
 * Each partner's counted clicks per day in [from, to] (the rollups' partner rows: non-test
 * clicks, as the dashboard counts them), the days already decided left out.
 */
export async function undecidedClickDays(db: Queryable, programId: number, from: string, to: string): Promise<ClickDay[]> {
  const { rows } = await db.query(
    `SELECT r.partner_id, r.day::text AS day, sum(r.value)::bigint AS clicks
       FROM page_rollups r
      WHERE r.program_id = $1 AND r.partner_id > 0 AND r.day BETWEEN $2::date AND $3::date AND r.link_id = -1 AND r.measure = 'clicks'
        AND NOT EXISTS (SELECT 1 FROM click_reward_days d WHERE d.program_id = $1 AND d.partner_id = r.partner_id AND d.day = r.day)
        -- The program's test partner (test traffic only) is never paid.
        AND NOT EXISTS (SELECT 1 FROM partners p WHERE p.id = r.partner_id AND p.test)
      GROUP BY r.partner_id, r.day HAVING sum(r.value) > 0
      ORDER BY r.day, r.partner_id`,
    [programId, from, to],
  );
  return rows.map((r) => ({ partnerId: Number(r.partner_id), day: r.day, clicks: Number(r.clicks) }));
}

/** A partner of the program's terms now (null: not the program's). */
export async function partnerTermsIn(client: PoolClient, programId: number, partnerId: number): Promise<PartnerTerms | null> {
  const { rows } = await client.query(`${PARTNER_TERMS} AND program_id = $2`, [partnerId, programId]);
  return rows[0] ? toPartnerTerms(rows[0]) : null;
}

/** Records the decided day; null when a run before (or beside) this one already did. */
export async function insertClickDay(
  client: PoolClient,
  day: { programId: number; partnerId: number; day: string; clicks: number; ruleSetId: number | null; ruleId: string | null; words: string; at: Date },
): Promise<number | null> {
  const { rows } = await client.query(
    `INSERT INTO click_reward_days (program_id, partner_id, day, clicks, rule_set_id, rule_id, words, created_at)
     VALUES ($1, $2, $3::date, $4, $5, $6, $7, $8) ON CONFLICT (program_id, partner_id, day) DO NOTHING RETURNING id`,
    [day.programId, day.partnerId, day.day, day.clicks, day.ruleSetId, day.ruleId, day.words, day.at],
  );
  return rows[0] ? Number(rows[0].id) : null;
}

/** The day's commission with its 'created' ledger entry (the sales' statement). */
export async function insertClickDayCommission(client: PoolClient, commission: NewCommission & { clickRewardDayId: number }): Promise<number> {
  const [id] = await insertCommissions(client, [commission]);
  return id!;
}
