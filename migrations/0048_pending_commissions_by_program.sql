-- A program's pending commissions by when they were made: the Payouts page's "past its hold"
-- count and sum, and its commissions filtered by days, read only the program's pending rows
-- (the schedule's commissions_due_idx spans every program).
CREATE INDEX IF NOT EXISTS commissions_pending_program_idx ON commissions (program_id, created_at) WHERE stage = 'pending';
