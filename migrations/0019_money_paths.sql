-- Money right on every billing path (docs/payouts.md, "Decisions" in the design):
-- the first-sale commission moves to an earlier sale processed later; test-mode commissions
-- are never approved or paid; a payout paid through Stripe is claimed before its transfer;
-- minimum payouts per currency; one read of a commission's state for every surface.

-- A first-sale commission that moved to an earlier sale of its customer: it no longer counts
-- for its own sale (refunds of that sale find no commission), its money left through the ledger.
ALTER TABLE commissions
  ADD COLUMN moved_to_sale_id bigint REFERENCES sales (id) ON DELETE SET NULL,
  ADD COLUMN moved_at timestamptz,
  -- Made from a processor's test-mode payment (the program opted in to test commissions):
  -- shown and counted, never approved, paid or exported.
  ADD COLUMN test boolean NOT NULL DEFAULT false;

ALTER TABLE commission_ledger DROP CONSTRAINT commission_ledger_kind_check;
ALTER TABLE commission_ledger ADD CONSTRAINT commission_ledger_kind_check
  CHECK (kind IN ('created', 'adjusted', 'approved', 'unapproved', 'paid', 'clawed_back', 'clawback_settled', 'released', 'rejected', 'moved'));

-- 'processing': claimed by a Stripe transfer in flight; neither cancelled nor marked paid by hand meanwhile.
ALTER TABLE payouts DROP CONSTRAINT payouts_status_check;
ALTER TABLE payouts ADD CONSTRAINT payouts_status_check CHECK (status IN ('pending', 'processing', 'paid', 'canceled'));

-- One minimum per currency ({"USD": 5000, "VND": 1000000}); a currency not named has none.
-- The old single minimum meant cents: it is kept for the two-decimal currencies only.
ALTER TABLE programs ADD COLUMN payout_minimums jsonb NOT NULL DEFAULT '{}'::jsonb;
UPDATE programs SET payout_minimums = jsonb_build_object('USD', payout_minimum_cents, 'EUR', payout_minimum_cents) WHERE payout_minimum_cents > 0;
ALTER TABLE programs DROP COLUMN payout_minimum_cents;

-- A commission's state and amounts, read by every surface (overview, partners, activity,
-- payouts, portal, CSV, MCP). The order of the CASE is the rule: a commission with no money
-- left is reversed whatever its stage said (a paid one then was clawed back); then the lifecycle.
CREATE VIEW commission_states AS
SELECT c.id, c.sale_id, c.program_id, c.partner_id, c.currency, c.amount_cents, c.deducted_cents, c.created_at,
       c.stage, c.status AS refund_status, c.payout_id, c.test, c.moved_to_sale_id, c.hold_reasons,
       CASE
         WHEN c.moved_to_sale_id IS NOT NULL THEN 'moved'
         WHEN c.stage = 'rejected' THEN 'rejected'
         WHEN c.status = 'reversed' OR c.amount_cents = c.deducted_cents THEN 'reversed'
         WHEN c.stage = 'paid' THEN 'paid'
         WHEN c.test THEN 'test'
         WHEN c.stage = 'approved' AND c.payout_id IS NOT NULL THEN 'in_payout'
         ELSE c.stage
       END AS state,
       -- What the partner earns from it now: nothing once moved or rejected.
       CASE WHEN c.moved_to_sale_id IS NOT NULL OR c.stage = 'rejected' THEN 0 ELSE c.amount_cents - c.deducted_cents END AS earned_cents
  FROM commissions c;

-- The payout that had claimed the commission when a clawback was made (null: the commission was
-- paid, or the row is a credit). Cancelling that payout releases exactly what it claimed: the
-- clawbacks made under it are dropped when not yet netted, and credited back when another
-- payout already netted them (the commission's own net carries the deduction from then on).
ALTER TABLE clawbacks ADD COLUMN made_under_payout_id bigint REFERENCES payouts (id);
UPDATE clawbacks k SET made_under_payout_id = c.payout_id
  FROM commissions c JOIN payouts p ON p.id = c.payout_id
 WHERE c.id = k.commission_id AND p.status = 'pending';
CREATE INDEX clawbacks_made_under_idx ON clawbacks (made_under_payout_id) WHERE made_under_payout_id IS NOT NULL;
