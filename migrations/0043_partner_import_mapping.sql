-- The partner import (docs/partners.md, "Import and export").
-- A row with neither email nor code is known by its name: the partner an import made from it
-- keeps that name's key, unique in its program, so two imports of one file running at once make
-- it once. Partners added by hand have no key (two people may share a name).
ALTER TABLE partners ADD COLUMN import_name_key text;
CREATE UNIQUE INDEX partners_import_name_key ON partners (program_id, import_name_key) WHERE import_name_key IS NOT NULL;

-- A file uploaded from the dashboard, kept as its bytes until it is imported or expires: the
-- confirming form names it, so the import reads exactly the file the dry run checked (a form
-- would carry it back as text a browser may change).
CREATE TABLE partner_import_files (
  id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  program_id  bigint NOT NULL REFERENCES programs (id) ON DELETE CASCADE,
  bytes       bytea NOT NULL,
  sha256      text NOT NULL,
  created_at  timestamptz NOT NULL,
  expires_at  timestamptz NOT NULL
);
CREATE INDEX partner_import_files_program_idx ON partner_import_files (program_id, expires_at);
