-- A transaction_id is unique within a brand (account), not across all brands: two brands'
-- order_1001 are two sales; one checkout reported into two programs of one brand is one sale.
ALTER TABLE sales ADD COLUMN account_id bigint REFERENCES accounts (id) ON DELETE CASCADE;
UPDATE sales s SET account_id = p.account_id FROM programs p WHERE p.id = s.program_id;
ALTER TABLE sales ALTER COLUMN account_id SET NOT NULL;
-- Every existing id is unique globally, so it is unique per account: the new index cannot fail.
CREATE UNIQUE INDEX sales_account_transaction_key ON sales (account_id, processor_event_id);
ALTER TABLE sales DROP CONSTRAINT sales_processor_event_id_key;
COMMENT ON COLUMN sales.processor_event_id IS 'The sale''s transaction_id; unique within the brand (account_id).';
