-- Bulk actions on partners too large for one request (docs/partners.md): what was asked (the
-- action, its parameters, the ids or the filter, who asked), run by the partner-bulk-actions job
-- one chunk per transaction. Each chunk's progress is written in the chunk's own transaction, so
-- a chunk done is never done again and an interrupted one is done whole on the retry.
CREATE TABLE bulk_actions (
  id            bigserial PRIMARY KEY,
  account_id    bigint NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  program_id    bigint NOT NULL REFERENCES programs (id) ON DELETE CASCADE,
  -- Who asked: 'operator' (the admin token) or the role of the account's member or CLI token (the
  -- chunks run with the scope of the asker), and the actor the audit entries of every chunk name.
  scope_role    text NOT NULL CHECK (scope_role IN ('operator', 'owner', 'admin', 'finance', 'viewer')),
  actor         jsonb NOT NULL,
  action        text NOT NULL,
  -- reason, group_id, reapply
  parameters    jsonb NOT NULL DEFAULT '{}'::jsonb,
  -- The selection: the ids given (sorted, each once), or the filter (q, status, groupId, tag).
  partner_ids   bigint[],
  filter        jsonb,
  CHECK ((partner_ids IS NULL) <> (filter IS NULL)),
  state         text NOT NULL DEFAULT 'queued' CHECK (state IN ('queued', 'running', 'done', 'failed')),
  -- The ids given, or the partners the filter matched when asked (the report's "of about").
  expected      integer NOT NULL,
  requested     integer NOT NULL DEFAULT 0,
  changed       integer NOT NULL DEFAULT 0,
  -- reason -> how many were left as they were for it
  skipped       jsonb NOT NULL DEFAULT '{}'::jsonb,
  links_created integer NOT NULL DEFAULT 0,
  chunks_done   integer NOT NULL DEFAULT 0,
  -- Where the next chunk starts: after this many of the ids given, or after this partner id (a filter).
  ids_done      integer NOT NULL DEFAULT 0,
  done_until    bigint NOT NULL DEFAULT 0,
  error         text,
  created_at    timestamptz NOT NULL DEFAULT now(),
  started_at    timestamptz,
  finished_at   timestamptz
);
-- The report page and the API read one by program; the job takes an account's next waiting one.
CREATE INDEX bulk_actions_program_idx ON bulk_actions (program_id, id);
CREATE INDEX bulk_actions_unfinished_idx ON bulk_actions (account_id, id) WHERE state IN ('queued', 'running');
