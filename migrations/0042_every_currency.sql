-- Every currency a processor sells in (DESIGN "Currencies"): a program may opt in to every
-- ISO 4217 currency; off, it keeps the contract's USD, EUR and VND. The database only checks
-- the shape of a code; which codes exist, and their minor-unit digits, is the application's
-- table (src/core/iso-4217.ts), so a new ISO code needs no migration.
ALTER TABLE programs ADD COLUMN accept_all_currencies boolean NOT NULL DEFAULT false;

ALTER TABLE sales DROP CONSTRAINT sales_currency_check;
ALTER TABLE sales ADD CONSTRAINT sales_currency_check CHECK (currency ~ '^[A-Z]{3}$');

ALTER TABLE partners DROP CONSTRAINT partners_payout_currency_check;
ALTER TABLE partners ADD CONSTRAINT partners_payout_currency_check CHECK (payout_currency ~ '^[A-Z]{3}$');

ALTER TABLE partner_profiles DROP CONSTRAINT partner_profiles_payout_currency_check;
ALTER TABLE partner_profiles ADD CONSTRAINT partner_profiles_payout_currency_check CHECK (payout_currency ~ '^[A-Z]{3}$');
