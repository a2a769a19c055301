-- The outbox is the mail queue (docs/mail.md "Which mail goes first"): a sender takes the next
-- waiting row, urgent kinds first (sign-in links, invitations, password resets), then by rank:
-- the n-th waiting mail of an account (its lane) has a rank n past the sender's clock when it
-- was written, so accounts' mails interleave whatever one of them wrote in bulk. A mail whose
-- attempt failed waits until retry_at. No job per mail any more.
ALTER TABLE mail_outbox
  -- The account the mail is of (its program's); 0: mail of no program (sign-in links, team invitations).
  ADD COLUMN lane bigint NOT NULL DEFAULT 0,
  ADD COLUMN urgent boolean NOT NULL DEFAULT false,
  ADD COLUMN rank bigint NOT NULL DEFAULT 0,
  ADD COLUMN retry_at timestamptz;

-- The rank of the last mail the senders took, urgent and not: where a lane that had nothing
-- waiting starts again (after its turn in the round, never before nor far behind).
CREATE TABLE mail_clock (
  urgent boolean PRIMARY KEY,
  rank   bigint NOT NULL
);
INSERT INTO mail_clock (urgent, rank) VALUES (true, 0), (false, 0);

-- Mail whose job gave up (its 8 attempts failed) stays given up.
UPDATE mail_outbox SET skipped = 'failed' WHERE sent_at IS NULL AND skipped IS NULL AND attempts >= 8;

-- Mail waiting for its job: its lane, whether urgent (the kinds src/core/mail.ts calls urgent
-- when this was written), and its turn in its lane, in the order it was written.
UPDATE mail_outbox o SET lane = w.lane, urgent = w.urgent, rank = w.rank
  FROM (SELECT o.id, coalesce(p.account_id, 0) AS lane,
               o.kind IN ('partner_sign_in', 'partner_invitation', 'member_invitation', 'password_reset') AS urgent,
               row_number() OVER (
                 PARTITION BY coalesce(p.account_id, 0), o.kind IN ('partner_sign_in', 'partner_invitation', 'member_invitation', 'password_reset')
                 ORDER BY o.id) AS rank
          FROM mail_outbox o LEFT JOIN programs p ON p.id = o.program_id
         WHERE o.sent_at IS NULL AND o.skipped IS NULL) w
 WHERE o.id = w.id;

-- The senders' ORDER BY, read in index order (the backlog is never sorted); a lane's last rank.
DROP INDEX mail_outbox_unsent_idx;
CREATE INDEX mail_outbox_next_idx ON mail_outbox (urgent DESC, rank, id) WHERE sent_at IS NULL AND skipped IS NULL;
CREATE INDEX mail_outbox_lane_idx ON mail_outbox (lane, urgent, rank) WHERE sent_at IS NULL AND skipped IS NULL;

-- The jobs that waited to send those rows: the rows themselves are the queue now. (A job being
-- run by a worker of the previous version is left to it: the row is locked and sent once.)
DO $$
BEGIN
  IF to_regclass('pgboss.job') IS NOT NULL THEN
    DELETE FROM pgboss.job WHERE name = 'mail' AND state IN ('created', 'retry');
  END IF;
END $$;
