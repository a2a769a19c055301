-- Stripe webhook inbox: every verified delivery is stored here, keyed by Stripe's event id,
-- in the same transaction that enqueues its job.
CREATE TABLE webhook_events (
  id                bigserial PRIMARY KEY,
  stripe_event_id   text NOT NULL UNIQUE,
  endpoint          text NOT NULL CHECK (endpoint IN ('program', 'connect')),
  program_id        bigint REFERENCES programs (id) ON DELETE SET NULL,
  account           text,
  type              text NOT NULL,
  livemode          boolean NOT NULL,
  api_version       text,
  payload           jsonb NOT NULL,
  -- queued -> processed | ignored | failed, or retrying -> parked | dead (replayable).
  status            text NOT NULL CHECK (status IN ('queued', 'retrying', 'processed', 'ignored', 'failed', 'parked', 'dead')),
  reason            text,
  attempts          integer NOT NULL DEFAULT 0,
  attribution_step  text,
  sale_id           bigint REFERENCES sales (id) ON DELETE SET NULL,
  result            jsonb NOT NULL DEFAULT '{}',
  received_at       timestamptz NOT NULL DEFAULT now(),
  updated_at        timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_events_status_idx ON webhook_events (status, received_at);
CREATE INDEX webhook_events_program_idx ON webhook_events (program_id, received_at);

-- A won dispute gives the commission back: the chargeback refund is marked reverted.
ALTER TABLE refunds ADD COLUMN reverted_at timestamptz;

CREATE INDEX sales_payment_idx ON sales (program_id, provider_payment_id) WHERE provider_payment_id IS NOT NULL;
