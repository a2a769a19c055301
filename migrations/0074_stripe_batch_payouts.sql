-- Paying a batch's Stripe payouts with one action (docs/payouts.md, "Stripe: a batch with one
-- action"): a send of Stripe transfers and each payout's outcome are kept in the same tables as
-- PayPal's and Wise's, so the job, the crash recovery and the Payouts page's outcome serve all three.
-- The credentials stay PayPal's and Wise's only (Stripe's key is the platform's STRIPE_SECRET_KEY).
ALTER TABLE provider_payout_sends DROP CONSTRAINT provider_payout_sends_provider_check,
  ADD CONSTRAINT provider_payout_sends_provider_check CHECK (provider IN ('paypal', 'wise', 'stripe'));
ALTER TABLE provider_payout_items DROP CONSTRAINT provider_payout_items_provider_check,
  ADD CONSTRAINT provider_payout_items_provider_check CHECK (provider IN ('paypal', 'wise', 'stripe'));
