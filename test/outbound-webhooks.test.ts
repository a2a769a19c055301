// Webhooks to the brand against a real local HTTP receiver (never mocked): signed per Standard
// Webhooks, one message per change, retried after 500s, a receiver that is down turns the
// endpoint off, 410 turns it off, replays keep the webhook-id, secrets rotate with an overlap.
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createReceiver } from '../examples/affix-webhook-receiver/receiver.js';
import { checkedLookup, endpointUrlProblem, isRefusedAddress, sendWebhook } from '../src/platform/webhook-sender.js';
import { type SeededProgram, type TestApi, type TestDatabase, adminHeaders, bearer, closeTestApi, openTestApi, seedProgram, trackClick } from './support/harness.js';

interface Received {
  headers: Record<string, string>;
  body: string;
}

/** A receiver whose answers a test scripts (status per request; 200 once the script is spent). */
async function startReceiver() {
  const received: Received[] = [];
  const script: number[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      received.push({ headers: req.headers as Record<string, string>, body });
      res.statusCode = script.shift() ?? 200;
      res.end(res.statusCode === 200 ? 'ok' : 'receiver says no');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    received,
    script,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

let db: TestDatabase;
let api: TestApi;
let receiver: Awaited<ReturnType<typeof startReceiver>>;

beforeAll(async () => {
  ({ db, api } = await openTestApi(
    { AFFIX_SECRET_KEY: 'outbound-webhooks-test-key-0123456789', AFFIX_WEBHOOK_ALLOW_PRIVATE: 'true', AFFIX_WEBHOOK_RETRY_SCHEDULE: '0,0,0' },
    { queueUrl: 'own', workers: true },
  ));
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
  await closeTestApi({ db, api });
});

const admin = (method: string, path: string, body?: unknown) => api.request(method, `/api/v1/admin${path}`, { body, headers: adminHeaders });
let n = 0;
const uid = (prefix: string) => `${prefix}_${++n}_${Date.now()}`;

async function register(program: SeededProgram, url: string, eventTypes: string[]) {
  const reply = await admin('POST', `/programs/${program.programId}/webhook-endpoints`, { url, event_types: eventTypes });
  expect(reply.status).toBe(201);
  return reply.body.data as { id: number; secret: string };
}

async function sale(program: SeededProgram, amountCents = 10_000) {
  const clickId = await trackClick(api, program.affiliateUrl);
  const transactionId = uid('txn');
  const reply = await api.request('POST', '/api/v1/track/sale', {
    body: { transaction_id: transactionId, amount_cents: amountCents, click_id: clickId, customer_key: uid('c') },
    headers: bearer(program.apiKey),
  });
  expect(reply.status).toBe(200);
  return transactionId;
}

const deliveries = async (endpointId: number) => (await db.pool.query('SELECT status, attempts FROM webhook_deliveries WHERE endpoint_id = $1 ORDER BY id', [endpointId])).rows;

describe('outbound webhooks', () => {
  it('each change reaches every listening endpoint once, signed; the receiver verifies it with its secret', async () => {
    const shop = await seedProgram(api);
    const first = await register(shop, receiver.url, ['sale.created', 'commission.created']);
    const second = await register(shop, `${receiver.url}?second`, ['sale.created']);
    expect(first.secret).toMatch(/^whsec_/);
    const before = receiver.received.length;
    const transactionId = await sale(shop);
    await vi.waitFor(() => expect(receiver.received.length - before).toBe(3), { timeout: 15_000, interval: 50 });
    const got = receiver.received.slice(before);
    const bodies = got.map((r) => JSON.parse(r.body));
    expect(bodies.map((b) => b.type).sort()).toEqual(['commission.created', 'sale.created', 'sale.created']);
    for (const r of got) {
      expect(r.headers['webhook-id']).toMatch(/^msg_[0-9a-f]{32}$/);
      expect(r.headers['webhook-timestamp']).toMatch(/^\d{10}$/);
    }
    // Each endpoint's receiver verifies with its own secret (the library a brand would use).
    const verifiedBy = (secret: string) => got.filter((r) => {
      try {
        new Webhook(secret).verify(r.body, r.headers);
        return true;
      } catch {
        return false;
      }
    }).length;
    expect(verifiedBy(first.secret)).toBe(2);
    expect(verifiedBy(second.secret)).toBe(1);
    const saleBody = bodies.find((b) => b.type === 'sale.created');
    expect(saleBody).toMatchObject({ test: false, data: { transaction_id: transactionId, amount_cents: 10_000, currency: 'USD', partner_id: shop.partnerId } });
    expect(saleBody.data.sale_id).toEqual(expect.any(Number));
    // The receiver has answered; the sender records 'delivered' right after, so wait for that write.
    await vi.waitFor(async () => expect(await deliveries(first.id)).toEqual([
      { status: 'delivered', attempts: 1 },
      { status: 'delivered', attempts: 1 },
    ]), { timeout: 15_000, interval: 50 });

    // No event without its change: the duplicate sale is refused and tells nobody.
    const messages = Number((await db.pool.query('SELECT count(*) FROM webhook_messages')).rows[0].count);
    const duplicate = await api.request('POST', '/api/v1/track/sale', {
      body: { transaction_id: transactionId, amount_cents: 10_000, customer_key: 'whoever' },
      headers: bearer(shop.apiKey),
    });
    expect(duplicate.status).not.toBe(200);
    expect(Number((await db.pool.query('SELECT count(*) FROM webhook_messages')).rows[0].count)).toBe(messages);
  });

  it('retries after 500s with the same webhook-id until it is delivered', async () => {
    const shop = await seedProgram(api);
    const endpoint = await register(shop, receiver.url, ['sale.created']);
    receiver.script.push(500, 500);
    const before = receiver.received.length;
    await sale(shop);
    await vi.waitFor(async () => expect(await deliveries(endpoint.id)).toEqual([{ status: 'delivered', attempts: 3 }]), { timeout: 15_000, interval: 50 });
    const ids = receiver.received.slice(before).map((r) => r.headers['webhook-id']);
    expect(ids).toHaveLength(3);
    expect(new Set(ids).size).toBe(1);
    const log = await admin('GET', `/programs/${shop.programId}/webhook-endpoints/${endpoint.id}/deliveries`);
    expect(log.body.data.deliveries[0]).toMatchObject({ status: 'delivered', attempts: 3, last_status_code: 200, last_excerpt: 'ok' });
    const sent = receiver.received.find((r) => r.headers['webhook-id'] === log.body.data.deliveries[0].message_id)!;
    expect(JSON.parse(log.body.data.deliveries[0].request.body)).toEqual(JSON.parse(sent.body));
    // The scheduled approval is registered by the supervising worker (pg-boss cron).
    expect((await db.pool.query("SELECT cron FROM pgboss.schedule WHERE name = 'commission-approvals'")).rows).toEqual([{ cron: '*/10 * * * *' }]);
  });

  it('a receiver that is down exhausts the retries and the endpoint is turned off with a notice; replay sends the same message again', async () => {
    const shop = await seedProgram(api);
    const down = await startReceiver();
    await down.close(); // nothing listens on its port now
    const endpoint = await register(shop, down.url, ['sale.created']);
    await sale(shop);
    await vi.waitFor(async () => expect(await deliveries(endpoint.id)).toEqual([{ status: 'failed', attempts: 4 }]), { timeout: 15_000, interval: 50 });
    const listed = await admin('GET', `/programs/${shop.programId}/webhook-endpoints`);
    expect(listed.body.data[0]).toMatchObject({ enabled: false, disabled_reason: expect.stringMatching(/^Every attempt to deliver msg_/) });

    // The brand fixes its URL's server, turns the endpoint back on and replays.
    await admin('PATCH', `/programs/${shop.programId}/webhook-endpoints/${endpoint.id}`, { enabled: true });
    const deliveryId = (await db.pool.query('SELECT id FROM webhook_deliveries WHERE endpoint_id = $1', [endpoint.id])).rows[0].id;
    await db.pool.query('UPDATE webhook_endpoints SET url = $2 WHERE id = $1', [endpoint.id, receiver.url]);
    const before = receiver.received.length;
    const replay = await admin('POST', `/programs/${shop.programId}/webhook-deliveries/${deliveryId}/replay`);
    expect(replay.status).toBe(201);
    await vi.waitFor(() => expect(receiver.received.length).toBe(before + 1), { timeout: 15_000, interval: 50 });
    const message = (await db.pool.query('SELECT message_id FROM webhook_deliveries WHERE id = $1', [deliveryId])).rows[0].message_id;
    expect(receiver.received.at(-1)!.headers['webhook-id']).toBe(message);
  });

  it('410 Gone turns the endpoint off at once', async () => {
    const shop = await seedProgram(api);
    const endpoint = await register(shop, receiver.url, ['sale.created']);
    receiver.script.push(410);
    await sale(shop);
    await vi.waitFor(async () => expect(await deliveries(endpoint.id)).toEqual([{ status: 'failed', attempts: 1 }]), { timeout: 15_000, interval: 50 });
    const listed = await admin('GET', `/programs/${shop.programId}/webhook-endpoints`);
    expect(listed.body.data[0]).toMatchObject({ enabled: false, disabled_reason: expect.stringContaining('410') });
    // The brand's managers are told, in the same transaction (docs/mail.md), once.
    const manager = (await db.pool.query('SELECT a.email FROM accounts a JOIN programs p ON p.account_id = a.id WHERE p.id = $1', [shop.programId])).rows[0].email;
    const mails = await db.pool.query("SELECT to_email, subject, body FROM mail_outbox WHERE program_id = $1 AND kind = 'endpoint_disabled'", [shop.programId]);
    expect(mails.rows).toHaveLength(1);
    expect(mails.rows[0]).toMatchObject({ to_email: manager, subject: 'A webhook endpoint was turned off' });
    // And the audit log names the system as the one who turned it off.
    const audit = await db.pool.query("SELECT actor_type, actor_label FROM audit_log WHERE program_id = $1 AND action = 'webhook_endpoint.turned_off'", [shop.programId]);
    expect(audit.rows).toEqual([{ actor_type: 'system', actor_label: 'webhook deliveries' }]);
  });

  it('after a rotation both secrets sign until the overlap ends', async () => {
    const shop = await seedProgram(api);
    const endpoint = await register(shop, receiver.url, ['sale.created']);
    const rotated = await admin('POST', `/programs/${shop.programId}/webhook-endpoints/${endpoint.id}/rotate-secret`);
    expect(rotated.body.data.secret).toMatch(/^whsec_/);
    const before = receiver.received.length;
    await sale(shop);
    await vi.waitFor(() => expect(receiver.received.length).toBe(before + 1), { timeout: 15_000, interval: 50 });
    const got = receiver.received.at(-1)!;
    expect(got.headers['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(() => new Webhook(endpoint.secret).verify(got.body, got.headers)).not.toThrow();
    expect(() => new Webhook(rotated.body.data.secret).verify(got.body, got.headers)).not.toThrow();
  });

  it('endpoints of one brand are invisible to another program', async () => {
    const shop = await seedProgram(api);
    const other = await seedProgram(api);
    const endpoint = await register(shop, receiver.url, ['sale.created']);
    const reply = await admin('GET', `/programs/${other.programId}/webhook-endpoints/${endpoint.id}/deliveries`);
    expect(reply.status).toBe(404);
    expect(reply.body.error.message).toBe('Webhook endpoint not found');
  });

  it('refuses bad URLs and unknown event types, naming each field', async () => {
    const shop = await seedProgram(api);
    const reply = await admin('POST', `/programs/${shop.programId}/webhook-endpoints`, { url: 'ftp://x', event_types: ['sale.made'] });
    expect(reply.status).toBe(400);
    expect(reply.body.error.message).toBe('url: The URL must be an absolute http or https URL.');
  });
});

describe('the receiving example (examples/affix-webhook-receiver)', () => {
  it('accepts a real delivery once, refuses a forged one, and makes Affix retry when handling fails', async () => {
    const shop = await seedProgram(api);
    const handled: string[] = [];
    let failNext = true;
    // Registered first (the secret is known only then), then started with it.
    const placeholder = await startReceiver();
    await placeholder.close();
    const endpoint = await register(shop, placeholder.url, ['sale.created']);
    const server = createReceiver({
      secrets: [endpoint.secret],
      handle: async (event) => {
        if (failNext) {
          failNext = false;
          throw new Error('database busy');
        }
        handled.push(String(event.data.transaction_id));
      },
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/affix`;
    await db.pool.query('UPDATE webhook_endpoints SET url = $2 WHERE id = $1', [endpoint.id, url]);
    try {
      const transactionId = await sale(shop);
      await vi.waitFor(async () => expect(await deliveries(endpoint.id)).toEqual([{ status: 'delivered', attempts: 2 }]), { timeout: 15_000, interval: 50 });
      expect(handled).toEqual([transactionId]);
      const forged = await fetch(url, { method: 'POST', body: '{"type":"payout.paid"}', headers: { 'webhook-id': 'msg_forged', 'webhook-timestamp': String(Math.floor(Date.now() / 1000)), 'webhook-signature': 'v1,AAAA' } });
      expect(forged.status).toBe(400);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe('destinations', () => {
  it('only global unicast addresses of other hosts, literal or resolved; the operator may allow private ones', async () => {
    expect(isRefusedAddress('127.0.0.1')).toBe(true);
    expect(isRefusedAddress('93.184.216.34')).toBe(false);
    expect(isRefusedAddress('2606:4700::1111')).toBe(false);
    expect(endpointUrlProblem('https://user:pw@example.com/x', false)).toBe('must not carry a user name or password');
    expect(endpointUrlProblem('http://127.0.0.1:9/x', true)).toBeNull();
    // A name is checked by what it resolves to, at connect time (the lookup the request uses).
    const resolved = (allow: boolean) =>
      new Promise<string>((resolve) => checkedLookup(allow)('localhost', { family: 4 }, (error, address) => resolve(error ? error.message : String(address))));
    expect(await resolved(false)).toBe('localhost resolves only to private addresses');
    expect(await resolved(true)).toBe('127.0.0.1');
    // And a send to a literal private address never leaves the process.
    const refused = await sendWebhook('http://127.0.0.1:9/x', { id: 'msg_x', timestamp: new Date(), body: '{}', secrets: ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'] }, { allowPrivate: false, timeoutMs: 2000, clock: () => 0 });
    expect(refused).toEqual({ status: null, excerpt: 'URL must not point at a private or loopback address', durationMs: 0 });
  });
});
