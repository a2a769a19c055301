-- Lead and click rewards (issue 46 item 2, docs/rewards.md "Leads and clicks"): a published rule
-- set's lead rule pays a commission for the lead (in the lead's own transaction), its click rule
-- once per partner and ended UTC day for the day's clicks (a scheduled job, never a click's
-- request). A commission now has exactly one source: a sale, a bounty award, a lead or a click day.

-- A partner's paid (or decided) click day: the day's counted clicks and the rule-set version that
-- decided them. Once per partner and day, however often or concurrently the job runs.
CREATE TABLE click_reward_days (
  id           bigserial PRIMARY KEY,
  program_id   bigint NOT NULL REFERENCES programs (id) ON DELETE CASCADE,
  partner_id   bigint NOT NULL REFERENCES partners (id) ON DELETE CASCADE,
  -- The UTC day the clicks were made on.
  day          date NOT NULL,
  clicks       bigint NOT NULL CHECK (clicks > 0),
  rule_set_id  bigint REFERENCES reward_rule_sets (id) ON DELETE SET NULL,
  rule_id      text,
  -- What the rules decided, in words (also when a cap left nothing: no commission then).
  words        text NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  UNIQUE (program_id, partner_id, day)
);

-- A lead's commission names its lead: the customer it made a lead (one commission per lead).
ALTER TABLE commissions ADD COLUMN lead_customer_id bigint UNIQUE REFERENCES customers (id) ON DELETE CASCADE;
ALTER TABLE commissions ADD COLUMN click_reward_day_id bigint UNIQUE REFERENCES click_reward_days (id) ON DELETE CASCADE;
ALTER TABLE commissions DROP CONSTRAINT commissions_one_source;
ALTER TABLE commissions ADD CONSTRAINT commissions_one_source CHECK (num_nonnulls(sale_id, bounty_award_id, lead_customer_id, click_reward_day_id) = 1) NOT VALID;
ALTER TABLE commissions VALIDATE CONSTRAINT commissions_one_source;
-- A program's lead and click commissions by time (as bounties': commissions_bounty_idx).
CREATE INDEX commissions_lead_idx ON commissions (program_id, created_at) WHERE lead_customer_id IS NOT NULL;
CREATE INDEX commissions_click_day_idx ON commissions (program_id, created_at) WHERE click_reward_day_id IS NOT NULL;
