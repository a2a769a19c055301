-- What a brand gives its partners beside the terms (links to logos, copy, guidelines): shown in
-- the partner portal, one line each.
ALTER TABLE programs ADD COLUMN partner_resources text NOT NULL DEFAULT '';
