// Promo codes mapped to partners (the fifth attribution step), per program.
import type { Pool } from '../infra/pool.js';

export interface PromoCodeRow {
  id: number;
  partnerId: number;
  partnerName: string;
  code: string | null;
  stripePromotionCodeId: string | null;
  stripeCouponId: string | null;
  active: boolean;
  sales: number;
  createdAt: Date;
}

const toRow = (row: any): PromoCodeRow => ({
  id: Number(row.id),
  partnerId: Number(row.partner_id),
  partnerName: row.partner_name,
  code: row.code,
  stripePromotionCodeId: row.stripe_promotion_code_id,
  stripeCouponId: row.stripe_coupon_id,
  active: row.active,
  sales: row.sales,
  createdAt: row.created_at,
});

/** 'partner' when the partner is not the program's; 'taken' when a code or id is already mapped. */
export async function insertPromoCode(
  pool: Pool,
  programId: number,
  promo: { partnerId: number; code: string | null; stripePromotionCodeId: string | null; stripeCouponId: string | null },
): Promise<number | 'partner' | 'taken'> {
  try {
    const { rows } = await pool.query(
      `INSERT INTO promo_codes (program_id, partner_id, code, stripe_promotion_code_id, stripe_coupon_id)
       SELECT $1, p.id, $3, $4, $5 FROM partners p WHERE p.id = $2 AND p.program_id = $1
       RETURNING id`,
      [programId, promo.partnerId, promo.code, promo.stripePromotionCodeId, promo.stripeCouponId],
    );
    return rows[0] ? Number(rows[0].id) : 'partner';
  } catch (error) {
    if ((error as { code?: string }).code === '23505') return 'taken';
    throw error;
  }
}

export async function listPromoCodes(pool: Pool, programId: number): Promise<PromoCodeRow[]> {
  const { rows } = await pool.query(
    `SELECT pc.*, pa.name AS partner_name,
            (SELECT count(*) FROM customers c JOIN sales s ON s.customer_id = c.id
              WHERE c.program_id = pc.program_id AND c.click_id LIKE 'promo\\_' || pc.id || '\\_%')::int AS sales
       FROM promo_codes pc JOIN partners pa ON pa.id = pc.partner_id
      WHERE pc.program_id = $1 ORDER BY pc.id`,
    [programId],
  );
  return rows.map(toRow);
}

export async function setPromoCodeActive(pool: Pool, programId: number, promoCodeId: number, active: boolean): Promise<boolean> {
  const { rowCount } = await pool.query('UPDATE promo_codes SET active = $3 WHERE program_id = $1 AND id = $2', [programId, promoCodeId, active]);
  return (rowCount ?? 0) > 0;
}
