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

-- A numbered statement does not change after it is issued (docs/payouts.md, "Statements"): the
-- transaction that numbers a payout stores its title and parties as they are then — the brand's
-- legal name, address and tax id, and the partner's invoice details as shared with the enrollment
-- (or the partner as the program knows them). Null on statements numbered before this migration:
-- those render from live data, as they did.
ALTER TABLE statement_numbers ADD COLUMN snapshot jsonb;
