-- Statements numbered per brand without gaps (docs/payouts.md, "Statements"). A brand is an
-- account: its programs share one series, because the series belongs to the legal entity that
-- issues the self-billing invoices, not to one of its programs.

-- One counter row per account, taken (row-locked by UPDATE … RETURNING) in the transaction that
-- marks a payout paid: a rollback gives the number back, so no number is skipped. No sequence:
-- a sequence burns the values of rolled-back transactions.
CREATE TABLE statement_series (
  account_id   bigint PRIMARY KEY REFERENCES accounts (id) ON DELETE CASCADE,
  -- Put before each number ("ACME-2026-"); a change applies to numbers issued after it.
  prefix       text NOT NULL DEFAULT '' CHECK (prefix ~ '^[A-Za-z0-9./_-]{0,20}$'),
  last_number  bigint NOT NULL DEFAULT 0 CHECK (last_number >= 0)
);

-- A payout's number, issued once when it is paid and never changed or reused (a payout that
-- fails afterwards keeps it; its statement says it was reversed). The prefix is kept as issued.
CREATE TABLE statement_numbers (
  account_id  bigint NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  number      bigint NOT NULL CHECK (number > 0),
  payout_id   bigint NOT NULL UNIQUE REFERENCES payouts (id) ON DELETE CASCADE,
  prefix      text NOT NULL DEFAULT '',
  issued_at   timestamptz NOT NULL,
  PRIMARY KEY (account_id, number)
);

-- History has no gaps either: the payouts paid before this migration (paid, or paid and failed
-- since) are numbered in the order they were paid, per account.
INSERT INTO statement_numbers (account_id, number, payout_id, prefix, issued_at)
SELECT pr.account_id,
       row_number() OVER (PARTITION BY pr.account_id ORDER BY p.paid_at, p.id),
       p.id, '', p.paid_at
  FROM payouts p JOIN programs pr ON pr.id = p.program_id
 WHERE p.paid_at IS NOT NULL AND p.status IN ('paid', 'failed');

INSERT INTO statement_series (account_id, last_number)
SELECT account_id, max(number) FROM statement_numbers GROUP BY account_id;

-- A payout that failed after it was paid keeps its statement's lines: read from the ledger entries
-- written under it (its commissions are owed again and no longer point at it).
CREATE INDEX IF NOT EXISTS commission_ledger_payout_idx ON commission_ledger (payout_id) WHERE payout_id IS NOT NULL;
