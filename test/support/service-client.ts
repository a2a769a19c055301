// Talks to a service running as its own process (lifecycle, restart and chaos tests).
import { randomBytes } from 'node:crypto';
import { sign } from './stripe.js';

export interface ServiceClient {
  url: string;
  request(method: string, path: string, options?: { body?: unknown; raw?: string; headers?: Record<string, string>; timeoutMs?: number }): Promise<{ status: number; headers: Headers; body: any }>;
}

let counter = 0;

export function serviceClient(url: string, adminToken: string): ServiceClient & {
  admin(method: string, path: string, body?: unknown): Promise<any>;
  deliver(programId: number, event: unknown, secret: string): Promise<{ status: number; body: any }>;
} {
  const request: ServiceClient['request'] = async (method, path, options = {}) => {
    counter += 1;
    const headers: Record<string, string> = { 'X-Forwarded-For': `203.0.${Math.floor(counter / 250) % 250}.${(counter % 250) + 1}`, ...options.headers };
    let body = options.raw;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['Content-Type'] = 'application/json';
    }
    const response = await fetch(`${url}${path}`, { method, headers, body, signal: AbortSignal.timeout(options.timeoutMs ?? 10_000) });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      // not JSON: keep the text
    }
    return { status: response.status, headers: response.headers, body: parsed };
  };
  return {
    url,
    request,
    async admin(method, path, body) {
      const reply = await request(method, `/api/v1/admin${path}`, { body, headers: { Authorization: `Bearer ${adminToken}` } });
      if (reply.status >= 300) throw new Error(`${method} ${path}: ${reply.status} ${JSON.stringify(reply.body)}`);
      return reply.body.data;
    },
    async deliver(programId, event, secret) {
      const payload = JSON.stringify(event);
      return request('POST', `/api/v1/webhooks/stripe/${programId}`, {
        raw: payload,
        headers: { 'Content-Type': 'application/json', 'Stripe-Signature': sign(payload, secret) },
      });
    },
  };
}

/** One brand with a program (Stripe connected), a partner and a link; returns what the tests need. */
export async function seedStripeProgram(
  client: ReturnType<typeof serviceClient>,
  webhookSecret: string,
  program: Record<string, unknown> = {},
): Promise<{ programId: number; apiKey: string; shortLink: string }> {
  const suffix = randomBytes(4).toString('hex');
  const account = await client.admin('POST', '/accounts', { email: `brand-${suffix}@example.com` });
  const created = await client.admin('POST', '/programs', {
    account_id: account.id,
    name: `Shop ${suffix}`,
    domain: 'shop.example.com',
    commission_type: 'recurring_percent',
    commission_rate: 20,
    ...program,
  });
  const partner = await client.admin('POST', `/programs/${created.id}/partners`, { name: `Partner ${suffix}` });
  // Paid by bank transfer: a payout run pays only partners with payout details (docs/payouts.md).
  await client.admin('PATCH', `/programs/${created.id}/partners/${partner.id}/payout-details`, { payout_method: 'bank_transfer', payout_reference: `DE00 TEST ${suffix}` });
  const shortLink = `c${suffix}`;
  await client.admin('POST', `/programs/${created.id}/links`, { partner_id: partner.id, short_link: shortLink });
  const key = await client.admin('POST', `/programs/${created.id}/keys`);
  await client.admin('PATCH', `/programs/${created.id}/stripe`, { webhook_secret: webhookSecret, livemode_only_commissions: false });
  return { programId: created.id, apiKey: key.api_key, shortLink };
}
