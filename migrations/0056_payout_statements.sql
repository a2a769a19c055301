-- A payout's statement for the partner (docs/payouts.md, "Statements"): what it was sent with, the
-- brand's statement details, and the partner's invoice details.

-- How the payout was to be paid, as the partner's details stood when the run made it: a statement
-- is a record, so a later change of details never rewrites an earlier one. Null on payouts made
-- before this was recorded.
ALTER TABLE payouts ADD COLUMN payout_method text, ADD COLUMN pay_to text;

-- The brand as its statements name it (empty: the program's name alone).
ALTER TABLE programs
  ADD COLUMN statement_legal_name text NOT NULL DEFAULT '',
  ADD COLUMN statement_address text NOT NULL DEFAULT '',
  ADD COLUMN statement_tax_id text NOT NULL DEFAULT '';

-- The person paid, as their statements name them: one per sign-in email (the portal's partner is
-- that person across every program that invited them), entered once, shown on every statement.
CREATE TABLE partner_invoice_details (
  email       text PRIMARY KEY CHECK (email = lower(email)),
  name        text NOT NULL,
  address     text NOT NULL DEFAULT '',
  country     text NOT NULL DEFAULT '',
  tax_id      text NOT NULL DEFAULT '',
  updated_at  timestamptz NOT NULL DEFAULT now()
);

-- A payout's statement lists the clawbacks it netted: found by the payout, not by scanning every brand's.
CREATE INDEX IF NOT EXISTS clawbacks_payout_idx ON clawbacks (payout_id) WHERE payout_id IS NOT NULL;
