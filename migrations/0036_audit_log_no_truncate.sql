-- The audit log refuses TRUNCATE as it refuses UPDATE and DELETE (migration 0023): a row trigger
-- never fires for TRUNCATE, so a statement trigger raises instead. TRUNCATE of a table that
-- audit_log references with CASCADE (accounts, programs) reaches audit_log and is refused too.
-- What this cannot resist: the table's owner or a superuser may disable triggers or drop the table.
CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON audit_log
  FOR EACH STATEMENT EXECUTE FUNCTION audit_log_append_only();
