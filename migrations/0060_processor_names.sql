-- Names that say what a column holds, whichever processor sent it (issue 45, item 1).
-- The inbox's key holds Stripe's evt_ ids and the namespaced ids of the others (paddle:…,
-- lemonsqueezy:…): an event key. The processor's generated column follows the rename.
ALTER TABLE webhook_events RENAME COLUMN stripe_event_id TO event_key;
ALTER TABLE webhook_events RENAME CONSTRAINT webhook_events_stripe_event_id_key TO webhook_events_event_key_key;
ALTER TABLE webhook_event_keys RENAME COLUMN stripe_event_id TO event_key;
ALTER TABLE webhook_event_keys RENAME CONSTRAINT webhook_event_keys_stripe_event_id_fkey TO webhook_event_keys_event_key_fkey;

-- A customer's id at its processor (Stripe's cus_, or a namespaced Paddle or Lemon Squeezy id),
-- matched by the attribution step `stripe_customer` (the contract's name for it, unchanged).
ALTER TABLE customers RENAME COLUMN stripe_customer_id TO processor_customer_id;
ALTER TABLE customers RENAME CONSTRAINT customers_program_id_stripe_customer_id_key TO customers_program_id_processor_customer_id_key;
