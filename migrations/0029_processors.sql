-- Paddle Billing and Lemon Squeezy through the same inbox, workers and attribution core as
-- Stripe (docs/paddle.md, docs/lemonsqueezy.md).

-- Which processor sent each inbox row. Event ids of processors other than Stripe are stored
-- namespaced (`paddle:evt_…`, `lemonsqueezy:…`): the one unique key keeps every processor's
-- redeliveries idempotent, and the processor is read from it (never out of step with it).
ALTER TABLE webhook_events ADD COLUMN processor text NOT NULL GENERATED ALWAYS AS (
  CASE WHEN stripe_event_id LIKE 'paddle:%' THEN 'paddle' WHEN stripe_event_id LIKE 'lemonsqueezy:%' THEN 'lemonsqueezy' ELSE 'stripe' END
) STORED;
CREATE INDEX webhook_events_processor_idx ON webhook_events (program_id, processor, received_at);

-- A program's endpoint at a processor other than Stripe: its signing secret (sealed with
-- AFFIX_SECRET_KEY, like Stripe's), whether it is the processor's sandbox (Paddle's payloads
-- say nothing about it), and the last signature failure, shown on the set-up page.
CREATE TABLE processor_endpoints (
  program_id                  bigint NOT NULL REFERENCES programs (id) ON DELETE CASCADE,
  processor                   text NOT NULL CHECK (processor IN ('paddle', 'lemonsqueezy')),
  webhook_secret_sealed       text NOT NULL,
  sandbox                     boolean NOT NULL DEFAULT false,
  last_signature_error        text,
  last_signature_error_at     timestamptz,
  created_at                  timestamptz NOT NULL DEFAULT now(),
  updated_at                  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (program_id, processor)
);
