-- Link codes are case-insensitive: ?aff=Ana and ?aff=ana are one link. Codes that already
-- differ only by case keep working as typed: the oldest of them holds the key, the others are
-- marked case_twin and found only by their exact spelling. A new code never takes a key in use.
ALTER TABLE referral_links ADD COLUMN case_twin boolean NOT NULL DEFAULT false;
UPDATE referral_links l SET case_twin = true
 WHERE EXISTS (SELECT 1 FROM referral_links o WHERE lower(o.short_link) = lower(l.short_link) AND o.id < l.id);
ALTER TABLE referral_links DROP CONSTRAINT referral_links_short_link_key;
CREATE UNIQUE INDEX referral_links_code_key ON referral_links (lower(short_link)) WHERE NOT case_twin;
CREATE INDEX referral_links_code_lookup ON referral_links (lower(short_link));

-- A program's domain is a host name (shop.example.com, localhost:3000): one typed as a URL
-- made every link https://https://…; keep its host, lower-cased.
UPDATE programs
   SET domain = lower(split_part(regexp_replace(domain, '^[a-zA-Z][a-zA-Z0-9+.-]*://', ''), '/', 1))
 WHERE domain ~ '^[a-zA-Z][a-zA-Z0-9+.-]*://' OR domain LIKE '%/%' OR domain <> lower(domain);
