-- A sale recorded for an invoice wakes the refunds waiting for it under a payment linked to that
-- invoice (invoice_payment.paid came first): its finishing statement reads the links by invoice.
CREATE INDEX processor_payment_links_invoice_idx ON processor_payment_links (program_id, invoice_id);
