-- Money owed to partners: the commission lifecycle (pending -> approved -> paid), an append-only
-- ledger every balance is derived from, clawbacks carried into the next payout, payout batches,
-- and partners' payout details. See docs/payouts.md.

ALTER TABLE programs
  -- Days a commission stays pending before it can be approved: longer than the usual refund window.
  ADD COLUMN hold_days integer NOT NULL DEFAULT 30 CHECK (hold_days BETWEEN 0 AND 365),
  -- A payout line below this (in the currency's smallest unit) waits for the next run.
  ADD COLUMN payout_minimum_cents bigint NOT NULL DEFAULT 0 CHECK (payout_minimum_cents >= 0);

ALTER TABLE partners
  ADD COLUMN payout_method text CHECK (payout_method IN ('paypal', 'wise', 'bank_transfer', 'stripe')),
  -- The PayPal or Wise email, an IBAN, or a Stripe connected account id (acct_…).
  ADD COLUMN payout_reference text,
  ADD COLUMN payout_currency text CHECK (payout_currency IN ('USD', 'EUR', 'VND'));

CREATE TABLE payout_batches (
  id          bigserial PRIMARY KEY,
  program_id  bigint NOT NULL REFERENCES programs (id) ON DELETE CASCADE,
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX payout_batches_program_idx ON payout_batches (program_id, id DESC);

-- One line of a batch: what one partner is paid in one currency.
CREATE TABLE payouts (
  id            bigserial PRIMARY KEY,
  batch_id      bigint NOT NULL REFERENCES payout_batches (id) ON DELETE CASCADE,
  program_id    bigint NOT NULL REFERENCES programs (id) ON DELETE CASCADE,
  partner_id    bigint NOT NULL REFERENCES partners (id),
  currency      text NOT NULL,
  amount_cents  bigint NOT NULL CHECK (amount_cents > 0),
  status        text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'paid', 'canceled')),
  reference     text,
  paid_at       timestamptz,
  created_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX payouts_batch_idx ON payouts (batch_id);
CREATE INDEX payouts_program_idx ON payouts (program_id, status);

ALTER TABLE commissions
  ADD COLUMN stage text NOT NULL DEFAULT 'pending' CHECK (stage IN ('pending', 'approved', 'paid')),
  -- false after a manager took an approval back: the schedule leaves it to the manager.
  ADD COLUMN auto_approve boolean NOT NULL DEFAULT true,
  ADD COLUMN approved_at timestamptz,
  ADD COLUMN paid_at timestamptz,
  -- The open or paid payout this commission is part of (claimed when the payout run is made),
  -- and the amount that payout pays for it: a refund after the claim is a clawback, not a change of it.
  ADD COLUMN payout_id bigint REFERENCES payouts (id),
  ADD COLUMN payout_cents bigint;
CREATE INDEX commissions_due_idx ON commissions (created_at) WHERE stage = 'pending';
CREATE INDEX commissions_owed_idx ON commissions (program_id, partner_id, currency) WHERE stage = 'approved';

-- A deduction (refund, chargeback) after the commission was paid or claimed by a payout: owed
-- back by the partner, netted in their next payout. Never an edit of the paid record.
CREATE TABLE clawbacks (
  id             bigserial PRIMARY KEY,
  commission_id  bigint NOT NULL REFERENCES commissions (id) ON DELETE CASCADE,
  program_id     bigint NOT NULL REFERENCES programs (id) ON DELETE CASCADE,
  partner_id     bigint NOT NULL REFERENCES partners (id),
  currency       text NOT NULL,
  -- Negative: taken back; positive: a refund that failed gives it back.
  amount_cents   bigint NOT NULL CHECK (amount_cents <> 0),
  payout_id      bigint REFERENCES payouts (id),
  created_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX clawbacks_open_idx ON clawbacks (program_id, partner_id, currency) WHERE payout_id IS NULL;

-- Append-only. Each entry moves money between the three buckets of one commission; a partner's
-- balances are the sums of these deltas (no cached totals to drift).
CREATE TABLE commission_ledger (
  id              bigserial PRIMARY KEY,
  program_id      bigint NOT NULL REFERENCES programs (id) ON DELETE CASCADE,
  partner_id      bigint REFERENCES partners (id) ON DELETE SET NULL,
  commission_id   bigint NOT NULL REFERENCES commissions (id) ON DELETE CASCADE,
  currency        text NOT NULL,
  kind            text NOT NULL
    CHECK (kind IN ('created', 'adjusted', 'approved', 'unapproved', 'paid', 'clawed_back', 'clawback_settled')),
  pending_cents   bigint NOT NULL DEFAULT 0,
  approved_cents  bigint NOT NULL DEFAULT 0,
  paid_cents      bigint NOT NULL DEFAULT 0,
  payout_id       bigint REFERENCES payouts (id),
  reason          text,
  created_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX commission_ledger_partner_idx ON commission_ledger (program_id, partner_id, currency);
CREATE INDEX commission_ledger_commission_idx ON commission_ledger (commission_id);

CREATE FUNCTION commission_ledger_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'commission_ledger is append-only';
END $$;
CREATE TRIGGER commission_ledger_no_update BEFORE UPDATE OR DELETE ON commission_ledger
  FOR EACH ROW WHEN (pg_trigger_depth() = 0) -- cascades from a deleted program still clean up
  EXECUTE FUNCTION commission_ledger_append_only();

-- Commissions made before the ledger existed: their current net as one 'created' entry.
INSERT INTO commission_ledger (program_id, partner_id, commission_id, currency, kind, pending_cents, created_at)
SELECT program_id, partner_id, id, currency, 'created', amount_cents - deducted_cents, created_at FROM commissions;
