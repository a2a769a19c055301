-- Which enrollments a person shared their invoice and tax details with (docs/payouts.md, "Who
-- sees a partner's details"). The details are kept per sign-in email, but a partner's email is the
-- brand's to edit (or import): matching by email alone let a brand read anyone's details by
-- setting one of its partners' email to their address. A brand reads them only through a share the
-- person made from their portal, for that partner row.
--
-- A share names the email it was made under: it counts only while lower(partners.email) still
-- equals it (every read joins on both), so a brand that changes the partner's email ends it by
-- itself (set back to the person's address, the share they made for this enrollment counts again).
-- No share exists before this migration: a brand sees no one's details until they share them.
CREATE TABLE partner_detail_shares (
  partner_id  bigint PRIMARY KEY REFERENCES partners (id) ON DELETE CASCADE,
  email       text NOT NULL CHECK (email = lower(email)),
  shared_at   timestamptz NOT NULL
);
-- The portal lists a person's shares by their email.
CREATE INDEX partner_detail_shares_email_idx ON partner_detail_shares (email);
