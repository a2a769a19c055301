-- The overview's leaderboard (partners by revenue, commission, customers over a period) reads the
-- per-partner, per-day rollups of the period only. The primary key starts (program_id,
-- partner_id, day): a period's rows of every partner lay scattered across each partner's whole
-- history, so the read walked every day of every partner. This index starts at the day.
CREATE INDEX page_rollups_program_day_idx ON page_rollups (program_id, day) WHERE partner_id > 0 AND link_id = -1;
