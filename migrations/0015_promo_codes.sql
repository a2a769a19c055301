-- Promo-code attribution: a brand maps a Stripe promotion code (promo_…), a coupon, or a plain
-- code its own checkout takes to a partner. A payment none of the four attribution steps
-- matches is attributed to that partner (step promo_code), and the customer is bound so
-- renewals follow. Deactivated, never deleted: past sales keep their meaning.
CREATE TABLE promo_codes (
  id                        bigserial PRIMARY KEY,
  program_id                bigint NOT NULL REFERENCES programs (id) ON DELETE CASCADE,
  partner_id                bigint NOT NULL REFERENCES partners (id),
  -- The code customers type (case-insensitive), if any.
  code                      text,
  stripe_promotion_code_id  text,
  stripe_coupon_id          text,
  active                    boolean NOT NULL DEFAULT true,
  created_at                timestamptz NOT NULL DEFAULT now(),
  CHECK (code IS NOT NULL OR stripe_promotion_code_id IS NOT NULL OR stripe_coupon_id IS NOT NULL)
);
CREATE UNIQUE INDEX promo_codes_code_idx ON promo_codes (program_id, lower(code)) WHERE code IS NOT NULL;
CREATE UNIQUE INDEX promo_codes_promotion_idx ON promo_codes (program_id, stripe_promotion_code_id) WHERE stripe_promotion_code_id IS NOT NULL;
CREATE UNIQUE INDEX promo_codes_coupon_idx ON promo_codes (program_id, stripe_coupon_id) WHERE stripe_coupon_id IS NOT NULL;
