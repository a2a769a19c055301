-- A chargeback reversal that names its own amount (Paddle's chargeback_reverse adjustment): its
-- own row, keyed by its id (amount = what it gives back, deduction = what came back).
ALTER TABLE refunds DROP CONSTRAINT refunds_reason_check;
ALTER TABLE refunds ADD CONSTRAINT refunds_reason_check CHECK (reason IN ('refund', 'chargeback', 'refund_failed', 'chargeback_reversed'));
