-- Each person sees and ends only their own sessions and CLI tokens (docs/team.md): both are read
-- per (account, person), the account's own sign-in (member_id null) as person 0.
CREATE INDEX dashboard_sessions_person_idx ON dashboard_sessions (account_id, coalesce(member_id, 0));
CREATE INDEX cli_tokens_person_idx ON cli_tokens (account_id, coalesce(member_id, 0)) WHERE revoked_at IS NULL;

-- Password reset by mail: a link that works once, within 30 minutes, for every sign-in of an
-- address (the account's own and its memberships). Only the token's digest is stored.
CREATE TABLE password_resets (
  token_hash  bytea PRIMARY KEY,
  email       text NOT NULL,
  expires_at  timestamptz NOT NULL,
  used_at     timestamptz,
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX password_resets_expiry_idx ON password_resets (expires_at);

-- Where a person last signed in (digest of the address and the client IP): a correct password
-- from such a place passes the account-wide sign-in backoff (src/core/sign-in-limits.ts).
CREATE TABLE sign_in_places (
  place_hash  bytea PRIMARY KEY,
  last_at     timestamptz NOT NULL
);
CREATE INDEX sign_in_places_last_idx ON sign_in_places (last_at);
