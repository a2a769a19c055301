-- Fraud holds: a commission with a signal is `held` (never approved on its own) until a manager
-- releases it (pending again) or rejects it (never owed). Thresholds per program; the lead's IP
-- (the customer's, from the browser or passed by the brand's backend) for the IP signals.

ALTER TABLE commissions DROP CONSTRAINT commissions_stage_check;
ALTER TABLE commissions ADD CONSTRAINT commissions_stage_check CHECK (stage IN ('pending', 'held', 'approved', 'paid', 'rejected'));
ALTER TABLE commissions ADD COLUMN hold_reasons text[];

ALTER TABLE commission_ledger DROP CONSTRAINT commission_ledger_kind_check;
ALTER TABLE commission_ledger ADD CONSTRAINT commission_ledger_kind_check
  CHECK (kind IN ('created', 'adjusted', 'approved', 'unapproved', 'paid', 'clawed_back', 'clawback_settled', 'released', 'rejected'));

ALTER TABLE programs
  -- A signup this soon after its click, from the click's IP, is held.
  ADD COLUMN fraud_min_signup_seconds integer NOT NULL DEFAULT 10 CHECK (fraud_min_signup_seconds >= 0),
  -- More leads than this from one IP within the window: each further one's commission is held.
  ADD COLUMN fraud_max_leads_per_ip integer NOT NULL DEFAULT 5 CHECK (fraud_max_leads_per_ip > 0),
  ADD COLUMN fraud_ip_window_minutes integer NOT NULL DEFAULT 60 CHECK (fraud_ip_window_minutes > 0);

ALTER TABLE customers ADD COLUMN lead_ip inet;
CREATE INDEX customers_lead_ip_idx ON customers (program_id, lead_ip, lead_at) WHERE lead_ip IS NOT NULL;
