-- Right in every delivery order (Stripe sends related events within a second, in any order).

-- Support looks events up by the Stripe objects they name (cs_, in_, ch_, pi_, du_, cus_, sub_);
-- events that could not be attributed yet wait for a Stripe customer or Connect account to be
-- bound (`waiting_for`) until `wait_until`, and are re-queued when it is.
ALTER TABLE webhook_events ADD COLUMN object_ids text[] NOT NULL DEFAULT '{}';
ALTER TABLE webhook_events ADD COLUMN waiting_for text;
ALTER TABLE webhook_events ADD COLUMN wait_until timestamptz;
CREATE INDEX webhook_events_object_ids_idx ON webhook_events USING gin (object_ids);
CREATE INDEX webhook_events_waiting_idx ON webhook_events (waiting_for) WHERE waiting_for IS NOT NULL;
UPDATE webhook_events
   SET object_ids = ARRAY(
     SELECT DISTINCT v FROM unnest(ARRAY[
       payload #>> '{data,object,id}', payload #>> '{data,object,customer}', payload #>> '{data,object,payment_intent}',
       payload #>> '{data,object,charge}', payload #>> '{data,object,invoice}', payload #>> '{data,object,subscription}'
     ]) AS v WHERE v IS NOT NULL AND v <> '')
 WHERE payload IS NOT NULL;

-- Invoices of Stripe API 2025-03-31+ name no payment; invoice_payment.paid links the two, in
-- either order with the invoice, so a later refund of the payment finds the invoice's sale.
CREATE TABLE processor_payment_links (
  program_id   bigint NOT NULL REFERENCES programs (id) ON DELETE CASCADE,
  payment_id   text NOT NULL,
  invoice_id   text NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (program_id, payment_id)
);

-- A sale without a commission says why: not_first_sale, duration_ended, test_mode, ...
ALTER TABLE sales ADD COLUMN commission_reason text;
UPDATE sales SET commission_reason = 'test_mode' WHERE test;
UPDATE sales s SET commission_reason = 'not_first_sale'
  FROM programs p
 WHERE p.id = s.program_id AND p.commission_type IN ('percent', 'fixed') AND s.is_recurring AND NOT s.test
   AND NOT EXISTS (SELECT 1 FROM commissions c WHERE c.sale_id = s.id);
CREATE INDEX sales_customer_occurred_idx ON sales (customer_id, occurred_at);

-- A Stripe refund that failed after it was counted inside a charge's cumulative amount: an
-- offset row gives its deduction back (amount = the failed refund, deduction = what came back).
ALTER TABLE refunds DROP CONSTRAINT refunds_reason_check;
ALTER TABLE refunds ADD CONSTRAINT refunds_reason_check CHECK (reason IN ('refund', 'chargeback', 'refund_failed'));
