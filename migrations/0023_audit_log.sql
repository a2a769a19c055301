-- The audit log (docs/audit.md): who changed what, when and from where, written in the
-- transaction of the change. Append-only, as the commission ledger: a trigger refuses UPDATE and
-- DELETE (cascades from a deleted account or program still clean up).
CREATE TABLE audit_log (
  id           bigserial PRIMARY KEY,
  account_id   bigint REFERENCES accounts (id) ON DELETE CASCADE,
  program_id   bigint REFERENCES programs (id) ON DELETE CASCADE,
  -- member (a dashboard sign-in), cli_token, operator (the admin token), system (scheduled jobs), applicant (the public page)
  actor_type   text NOT NULL CHECK (actor_type IN ('member', 'cli_token', 'operator', 'system', 'applicant', 'partner')),
  actor_id     text,
  actor_label  text,
  action       text NOT NULL,
  object_type  text NOT NULL,
  object_id    text,
  -- {"field": {"from": …, "to": …}} of the fields the change touched (secrets never: "set" or "changed")
  changes      jsonb NOT NULL DEFAULT '{}'::jsonb,
  ip           inet,
  created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX audit_log_account_idx ON audit_log (account_id, id DESC);
CREATE INDEX audit_log_program_idx ON audit_log (program_id, id DESC);

CREATE FUNCTION audit_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'audit_log is append-only';
END $$;
CREATE TRIGGER audit_log_no_update BEFORE UPDATE OR DELETE ON audit_log
  FOR EACH ROW WHEN (pg_trigger_depth() = 0)
  EXECUTE FUNCTION audit_log_append_only();
