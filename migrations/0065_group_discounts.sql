-- Discounts for referred buyers (docs/discounts.md): a group gives its partners' buyers a
-- discount, and Affix creates one code per partner in the brand's processor (a Stripe promotion
-- code under one coupon per discount, a Paddle discount, a Lemon Squeezy discount). The codes are
-- recorded as promo-code mappings, so the promo-code attribution step attributes sales by them.

-- The API keys Affix calls Paddle and Lemon Squeezy with (sealed like the signing secrets).
-- Stripe needs none: the platform key acts on the program's connected account.
CREATE TABLE processor_api_keys (
  program_id      bigint NOT NULL REFERENCES programs (id) ON DELETE CASCADE,
  processor       text NOT NULL CHECK (processor IN ('paddle', 'lemonsqueezy')),
  api_key_sealed  text NOT NULL,
  -- Paddle: its sandbox API (sandbox-api.paddle.com).
  sandbox         boolean NOT NULL DEFAULT false,
  -- Lemon Squeezy: the store its discounts belong to.
  store_id        text CHECK (store_id ~ '^[0-9]{1,20}$'),
  updated_at      timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (program_id, processor)
);

-- A group's discount. Its terms never change: a new discount replaces it (ended_at set on the old
-- one), and the codes of the old one are deactivated.
CREATE TABLE group_discounts (
  id                 bigserial PRIMARY KEY,
  program_id         bigint NOT NULL REFERENCES programs (id) ON DELETE CASCADE,
  group_id           bigint NOT NULL REFERENCES partner_groups (id) ON DELETE CASCADE,
  processor          text NOT NULL CHECK (processor IN ('stripe', 'paddle', 'lemonsqueezy')),
  kind               text NOT NULL CHECK (kind IN ('percent', 'amount')),
  -- 1 to 10,000 (0.01 % to 100 %).
  percent_bp         integer CHECK (percent_bp BETWEEN 1 AND 10000),
  amount_cents       bigint CHECK (amount_cents > 0),
  currency           text CHECK (currency ~ '^[A-Z]{3}$'),
  duration           text NOT NULL CHECK (duration IN ('once', 'repeating', 'forever')),
  duration_months    integer CHECK (duration_months BETWEEN 1 AND 999),
  -- Stripe: the coupon its promotion codes point to, made once.
  stripe_coupon_id   text,
  -- The last refusal of the processor (shown on the dashboard), cleared by the next success.
  last_error         text,
  last_error_at      timestamptz,
  created_at         timestamptz NOT NULL DEFAULT now(),
  ended_at           timestamptz,
  CHECK ((kind = 'percent') = (percent_bp IS NOT NULL)),
  CHECK ((kind = 'amount') = (amount_cents IS NOT NULL AND currency IS NOT NULL)),
  CHECK ((duration = 'repeating') = (duration_months IS NOT NULL))
);
CREATE UNIQUE INDEX group_discounts_current_idx ON group_discounts (program_id, group_id) WHERE ended_at IS NULL;
CREATE INDEX group_discounts_program_idx ON group_discounts (program_id, id);

-- A code Affix made: the discount it serves and the processor's object (a Paddle or Lemon
-- Squeezy discount id; Stripe's promotion code id has its own column).
ALTER TABLE promo_codes
  ADD COLUMN group_discount_id      bigint REFERENCES group_discounts (id) ON DELETE SET NULL,
  ADD COLUMN processor_discount_id  text;
CREATE UNIQUE INDEX promo_codes_processor_discount_idx ON promo_codes (program_id, processor_discount_id) WHERE processor_discount_id IS NOT NULL;
-- One live code per partner and discount; the job's reads by partner.
CREATE UNIQUE INDEX promo_codes_partner_discount_idx ON promo_codes (program_id, partner_id, group_discount_id) WHERE group_discount_id IS NOT NULL AND active;
CREATE INDEX promo_codes_partner_idx ON promo_codes (program_id, partner_id) WHERE group_discount_id IS NOT NULL;
