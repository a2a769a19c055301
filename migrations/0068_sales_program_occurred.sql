-- The reward-rule backtest (issue 46 item 4, docs/rewards.md) reads a program's partner sales
-- over a period in the order they were paid, a page at a time: one range of this index, in its
-- order (the key (occurred_at, id) is the page cursor).
CREATE INDEX IF NOT EXISTS sales_program_occurred_idx ON sales (program_id, occurred_at, id) WHERE partner_id IS NOT NULL AND NOT test;
