// A brand's own Stripe webhook handler reporting sales to Affix (spec §6 "Self-hosted sale
// reporting"). Use this when Stripe is NOT connected to Affix; connected programs are captured
// by Affix itself, and also calling trackSale would count renewals twice.
import { Affix } from '@affix/sdk/server';
import express from 'express';
import Stripe from 'stripe';

/** Where your backend remembers which sale a charge paid for. Replace the default with your database. */
export interface OrderLookup {
  remember(paymentIntentId: string, transactionId: string): Promise<void>;
  transactionIdFor(paymentIntentId: string): Promise<string | null>;
}

export function inMemoryOrders(): OrderLookup {
  const byPaymentIntent = new Map<string, string>();
  return {
    async remember(paymentIntentId, transactionId) {
      byPaymentIntent.set(paymentIntentId, transactionId);
    },
    async transactionIdFor(paymentIntentId) {
      return byPaymentIntent.get(paymentIntentId) ?? null;
    },
  };
}

export interface HandlerOptions {
  stripeWebhookSecret: string;
  affix: Affix;
  orders?: OrderLookup;
  /**
   * Your Stripe client (secret or restricted key with refunds read). On Stripe API versions
   * whose `charge.refunded` carries no refunds list, the refunds are read from Stripe with it.
   */
  stripe?: Stripe;
}

type RefundObject = { id: string; amount: number; status?: string | null };

/**
 * The charge's refunds: the embedded list when Stripe sent it whole (older API versions),
 * else read from Stripe (current versions send only amount_refunded). Failed or canceled
 * refunds took nothing back.
 */
async function refundsOf(charge: any, stripe: Stripe | undefined): Promise<RefundObject[] | null> {
  const embedded = charge.refunds;
  let refunds: RefundObject[] | null = null;
  if (embedded && Array.isArray(embedded.data) && embedded.has_more === false) refunds = embedded.data;
  else if (stripe) refunds = await stripe.refunds.list({ charge: charge.id, limit: 100 }).autoPagingToArray({ limit: 10_000 });
  return refunds?.filter((refund) => refund.status !== 'failed' && refund.status !== 'canceled') ?? null;
}

const idOf = (value: unknown): string | null =>
  typeof value === 'string' ? value : value && typeof value === 'object' && 'id' in value ? String((value as { id: string }).id) : null;

export function createWebhookApp({ stripeWebhookSecret, affix, orders = inMemoryOrders(), stripe }: HandlerOptions): express.Express {
  const app = express();
  // 1. Verify the signature on the raw, unparsed body.
  app.post('/stripe/webhook', express.raw({ type: () => true }), async (req, res) => {
    let event: Stripe.Event;
    try {
      event = Stripe.webhooks.constructEvent(req.body as Buffer, String(req.headers['stripe-signature'] ?? ''), stripeWebhookSecret);
    } catch (error) {
      return void res.status(400).json({ error: `signature verification failed: ${(error as Error).message}` });
    }
    const reported: unknown[] = [];
    const object = event.data.object as any;

    if (event.type === 'checkout.session.completed') {
      // 2. Positive totals only; the session id is the idempotency key; customer from
      //    affix_customer_key, falling back to client_reference_id.
      if ((object.amount_total ?? 0) > 0) {
        const customer = object.metadata?.affix_customer_key || object.client_reference_id || undefined;
        const clickId = object.metadata?.affix_click_id || undefined;
        if (customer || clickId) {
          reported.push(await affix.trackSale({
            customerExternalId: customer,
            clickId,
            amount: object.amount_total,
            invoiceId: object.id,
            currency: String(object.currency ?? 'usd').toUpperCase(),
            saleType: object.mode === 'subscription' ? 'subscription' : 'payment',
            subscriptionId: idOf(object.subscription) ?? undefined,
          }));
          const paymentIntent = idOf(object.payment_intent);
          if (paymentIntent) await orders.remember(paymentIntent, object.id);
        }
      }
    } else if (event.type === 'invoice.paid') {
      // 3. Renewals only (the first invoice was counted at checkout), positive amount_paid;
      //    subscription details under invoice.parent first (API 2025-03-31+), else top level.
      const details = object.parent?.subscription_details ?? { metadata: object.subscription_details?.metadata, subscription: object.subscription };
      const customer = details?.metadata?.affix_customer_key || undefined;
      if (object.billing_reason === 'subscription_cycle' && (object.amount_paid ?? 0) > 0 && customer) {
        reported.push(await affix.trackSale({
          customerExternalId: customer,
          amount: object.amount_paid,
          invoiceId: object.id,
          currency: String(object.currency ?? 'usd').toUpperCase(),
          isRecurring: true,
          saleType: 'subscription',
          subscriptionId: idOf(details.subscription) ?? undefined,
        }));
        const paymentIntent = idOf(object.payment_intent);
        if (paymentIntent) await orders.remember(paymentIntent, object.id);
      }
    } else if (event.type === 'charge.refunded') {
      // 5. One trackRefund per refund, with that refund's own amount and id (a resend is a no-op).
      const transactionId = idOf(object.invoice) ?? (idOf(object.payment_intent) ? await orders.transactionIdFor(idOf(object.payment_intent)!) : null);
      const refunds = await refundsOf(object, stripe);
      if (refunds === null) {
        return void res.json({ received: true, reported, skipped: 'this charge.refunded carries no refunds list: pass a Stripe client (STRIPE_SECRET_KEY) to read them' });
      }
      for (const refund of refunds) {
        if (transactionId) reported.push(await affix.trackRefund({ invoiceId: transactionId, refundAmountCents: refund.amount, refundId: refund.id }));
      }
    }
    res.json({ received: true, reported });
  });
  return app;
}

// Run directly (see the README): npm run example:stripe-handler
if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop()!)) {
  const app = createWebhookApp({
    stripeWebhookSecret: process.env.STRIPE_WEBHOOK_SECRET ?? '',
    affix: new Affix({ apiKey: process.env.AFFIX_API_KEY ?? '', apiUrl: process.env.AFFIX_API_URL }),
    stripe: process.env.STRIPE_SECRET_KEY ? new Stripe(process.env.STRIPE_SECRET_KEY) : undefined,
  });
  const port = Number(process.env.PORT ?? 4242);
  const server = app.listen(port, () => console.log(`Stripe webhook handler on http://localhost:${port}/stripe/webhook`));
  process.once('SIGTERM', () => server.close());
  process.once('SIGINT', () => server.close());
}
