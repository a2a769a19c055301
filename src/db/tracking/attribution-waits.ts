// Payments waiting for their attribution (migration 0046): one row per key in event_waiters,
// beside the refunds waiting for their sale. Keys carry their kind ("customer_key=…"): a
// processor's payment or invoice id (a sale key) never contains "=".

/** The keys, as event_waiters.wait_key, that the SQL values given (NULL when absent) make: one array. */
export const attributionWaitKeys = (values: { clickId: string; customerKey: string; emailHashHex: string; processorCustomerId: string }) =>
  `ARRAY['click_id=' || ${values.clickId}, 'customer_key=' || ${values.customerKey}, 'email_hash=' || ${values.emailHashHex},
         'stripe_customer=' || ${values.processorCustomerId}]`;

/**
 * CTEs for a statement that records or binds customers (rows of `from`: program_id, click_id,
 * customer_key, email_hash, processor_customer_id): payments of the program waiting for one of their keys become due
 * now (the due-check queues them: queueDueEvents). A waiter that names a retry job is a refund's.
 */
export const wakeAttributionWaits = (from: string) => `attribution_found AS (
         -- One probe of the (program_id, wait_key) key per key: the planner knows nothing of how few
         -- rows the statement records, and a join (or this subquery pulled up into one) scanned the
         -- program's whole part of the key instead. OFFSET 0 keeps the subquery a per-key probe.
         SELECT DISTINCT c.program_id, m.inbox_id
           FROM ${from} c
          CROSS JOIN LATERAL unnest(${attributionWaitKeys({ clickId: 'c.click_id', customerKey: 'c.customer_key', emailHashHex: "encode(c.email_hash, 'hex')", processorCustomerId: 'c.processor_customer_id' })}) AS k (key)
          CROSS JOIN LATERAL (SELECT w.inbox_id FROM event_waiters w
                               WHERE w.program_id = c.program_id AND w.wait_key = k.key AND w.retry_job IS NULL OFFSET 0) m
          WHERE k.key IS NOT NULL
       ), attribution_due AS (
         UPDATE webhook_events w SET wait_until = now()
           FROM attribution_found f
          WHERE w.id = f.inbox_id AND w.program_id = f.program_id
            AND w.status = 'ignored' AND w.waiting_for IS NULL AND w.wait_until > now()
       )`;
