// Tenant isolation: brands (accounts) share one deployment; none can read, change or learn of
// another's data. Each finding of the isolation review has its test here.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type SeededProgram,
  type TestApi,
  type TestDatabase,
  adminHeaders,
  bearer,
  closeTestApi,
  openTestApi,
  seedProgram,
  trackClick,
} from './support/harness.js';
import { WEBHOOK_SECRET, deliver, fixture, waitForEvent } from './support/stripe.js';
import { dashboardVisitor } from './support/dashboard-visitor.js';
import { purgeExpiredPayloads } from '../src/db/inbox/payload-retention.js';
import { nockForThisFile } from './support/nock.js';

const nock = nockForThisFile();

let db: TestDatabase;
let api: TestApi;
let brandA: SeededProgram;
let brandB: SeededProgram;

beforeAll(async () => {
  ({ db, api } = await openTestApi(
    {
      AFFIX_SECRET_KEY: 'tenant-secret-key-0123456',
      AFFIX_WORKER_POLL_SECONDS: '0.5',
      STRIPE_CONNECT_CLIENT_ID: 'ca_tenanttest',
      STRIPE_SECRET_KEY: 'sk_test_tenantplatform',
    },
    { queueUrl: 'own', workers: true },
  ));
  brandA = await seedProgram(api);
  brandB = await seedProgram(api);
});
afterAll(() => closeTestApi({ db, api }));

let n = 0;
async function referredCustomer(program: SeededProgram): Promise<string> {
  const clickId = await trackClick(api, program.affiliateUrl);
  const customerKey = `tenant_cust_${++n}_${Date.now()}`;
  const reply = await api.request('POST', '/api/v1/track/lead', { body: { click_id: clickId, customer_key: customerKey }, headers: bearer(program.apiKey) });
  if (reply.status !== 200) throw new Error(JSON.stringify(reply.body));
  return customerKey;
}
const sale = (program: SeededProgram, body: Record<string, unknown>) =>
  api.request('POST', '/api/v1/track/sale', { body, headers: bearer(program.apiKey) });

describe('finding 1: transaction ids are scoped to the brand', () => {
  it("brand A's order_1001 does not swallow brand B's order_1001, and no 409 names another brand's sale", async () => {
    const orderId = `order_1001_${Date.now()}`;
    const a = await sale(brandA, { transaction_id: orderId, amount_cents: 4900, customer_key: await referredCustomer(brandA) });
    expect(a.status).toBe(200);
    const b = await sale(brandB, { transaction_id: orderId, amount_cents: 2500, customer_key: await referredCustomer(brandB) });
    expect(b.status).toBe(200);
    expect(b.body.sale_id).not.toBe(a.body.sale_id);
    expect(b.body.commission_amount_cents).toBe(500);
    const again = await sale(brandB, { transaction_id: orderId, amount_cents: 2500, customer_key: 'whoever' });
    expect(again.status).toBe(409);
    expect(again.body.error.details.sale_id).toBe(b.body.sale_id);
  });

  it('two programs of one brand still dedupe the same transaction id (one checkout, reported twice)', async () => {
    const second = await api.request('POST', '/api/v1/admin/programs', {
      body: { account_id: brandA.accountId, name: 'Second shop', domain: 'two.example.com', commission_type: 'percent', commission_rate: 10 },
      headers: adminHeaders,
    });
    const partner = await api.request('POST', `/api/v1/admin/programs/${second.body.data.id}/partners`, { body: { name: 'P2' }, headers: adminHeaders });
    const code = `two${Date.now()}`;
    await api.request('POST', `/api/v1/admin/programs/${second.body.data.id}/links`, { body: { partner_id: partner.body.data.id, short_link: code }, headers: adminHeaders });
    const key = await api.request('POST', `/api/v1/admin/programs/${second.body.data.id}/keys`, { headers: adminHeaders });
    const sameBrand: SeededProgram = { ...brandA, programId: second.body.data.id, apiKey: key.body.data.api_key, affiliateUrl: `https://two.example.com/?aff=${code}` };
    const orderId = `shared_${Date.now()}`;
    const first = await sale(brandA, { transaction_id: orderId, amount_cents: 1000, customer_key: await referredCustomer(brandA) });
    const duplicate = await sale(sameBrand, { transaction_id: orderId, amount_cents: 1000, customer_key: await referredCustomer(sameBrand) });
    expect(duplicate.status).toBe(409);
    expect(duplicate.body.error.details.sale_id).toBe(first.body.sale_id);
  });

  it("a Stripe checkout session id recorded by brand A does not block brand B's own session with that id", async () => {
    for (const program of [brandA, brandB]) {
      await api.request('PATCH', `/api/v1/admin/programs/${program.programId}/stripe`, {
        body: { webhook_secret: WEBHOOK_SECRET, livemode_only_commissions: false },
        headers: adminHeaders,
      });
    }
    const run = `tenant${Date.now()}`;
    const saleIds: number[] = [];
    for (const [index, program] of [brandA, brandB].entries()) {
      const clickId = await trackClick(api, program.affiliateUrl);
      const event = await fixture('checkout.session.completed.payment', { run, email: `t${index}@example.com`, click_id: clickId, customer_key: `k${index}${run}`, program_id: program.programId });
      event.id = `${event.id}_${index}`; // two deliveries, one session id (cs_<run>_payment)
      expect((await deliver(api, `/api/v1/webhooks/stripe/${program.programId}`, event)).status).toBe(200);
      const row = await waitForEvent(db.pool, event.id, ['processed', 'ignored', 'failed']);
      expect(row.status).toBe('processed');
      expect(row.reason).toBeNull();
      saleIds.push(row.sale_id!);
    }
    expect(saleIds[0]).not.toBe(saleIds[1]);
  });
});

describe('finding 3: suspension and logout take effect at once', () => {
  it("a suspended brand's CLI token and program keys can manage nothing (403 ACCOUNT_BLOCKED); tracking still records", async () => {
    const brand = await seedProgram(api);
    await api.request('PATCH', `/api/v1/admin/accounts/${brand.accountId}`, { body: { password: 'correct horse battery staple' }, headers: adminHeaders });
    const { rows } = await db.pool.query('SELECT email FROM accounts WHERE id = $1', [brand.accountId]);
    const token = await cliToken(rows[0].email, 'correct horse battery staple');
    expect((await api.request('GET', '/api/v1/cli/programs', { headers: bearer(token) })).status).toBe(200);

    await api.request('PATCH', `/api/v1/admin/accounts/${brand.accountId}`, { body: { suspended: true }, headers: adminHeaders });
    const listed = await api.request('GET', '/api/v1/cli/programs', { headers: bearer(token) });
    expect(listed.status).toBe(403);
    expect(listed.body.error.details).toEqual({ code: 'ACCOUNT_BLOCKED' });
    const init = await api.request('POST', '/api/v1/cli/init', { body: { name: 'New', domain: 'new.example.com' }, headers: bearer(token) });
    expect(init.status).toBe(403);
    const status = await api.request('GET', '/api/v1/cli/status', { headers: bearer(brand.apiKey) });
    expect(status.status).toBe(403);
    const readiness = await api.request('GET', '/api/v1/programs/me/readiness', { headers: bearer(brand.apiKey) });
    expect(readiness.status).toBe(403);
    expect(readiness.body.error.code).toBe('ACCOUNT_BLOCKED');
    const testEvent = await api.request('POST', '/api/v1/cli/test-event', { body: { event_type: 'click' }, headers: bearer(brand.apiKey) });
    expect(testEvent.status).toBe(403);
    // The brand's customers keep being recorded: nothing is lost while the suspension is reviewed.
    const customerKey = await referredCustomer(brand);
    expect((await sale(brand, { transaction_id: `susp_${Date.now()}`, amount_cents: 1000, customer_key: customerKey })).status).toBe(200);

    await api.request('PATCH', `/api/v1/admin/accounts/${brand.accountId}`, { body: { suspended: false }, headers: adminHeaders });
    expect((await api.request('GET', '/api/v1/cli/programs', { headers: bearer(token) })).status).toBe(200);
  });

  it('a new password revokes the CLI tokens issued before it', async () => {
    const { brand, token } = await brandSignedIn('first password 123');
    await api.request('PATCH', `/api/v1/admin/accounts/${brand.accountId}`, { body: { password: 'second password 456' }, headers: adminHeaders });
    expect((await api.request('GET', '/api/v1/cli/programs', { headers: bearer(token) })).status).toBe(401);
  });

  it('POST /api/v1/cli/auth/logout revokes the token on the server', async () => {
    const { brand, token } = await brandSignedIn('logout password 1');
    const out = await api.request('POST', '/api/v1/cli/auth/logout', { headers: bearer(token) });
    expect(out.body).toEqual({ data: { revoked: true } });
    expect((await api.request('GET', '/api/v1/cli/programs', { headers: bearer(token) })).status).toBe(401);
    expect((await api.request('POST', '/api/v1/cli/auth/logout', { headers: bearer(token) })).body).toEqual({ data: { revoked: false } });
  });
});

/** A new brand with a password, and a CLI login token for it. */
async function brandSignedIn(password: string): Promise<{ brand: SeededProgram; token: string }> {
  const brand = await seedProgram(api);
  await api.request('PATCH', `/api/v1/admin/accounts/${brand.accountId}`, { body: { password }, headers: adminHeaders });
  const { rows } = await db.pool.query('SELECT email FROM accounts WHERE id = $1', [brand.accountId]);
  return { brand, token: await cliToken(rows[0].email, password) };
}

/** A CLI login token, through the real sign-in: start, the local sign-in page, poll. */
async function cliToken(email: string, password: string): Promise<string> {
  const started = await api.request('POST', '/api/v1/cli/auth/start');
  const stateValue = new URL(started.body.data.auth_url).searchParams.get('state')!;
  const page = await api.request('POST', '/cli/login', {
    raw: new URLSearchParams({ state: stateValue, email, password }).toString(),
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
  });
  if (page.status !== 200) throw new Error(`sign-in page: ${page.status}`);
  const poll = await api.request('GET', `/api/v1/cli/auth/poll?state=${encodeURIComponent(stateValue)}`);
  return poll.body.data.token;
}

describe('finding 7: customer data is not kept forever nor logged', () => {
  it('payloads of final events past the retention period are purged; the row stays; replay says why it cannot', async () => {
    const clickId = await trackClick(api, brandA.affiliateUrl);
    const event = await fixture('checkout.session.completed.payment', { run: `retention${Date.now()}`, email: 'keep-me-not@example.com', click_id: clickId, customer_key: `ret${Date.now()}`, program_id: brandA.programId });
    expect((await deliver(api, `/api/v1/webhooks/stripe/${brandA.programId}`, event)).status).toBe(200);
    const row = await waitForEvent(db.pool, event.id, ['processed']);
    await db.pool.query("UPDATE webhook_events SET received_at = now() - interval '31 days' WHERE id = $1", [row.id]);
    expect(await purgeExpiredPayloads(db.pool, 30)).toBeGreaterThanOrEqual(1);
    const { rows } = await db.pool.query('SELECT payload, raw_body, purged_at, type, status, sale_id FROM webhook_events WHERE id = $1', [row.id]);
    expect(rows[0]).toMatchObject({ payload: null, raw_body: null, type: 'checkout.session.completed', status: 'processed', sale_id: row.sale_id });
    expect(rows[0].purged_at).not.toBeNull();
    expect(JSON.stringify(await db.pool.query('SELECT * FROM webhook_events WHERE id = $1', [row.id]).then((r) => r.rows))).not.toContain('keep-me-not');
    const replay = await api.request('POST', `/api/v1/admin/webhook-events/${row.id}/replay`, { headers: adminHeaders });
    expect(replay.status).toBe(409);
    expect(replay.body.error.message).toBe('This event cannot be replayed: its payload was purged after the retention period');
  });

  it('a recent event keeps its payload', async () => {
    const { rows } = await db.pool.query("SELECT count(*)::int AS n FROM webhook_events WHERE purged_at IS NULL AND received_at > now() - interval '1 day'");
    expect(rows[0].n).toBeGreaterThan(0);
    await purgeExpiredPayloads(db.pool, 30);
    const after = await db.pool.query("SELECT count(*)::int AS n FROM webhook_events WHERE purged_at IS NULL AND received_at > now() - interval '1 day'");
    expect(after.rows[0].n).toBe(rows[0].n);
  });
});

/** A tiny browser (test/support/dashboard-visitor.ts) from one address, its forms without an Origin. */
const browserSession = (ip: string) => dashboardVisitor(api.url, { ip, origin: false });

describe('finding 4: sign-in resists abuse; dashboard forms resist cross-site posts', () => {
  const owner = `dash-owner-${Date.now()}@example.com`;
  beforeAll(async () => {
    await api.request('POST', '/api/v1/admin/accounts', { body: { email: owner, password: 'dashboard password 1' }, headers: adminHeaders });
  });

  it('the dashboard sign-in stops at 10 attempts a minute from one IP (429 page with Retry-After)', async () => {
    const browser = browserSession('192.0.2.10');
    await browser.get('/dashboard/login');
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) statuses.push((await browser.post('/dashboard/login', { email: `nobody${i}@example.com`, password: 'guess' })).status);
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(401));
    const refused = await browser.post('/dashboard/login', { email: 'nobody@example.com', password: 'guess' });
    expect(refused.status).toBe(429);
    expect(refused.text).toContain('Too many sign-in attempts.');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('one address from one IP: 10 wrong passwords per 15 minutes, shared by the CLI page and the dashboard; the right password from elsewhere still signs in', async () => {
    const target = `guessed-${Date.now()}@example.com`;
    await api.request('POST', '/api/v1/admin/accounts', { body: { email: target, password: 'the real one 123' }, headers: adminHeaders });
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      const reply = await api.request('POST', '/cli/login', {
        raw: new URLSearchParams({ state: 'x', email: target, password: `guess ${i}` }).toString(),
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'X-Forwarded-For': '198.51.100.77' },
      });
      statuses.push(reply.status);
    }
    const attacker = browserSession('198.51.100.77');
    await attacker.get('/dashboard/login');
    for (let i = 0; i < 6; i++) statuses.push((await attacker.post('/dashboard/login', { email: target, password: i === 5 ? 'the real one 123' : `guess ${i}` })).status);
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(401));
    expect(statuses[10]).toBe(429); // even the right password waits at that IP
    const owner = browserSession('203.0.113.99');
    await owner.get('/dashboard/login');
    expect((await owner.post('/dashboard/login', { email: target, password: 'the real one 123' })).status).toBe(303); // someone else's guesses never lock the person out
  });

  it('a form post without the CSRF token, or marked cross-site, is refused even with a valid session', async () => {
    const browser = browserSession('192.0.2.20');
    await browser.get('/dashboard/login');
    expect((await browser.post('/dashboard/login', { email: owner, password: 'dashboard password 1' })).status).toBe(303);
    await browser.get('/dashboard');
    const program = { name: 'Csrf shop', domain: 'csrf.example.com', commission_type: 'percent', commission_rate: '10', attribution_window_days: '30', lead_auth: 'browser_allowed', allowed_origins: '' };
    const noToken = await browser.post('/dashboard/programs', program, { withToken: false });
    expect(noToken.status).toBe(403);
    expect(noToken.text).toContain('This form expired or did not come from this site.');
    const crossSite = await browser.post('/dashboard/programs', program, { headers: { 'Sec-Fetch-Site': 'cross-site' } });
    expect(crossSite.status).toBe(403);
    const { rows } = await db.pool.query("SELECT count(*)::int AS n FROM programs WHERE name = 'Csrf shop'");
    expect(rows[0].n).toBe(0);
    const allowed = await browser.post('/dashboard/programs', program);
    expect(allowed.status).toBe(303);
  });

  it('pages carry security headers (CSP with frame-ancestors none, X-Frame-Options DENY)', async () => {
    const page = await browserSession('192.0.2.30').get('/dashboard/login');
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    const cliPage = await fetch(`${api.url}/cli/login?state=x`);
    expect(cliPage.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
  });

  it('signing in gives a new session id and ends the one the browser held', async () => {
    const browser = browserSession('192.0.2.40');
    await browser.get('/dashboard/login');
    await browser.post('/dashboard/login', { email: owner, password: 'dashboard password 1' });
    const first = browser.jar.get('affix_dashboard');
    await browser.get('/dashboard/login');
    await browser.post('/dashboard/login', { email: owner, password: 'dashboard password 1' });
    const second = browser.jar.get('affix_dashboard');
    expect(second).toBeTruthy();
    expect(second).not.toBe(first);
    const old = await fetch(`${api.url}/dashboard`, { headers: { Cookie: `affix_dashboard=${first}` }, redirect: 'manual' });
    expect(old.status).toBe(303);
    expect(old.headers.get('location')).toBe('/dashboard/login');
  });
});

describe('finding 2: a Stripe Connect account is bound only with proof of ownership', () => {
  async function signedIn(email: string, ip: string) {
    await api.request('POST', '/api/v1/admin/accounts', { body: { email, password: 'connect password 1' }, headers: adminHeaders });
    const browser = browserSession(ip);
    await browser.get('/dashboard/login');
    expect((await browser.post('/dashboard/login', { email, password: 'connect password 1' })).status).toBe(303);
    const { rows } = await db.pool.query('SELECT id FROM accounts WHERE email = $1', [email]);
    const program = await api.request('POST', '/api/v1/admin/programs', {
      body: { account_id: rows[0].id, name: `Connect ${ip}`, domain: 'connect.example.com', commission_type: 'percent', commission_rate: 10 },
      headers: adminHeaders,
    });
    return { browser, programId: program.body.data.id as number };
  }

  it('the dashboard cannot bind an acct_ id by hand; Connect with Stripe binds it after OAuth; nobody can claim it again', async () => {
    const owner = await signedIn(`connect-owner-${Date.now()}@example.com`, '192.0.2.50');
    await owner.browser.get(`/dashboard/programs/${owner.programId}`);
    // Typing someone's account id in the form binds nothing.
    await owner.browser.post(`/dashboard/programs/${owner.programId}/stripe`, { webhook_secret: '', account_id: 'acct_victim123' });
    expect((await db.pool.query('SELECT stripe_account_id FROM programs WHERE id = $1', [owner.programId])).rows[0].stripe_account_id).toBeNull();

    const start = await owner.browser.get(`/dashboard/programs/${owner.programId}/stripe/connect`);
    expect(start.status).toBe(303);
    const authorize = new URL(start.headers.get('location')!);
    expect(authorize.origin).toBe('https://connect.stripe.com');
    expect(authorize.pathname).toBe('/oauth/authorize');
    expect(authorize.searchParams.get('client_id')).toBe('ca_tenanttest');
    expect(authorize.searchParams.get('redirect_uri')).toMatch(/\/dashboard\/stripe\/connect\/callback$/);
    const state = authorize.searchParams.get('state')!;

    // Another brand holding the state (a stolen link) cannot finish it.
    const thief = await signedIn(`connect-thief-${Date.now()}@example.com`, '192.0.2.51');
    const stolen = await thief.browser.get(`/dashboard/stripe/connect/callback?state=${state}&code=ac_stolen`);
    expect(stolen.status).toBe(400);

    const tokenCall = nock('https://connect.stripe.com')
      .post('/oauth/token', (body) => body.code === 'ac_owner' && body.grant_type === 'authorization_code')
      .reply(200, { stripe_user_id: 'acct_owned123', livemode: false, token_type: 'bearer' });
    const back = await owner.browser.get(`/dashboard/stripe/connect/callback?state=${state}&code=ac_owner`);
    expect(back.status).toBe(303);
    expect(tokenCall.isDone()).toBe(true);
    expect((await db.pool.query('SELECT stripe_account_id FROM programs WHERE id = $1', [owner.programId])).rows[0].stripe_account_id).toBe('acct_owned123');
    // Recorded with the change, under the signed-in account (docs/audit.md).
    const audit = await db.pool.query("SELECT actor_type, changes FROM audit_log WHERE program_id = $1 AND action = 'stripe.connected'", [owner.programId]);
    expect(audit.rows).toEqual([{ actor_type: 'member', changes: { connect_account_id: { from: null, to: 'acct_owned123' } } }]);
    // The same state cannot be used twice.
    expect((await owner.browser.get(`/dashboard/stripe/connect/callback?state=${state}&code=ac_owner`)).status).toBe(400);

    // Another brand authorizing the same Stripe account on its program: refused, nothing moves.
    const second = await thief.browser.get(`/dashboard/programs/${thief.programId}/stripe/connect`);
    const secondState = new URL(second.headers.get('location')!).searchParams.get('state')!;
    nock('https://connect.stripe.com').post('/oauth/token').reply(200, { stripe_user_id: 'acct_owned123' });
    const taken = await thief.browser.get(`/dashboard/stripe/connect/callback?state=${secondState}&code=ac_again`);
    expect(taken.status).toBe(409);
    expect(taken.text).toContain('is already connected to another program');
    expect((await db.pool.query('SELECT stripe_account_id FROM programs WHERE id = $1', [thief.programId])).rows[0].stripe_account_id).toBeNull();
  });

  it('Stripe refusing the code is a clear page, not a 500', async () => {
    const owner = await signedIn(`connect-refused-${Date.now()}@example.com`, '192.0.2.52');
    const start = await owner.browser.get(`/dashboard/programs/${owner.programId}/stripe/connect`);
    const state = new URL(start.headers.get('location')!).searchParams.get('state')!;
    nock('https://connect.stripe.com').post('/oauth/token').reply(400, { error: 'invalid_grant', error_description: 'Authorization code does not exist' });
    const refused = await owner.browser.get(`/dashboard/stripe/connect/callback?state=${state}&code=ac_bad`);
    expect(refused.status).toBe(502);
    expect(refused.text).toContain('Stripe refused the authorization code');
  });

  it('operators can still bind an account by hand with the admin token; a brand key cannot', async () => {
    const brand = await seedProgram(api);
    const denied = await api.request('PATCH', `/api/v1/admin/programs/${brand.programId}/stripe`, { body: { account_id: 'acct_operator1' }, headers: bearer(brand.apiKey) });
    expect(denied.status).toBe(401);
    const bound = await api.request('PATCH', `/api/v1/admin/programs/${brand.programId}/stripe`, { body: { account_id: 'acct_operator1' }, headers: adminHeaders });
    expect(bound.body.data.connect_account_id).toBe('acct_operator1');
  });
});

describe('finding 3 (dashboard): a person sees their CLI tokens and sessions and ends them', () => {
  it('lists and revokes a CLI token and another browser session; another brand cannot touch them', async () => {
    const email = `signins-${Date.now()}@example.com`;
    await api.request('POST', '/api/v1/admin/accounts', { body: { email, password: 'sign-ins password 1' }, headers: adminHeaders });
    const token = await cliToken(email, 'sign-ins password 1');
    const laptop = browserSession('192.0.2.60');
    await laptop.get('/dashboard/login');
    await laptop.post('/dashboard/login', { email, password: 'sign-ins password 1' });
    const phone = browserSession('192.0.2.61');
    await phone.get('/dashboard/login');
    await phone.post('/dashboard/login', { email, password: 'sign-ins password 1' });

    const page = await laptop.get('/dashboard/account');
    const tokenId = /Revoke token (\d+)/.exec(page.text)![1]!;
    const sessionId = /End session (\d+)/.exec(page.text)![1]!;
    expect(page.text).toContain('(this browser)');

    // Another brand's session: 404, nothing ended.
    const other = `signins-other-${Date.now()}@example.com`;
    await api.request('POST', '/api/v1/admin/accounts', { body: { email: other, password: 'other password 12' }, headers: adminHeaders });
    const stranger = browserSession('192.0.2.62');
    await stranger.get('/dashboard/login');
    await stranger.post('/dashboard/login', { email: other, password: 'other password 12' });
    await stranger.get('/dashboard/account');
    expect((await stranger.post(`/dashboard/account/tokens/${tokenId}/revoke`, {})).status).toBe(404);
    expect((await stranger.post(`/dashboard/account/sessions/${sessionId}/revoke`, {})).status).toBe(404);
    expect((await api.request('GET', '/api/v1/cli/programs', { headers: bearer(token) })).status).toBe(200);

    expect((await laptop.post(`/dashboard/account/tokens/${tokenId}/revoke`, {})).status).toBe(303);
    expect((await api.request('GET', '/api/v1/cli/programs', { headers: bearer(token) })).status).toBe(401);
    await laptop.get('/dashboard/account');
    expect((await laptop.post(`/dashboard/account/sessions/${sessionId}/revoke`, {})).status).toBe(303);
    const phoneAfter = await phone.get('/dashboard');
    expect(phoneAfter.status).toBe(303);
    expect(phoneAfter.headers.get('location')).toBe('/dashboard/login');
  });
});
