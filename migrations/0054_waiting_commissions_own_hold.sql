-- The longest hold among a program's waiting commissions (a group's hold is kept on each commission
-- made under it): the Payouts page's approval sums read only the commissions made within it
-- (src/db/payouts.ts, approvalSums), found here from the index's end.
CREATE INDEX IF NOT EXISTS commissions_waiting_own_hold_idx ON commissions (program_id, hold_days)
  WHERE stage IN ('pending', 'held') AND hold_days IS NOT NULL;
