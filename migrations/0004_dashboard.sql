-- Dashboard sign-in sessions (cookie holds a random token; only its digest is stored), and the
-- Stripe live check: when the last event arrived and the last signature failure.
CREATE TABLE dashboard_sessions (
  id          bigserial PRIMARY KEY,
  token_hash  bytea NOT NULL UNIQUE,
  account_id  bigint NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  created_at  timestamptz NOT NULL DEFAULT now(),
  expires_at  timestamptz NOT NULL
);

ALTER TABLE programs ADD COLUMN stripe_last_event_at timestamptz;
ALTER TABLE programs ADD COLUMN stripe_last_signature_error text;
ALTER TABLE programs ADD COLUMN stripe_last_signature_error_at timestamptz;
