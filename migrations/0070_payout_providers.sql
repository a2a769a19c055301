-- Paying a batch through PayPal's Payouts API or Wise's API (docs/payouts.md, "PayPal through its
-- API", "Wise through its API").

-- The brand's credentials with each provider, per program. The secret (PayPal's client secret,
-- Wise's API token) is sealed like the processors' API keys (src/platform/secret-box.ts) and never
-- shown again: only its last four characters, so a manager can tell which one is saved.
CREATE TABLE payout_provider_accounts (
  program_id     bigint NOT NULL REFERENCES programs (id) ON DELETE CASCADE,
  provider       text NOT NULL CHECK (provider IN ('paypal', 'wise')),
  -- PayPal: the REST app's client id (not a secret: it names the app).
  client_id      text CHECK (char_length(client_id) <= 200),
  -- Wise: the profile (personal or business) that pays.
  profile_id     bigint CHECK (profile_id > 0),
  secret_sealed  text NOT NULL,
  secret_last4   text NOT NULL CHECK (char_length(secret_last4) <= 4),
  sandbox        boolean NOT NULL DEFAULT false,
  updated_at     timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (program_id, provider),
  CHECK (provider <> 'paypal' OR client_id IS NOT NULL),
  CHECK (provider <> 'wise' OR profile_id IS NOT NULL)
);

-- One sending of a batch's payouts through a provider. Its id names the request (PayPal's
-- sender_batch_id), so a job retried or resent after a crash asks for the same payment again and
-- the provider answers with the one it made. The lease keeps two attempts from sending at once.
CREATE TABLE provider_payout_sends (
  id                 bigserial PRIMARY KEY,
  program_id         bigint NOT NULL REFERENCES programs (id) ON DELETE CASCADE,
  batch_id           bigint NOT NULL REFERENCES payout_batches (id) ON DELETE CASCADE,
  provider           text NOT NULL CHECK (provider IN ('paypal', 'wise')),
  state              text NOT NULL DEFAULT 'sending' CHECK (state IN ('sending', 'sent', 'refused')),
  -- PayPal's payout_batch_id once it answered.
  provider_batch_id  text CHECK (char_length(provider_batch_id) <= 100),
  error              text CHECK (char_length(error) <= 1000),
  attempts           integer NOT NULL DEFAULT 0,
  lease_until        timestamptz,
  created_at         timestamptz NOT NULL,
  sent_at            timestamptz
);
CREATE INDEX provider_payout_sends_batch_idx ON provider_payout_sends (program_id, batch_id);
-- The follower's sweep for sends left half-done (a crash): few rows, across programs.
CREATE INDEX provider_payout_sends_sending_idx ON provider_payout_sends (created_at) WHERE state = 'sending';

-- Each payout sent (or that could not be) through a provider, and its outcome there.
CREATE TABLE provider_payout_items (
  payout_id         bigint PRIMARY KEY REFERENCES payouts (id) ON DELETE CASCADE,
  program_id        bigint NOT NULL REFERENCES programs (id) ON DELETE CASCADE,
  send_id           bigint REFERENCES provider_payout_sends (id) ON DELETE CASCADE,
  provider          text NOT NULL CHECK (provider IN ('paypal', 'wise')),
  -- not_sent: the provider cannot take it (the reason says why; the payout stays pending);
  -- sending: claimed, not answered yet; open: the provider has it; paid, failed: settled.
  outcome           text NOT NULL CHECK (outcome IN ('not_sent', 'sending', 'open', 'paid', 'failed')),
  -- PayPal's payout_item_id, Wise's transfer id.
  provider_item_id  text CHECK (char_length(provider_item_id) <= 100),
  provider_status   text CHECK (char_length(provider_status) <= 60),
  reason            text CHECK (char_length(reason) <= 1000),
  sent_at           timestamptz,
  checked_at        timestamptz,
  updated_at        timestamptz NOT NULL
);
CREATE INDEX provider_payout_items_send_idx ON provider_payout_items (send_id);
-- The follower's work: open items, least recently checked first.
CREATE INDEX provider_payout_items_open_idx ON provider_payout_items (checked_at NULLS FIRST) WHERE outcome = 'open';
