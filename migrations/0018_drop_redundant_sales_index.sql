-- sales_customer_occurred_idx (customer_id, occurred_at) serves every look-up by customer that
-- this one did, the foreign key's ON DELETE SET NULL included; each sale paid for both.
DROP INDEX IF EXISTS sales_customer_idx;
