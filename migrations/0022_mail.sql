-- Mail to partners and managers (docs/mail.md): each mail is a row written in the transaction of
-- the change it tells of (with its job), sent by a worker once; its body is cleared once sent
-- (a sign-in link lives in it until then). Preferences per address and kind.
CREATE TABLE mail_outbox (
  id           bigserial PRIMARY KEY,
  program_id   bigint REFERENCES programs (id) ON DELETE CASCADE,
  kind         text NOT NULL,
  to_email     text NOT NULL,
  sender_name  text,
  subject      text NOT NULL,
  body         text,
  -- Non-essential kinds carry one-click unsubscribe (RFC 8058) for this kind.
  can_unsubscribe boolean NOT NULL DEFAULT false,
  -- One mail per change: a second write of the same key writes nothing (and no job).
  dedupe_key   text NOT NULL UNIQUE,
  created_at   timestamptz NOT NULL DEFAULT now(),
  sent_at      timestamptz,
  skipped      text,
  attempts     integer NOT NULL DEFAULT 0,
  last_error   text
);
CREATE INDEX mail_outbox_unsent_idx ON mail_outbox (id) WHERE sent_at IS NULL AND skipped IS NULL;

CREATE TABLE mail_preferences (
  email        text NOT NULL,
  kind         text NOT NULL,
  unsubscribed_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (email, kind)
);
