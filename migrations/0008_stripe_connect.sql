-- Stripe Connect onboarding: a connected account is bound to a program only after its owner
-- authorized the platform on Stripe (OAuth). The state ties Stripe's redirect back to the brand
-- and program that started it; once, for 10 minutes.
CREATE TABLE stripe_connect_states (
  state_hash  bytea PRIMARY KEY,
  program_id  bigint NOT NULL REFERENCES programs (id) ON DELETE CASCADE,
  account_id  bigint NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  expires_at  timestamptz NOT NULL,
  used_at     timestamptz
);
