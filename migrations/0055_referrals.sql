-- Referrals in the partner portal (issue 44, item 3).
-- The link builder's sub-ID, read from the click's ?sub_id= and written by the click's one INSERT
-- (one more value). Only clicks that carry one are indexed: a click without a sub-ID costs what
-- it did, and a partner's report per sub-ID reads only their own tagged clicks.
ALTER TABLE clicks ADD COLUMN sub_id text;
CREATE INDEX clicks_partner_sub_idx ON clicks (partner_id, sub_id, click_id) WHERE sub_id IS NOT NULL;
-- A partner's referred customers, newest first, a page at a time.
CREATE INDEX customers_partner_idx ON customers (partner_id, id) WHERE partner_id IS NOT NULL;
-- The link code an applicant chose on the application page: their link's code on approval when still free.
ALTER TABLE partner_applications ADD COLUMN wanted_code text;
