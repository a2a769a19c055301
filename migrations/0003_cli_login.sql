-- CLI login: local passwords (scrypt), 5-minute login sessions, login tokens (stored hashed).
ALTER TABLE accounts ADD COLUMN password_hash text;

CREATE TABLE cli_login_sessions (
  id            bigserial PRIMARY KEY,
  state_hash    bytea NOT NULL UNIQUE,
  -- pending -> signed_in -> consumed (token handed out on the first poll after sign-in).
  status        text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'signed_in', 'consumed')),
  account_id    bigint REFERENCES accounts (id) ON DELETE CASCADE,
  created_at    timestamptz NOT NULL DEFAULT now(),
  expires_at    timestamptz NOT NULL,
  signed_in_at  timestamptz,
  consumed_at   timestamptz
);
CREATE INDEX cli_login_sessions_expiry_idx ON cli_login_sessions (expires_at);

CREATE TABLE cli_tokens (
  id          bigserial PRIMARY KEY,
  token_hash  bytea NOT NULL UNIQUE,
  account_id  bigint NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  created_at  timestamptz NOT NULL DEFAULT now(),
  expires_at  timestamptz NOT NULL,
  revoked_at  timestamptz
);
