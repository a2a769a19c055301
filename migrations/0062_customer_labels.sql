-- What a partner sees of each customer they referred (issue 44, item 3): the brand chooses the
-- masked email (the default: what the portal showed until now), the masked customer key, or the
-- name the brand's backend sends with the lead (`customer_name`, docs/api.md). The name is the
-- brand's own words for its customer, kept on the customer's row.
ALTER TABLE programs
  ADD COLUMN IF NOT EXISTS referral_customer_label text NOT NULL DEFAULT 'masked_email'
    CHECK (referral_customer_label IN ('masked_email', 'masked_key', 'name'));

ALTER TABLE customers ADD COLUMN IF NOT EXISTS name text;
-- NOT VALID: new and changed rows are checked; the existing ones (all without a name) are not
-- read under the table's lock.
DO $$ BEGIN
  ALTER TABLE customers ADD CONSTRAINT customers_name_length CHECK (name IS NULL OR char_length(name) BETWEEN 1 AND 100) NOT VALID;
EXCEPTION WHEN duplicate_object THEN NULL;
END $$;
