-- Bounties (issue 46 item 5, docs/rewards.md "Bounties"): a commission paid without a sale.
-- A performance bounty pays a partner who reaches a threshold in a calendar month (UTC); a
-- submission bounty pays a partner whose submitted link or text the brand approves. Either way
-- an award is made, and its commission follows the normal hold, approval, payout, failed-payout
-- and clawback paths: a commission now has exactly one source, a sale or a bounty award.

CREATE TABLE bounties (
  id               bigserial PRIMARY KEY,
  program_id       bigint NOT NULL REFERENCES programs (id) ON DELETE CASCADE,
  -- Only this group's partners (null: every partner of the program).
  group_id         bigint REFERENCES partner_groups (id) ON DELETE CASCADE,
  kind             text NOT NULL CHECK (kind IN ('performance', 'submission')),
  name             text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 200),
  description      text NOT NULL DEFAULT '' CHECK (char_length(description) <= 2000),
  reward_cents     bigint NOT NULL CHECK (reward_cents > 0),
  currency         text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
  -- Performance: what is counted per partner per month, in which currency (revenue), from what.
  metric           text CHECK (metric IN ('new_customers', 'revenue')),
  metric_currency  text CHECK (metric_currency ~ '^[A-Z]{3}$'),
  threshold        bigint CHECK (threshold > 0),
  refund_rule      text CHECK (refund_rule IN ('as_recorded', 'net_of_refunds')),
  -- Submission: one submission per partner (true) or any number.
  once_only        boolean NOT NULL DEFAULT true,
  archived_at      timestamptz,
  created_at       timestamptz NOT NULL DEFAULT now(),
  CHECK (CASE kind
           WHEN 'performance' THEN metric IS NOT NULL AND threshold IS NOT NULL AND refund_rule IS NOT NULL
                                   AND (metric = 'revenue') = (metric_currency IS NOT NULL)
           ELSE metric IS NULL AND threshold IS NULL AND refund_rule IS NULL AND metric_currency IS NULL
         END),
  UNIQUE (program_id, id)
);
CREATE INDEX bounties_program_idx ON bounties (program_id, id DESC);
-- The evaluation job reads the live performance bounties of every program.
CREATE INDEX bounties_live_performance_idx ON bounties (program_id) WHERE kind = 'performance' AND archived_at IS NULL;

CREATE TABLE bounty_submissions (
  id           bigserial PRIMARY KEY,
  program_id   bigint NOT NULL REFERENCES programs (id) ON DELETE CASCADE,
  bounty_id    bigint NOT NULL,
  partner_id   bigint NOT NULL REFERENCES partners (id) ON DELETE CASCADE,
  content      text NOT NULL CHECK (char_length(content) BETWEEN 1 AND 2000),
  -- The bounty's once_only when submitted: the unique index below reads it.
  once_only    boolean NOT NULL,
  status       text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'approved', 'rejected')),
  reason       text CHECK (char_length(reason) <= 500),
  decided_at   timestamptz,
  created_at   timestamptz NOT NULL DEFAULT now(),
  CHECK (status <> 'rejected' OR reason IS NOT NULL),
  FOREIGN KEY (program_id, bounty_id) REFERENCES bounties (program_id, id) ON DELETE CASCADE
);
-- A partner submits once to a once-only bounty.
CREATE UNIQUE INDEX bounty_submissions_once_key ON bounty_submissions (bounty_id, partner_id) WHERE once_only;
CREATE INDEX bounty_submissions_program_idx ON bounty_submissions (program_id, status, id DESC);
CREATE INDEX bounty_submissions_partner_idx ON bounty_submissions (partner_id, id DESC);

-- An award: a performance bounty's for one partner and month, or an approved submission's.
CREATE TABLE bounty_awards (
  id             bigserial PRIMARY KEY,
  program_id     bigint NOT NULL REFERENCES programs (id) ON DELETE CASCADE,
  bounty_id      bigint NOT NULL,
  partner_id     bigint NOT NULL REFERENCES partners (id) ON DELETE CASCADE,
  -- The month (its first day, UTC) a performance award is for.
  period         date,
  submission_id  bigint UNIQUE REFERENCES bounty_submissions (id) ON DELETE CASCADE,
  -- What the partner reached (customers, or revenue in minor units) when it was awarded.
  measured       bigint,
  created_at     timestamptz NOT NULL DEFAULT now(),
  CHECK ((period IS NULL) <> (submission_id IS NULL)),
  FOREIGN KEY (program_id, bounty_id) REFERENCES bounties (program_id, id) ON DELETE CASCADE,
  -- Once per partner per period, however often or concurrently the evaluation runs.
  UNIQUE (bounty_id, partner_id, period)
);
CREATE INDEX bounty_awards_program_idx ON bounty_awards (program_id, bounty_id, period);

-- A commission's one source: its sale, or its bounty award.
ALTER TABLE commissions ALTER COLUMN sale_id DROP NOT NULL;
ALTER TABLE commissions ADD COLUMN bounty_award_id bigint UNIQUE REFERENCES bounty_awards (id) ON DELETE CASCADE;
ALTER TABLE commissions ADD CONSTRAINT commissions_one_source CHECK ((sale_id IS NULL) <> (bounty_award_id IS NULL)) NOT VALID;
ALTER TABLE commissions VALIDATE CONSTRAINT commissions_one_source;
-- A program's bounty commissions by time (the assistant's partner figures).
CREATE INDEX commissions_bounty_idx ON commissions (program_id, created_at) WHERE bounty_award_id IS NOT NULL;
