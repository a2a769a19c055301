-- Reward rules (issue 46, docs/rewards.md).
--
-- 1. What a sale carries for the rules: the processor's (or the API's) product and price ids,
--    the billing interval and the buyer's country. Empty lists and nulls when nobody said.
ALTER TABLE sales
  ADD COLUMN product_ids      text[] NOT NULL DEFAULT '{}',
  ADD COLUMN price_ids        text[] NOT NULL DEFAULT '{}',
  ADD COLUMN billing_interval text CHECK (billing_interval IN ('day', 'week', 'month', 'year', 'one_time')),
  ADD COLUMN buyer_country    text CHECK (buyer_country ~ '^[A-Z]{2}$');

-- A partner's tier is read from their sales over a trailing window: one range of this index.
CREATE INDEX IF NOT EXISTS sales_partner_occurred_idx ON sales (program_id, partner_id, occurred_at) WHERE partner_id IS NOT NULL AND NOT test;

-- 2. Rule sets, per program (group_id null) or per group, versioned. Version 0 of a scope is its
--    draft (one per scope, rewritten freely); publishing copies it to the next version number,
--    and a published version never changes (the trigger below refuses it).
CREATE TABLE reward_rule_sets (
  id            bigserial PRIMARY KEY,
  program_id    bigint NOT NULL REFERENCES programs (id) ON DELETE CASCADE,
  group_id      bigint REFERENCES partner_groups (id) ON DELETE CASCADE,
  version       integer NOT NULL CHECK (version >= 0),
  rules         jsonb NOT NULL,
  published_at  timestamptz,
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now(),
  CHECK ((version = 0) = (published_at IS NULL))
);
-- One row per scope and version (a program's own scope is group 0 here); the latest published
-- version of a scope is the first row of a backwards range of this index.
CREATE UNIQUE INDEX reward_rule_sets_scope_version_key ON reward_rule_sets (program_id, coalesce(group_id, 0), version);

CREATE FUNCTION reward_rule_sets_published_are_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF OLD.version > 0 THEN
    RAISE EXCEPTION 'a published rule set version never changes' USING ERRCODE = 'check_violation';
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER reward_rule_sets_immutable BEFORE UPDATE ON reward_rule_sets
  FOR EACH ROW EXECUTE FUNCTION reward_rule_sets_published_are_immutable();
