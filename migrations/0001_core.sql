-- Core schema: accounts, programs, partners, links, keys, clicks, customers,
-- tracking events, sales, commissions, refunds. Money is bigint cents.

CREATE TABLE accounts (
  id          bigserial PRIMARY KEY,
  email       text NOT NULL UNIQUE,
  name        text,
  suspended   boolean NOT NULL DEFAULT false,
  created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE programs (
  id                       bigserial PRIMARY KEY,
  account_id               bigint NOT NULL REFERENCES accounts (id),
  name                     text NOT NULL,
  domain                   text NOT NULL,
  commission_type          text NOT NULL
    CHECK (commission_type IN ('percent', 'fixed', 'recurring_percent', 'recurring_fixed')),
  commission_rate          numeric(14, 4) NOT NULL CHECK (commission_rate > 0),
  -- Recurring commissions stop this many months after the customer's first sale; null = forever.
  recurring_duration_months integer CHECK (recurring_duration_months > 0),
  attribution_window_days  integer NOT NULL DEFAULT 60 CHECK (attribution_window_days > 0),
  lead_auth                text NOT NULL DEFAULT 'browser_allowed'
    CHECK (lead_auth IN ('browser_allowed', 'server_required')),
  allowed_origins          text[] NOT NULL DEFAULT '{}',
  -- Stripe connection (used by webhook ingestion).
  stripe_account_id        text UNIQUE,
  stripe_webhook_secret    text,
  stripe_charges_enabled   boolean NOT NULL DEFAULT false,
  livemode_only_commissions boolean NOT NULL DEFAULT true,
  created_at               timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX programs_account_idx ON programs (account_id);
CREATE INDEX programs_allowed_origins_idx ON programs USING gin (allowed_origins);

CREATE TABLE partners (
  id          bigserial PRIMARY KEY,
  program_id  bigint NOT NULL REFERENCES programs (id) ON DELETE CASCADE,
  name        text NOT NULL,
  email       text,
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX partners_program_idx ON partners (program_id);

-- short_link is the `aff` value; global so a link resolves without knowing the program.
CREATE TABLE referral_links (
  id          bigserial PRIMARY KEY,
  short_link  text NOT NULL UNIQUE,
  program_id  bigint REFERENCES programs (id) ON DELETE SET NULL,
  partner_id  bigint REFERENCES partners (id) ON DELETE SET NULL,
  enabled     boolean NOT NULL DEFAULT true,
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now()
);

-- Keys are stored as SHA-256 digests (they are 192-bit random, so no KDF is needed);
-- only a display prefix and the last four characters are kept in clear.
CREATE TABLE api_keys (
  id                  bigserial PRIMARY KEY,
  program_id          bigint NOT NULL REFERENCES programs (id) ON DELETE CASCADE,
  key_hash            bytea NOT NULL UNIQUE,
  display_prefix      text NOT NULL,
  last_four           text NOT NULL,
  rotation_marked_at  timestamptz,
  rotate_by           timestamptz,
  revoked_at          timestamptz,
  last_used_at        timestamptz,
  created_at          timestamptz NOT NULL DEFAULT now(),
  CHECK ((rotation_marked_at IS NULL) = (rotate_by IS NULL))
);
CREATE INDEX api_keys_program_idx ON api_keys (program_id);

-- Clicks are the largest table: range-partitioned by time. The default partition takes
-- everything until monthly partitions are attached (see docs/operations.md).
CREATE TABLE clicks (
  id              bigint GENERATED ALWAYS AS IDENTITY,
  click_id        text NOT NULL,
  program_id      bigint NOT NULL,
  link_id         bigint,
  partner_id      bigint,
  -- The click id the visitor stays attributed to (first-click); equals click_id for a first click.
  attributed_click_id text NOT NULL,
  affiliate_url   text NOT NULL,
  page_url        text,
  referrer_url    text,
  ip              inet,
  user_agent      text,
  test            boolean NOT NULL DEFAULT false,
  details         jsonb NOT NULL DEFAULT '{}',
  created_at      timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (created_at, id)
) PARTITION BY RANGE (created_at);
CREATE TABLE clicks_default PARTITION OF clicks DEFAULT;
CREATE INDEX clicks_click_id_idx ON clicks (click_id);
CREATE INDEX clicks_program_created_idx ON clicks (program_id, created_at);

CREATE TABLE customers (
  id                  bigserial PRIMARY KEY,
  program_id          bigint NOT NULL REFERENCES programs (id) ON DELETE CASCADE,
  customer_key        text,
  -- Funnel: click -> lead -> customer (has paid).
  status              text NOT NULL DEFAULT 'click' CHECK (status IN ('click', 'lead', 'customer')),
  click_id            text UNIQUE,
  clicked_at          timestamptz,
  link_id             bigint REFERENCES referral_links (id) ON DELETE SET NULL,
  partner_id          bigint REFERENCES partners (id) ON DELETE SET NULL,
  email_hash          bytea,
  provisional_lead    boolean NOT NULL DEFAULT false,
  lead_at             timestamptz,
  converted_at        timestamptz,
  stripe_customer_id  text,
  created_at          timestamptz NOT NULL DEFAULT now(),
  UNIQUE (program_id, customer_key),
  UNIQUE (program_id, stripe_customer_id)
);
CREATE INDEX customers_email_idx ON customers (program_id, email_hash) WHERE email_hash IS NOT NULL;

CREATE TABLE tracking_events (
  id           bigserial PRIMARY KEY,
  program_id   bigint NOT NULL REFERENCES programs (id) ON DELETE CASCADE,
  kind         text NOT NULL CHECK (kind IN ('click', 'lead', 'sale')),
  customer_id  bigint REFERENCES customers (id) ON DELETE SET NULL,
  click_id     text,
  sale_id      bigint,
  test         boolean NOT NULL DEFAULT false,
  details      jsonb NOT NULL DEFAULT '{}',
  created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX tracking_events_program_created_idx ON tracking_events (program_id, created_at);

CREATE TABLE sales (
  id                    bigserial PRIMARY KEY,
  program_id            bigint NOT NULL REFERENCES programs (id) ON DELETE CASCADE,
  customer_id           bigint REFERENCES customers (id) ON DELETE SET NULL,
  partner_id            bigint REFERENCES partners (id) ON DELETE SET NULL,
  -- The sale's transaction_id; unique across all programs.
  processor_event_id    text NOT NULL UNIQUE,
  amount_cents          bigint NOT NULL CHECK (amount_cents > 0),
  currency              text NOT NULL CHECK (currency IN ('USD', 'EUR', 'VND')),
  occurred_at           timestamptz NOT NULL,
  provider              text,
  provider_payment_id   text,
  livemode              boolean,
  test                  boolean NOT NULL DEFAULT false,
  sale_type             text CHECK (sale_type IN ('payment', 'subscription')),
  is_recurring          boolean NOT NULL DEFAULT false,
  subscription_id       text,
  subscription_interval text CHECK (subscription_interval IN ('monthly', 'quarterly', 'annual')),
  event_name            text,
  tax_cents             bigint,
  attribution_step      text NOT NULL,
  source                text NOT NULL DEFAULT 'api',
  details               jsonb NOT NULL DEFAULT '{}',
  created_at            timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX sales_program_created_idx ON sales (program_id, created_at);
CREATE INDEX sales_customer_idx ON sales (customer_id);

CREATE TABLE commissions (
  id                    bigserial PRIMARY KEY,
  sale_id               bigint NOT NULL UNIQUE REFERENCES sales (id) ON DELETE CASCADE,
  program_id            bigint NOT NULL REFERENCES programs (id) ON DELETE CASCADE,
  partner_id            bigint REFERENCES partners (id) ON DELETE SET NULL,
  amount_cents          bigint NOT NULL CHECK (amount_cents >= 0),
  currency              text NOT NULL,
  status                text NOT NULL DEFAULT 'pending'
    CHECK (status IN ('pending', 'refunded', 'reversed')),
  -- Running total of the sale amount refunded so far, and what it took off the commission.
  refunded_total_cents  bigint NOT NULL DEFAULT 0 CHECK (refunded_total_cents >= 0),
  deducted_cents        bigint NOT NULL DEFAULT 0 CHECK (deducted_cents >= 0),
  created_at            timestamptz NOT NULL DEFAULT now(),
  updated_at            timestamptz NOT NULL DEFAULT now(),
  CHECK (deducted_cents <= amount_cents)
);
CREATE INDEX commissions_program_idx ON commissions (program_id, status);

-- One row per counted refund; refund_key dedupes retries (refund_id, or the amount when absent).
CREATE TABLE refunds (
  id                    bigserial PRIMARY KEY,
  sale_id               bigint NOT NULL REFERENCES sales (id) ON DELETE CASCADE,
  commission_id         bigint REFERENCES commissions (id) ON DELETE CASCADE,
  refund_key            text NOT NULL,
  amount_cents          bigint NOT NULL CHECK (amount_cents >= 0),
  deduction_cents       bigint NOT NULL CHECK (deduction_cents >= 0),
  reason                text NOT NULL CHECK (reason IN ('refund', 'chargeback')),
  refund_reason         text,
  source                text NOT NULL DEFAULT 'api',
  created_at            timestamptz NOT NULL DEFAULT now(),
  UNIQUE (sale_id, refund_key)
);

-- Fixed-window request counters shared by every API process.
CREATE TABLE rate_limit_counters (
  bucket        text NOT NULL,
  window_start  timestamptz NOT NULL,
  hits          integer NOT NULL,
  PRIMARY KEY (bucket, window_start)
);
