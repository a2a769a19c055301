-- A payout that failed or was returned (any method): 'failed', with when and why. Its commissions
-- go back to owed and the ledger records the round trip (docs/payouts.md, "Failed payouts").
ALTER TABLE payouts DROP CONSTRAINT payouts_status_check;
ALTER TABLE payouts ADD CONSTRAINT payouts_status_check CHECK (status IN ('pending', 'processing', 'paid', 'canceled', 'failed'));
ALTER TABLE payouts
  ADD COLUMN failed_at timestamptz,
  ADD COLUMN failure_reason text CHECK (char_length(failure_reason) <= 500),
  -- The provider's id of the failure (a PayPal item or Wise transfer): the same one twice is one failure.
  ADD COLUMN failure_reference text CHECK (char_length(failure_reference) <= 200);

-- 'payout_failed': the money of a paid payout came back; reverses its 'paid' and 'clawback_settled' entries.
ALTER TABLE commission_ledger DROP CONSTRAINT commission_ledger_kind_check;
ALTER TABLE commission_ledger ADD CONSTRAINT commission_ledger_kind_check
  CHECK (kind IN ('created', 'adjusted', 'approved', 'unapproved', 'paid', 'clawed_back', 'clawback_settled', 'released', 'rejected', 'moved', 'reinstated', 'payout_failed'));
