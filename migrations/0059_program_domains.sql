-- A brand's own host names (docs/domains.md): `portal` serves its partner portal and apply page
-- (partners.brand.com), `links` its partners' short links (go.brand.com). Every request to a
-- brand host is routed by this table: keyed by the host, one row read by its primary key.
CREATE TABLE program_domains (
  host        text PRIMARY KEY CHECK (host = lower(host)),
  program_id  bigint NOT NULL REFERENCES programs (id) ON DELETE CASCADE,
  kind        text NOT NULL CHECK (kind IN ('portal', 'links')),
  created_at  timestamptz NOT NULL DEFAULT now(),
  -- One host of each kind per program.
  UNIQUE (program_id, kind)
);
