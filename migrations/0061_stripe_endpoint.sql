-- Stripe's signing secret and last signature failure move to processor_endpoints, beside Paddle's
-- and Lemon Squeezy's: one intake reads every processor's endpoint the same way (issue 45, item 2).
-- The secret stays sealed as it is (AFFIX_SECRET_KEY); the Connect account stays on programs.
ALTER TABLE processor_endpoints DROP CONSTRAINT processor_endpoints_processor_check;
ALTER TABLE processor_endpoints ADD CONSTRAINT processor_endpoints_processor_check CHECK (processor IN ('stripe', 'paddle', 'lemonsqueezy'));

INSERT INTO processor_endpoints (program_id, processor, webhook_secret_sealed, last_signature_error, last_signature_error_at)
SELECT id, 'stripe', stripe_webhook_secret, stripe_last_signature_error, stripe_last_signature_error_at
  FROM programs WHERE stripe_webhook_secret IS NOT NULL
ON CONFLICT (program_id, processor) DO NOTHING;

ALTER TABLE programs
  DROP COLUMN stripe_webhook_secret,
  DROP COLUMN stripe_last_signature_error,
  DROP COLUMN stripe_last_signature_error_at;
