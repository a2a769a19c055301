-- Outbound webhooks to the brand (Standard Webhooks): endpoints, the messages each change
-- writes in its own transaction, one delivery per (message, endpoint), and every attempt.

CREATE TABLE webhook_endpoints (
  id                        bigserial PRIMARY KEY,
  program_id                bigint NOT NULL REFERENCES programs (id) ON DELETE CASCADE,
  url                       text NOT NULL,
  event_types               text[] NOT NULL CHECK (cardinality(event_types) > 0),
  -- whsec_… sealed with the service's secret key (src/platform/secret-box.ts), as Stripe secrets are.
  secret_sealed             text NOT NULL,
  -- After a rotation the old secret signs too until this moment, so receivers can switch over.
  previous_secret_sealed    text,
  previous_secret_until     timestamptz,
  enabled                   boolean NOT NULL DEFAULT true,
  disabled_reason           text,
  disabled_at               timestamptz,
  created_at                timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_endpoints_program_idx ON webhook_endpoints (program_id) WHERE enabled;

CREATE TABLE webhook_messages (
  -- The webhook-id header: the same on every retry and replay, the receiver's idempotency key.
  id          text PRIMARY KEY,
  program_id  bigint NOT NULL REFERENCES programs (id) ON DELETE CASCADE,
  type        text NOT NULL,
  test        boolean NOT NULL,
  data        jsonb NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX webhook_messages_program_idx ON webhook_messages (program_id, created_at DESC);

CREATE TABLE webhook_deliveries (
  id               bigserial PRIMARY KEY,
  message_id       text NOT NULL REFERENCES webhook_messages (id) ON DELETE CASCADE,
  endpoint_id      bigint NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
  status           text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
  attempts         integer NOT NULL DEFAULT 0,
  next_attempt_at  timestamptz,
  delivered_at     timestamptz,
  created_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_deliveries_endpoint_idx ON webhook_deliveries (endpoint_id, id DESC);

CREATE TABLE webhook_attempts (
  id             bigserial PRIMARY KEY,
  delivery_id    bigint NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
  attempted_at   timestamptz NOT NULL,
  status_code    integer,
  -- The first 500 characters of the receiver's answer, or why there was none.
  response_excerpt text,
  duration_ms    integer NOT NULL
);
CREATE INDEX webhook_attempts_delivery_idx ON webhook_attempts (delivery_id);
