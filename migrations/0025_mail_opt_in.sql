-- Opt-in mail (the managers' daily summary): a preference row says what the person wants; for
-- the kinds everyone gets unless they stop them, a row with wants = false is an unsubscribe.
ALTER TABLE mail_preferences ADD COLUMN wants boolean NOT NULL DEFAULT false;
