// Brands map discount codes to partners: a Stripe promotion code (promo_…), a coupon, or the
// code customers type. Deactivated, never deleted (past sales keep their meaning).
import { z } from 'zod';
import { errors } from '../../core/errors.js';
import * as promoCodes from '../../db/partners/promo-codes.js';
import { type ManagementDeps, parseInput } from '../programs/management.js';
import { type Scope, programInScope } from '../accounts/scope.js';

const optional = (pattern: RegExp, message: string) =>
  z
    .string()
    .trim()
    .max(255, 'At most 255 characters.')
    .regex(pattern, message)
    .nullish()
    .or(z.literal('').transform(() => null));

export const promoInput = z
  .object({
    partner_id: z.coerce.number({ error: 'Choose a partner of this program.' }).int().positive('Choose a partner of this program.'),
    code: optional(/^[A-Za-z0-9_-]{2,64}$/, 'A code is 2 to 64 letters, digits, - or _.'),
    stripe_promotion_code_id: optional(/^promo_\w+$/, 'A Stripe promotion code id starts with promo_.'),
    stripe_coupon_id: optional(/^[\w-]{1,255}$/, 'A coupon id is letters, digits, - or _.'),
  })
  .refine((v) => v.code || v.stripe_promotion_code_id || v.stripe_coupon_id, { message: 'Give a code, a Stripe promotion code id or a coupon id.', path: ['code'] });

export async function createPromoCode(deps: ManagementDeps, scope: Scope, programId: number, input: unknown) {
  await programInScope(deps, scope, programId);
  const parsed = parseInput(promoInput, input);
  const created = await promoCodes.insertPromoCode(deps.pool, programId, {
    partnerId: parsed.partner_id,
    code: parsed.code ?? null,
    stripePromotionCodeId: parsed.stripe_promotion_code_id ?? null,
    stripeCouponId: parsed.stripe_coupon_id ?? null,
  });
  if (created === 'partner') throw errors.invalid('partner_id must be a partner of this program', { partner_id: 'Choose a partner of this program.' });
  if (created === 'taken') throw errors.conflict('This code is already mapped in this program', 'promo_code_taken');
  return (await promoCodes.listPromoCodes(deps.pool, programId)).find((p) => p.id === created)!;
}

export async function listPromoCodes(deps: ManagementDeps, scope: Scope, programId: number) {
  await programInScope(deps, scope, programId);
  return promoCodes.listPromoCodes(deps.pool, programId);
}

export async function setPromoCodeActive(deps: ManagementDeps, scope: Scope, programId: number, promoCodeId: number, active: boolean) {
  await programInScope(deps, scope, programId);
  if (!Number.isSafeInteger(promoCodeId) || !(await promoCodes.setPromoCodeActive(deps.pool, programId, promoCodeId, active))) {
    throw errors.notFound('Promo code not found');
  }
}
