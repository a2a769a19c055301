-- Recruiting and running partners (docs/partners.md): a partner's profile per account (the
-- person: email, name, payout details), their enrollment per program (the partners row, whose
-- id stays the partner_id of the API, the ledger and the payouts), groups that carry the terms,
-- explicit per-partner overrides, applications with stored terms acceptance, and sanctions
-- (ban, archive) that stamp every row they change so lifting one restores exactly those rows.

-- ---- the person -------------------------------------------------------------------------
-- Scoped to the brand's account: one email is one partner across the account's programs, and
-- no brand reads or edits a profile another brand holds.
CREATE TABLE partner_profiles (
  id                bigserial PRIMARY KEY,
  account_id        bigint NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  name              text NOT NULL,
  email             text,
  payout_method     text CHECK (payout_method IN ('paypal', 'wise', 'bank_transfer', 'stripe')),
  payout_reference  text,
  payout_currency   text CHECK (payout_currency IN ('USD', 'EUR', 'VND')),
  created_at        timestamptz NOT NULL DEFAULT now(),
  updated_at        timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX partner_profiles_email_key ON partner_profiles (account_id, lower(email)) WHERE email IS NOT NULL;
CREATE INDEX partner_profiles_payout_idx ON partner_profiles (account_id, lower(payout_reference)) WHERE payout_reference IS NOT NULL;

-- ---- groups and overrides ---------------------------------------------------------------
-- A group's terms are complete: nothing in a group means "inherit" (a null duration is
-- "forever", a value of its own). Partners without a group are paid on the program's terms.
CREATE TABLE partner_groups (
  id                         bigserial PRIMARY KEY,
  program_id                 bigint NOT NULL REFERENCES programs (id) ON DELETE CASCADE,
  name                       text NOT NULL,
  slug                       text NOT NULL CHECK (slug ~ '^[a-z0-9][a-z0-9-]{0,62}$'),
  commission_type            text NOT NULL CHECK (commission_type IN ('percent', 'fixed', 'recurring_percent', 'recurring_fixed')),
  commission_rate            numeric(14, 4) NOT NULL CHECK (commission_rate > 0),
  recurring_duration_months  integer CHECK (recurring_duration_months > 0),
  hold_days                  integer NOT NULL CHECK (hold_days BETWEEN 0 AND 365),
  payout_minimums            jsonb NOT NULL DEFAULT '{}'::jsonb,
  partners_can_create_links  boolean NOT NULL DEFAULT false,
  -- Its application page is open (the program's page lists open groups).
  applications_open          boolean NOT NULL DEFAULT false,
  -- Applicants to this group are approved at once unless a risk signal is seen.
  auto_approve               boolean NOT NULL DEFAULT false,
  created_at                 timestamptz NOT NULL DEFAULT now(),
  UNIQUE (program_id, slug),
  UNIQUE (program_id, id)
);

-- ---- the enrollment ---------------------------------------------------------------------
ALTER TABLE partners
  ADD COLUMN profile_id bigint REFERENCES partner_profiles (id),
  ADD COLUMN status text NOT NULL DEFAULT 'approved'
    CHECK (status IN ('applied', 'approved', 'rejected', 'invited', 'archived', 'banned')),
  ADD COLUMN group_id bigint REFERENCES partner_groups (id) ON DELETE SET NULL,
  ADD COLUMN notes text,
  ADD COLUMN tags text[] NOT NULL DEFAULT '{}',
  ADD COLUMN status_changed_at timestamptz NOT NULL DEFAULT now(),
  ADD COLUMN updated_at timestamptz NOT NULL DEFAULT now();

-- Existing partners: one profile per email in an account; a second enrollment of the same email
-- in the same program keeps a profile of its own without the email (its notes say why).
DO $$
DECLARE r record; made bigint;
BEGIN
  FOR r IN SELECT pa.id, pa.program_id, pa.name, pa.email, pa.payout_method, pa.payout_reference, pa.payout_currency, pa.created_at, g.account_id
             FROM partners pa JOIN programs g ON g.id = pa.program_id ORDER BY pa.id LOOP
    made := NULL;
    IF r.email IS NOT NULL THEN
      SELECT id INTO made FROM partner_profiles WHERE account_id = r.account_id AND lower(email) = lower(r.email);
      IF made IS NOT NULL AND EXISTS (SELECT 1 FROM partners WHERE program_id = r.program_id AND profile_id = made) THEN
        UPDATE partners SET email = NULL, notes = 'Had the same email as another partner of this program when profiles were introduced.' WHERE id = r.id;
        r.email := NULL;
        made := NULL;
      END IF;
    END IF;
    IF made IS NULL THEN
      INSERT INTO partner_profiles (account_id, name, email, payout_method, payout_reference, payout_currency, created_at)
      VALUES (r.account_id, r.name, r.email, r.payout_method, r.payout_reference, r.payout_currency, r.created_at) RETURNING id INTO made;
    END IF;
    UPDATE partners SET profile_id = made WHERE id = r.id;
  END LOOP;
END $$;
ALTER TABLE partners ALTER COLUMN profile_id SET NOT NULL;
-- One email is one partner: the same person twice in a program is refused.
CREATE UNIQUE INDEX partners_profile_in_program_key ON partners (program_id, profile_id);
CREATE INDEX partners_status_idx ON partners (program_id, status, id);
CREATE INDEX partners_group_idx ON partners (group_id) WHERE group_id IS NOT NULL;
CREATE INDEX partners_tags_idx ON partners USING gin (tags);

-- The enrollment's name, email and payout details are the profile's, copied by these triggers
-- so every existing read (payouts, exports, portal) keeps reading the partners row.
CREATE FUNCTION partners_take_profile() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE account bigint; found partner_profiles%ROWTYPE;
BEGIN
  IF NEW.profile_id IS NULL THEN
    SELECT account_id INTO account FROM programs WHERE id = NEW.program_id;
    IF NEW.email IS NOT NULL THEN
      SELECT * INTO found FROM partner_profiles WHERE account_id = account AND lower(email) = lower(NEW.email);
    END IF;
    IF found.id IS NULL THEN
      INSERT INTO partner_profiles (account_id, name, email) VALUES (account, NEW.name, NEW.email) RETURNING * INTO found;
    END IF;
    NEW.profile_id := found.id;
  ELSE
    SELECT * INTO found FROM partner_profiles WHERE id = NEW.profile_id;
  END IF;
  NEW.name := found.name;
  NEW.email := found.email;
  NEW.payout_method := found.payout_method;
  NEW.payout_reference := found.payout_reference;
  NEW.payout_currency := found.payout_currency;
  RETURN NEW;
END $$;
CREATE TRIGGER partners_take_profile BEFORE INSERT ON partners FOR EACH ROW EXECUTE FUNCTION partners_take_profile();

CREATE FUNCTION partner_profiles_copy() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE partners SET name = NEW.name, email = NEW.email, payout_method = NEW.payout_method,
                      payout_reference = NEW.payout_reference, payout_currency = NEW.payout_currency
   WHERE profile_id = NEW.id;
  RETURN NEW;
END $$;
CREATE TRIGGER partner_profiles_copy AFTER UPDATE ON partner_profiles FOR EACH ROW EXECUTE FUNCTION partner_profiles_copy();

-- A per-partner reward: an explicit row with its source, resolved when a commission is made
-- (override, then group, then program).
CREATE TABLE partner_term_overrides (
  id                         bigserial PRIMARY KEY,
  program_id                 bigint NOT NULL REFERENCES programs (id) ON DELETE CASCADE,
  partner_id                 bigint NOT NULL UNIQUE REFERENCES partners (id) ON DELETE CASCADE,
  commission_type            text NOT NULL CHECK (commission_type IN ('percent', 'fixed', 'recurring_percent', 'recurring_fixed')),
  commission_rate            numeric(14, 4) NOT NULL CHECK (commission_rate > 0),
  recurring_duration_months  integer CHECK (recurring_duration_months > 0),
  source                     text NOT NULL CHECK (length(source) BETWEEN 1 AND 200),
  created_at                 timestamptz NOT NULL DEFAULT now()
);

-- The terms a commission was made under (type, rate, duration, hold days, where they came
-- from); a later change of a group or program never rewrites them. Older commissions: null,
-- and their hold is the program's.
ALTER TABLE commissions ADD COLUMN terms jsonb, ADD COLUMN hold_days integer;

-- ---- applications -----------------------------------------------------------------------
-- Each application stores what was answered and the acceptance of the terms shown (version,
-- time, IP). The enrollment it made says where the applicant stands.
CREATE TABLE partner_applications (
  id                 bigserial PRIMARY KEY,
  program_id         bigint NOT NULL REFERENCES programs (id) ON DELETE CASCADE,
  partner_id         bigint NOT NULL REFERENCES partners (id) ON DELETE CASCADE,
  group_id           bigint REFERENCES partner_groups (id) ON DELETE SET NULL,
  answers            jsonb NOT NULL DEFAULT '{}'::jsonb,
  terms_version      text NOT NULL,
  terms_accepted_at  timestamptz NOT NULL,
  terms_ip           inet,
  status             text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'approved', 'rejected')),
  decided_at         timestamptz,
  reason             text,
  -- After a rejection: when the same email may apply again (null with reapply 'never').
  reapply            text CHECK (reapply IN ('now', 'after_30_days', 'never')),
  reapply_after      timestamptz,
  auto_decided       boolean NOT NULL DEFAULT false,
  created_at         timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX partner_applications_program_idx ON partner_applications (program_id, status, id);
CREATE INDEX partner_applications_partner_idx ON partner_applications (partner_id, id);

-- The application page of a program: its terms (versioned), the fields the brand asks for.
ALTER TABLE programs
  ADD COLUMN applications_open boolean NOT NULL DEFAULT false,
  ADD COLUMN terms_text text NOT NULL DEFAULT '',
  ADD COLUMN terms_version text NOT NULL DEFAULT '1',
  -- [{"key": "website", "label": "Your website", "type": "url", "required": true}, {"type": "select", "options": [...]}]
  ADD COLUMN application_fields jsonb NOT NULL DEFAULT '[]'::jsonb,
  ADD COLUMN slug text UNIQUE CHECK (slug ~ '^[a-z0-9][a-z0-9-]{0,62}$');

-- ---- sanctions --------------------------------------------------------------------------
-- A ban or an archive of one enrollment. Every row it changes carries its id, so lifting it
-- restores exactly those rows: a commission rejected by hand before or after stays rejected.
CREATE TABLE partner_sanctions (
  id              bigserial PRIMARY KEY,
  program_id      bigint NOT NULL REFERENCES programs (id) ON DELETE CASCADE,
  partner_id      bigint NOT NULL REFERENCES partners (id) ON DELETE CASCADE,
  kind            text NOT NULL CHECK (kind IN ('ban', 'archive')),
  reason          text NOT NULL,
  status_before   text NOT NULL,
  created_at      timestamptz NOT NULL DEFAULT now(),
  lifted_at       timestamptz,
  lift_reason     text
);
CREATE UNIQUE INDEX partner_sanctions_active_key ON partner_sanctions (partner_id) WHERE lifted_at IS NULL;

ALTER TABLE referral_links ADD COLUMN disabled_by_sanction_id bigint REFERENCES partner_sanctions (id);
ALTER TABLE commissions
  ADD COLUMN rejected_by_sanction_id bigint REFERENCES partner_sanctions (id),
  ADD COLUMN stage_before_sanction text CHECK (stage_before_sanction IN ('pending', 'held'));
ALTER TABLE payouts ADD COLUMN canceled_by_sanction_id bigint REFERENCES partner_sanctions (id);
CREATE INDEX commissions_sanction_idx ON commissions (rejected_by_sanction_id) WHERE rejected_by_sanction_id IS NOT NULL;
CREATE INDEX referral_links_sanction_idx ON referral_links (disabled_by_sanction_id) WHERE disabled_by_sanction_id IS NOT NULL;

ALTER TABLE commission_ledger DROP CONSTRAINT commission_ledger_kind_check;
ALTER TABLE commission_ledger ADD CONSTRAINT commission_ledger_kind_check
  CHECK (kind IN ('created', 'adjusted', 'approved', 'unapproved', 'paid', 'clawed_back', 'clawback_settled', 'released', 'rejected', 'moved', 'reinstated'));

-- ---- the one reading of a partner's terms -------------------------------------------------
-- Override, then group, then program: the first that exists gives the whole reward (never a
-- field-by-field merge; a null duration is "forever", not "inherit"). Hold days, payout
-- minimums and link creation come from the group, else the program. The commission path and
-- every surface read this view, so the rule is written once.
CREATE VIEW partner_terms AS
SELECT pa.id AS partner_id, pa.program_id, pa.status, pa.group_id, o.id AS override_id,
       CASE WHEN o.id IS NOT NULL THEN 'override' WHEN g.id IS NOT NULL THEN 'group' ELSE 'program' END AS source,
       CASE WHEN o.id IS NOT NULL THEN o.commission_type WHEN g.id IS NOT NULL THEN g.commission_type ELSE p.commission_type END AS commission_type,
       CASE WHEN o.id IS NOT NULL THEN o.commission_rate WHEN g.id IS NOT NULL THEN g.commission_rate ELSE p.commission_rate END AS commission_rate,
       CASE WHEN o.id IS NOT NULL THEN o.recurring_duration_months WHEN g.id IS NOT NULL THEN g.recurring_duration_months
            ELSE p.recurring_duration_months END AS recurring_duration_months,
       CASE WHEN g.id IS NOT NULL THEN g.hold_days ELSE p.hold_days END AS hold_days,
       CASE WHEN g.id IS NOT NULL THEN g.payout_minimums ELSE p.payout_minimums END AS payout_minimums,
       CASE WHEN g.id IS NOT NULL THEN g.partners_can_create_links ELSE p.partners_can_create_links END AS can_create_links,
       (SELECT s.id FROM partner_sanctions s WHERE s.partner_id = pa.id AND s.kind = 'ban' AND s.lifted_at IS NULL) AS ban_id
  FROM partners pa
  JOIN programs p ON p.id = pa.program_id
  LEFT JOIN partner_groups g ON g.id = pa.group_id
  LEFT JOIN partner_term_overrides o ON o.partner_id = pa.id;
