-- Test traffic stays apart from the program's own (issue 43, item 9), and the tracker's refusals
-- are seen where the brand sets up (item 10).

-- The partner behind the program's test link (`affix test`, the set-up page's test buttons): never
-- listed among the partners, exported, counted or paid. Marked on the row, so every read of a
-- program's partners filters it with the program's own index.
ALTER TABLE partners ADD COLUMN test boolean NOT NULL DEFAULT false;
UPDATE partners pa SET test = true
  FROM referral_links l
 WHERE l.partner_id = pa.id AND lower(l.short_link) = 'affix-test-' || pa.program_id AND pa.name = 'Affix test partner';

-- Readiness ticks a step on real traffic only: "the program's first real event of a kind" is the
-- start of this index, however many test events came first.
CREATE INDEX tracking_events_program_kind_real_idx ON tracking_events (program_id, kind, created_at) WHERE NOT test;

-- The last origin the tracker was refused from, per program (the program the tracker names):
-- the set-up checklist says which site to allow. One row per program, only its own brand reads it.
CREATE TABLE refused_origins (
  program_id  bigint PRIMARY KEY REFERENCES programs (id) ON DELETE CASCADE,
  origin      text NOT NULL,
  refused_at  timestamptz NOT NULL
);
