-- Every commission explains itself (issue 46 item 3, docs/rewards.md): the rule-set version and
-- the rule that paid it (none: the program's, group's or partner's commission type), the
-- sentence every surface shows, and the UTC month the caps count it in. Written once, with the
-- commission; changing rules later never touches them.
ALTER TABLE commissions
  ADD COLUMN rule_set_id   bigint REFERENCES reward_rule_sets (id) ON DELETE SET NULL,
  ADD COLUMN rule_id       text,
  ADD COLUMN reward_words  text,
  ADD COLUMN reward_month  date;

-- Caps per partner per month and the program's monthly budget: one range each.
CREATE INDEX IF NOT EXISTS commissions_reward_month_idx ON commissions (program_id, reward_month, partner_id) WHERE reward_month IS NOT NULL;
