-- A program's commissions waiting for approval (pending, or held for review), by when they were
-- made: the Payouts page's "past its hold" count and sum (and its days filter) read only the
-- program's rows, never the schedule's commissions_due_idx of every program's pending ones.
CREATE INDEX IF NOT EXISTS commissions_waiting_program_idx ON commissions (program_id, created_at) WHERE stage IN ('pending', 'held');
