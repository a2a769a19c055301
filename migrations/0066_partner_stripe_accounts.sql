-- A partner's Stripe Express account, made from the portal (docs/payouts.md, "Stripe Express"):
-- one per enrollment, created on the platform's Stripe account. Stripe's state of it (what it
-- can do, what it still needs) is kept as Stripe last told it: by `account.updated` through the
-- Connect webhook, or read back when the partner returns from Stripe's onboarding.
CREATE TABLE partner_stripe_accounts (
  partner_id         bigint PRIMARY KEY REFERENCES partners (id) ON DELETE CASCADE,
  program_id         bigint NOT NULL REFERENCES programs (id) ON DELETE CASCADE,
  -- The webhook finds the enrollment by it; one account pays one enrollment.
  stripe_account_id  text NOT NULL UNIQUE CHECK (stripe_account_id ~ '^acct_[A-Za-z0-9]{1,250}$'),
  country            text NOT NULL CHECK (country ~ '^[A-Z]{2}$'),
  charges_enabled    boolean NOT NULL DEFAULT false,
  payouts_enabled    boolean NOT NULL DEFAULT false,
  details_submitted  boolean NOT NULL DEFAULT false,
  -- Stripe's requirement names (individual.dob.day, external_account, …), shown in words.
  currently_due      text[] NOT NULL DEFAULT '{}',
  past_due           text[] NOT NULL DEFAULT '{}',
  disabled_reason    text,
  -- When Stripe's state above was true (an event's `created`, or when it was read): an older
  -- event delivered late never overwrites a newer state.
  state_at           timestamptz,
  created_at         timestamptz NOT NULL DEFAULT now(),
  updated_at         timestamptz NOT NULL DEFAULT now()
);
-- The portal's and the run's reads: a program's enrollments.
CREATE UNIQUE INDEX partner_stripe_accounts_program_key ON partner_stripe_accounts (program_id, partner_id);
