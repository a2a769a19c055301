-- A brand's team (docs/team.md): members of an account with a role, invited by mail (the link
-- lasts days), removable. The account's own sign-in is its first owner and cannot be removed, so
-- an account always keeps an owner. Sessions and CLI tokens act as their member (null: the
-- account's own sign-in).
CREATE TABLE account_members (
  id             bigserial PRIMARY KEY,
  account_id     bigint NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  email          text NOT NULL,
  role           text NOT NULL CHECK (role IN ('owner', 'admin', 'finance', 'viewer')),
  password_hash  text,
  invited_at     timestamptz NOT NULL DEFAULT now(),
  accepted_at    timestamptz,
  removed_at     timestamptz
);
CREATE UNIQUE INDEX account_members_email_key ON account_members (account_id, lower(email)) WHERE removed_at IS NULL;
CREATE INDEX account_members_login_idx ON account_members (lower(email)) WHERE removed_at IS NULL AND accepted_at IS NOT NULL;

CREATE TABLE member_invitations (
  token_hash  bytea PRIMARY KEY,
  member_id   bigint NOT NULL REFERENCES account_members (id) ON DELETE CASCADE,
  expires_at  timestamptz NOT NULL,
  used_at     timestamptz,
  created_at  timestamptz NOT NULL DEFAULT now()
);

ALTER TABLE dashboard_sessions ADD COLUMN member_id bigint REFERENCES account_members (id) ON DELETE CASCADE;
ALTER TABLE cli_tokens ADD COLUMN member_id bigint REFERENCES account_members (id) ON DELETE CASCADE;
ALTER TABLE cli_login_sessions ADD COLUMN member_id bigint REFERENCES account_members (id) ON DELETE CASCADE;
