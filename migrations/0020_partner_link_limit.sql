-- How many referral links a partner may have in a program when partners create their own in the
-- portal (the brand's own links are not limited).
ALTER TABLE programs ADD COLUMN partner_link_limit integer NOT NULL DEFAULT 10 CHECK (partner_link_limit BETWEEN 1 AND 1000);
