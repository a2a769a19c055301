// Cross-tenant: with brand B's own credentials (program key, CLI login token, dashboard session),
// every route family is tried against brand A's data. Nothing of A's is read or changed, and no
// answer names A's ids, customers or accounts.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  type SeededProgram,
  type TestApi,
  type TestDatabase,
  adminHeaders,
  bearer,
  trackClick,
} from './support/harness.js';
import { useSeededApi } from './support/seeded-api.js';
import { WEBHOOK_SECRET, deliver, fixture, waitForEvent } from './support/stripe.js';

let db: TestDatabase;
let api: TestApi;
let a: SeededProgram;
let b: SeededProgram;
/** What brand A has: the things B must never see. */
const secretsOfA: string[] = [];
let aSale = { transactionId: '', saleId: 0, clickId: '', customerKey: '', inboxId: 0 };

/** Everything a tenant's answer may not contain about the other. */
function expectNothingOfA(body: unknown): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  for (const secret of secretsOfA) expect(text, `leaks ${secret}`).not.toContain(secret);
}

/** A hash of every row that holds A's data, to prove nothing changed. */
async function fingerprintOfA(): Promise<string> {
  const { rows } = await db.pool.query(
    `SELECT md5(concat_ws('|',
       -- (the endpoint's own live check, last signature failure, is the brand's to see: left out)
       (SELECT string_agg((to_jsonb(t) - 'stripe_last_signature_error' - 'stripe_last_signature_error_at' - 'stripe_last_event_at')::text, ',') FROM programs t WHERE id = $1),
       (SELECT string_agg(t::text, ',' ORDER BY t.id) FROM sales t WHERE program_id = $1),
       (SELECT string_agg(t::text, ',' ORDER BY t.id) FROM commissions t WHERE program_id = $1),
       (SELECT string_agg(t::text, ',' ORDER BY t.id) FROM customers t WHERE program_id = $1),
       (SELECT string_agg(t::text, ',' ORDER BY t.id) FROM referral_links t WHERE program_id = $1),
       (SELECT string_agg(t::text, ',' ORDER BY t.id) FROM api_keys t WHERE program_id = $1),
       (SELECT string_agg(t.id || t.status, ',' ORDER BY t.id) FROM webhook_events t WHERE program_id = $1),
       (SELECT string_agg(t::text, ',' ORDER BY t.id) FROM partners t WHERE program_id = $1),
       (SELECT string_agg(t::text, ',' ORDER BY t.id) FROM partner_groups t WHERE program_id = $1),
       (SELECT string_agg(t::text, ',' ORDER BY t.id) FROM partner_sanctions t WHERE program_id = $1))) AS h`,
    [a.programId],
  );
  return rows[0].h;
}

useSeededApi({ env: { AFFIX_SECRET_KEY: 'cross-tenant-secret-key-01', AFFIX_WORKER_POLL_SECONDS: '0.5' }, options: { queueUrl: 'own', workers: true }, programs: [{}, {}] }, (t) => ({ db, api, programs: [a, b] } = t));
beforeAll(async () => {
  for (const program of [a, b]) {
    await api.request('PATCH', `/api/v1/admin/programs/${program.programId}/stripe`, { body: { webhook_secret: WEBHOOK_SECRET, livemode_only_commissions: false }, headers: adminHeaders });
  }
  // Brand A: a click, a lead with an email, a sale through Stripe.
  const clickId = await trackClick(api, a.affiliateUrl);
  const customerKey = `a_customer_${Date.now()}`;
  await api.request('POST', '/api/v1/track/lead', { body: { click_id: clickId, customer_key: customerKey, email: 'alice@brand-a.example' }, headers: bearer(a.apiKey) });
  const event = await fixture('checkout.session.completed.payment', { run: `xt${Date.now()}`, email: 'alice@brand-a.example', click_id: clickId, customer_key: customerKey, program_id: a.programId });
  await deliver(api, `/api/v1/webhooks/stripe/${a.programId}`, event);
  const row = await waitForEvent(db.pool, event.id, ['processed']);
  aSale = { transactionId: event.data.object.id, saleId: row.sale_id!, clickId, customerKey, inboxId: row.id };
  secretsOfA.push(clickId, customerKey, 'alice@brand-a.example', event.data.object.id, event.id, a.shortLink, `"sale_id":${row.sale_id}`);
  await api.request('PATCH', `/api/v1/admin/accounts/${b.accountId}`, { body: { password: 'brand b password 1' }, headers: adminHeaders });
});

describe("tracking routes with B's key", () => {
  it('refund of A\'s sale: 404, nothing changed, nothing named', async () => {
    const before = await fingerprintOfA();
    const reply = await api.request('POST', '/api/v1/track/refund', { body: { transaction_id: aSale.transactionId }, headers: bearer(b.apiKey) });
    expect(reply.status).toBe(404);
    expectNothingOfA(reply.body);
    expect(await fingerprintOfA()).toBe(before);
  });

  it("a sale for A's customer key or click: refused, and A's customer is untouched", async () => {
    const before = await fingerprintOfA();
    for (const body of [
      { transaction_id: `b_${Date.now()}`, amount_cents: 100, customer_key: aSale.customerKey },
      { transaction_id: `b2_${Date.now()}`, amount_cents: 100, click_id: aSale.clickId },
    ]) {
      const reply = await api.request('POST', '/api/v1/track/sale', { body, headers: bearer(b.apiKey) });
      expect(reply.status).toBeGreaterThanOrEqual(400);
      expectNothingOfA(reply.body);
    }
    expect(await fingerprintOfA()).toBe(before);
  });

  it("readiness answers for B's own program only", async () => {
    const reply = await api.request('GET', '/api/v1/programs/me/readiness', { headers: bearer(b.apiKey) });
    expect(reply.status).toBe(200);
    expectNothingOfA(reply.body);
  });
});

describe("the CLI API with B's key and token", () => {
  it("status and test events naming A's program: 403, nothing recorded in A", async () => {
    const before = await fingerprintOfA();
    const status = await api.request('GET', `/api/v1/cli/status?program_id=${a.programId}`, { headers: bearer(b.apiKey) });
    expect(status.status).toBe(403);
    const event = await api.request('POST', '/api/v1/cli/test-event', { body: { event_type: 'click', program_id: a.programId }, headers: bearer(b.apiKey) });
    expect(event.status).toBe(403);
    expect(event.body.error.message).toBe('program_id does not match the API key');
    expect(await fingerprintOfA()).toBe(before);
  });

  it("B's login token lists only B's programs", async () => {
    const started = await api.request('POST', '/api/v1/cli/auth/start');
    const stateValue = new URL(started.body.data.auth_url).searchParams.get('state')!;
    const { rows } = await db.pool.query('SELECT email FROM accounts WHERE id = $1', [b.accountId]);
    await api.request('POST', '/cli/login', {
      raw: new URLSearchParams({ state: stateValue, email: rows[0].email, password: 'brand b password 1' }).toString(),
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    });
    const token = (await api.request('GET', `/api/v1/cli/auth/poll?state=${stateValue}`)).body.data.token;
    const programs = await api.request('GET', '/api/v1/cli/programs', { headers: bearer(token) });
    expect(programs.body.data.map((p: { id: number }) => p.id)).toEqual([b.programId]);
    expectNothingOfA(programs.body);
    const init = await api.request('POST', '/api/v1/cli/init', { body: { name: 'x', domain: 'x.example.com', advertiser_id: a.accountId }, headers: bearer(token) });
    expect(init.status).toBe(403);
  });
});

describe("the admin API with B's key", () => {
  it('is refused: only the operator token manages accounts and programs', async () => {
    for (const [method, path] of [
      ['GET', `/api/v1/admin/programs/${a.programId}`],
      ['PATCH', `/api/v1/admin/programs/${a.programId}`],
      ['GET', '/api/v1/admin/webhook-events'],
      ['POST', `/api/v1/admin/webhook-events/${aSale.inboxId}/replay`],
    ] as const) {
      const reply = await api.request(method, path, { body: method === 'GET' ? undefined : {}, headers: bearer(b.apiKey) });
      expect(reply.status, `${method} ${path}`).toBe(401);
      expectNothingOfA(reply.body);
    }
  });
});

describe("the assistant (MCP) with B's key", () => {
  it("explain_sale and recent_events show nothing of A's", async () => {
    const mcp = new Client({ name: 'cross-tenant', version: '1.0.0' });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(`${api.url}/mcp`), { requestInit: { headers: bearer(b.apiKey) } }));
    try {
      const explained = await mcp.callTool({ name: 'explain_sale', arguments: { transaction_id: aSale.transactionId } });
      expect(explained.isError).toBe(true);
      for (const name of ['recent_events', 'partner_stats', 'get_program']) {
        const result = await mcp.callTool({ name, arguments: name === 'recent_events' ? { kind: 'sale' } : name === 'partner_stats' ? { days: 30 } : {} });
        expectNothingOfA(result);
      }
    } finally {
      await mcp.close();
    }
  });
});

describe("Stripe endpoints with B's secret", () => {
  it("an event signed for B posted to A's endpoint is refused and not stored", async () => {
    const before = await fingerprintOfA();
    const event = await fixture('checkout.session.completed.payment', { run: `xtb${Date.now()}`, email: 'b@example.com', click_id: 'x', customer_key: 'y', program_id: a.programId });
    const reply = await deliver(api, `/api/v1/webhooks/stripe/${a.programId}`, event, { secret: 'whsec_brand_b_own_secret' });
    expect(reply.status).toBe(400);
    expect((await db.pool.query('SELECT 1 FROM webhook_events WHERE event_key = $1', [event.id])).rowCount).toBe(0);
    expect(await fingerprintOfA()).toBe(before);
  });
});

describe("the dashboard with B's session", () => {
  async function signInAsB() {
    const jar: string[] = [];
    const page = await fetch(`${api.url}/dashboard/login`);
    jar.push(...page.headers.getSetCookie().map((c) => c.split(';')[0]!));
    const csrf = /name="_csrf" value="([^"]+)"/.exec(await page.text())![1]!;
    const { rows } = await db.pool.query('SELECT email FROM accounts WHERE id = $1', [b.accountId]);
    const signed = await fetch(`${api.url}/dashboard/login`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Cookie: jar.join('; ') },
      body: new URLSearchParams({ _csrf: csrf, email: rows[0].email, password: 'brand b password 1' }).toString(),
    });
    jar.push(...signed.headers.getSetCookie().map((c) => c.split(';')[0]!));
    const home = await fetch(`${api.url}/dashboard`, { headers: { Cookie: jar.join('; ') } });
    jar.push(...home.headers.getSetCookie().map((c) => c.split(';')[0]!));
    const token = /name="_csrf" value="([^"]+)"/.exec(await home.text())?.[1] ?? csrf;
    const cookie = () => [...new Map(jar.map((pair) => [pair.split('=')[0], pair])).values()].join('; ');
    return { cookie, token };
  }

  it("A's program page, its forms and its inbox replay: 404 for B, nothing changed, nothing shown", async () => {
    const before = await fingerprintOfA();
    const session = await signInAsB();
    const page = await fetch(`${api.url}/dashboard/programs/${a.programId}`, { headers: { Cookie: session.cookie() } });
    expect(page.status).toBe(404);
    expectNothingOfA(await page.text());
    const list = await fetch(`${api.url}/dashboard`, { headers: { Cookie: session.cookie() } });
    expect(list.status).toBe(200);
    expectNothingOfA(await list.text());
    for (const path of [
      `/dashboard/programs/${a.programId}/settings`,
      `/dashboard/programs/${a.programId}/partners`,
      `/dashboard/programs/${a.programId}/keys`,
      `/dashboard/programs/${a.programId}/partners/bulk`,
      `/dashboard/programs/${a.programId}/partners/${a.partnerId}`,
      `/dashboard/programs/${a.programId}/partners/${a.partnerId}/action`,
      `/dashboard/programs/${a.programId}/partners/${a.partnerId}/override`,
      `/dashboard/programs/${b.programId}/partners/${a.partnerId}`,
      `/dashboard/programs/${b.programId}/partners/${a.partnerId}/action`,
      `/dashboard/programs/${b.programId}/partners/${a.partnerId}/override`,
      `/dashboard/programs/${a.programId}/groups`,
      `/dashboard/programs/${a.programId}/applications/settings`,
      `/dashboard/programs/${a.programId}/commissions/bulk`,
      `/dashboard/programs/${a.programId}/partners/import`,
      `/dashboard/programs/${a.programId}/partners/import/00000000-0000-4000-8000-000000000000`,
      `/dashboard/programs/${a.programId}/events/${aSale.inboxId}/replay`,
      `/dashboard/programs/${b.programId}/events/${aSale.inboxId}/replay`,
    ]) {
      const reply = await fetch(`${api.url}${path}`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', Cookie: session.cookie() },
        body: new URLSearchParams({
          _csrf: session.token, name: 'Hijacked', action: 'ban', reason: 'hijack', partner_ids: String(a.partnerId), commission_type: 'percent', commission_rate: '90', source: 'x', slug: 'hijack', hold_days: '0', csv: 'name\nX',
        }).toString(),
      });
      expect(reply.status, path).toBe(404);
      expectNothingOfA(await reply.text());
    }
    for (const path of [`/dashboard/programs/${a.programId}/partners/${a.partnerId}`, `/dashboard/programs/${b.programId}/partners/${a.partnerId}`, `/dashboard/programs/${a.programId}/partners.csv`, `/dashboard/programs/${a.programId}/applications.csv`]) {
      const reply = await fetch(`${api.url}${path}`, { headers: { Cookie: session.cookie() } });
      expect(reply.status, path).toBe(404);
      expectNothingOfA(await reply.text());
    }
    // B's own bulk bar given A's partner id: nothing of A's is found, nothing changes.
    const bulk = await fetch(`${api.url}/dashboard/programs/${b.programId}/partners/bulk`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Cookie: session.cookie() },
      body: new URLSearchParams({ _csrf: session.token, action: 'ban', reason: 'hijack', partner_ids: String(a.partnerId) }).toString(),
    });
    expect(bulk.status).toBe(303);
    expect(bulk.headers.get('location')).toContain('changed=0&skipped=1');
    expect(await fingerprintOfA()).toBe(before);
  });
});
