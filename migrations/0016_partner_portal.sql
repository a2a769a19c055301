-- The partner portal: partners invited by the brand sign in by emailed one-time links (stored
-- as SHA-256 digests, 15 minutes) and see their own numbers across every program that invited
-- their email. Sessions are random tokens whose digests live here.
ALTER TABLE partners ADD COLUMN invited_at timestamptz;
CREATE INDEX partners_email_idx ON partners (lower(email)) WHERE email IS NOT NULL;

-- Partners of this program may create extra referral links themselves.
ALTER TABLE programs ADD COLUMN partners_can_create_links boolean NOT NULL DEFAULT false;

CREATE TABLE partner_sign_in_links (
  token_hash  bytea PRIMARY KEY,
  email       text NOT NULL,
  expires_at  timestamptz NOT NULL,
  used_at     timestamptz,
  created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE partner_sessions (
  token_hash  bytea PRIMARY KEY,
  email       text NOT NULL,
  expires_at  timestamptz NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX partner_sessions_email_idx ON partner_sessions (email);
