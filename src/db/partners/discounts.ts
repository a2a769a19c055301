// Group discounts, the processors' API keys, and the codes Affix made for partners (migration
// 0065). Every read is scoped by program and served by an index on it.
import type { DiscountAmount, DiscountDuration, DiscountTerms } from '../../core/discounts.js';
import type { ProcessorName } from '../../core/processor-names.js';
import type { Currency } from '../../core/types.js';
import { DISCOUNT_CODES_QUEUE } from '../../core/queue-names.js';
import { insertJobs } from '../infra/job-rows.js';
import { type Pool, type PoolClient, isUniqueViolation } from '../infra/pool.js';

type Queryable = Pool | PoolClient;

/** The job that makes and deactivates partners' codes (src/jobs/discount-jobs.ts). */
/** Partners per job: each costs a few calls to the processor. */
export const DISCOUNT_JOB_PARTNERS = 25;

export type KeyedProcessor = 'paddle' | 'lemonsqueezy';

export interface ProcessorApiKey {
  apiKeySealed: string;
  sandbox: boolean;
  storeId: string | null;
}

export async function processorApiKey(db: Queryable, programId: number, processor: KeyedProcessor): Promise<ProcessorApiKey | null> {
  const { rows } = await db.query('SELECT api_key_sealed, sandbox, store_id FROM processor_api_keys WHERE program_id = $1 AND processor = $2', [programId, processor]);
  return rows[0] ? { apiKeySealed: rows[0].api_key_sealed, sandbox: rows[0].sandbox, storeId: rows[0].store_id } : null;
}

/** Saves the key (sealed); a key left out keeps the saved one (false when there is none to keep). */
export async function saveProcessorApiKey(db: Queryable, programId: number, processor: KeyedProcessor, change: { apiKeySealed: string | null; sandbox: boolean; storeId: string | null }): Promise<boolean> {
  const { rowCount } = await db.query(
    `INSERT INTO processor_api_keys AS k (program_id, processor, api_key_sealed, sandbox, store_id)
     SELECT $1, $2, $3, $4, $5 WHERE $3::text IS NOT NULL
     ON CONFLICT (program_id, processor) DO UPDATE SET api_key_sealed = EXCLUDED.api_key_sealed, sandbox = EXCLUDED.sandbox, store_id = EXCLUDED.store_id, updated_at = now()`,
    [programId, processor, change.apiKeySealed, change.sandbox, change.storeId],
  );
  if ((rowCount ?? 0) > 0) return true;
  const kept = await db.query('UPDATE processor_api_keys SET sandbox = $3, store_id = $4, updated_at = now() WHERE program_id = $1 AND processor = $2', [programId, processor, change.sandbox, change.storeId]);
  return (kept.rowCount ?? 0) > 0;
}

/** Which processors have a key saved (never the key). */
export async function savedApiKeys(db: Queryable, programId: number): Promise<{ processor: KeyedProcessor; sandbox: boolean; storeId: string | null }[]> {
  const { rows } = await db.query('SELECT processor, sandbox, store_id FROM processor_api_keys WHERE program_id = $1 ORDER BY processor', [programId]);
  return rows.map((r) => ({ processor: r.processor, sandbox: r.sandbox, storeId: r.store_id }));
}

export interface GroupDiscountRow {
  id: number;
  programId: number;
  groupId: number;
  groupName: string;
  terms: DiscountTerms;
  stripeCouponId: string | null;
  lastError: string | null;
  lastErrorAt: Date | null;
  liveCodes: number;
  createdAt: Date;
  endedAt: Date | null;
}

const DISCOUNT_SELECT = `SELECT d.*, g.name AS group_name,
        (SELECT count(*) FROM promo_codes pc WHERE pc.program_id = d.program_id AND pc.group_discount_id = d.id AND pc.active)::int AS live_codes
   FROM group_discounts d JOIN partner_groups g ON g.id = d.group_id`;

function termsOf(r: any): DiscountTerms {
  const amount: DiscountAmount = r.kind === 'percent' ? { kind: 'percent', basisPoints: r.percent_bp } : { kind: 'amount', cents: Number(r.amount_cents), currency: r.currency as Currency };
  const duration: DiscountDuration = r.duration === 'repeating' ? { kind: 'repeating', months: r.duration_months } : { kind: r.duration };
  return { processor: r.processor as ProcessorName, amount, duration };
}

const toDiscount = (r: any): GroupDiscountRow => ({
  id: Number(r.id),
  programId: Number(r.program_id),
  groupId: Number(r.group_id),
  groupName: r.group_name,
  terms: termsOf(r),
  stripeCouponId: r.stripe_coupon_id,
  lastError: r.last_error,
  lastErrorAt: r.last_error_at,
  liveCodes: r.live_codes,
  createdAt: r.created_at,
  endedAt: r.ended_at,
});

/** The program's current group discounts, by group name. */
export async function listGroupDiscounts(db: Queryable, programId: number): Promise<GroupDiscountRow[]> {
  const { rows } = await db.query(`${DISCOUNT_SELECT} WHERE d.program_id = $1 AND d.ended_at IS NULL ORDER BY g.name, d.id`, [programId]);
  return rows.map(toDiscount);
}

export async function groupDiscount(db: Queryable, programId: number, discountId: number): Promise<GroupDiscountRow | null> {
  const { rows } = await db.query(`${DISCOUNT_SELECT} WHERE d.program_id = $1 AND d.id = $2`, [programId, discountId]);
  return rows[0] ? toDiscount(rows[0]) : null;
}

/**
 * The group's new discount, ending the one it had (in the caller's transaction); null when the
 * group is not the program's.
 */
export async function replaceGroupDiscount(client: PoolClient, programId: number, groupId: number, terms: DiscountTerms): Promise<number | null | 'raced'> {
  await client.query('UPDATE group_discounts SET ended_at = now() WHERE program_id = $1 AND group_id = $2 AND ended_at IS NULL', [programId, groupId]);
  const { amount, duration } = terms;
  const inserted = await client.query(
    `INSERT INTO group_discounts (program_id, group_id, processor, kind, percent_bp, amount_cents, currency, duration, duration_months)
     SELECT $1, g.id, $3, $4, $5, $6, $7, $8, $9 FROM partner_groups g WHERE g.id = $2 AND g.program_id = $1
     RETURNING id`,
    [programId, groupId, terms.processor, amount.kind, amount.kind === 'percent' ? amount.basisPoints : null, amount.kind === 'amount' ? amount.cents : null,
      amount.kind === 'amount' ? amount.currency : null, duration.kind, duration.kind === 'repeating' ? duration.months : null],
  ).catch((error: unknown) => {
    // Another change of the same group's discount committed first (one current discount a group).
    if (isUniqueViolation(error)) return 'raced' as const;
    throw error;
  });
  if (inserted === 'raced') return 'raced';
  return inserted.rows[0] ? Number(inserted.rows[0].id) : null;
}

/** Ends the group's discount; false when it had none. */
export async function endGroupDiscount(client: PoolClient, programId: number, groupId: number): Promise<boolean> {
  const { rowCount } = await client.query('UPDATE group_discounts SET ended_at = now() WHERE program_id = $1 AND group_id = $2 AND ended_at IS NULL', [programId, groupId]);
  return (rowCount ?? 0) > 0;
}

export async function setStripeCoupon(db: Queryable, programId: number, discountId: number, couponId: string): Promise<void> {
  await db.query('UPDATE group_discounts SET stripe_coupon_id = $3 WHERE program_id = $1 AND id = $2', [programId, discountId, couponId]);
}

/** The processor's last refusal for this discount (null: it worked). */
export async function noteDiscountError(db: Queryable, programId: number, discountId: number, message: string | null, at: Date): Promise<void> {
  await db.query(
    'UPDATE group_discounts SET last_error = $3, last_error_at = CASE WHEN $3::text IS NULL THEN NULL ELSE $4::timestamptz END WHERE program_id = $1 AND id = $2 AND last_error IS DISTINCT FROM $3',
    [programId, discountId, message, at],
  );
}

export interface MadeCodeRow {
  id: number;
  groupDiscountId: number | null;
  code: string | null;
  stripePromotionCodeId: string | null;
  processorDiscountId: string | null;
  processor: ProcessorName | null;
}

export interface PartnerDiscountState {
  status: string;
  /** The link code the partner's code is made from (the first enabled link). */
  linkCode: string | null;
  /** The discount the partner's group gives now, if any. */
  discount: GroupDiscountRow | null;
  /** The codes Affix made for the partner that are still live. */
  liveCodes: MadeCodeRow[];
}

/** What the job needs for one partner: null when the partner is not the program's. */
export async function partnerDiscountState(db: Queryable, programId: number, partnerId: number): Promise<PartnerDiscountState | null> {
  const { rows } = await db.query(
    `SELECT pa.status, pa.group_id,
            (SELECT l.short_link FROM referral_links l WHERE l.partner_id = pa.id AND l.program_id = pa.program_id ORDER BY l.enabled DESC, l.id LIMIT 1) AS link_code,
            (SELECT d.id FROM group_discounts d WHERE d.program_id = pa.program_id AND d.group_id = pa.group_id AND d.ended_at IS NULL) AS discount_id
       FROM partners pa WHERE pa.program_id = $1 AND pa.id = $2`,
    [programId, partnerId],
  );
  const row = rows[0];
  if (!row) return null;
  const codes = await db.query(
    `SELECT pc.id, pc.group_discount_id, pc.code, pc.stripe_promotion_code_id, pc.processor_discount_id, d.processor
       FROM promo_codes pc LEFT JOIN group_discounts d ON d.id = pc.group_discount_id
      WHERE pc.program_id = $1 AND pc.partner_id = $2 AND pc.group_discount_id IS NOT NULL AND pc.active ORDER BY pc.id`,
    [programId, partnerId],
  );
  return {
    status: row.status,
    linkCode: row.link_code,
    discount: row.discount_id === null ? null : await groupDiscount(db, programId, Number(row.discount_id)),
    liveCodes: codes.rows.map((r) => ({
      id: Number(r.id),
      groupDiscountId: r.group_discount_id === null ? null : Number(r.group_discount_id),
      code: r.code,
      stripePromotionCodeId: r.stripe_promotion_code_id,
      processorDiscountId: r.processor_discount_id,
      processor: r.processor,
    })),
  };
}

/** Whether the program maps this code already (to anyone, active or not: past sales keep their meaning). */
export async function codeMapped(db: Queryable, programId: number, code: string): Promise<boolean> {
  const { rows } = await db.query('SELECT 1 FROM promo_codes WHERE program_id = $1 AND lower(code) = lower($2)', [programId, code]);
  return rows.length > 0;
}

/** Records a made code as the program's promo-code mapping; false when another write recorded it first. */
export async function insertMadeCode(
  db: Queryable,
  programId: number,
  partnerId: number,
  discountId: number,
  made: { code: string; stripePromotionCodeId: string | null; processorDiscountId: string | null },
): Promise<boolean> {
  const { rowCount } = await db.query(
    `INSERT INTO promo_codes (program_id, partner_id, code, stripe_promotion_code_id, group_discount_id, processor_discount_id)
     VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING`,
    [programId, partnerId, made.code, made.stripePromotionCodeId, discountId, made.processorDiscountId],
  );
  return (rowCount ?? 0) > 0;
}

export async function deactivateMadeCode(db: Queryable, programId: number, promoCodeId: number): Promise<void> {
  await db.query('UPDATE promo_codes SET active = false WHERE program_id = $1 AND id = $2', [programId, promoCodeId]);
}

/** The partners a group's discount is for: approved, in the group. */
export async function approvedPartnersOfGroup(db: Queryable, programId: number, groupId: number): Promise<number[]> {
  const { rows } = await db.query("SELECT id FROM partners WHERE program_id = $1 AND group_id = $2 AND status = 'approved' ORDER BY id", [programId, groupId]);
  return rows.map((r) => Number(r.id));
}

/** The partners holding a live code of this discount (those leaving get theirs deactivated). */
export async function partnersWithCodesOf(db: Queryable, programId: number, discountId: number): Promise<number[]> {
  const { rows } = await db.query('SELECT DISTINCT partner_id FROM promo_codes WHERE program_id = $1 AND group_discount_id = $2 AND active ORDER BY partner_id', [programId, discountId]);
  return rows.map((r) => Number(r.partner_id));
}

/**
 * Jobs to bring these partners' codes in line with their status and group, written in the
 * caller's transaction (a partner approved, banned, archived or moved): none when the program has
 * never had a group discount. DISCOUNT_JOB_PARTNERS partners a job.
 */
export async function queueDiscountCodeSync(client: Queryable, programId: number, partnerIds: number[], schema = 'pgboss'): Promise<number> {
  if (partnerIds.length === 0) return 0;
  // Most programs give no discount: their partners' changes write nothing more.
  const given = await client.query('SELECT 1 FROM group_discounts WHERE program_id = $1 LIMIT 1', [programId]);
  if (given.rows.length === 0) return 0;
  const { rows } = await client.query(
    `WITH ids AS (
       SELECT id, n FROM unnest($2::bigint[]) WITH ORDINALITY AS u (id, n)
     ), chunk AS (
       SELECT array_agg(id ORDER BY n) AS ids FROM ids GROUP BY (n - 1) / ${DISCOUNT_JOB_PARTNERS}
     ), job AS (
       ${insertJobs({ schema, queue: '$3', data: "jsonb_build_object('programId', $1::bigint, 'partnerIds', to_jsonb(chunk.ids))", from: 'chunk' })}
     ) SELECT count(*)::int AS jobs FROM job`,
    [programId, partnerIds, DISCOUNT_CODES_QUEUE],
  );
  return rows[0].jobs;
}

/**
 * The discount a visitor of this link code is offered (the tracker's getDiscount()): the code
 * Affix made for the link's partner under their group's current discount, while the partner is
 * approved. Nothing else about the partner.
 */
export async function discountForLink(db: Queryable, programId: number, linkCode: string): Promise<{ code: string; terms: DiscountTerms } | null> {
  // The link's partner first (by the link code's index), then their group's discount and code:
  // joined the other way round, the planner walked every partner of the group.
  const { rows } = await db.query(
    `WITH partner AS MATERIALIZED (
       SELECT pa.id, pa.group_id FROM referral_links l JOIN partners pa ON pa.id = l.partner_id
        WHERE lower(l.short_link) = lower($2) AND l.program_id = $1 AND l.enabled AND pa.program_id = $1 AND pa.status = 'approved'
        LIMIT 1
     )
     SELECT pc.code, d.*
       FROM partner
       JOIN group_discounts d ON d.program_id = $1 AND d.group_id = partner.group_id AND d.ended_at IS NULL
       JOIN promo_codes pc ON pc.program_id = $1 AND pc.partner_id = partner.id AND pc.group_discount_id = d.id AND pc.active
      LIMIT 1`,
    [programId, linkCode],
  );
  return rows[0] ? { code: rows[0].code, terms: termsOf(rows[0]) } : null;
}

/** The Stripe account the program is connected to (Connect), if any. */
export async function programStripeAccount(db: Queryable, programId: number): Promise<string | null> {
  const { rows } = await db.query('SELECT stripe_account_id FROM programs WHERE id = $1', [programId]);
  return rows[0]?.stripe_account_id ?? null;
}

/** The program's groups, by name (the Discounts page's choice of group). */
export async function programGroups(db: Queryable, programId: number): Promise<{ id: number; name: string }[]> {
  const { rows } = await db.query('SELECT id, name FROM partner_groups WHERE program_id = $1 ORDER BY name, id', [programId]);
  return rows.map((r) => ({ id: Number(r.id), name: r.name }));
}
