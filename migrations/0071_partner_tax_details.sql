-- Partners' tax details and the brand's tax-details threshold (docs/payouts.md, "Tax details").

-- The person paid, as a tax form names them: one per sign-in email, like their invoice details
-- (the portal's partner is that person across every program that invited them). A US person gives
-- a TIN (SSN or EIN), kept sealed (AES-256-GCM, src/platform/secret-box.ts) with only its last 4
-- digits in the clear for the masked view; anyone else certifies foreign status (W-8BEN style).
CREATE TABLE partner_tax_details (
  email            text PRIMARY KEY CHECK (email = lower(email)),
  legal_name       text NOT NULL,
  country          text NOT NULL,
  address          text NOT NULL,
  us_person        boolean NOT NULL,
  tin_kind         text CHECK (tin_kind IN ('ssn', 'ein')),
  tin_sealed       text,
  tin_last4        text CHECK (tin_last4 ~ '^[0-9]{4}$'),
  -- The certification of foreign status: name, country of citizenship, date and typed signature.
  foreign_name     text,
  foreign_citizenship text,
  foreign_signed_on date,
  foreign_signature text,
  updated_at       timestamptz NOT NULL,
  CHECK ((us_person AND tin_sealed IS NOT NULL AND tin_kind IS NOT NULL AND tin_last4 IS NOT NULL)
      OR (NOT us_person AND tin_sealed IS NULL AND foreign_signature IS NOT NULL AND foreign_signed_on IS NOT NULL))
);

-- Every version given, with who gave it and when: a change is never lost, and what the year-end
-- export (which reads the latest) was based on can be traced. The TIN stays sealed here too.
CREATE TABLE partner_tax_details_history (
  id          bigserial PRIMARY KEY,
  email       text NOT NULL CHECK (email = lower(email)),
  changed_at  timestamptz NOT NULL,
  changed_by  text NOT NULL,
  details     jsonb NOT NULL
);
CREATE INDEX partner_tax_details_history_email_idx ON partner_tax_details_history (email, changed_at);

-- Tax details before payouts reach a threshold per calendar year, per partner and currency (in
-- each currency's smallest unit, like the payout minimums). Off until the brand turns it on.
ALTER TABLE programs
  ADD COLUMN tax_details_required boolean NOT NULL DEFAULT false,
  ADD COLUMN tax_thresholds jsonb NOT NULL DEFAULT '{"USD": 60000}';
