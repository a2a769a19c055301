-- Every read scoped by account, program or partner is served by an index on that scope: without
-- one, a brand's page or export scans the rows of every brand (test/scope-plans.test.ts checks
-- the plans of the lists, exports and portal pages beside a brand of 100,000 partners).

-- A partner's links, in id order: the partners CSV's codes (a page of 1,000 partners scanned all
-- brands' links once per partner: 53.7 s with 100,000 links), the partner page, the portal, the
-- dashboard's links section.
CREATE INDEX IF NOT EXISTS referral_links_partner_idx ON referral_links (partner_id, id);
-- A program's links: the overview counts the partners with an enabled link.
CREATE INDEX IF NOT EXISTS referral_links_program_idx ON referral_links (program_id, partner_id);

-- A partner's sanctions, lifted ones too (the partner page lists them; the unique index of
-- 0021 holds only the active one).
CREATE INDEX IF NOT EXISTS partner_sanctions_partner_idx ON partner_sanctions (partner_id, id);

-- A program's promo codes (the unique indexes of 0015 hold only rows with that kind of code).
CREATE INDEX IF NOT EXISTS promo_codes_program_idx ON promo_codes (program_id, id);

-- A program's webhook endpoints, turned-off ones too (the index of 0013 holds enabled ones).
CREATE INDEX IF NOT EXISTS webhook_endpoints_program_all_idx ON webhook_endpoints (program_id, id);

-- A partner's payouts, newest first (the portal's payout history).
CREATE INDEX IF NOT EXISTS payouts_partner_idx ON payouts (partner_id, id);

-- The commissions a payout claimed (the portal's statement and payout history, cancel and mark
-- paid); most commissions are in no payout.
CREATE INDEX IF NOT EXISTS commissions_payout_idx ON commissions (payout_id) WHERE payout_id IS NOT NULL;
-- A partner's commissions, newest first (the partner page): a large program's partner page
-- read every commission of the program.
CREATE INDEX IF NOT EXISTS commissions_partner_idx ON commissions (partner_id, id);

-- A program's partners in id order: the CSV export and the bulk actions page through them by id
-- (partners_program_idx made each page sort the program's partners past the last one).
CREATE INDEX IF NOT EXISTS partners_program_id_idx ON partners (program_id, id);
