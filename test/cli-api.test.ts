// The CLI API (spec §4.6, §7 CLI rows, §3 login session states), over HTTP.
import { describe, expect, it } from 'vitest';
import { issueLocalIdToken } from '../src/platform/id-tokens.js';
import { type TestApi, type TestDatabase, adminHeaders, bearer, platformError, seedProgram, startTestApi } from './support/harness.js';
import { useSeededApi } from './support/seeded-api.js';

const SECRET_KEY = 'cli-test-secret-key-0123456789';
let db: TestDatabase;
let api: TestApi;

useSeededApi({ env: { AFFIX_SECRET_KEY: SECRET_KEY, AFFIX_PUBLIC_URL: 'http://affix.test' } }, (t) => ({ db, api } = t));

const json = { 'Content-Type': 'application/json' };
const idToken = (email: string) => issueLocalIdToken({ publicUrl: 'http://affix.test', secretKey: SECRET_KEY }, email);
const start = async () => (await api.request('POST', '/api/v1/cli/auth/start', { raw: '', headers: { ...json, 'Content-Length': '0' } })).body.data;
const callback = (body: unknown) => api.request('POST', '/api/v1/cli/auth/callback', { body });
const poll = (stateValue?: string) => api.request('GET', `/api/v1/cli/auth/poll${stateValue === undefined ? '' : `?state=${encodeURIComponent(stateValue)}`}`, { headers: json });
let n = 0;
const email = () => `dev${++n}_${Date.now()}@brand.example`;

/** A full login; returns the token and account id. */
async function login(address = email()) {
  const session = await start();
  expect((await callback({ state: session.state, id_token: await idToken(address) })).status).toBe(200);
  const done = await poll(session.state);
  return { token: done.body.data.token as string, advertiserId: done.body.data.advertiser_id as number, email: address };
}

describe('login flow', () => {
  it('start (bodiless POST with the JSON content type) answers state, auth_url, expires_at, poll_url', async () => {
    const reply = await api.request('POST', '/api/v1/cli/auth/start', { raw: '', headers: { ...json, 'Content-Length': '0' } });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      data: {
        state: expect.any(String),
        auth_url: expect.stringMatching(/^http:\/\/affix\.test\/cli\/login\?state=/),
        expires_at: expect.any(String),
        poll_url: expect.stringMatching(/^http:\/\/affix\.test\/api\/v1\/cli\/auth\/poll\?state=/),
      },
    });
    const expires = Date.parse(reply.body.data.expires_at) - Date.now();
    expect(expires).toBeGreaterThan(290_000);
    expect(expires).toBeLessThanOrEqual(300_000);
    expect(reply.headers.get('x-request-id')).toBeTruthy();
    expect(reply.headers.get('x-ratelimit-limit')).toBe('60');
  });

  it('pending -> signed in -> token handed out once -> consumed; the first login creates the account', async () => {
    const session = await start();
    expect((await poll(session.state)).body).toEqual({ data: { status: 'pending' } });
    const address = email();
    expect((await callback({ state: session.state, id_token: await idToken(address) })).body).toEqual({ data: { status: 'signed_in', email: address } });
    const done = await poll(session.state);
    expect(done.body).toEqual({ data: { status: 'complete', token: expect.stringMatching(/^affix_cli_/), email: address, advertiser_id: expect.any(Number) } });
    const { rows } = await db.pool.query('SELECT id FROM accounts WHERE email = $1', [address]);
    expect(rows[0].id).toBe(done.body.data.advertiser_id);
    expect(await poll(session.state)).toMatchObject({ status: 400, body: platformError(400, 'BadRequestError', 'Session already consumed') });
    // The callback cannot reuse the session either.
    const reuse = await callback({ state: session.state, id_token: await idToken(address) });
    expect(reuse.body).toEqual(platformError(404, 'NotFoundError', 'Session not found or already used'));
    // Only a digest of the token is stored.
    const stored = await db.pool.query("SELECT count(*)::int AS n FROM cli_tokens WHERE encode(token_hash, 'escape') LIKE $1", [`%${done.body.data.token}%`]);
    expect(stored.rows[0].n).toBe(0);
  });

  it('expired after 5 minutes: poll says expired, callback 400 Session expired', async () => {
    const session = await start();
    api.clock.now = new Date(Date.now() + 5 * 60_000 + 1000);
    try {
      expect((await poll(session.state)).body).toEqual({ data: { status: 'expired' } });
      expect((await callback({ state: session.state, id_token: await idToken(email()) })).body).toEqual(
        platformError(400, 'BadRequestError', 'Session expired'),
      );
    } finally {
      api.clock.now = new Date();
    }
  });

  it('suspended account: 403 with details.code ACCOUNT_BLOCKED', async () => {
    const address = email();
    const account = await api.request('POST', '/api/v1/admin/accounts', { body: { email: address }, headers: adminHeaders });
    await api.request('PATCH', `/api/v1/admin/accounts/${account.body.data.id}`, { body: { suspended: true }, headers: adminHeaders });
    const session = await start();
    const reply = await callback({ state: session.state, id_token: await idToken(address) });
    expect(reply.status).toBe(403);
    expect(reply.body).toEqual({
      data: null,
      error: { status: 403, name: 'ForbiddenError', message: 'Your account has been suspended.', details: { code: 'ACCOUNT_BLOCKED' } },
    });
  });

  it('callback and poll errors', async () => {
    expect((await callback({ state: 'x' })).body).toEqual(platformError(400, 'BadRequestError', 'Missing required fields: state, id_token'));
    expect((await callback({ id_token: 'x' })).body).toEqual(platformError(400, 'BadRequestError', 'Missing required fields: state, id_token'));
    expect((await callback({ state: 'nope', id_token: await idToken(email()) })).body).toEqual(
      platformError(404, 'NotFoundError', 'Session not found or already used'),
    );
    const forged = await callback({ state: (await start()).state, id_token: 'not.a.jwt' });
    expect(forged.status).toBe(401);
    expect((await poll()).body).toEqual(platformError(400, 'BadRequestError', 'Missing state parameter'));
    expect((await poll('nope')).body).toEqual(platformError(404, 'NotFoundError', 'Session not found'));
  });

  it('a 500 quotes the request id in the message and details', async () => {
    await db.pool.query('ALTER TABLE cli_login_sessions RENAME TO cli_login_sessions_away');
    try {
      const reply = await api.request('POST', '/api/v1/cli/auth/start', { raw: '', headers: json });
      const id = reply.headers.get('x-request-id');
      expect(reply.body).toEqual({
        data: null,
        error: { status: 500, name: 'InternalServerError', message: `Failed to start auth session (request_id: ${id})`, details: { request_id: id } },
      });
    } finally {
      await db.pool.query('ALTER TABLE cli_login_sessions_away RENAME TO cli_login_sessions');
    }
  });

  it('the local sign-in page signs in with the account password', async () => {
    const address = email();
    await api.request('POST', '/api/v1/admin/accounts', { body: { email: address, password: 'correct horse' }, headers: adminHeaders });
    const session = await start();
    const page = await api.request('GET', `/cli/login?state=${session.state}`);
    expect(page.body).toContain('<form method="post" action="/cli/login">');
    const form = (password: string) =>
      api.request('POST', '/cli/login', {
        raw: new URLSearchParams({ state: session.state, email: address, password }).toString(),
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      });
    const wrong = await form('wrong password');
    expect(wrong.status).toBe(401);
    expect(wrong.body).toContain('Wrong email or password.');
    expect((await poll(session.state)).body.data.status).toBe('pending');
    const right = await form('correct horse');
    expect(right.status).toBe(200);
    expect(right.body).toContain('You are signed in');
    expect((await poll(session.state)).body.data).toMatchObject({ status: 'complete', email: address });
  });
});

describe('init and programs (login token)', () => {
  const valid = { name: 'Shop', domain: 'shop.example', commission_type: 'percent', commission_rate: 20 };

  it('init creates a program and returns its key once', async () => {
    const { token, advertiserId } = await login();
    const reply = await api.request('POST', '/api/v1/cli/init', { body: { ...valid, cookie_duration: 30, advertiser_id: advertiserId }, headers: bearer(token) });
    expect(reply.status).toBe(201);
    expect(reply.body.data).toMatchObject({ program_id: expect.any(Number), api_key: expect.stringMatching(/^affix_sk_/), cookie_window_days: 30, advertiser_id: advertiserId,
      commission: '20% of the first paid sale', commission_type: 'percent', commission_rate: 20, allowed_origins: ['https://shop.example', 'https://www.shop.example'] });
    const key = reply.body.data.api_key;
    const ready = await api.request('GET', '/api/v1/programs/me/readiness', { headers: bearer(key) });
    expect(ready.body.program_id).toBe(reply.body.data.program_id);
    const programs = await api.request('GET', '/api/v1/cli/programs', { headers: { ...json, ...bearer(token) } });
    expect(programs.body).toEqual({
      data: [{
        id: reply.body.data.program_id, name: 'Shop', domain: 'shop.example', status: 'active',
        commission: '20% of the first paid sale', commission_type: 'percent', commission_rate: 20, partners: 0, created_at: expect.any(String),
      }],
    });
    // advertiser_id null counts as absent.
    expect((await api.request('POST', '/api/v1/cli/init', { body: { ...valid, advertiser_id: null }, headers: bearer(token) })).status).toBe(201);
  });

  it('init errors', async () => {
    const { token, advertiserId } = await login();
    const init = (body: unknown, headers: Record<string, string> = bearer(token)) => api.request('POST', '/api/v1/cli/init', { body, headers });
    expect((await init(valid, {})).body).toEqual(platformError(401, 'UnauthorizedError', 'Authentication required. Run `affix login` first.'));
    expect((await init(valid, bearer('affix_cli_nope'))).body).toEqual(platformError(401, 'UnauthorizedError', 'Invalid or expired token. Run `affix login` again.'));
    expect((await init({ ...valid, advertiser_id: advertiserId + 1000 })).body).toEqual(
      platformError(403, 'ForbiddenError', 'advertiser_id does not match the authenticated account'),
    );
    expect((await init({ name: 'x' })).body).toEqual(platformError(400, 'BadRequestError', 'Missing required fields: name, domain, commission_type, commission_rate'));
    expect((await init({ ...valid, commission_type: 'cpa' })).body.error.message).toBe('Invalid commission_type: cpa. Valid: percent, fixed, recurring_percent, recurring_fixed');
    expect((await init({ ...valid, commission_rate: '20' })).body.error.message).toBe('commission_rate must be a positive number');
    await db.pool.query('DELETE FROM accounts WHERE id = $1', [advertiserId]);
    expect((await init(valid)).body.error.message).toBe('Invalid or expired token. Run `affix login` again.');
  });

  it('programs errors', async () => {
    const programs = (headers: Record<string, string>) => api.request('GET', '/api/v1/cli/programs', { headers: { ...json, ...headers } });
    expect((await programs({})).body).toEqual(platformError(401, 'UnauthorizedError', 'Missing Authorization header. Run affix login first.'));
    expect((await programs(bearer('nope'))).body).toEqual(platformError(401, 'UnauthorizedError', 'Invalid or expired token.'));
  });
});

describe('status, test-event, stripe-connect (program key)', () => {
  it('status: the wire body, and no X-Request-ID on 200 and 401', async () => {
    const shop = await seedProgram(api);
    const reply = await api.request('GET', '/api/v1/cli/status', { headers: { ...json, ...bearer(shop.apiKey) } });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      data: {
        program_id: shop.programId, name: expect.any(String), domain: 'shop.example.com', dns_verified: false, stripe_connected: false,
        stripe_charges_enabled: false, recent_events: { clicks_24h: 0, leads_24h: 0, sales_24h: 0 }, active_partners: 1, pending_commissions: 0,
        allowed_origins: ['https://shop.example.com'],
      },
    });
    expect(reply.headers.get('x-request-id')).toBeNull();
    expect(reply.headers.get('x-ratelimit-remaining')).toBeTruthy();
    for (const [headers, message] of [
      [{}, 'Missing or malformed Authorization header. Expected: Bearer <api_token>'],
      [{ Authorization: 'Bearer ' }, 'Missing API token'],
      [bearer('affix_sk_nope'), expect.stringMatching(/^Invalid API key\. Ask a workspace owner to regenerate it/)],
    ] as const) {
      const denied = await api.request('GET', '/api/v1/cli/status', { headers: { ...json, ...headers } });
      expect(denied.status).toBe(401);
      expect(denied.body.error.message).toEqual(message);
      expect(denied.headers.get('x-request-id')).toBeNull();
    }
    const other = await api.request('GET', `/api/v1/cli/status?program_id=${shop.programId + 1}`, { headers: { ...json, ...bearer(shop.apiKey) } });
    expect(other.status).toBe(403);
  });

  it('status 500 carries X-Request-ID and quotes it', async () => {
    const shop = await seedProgram(api);
    await db.pool.query('ALTER TABLE tracking_events RENAME TO tracking_events_away');
    try {
      const reply = await api.request('GET', '/api/v1/cli/status', { headers: { ...json, ...bearer(shop.apiKey) } });
      const id = reply.headers.get('x-request-id');
      expect(id).toBeTruthy();
      expect(reply.body.error).toEqual({ status: 500, name: 'InternalServerError', message: `Failed to get status (request_id: ${id})`, details: { request_id: id } });
    } finally {
      await db.pool.query('ALTER TABLE tracking_events_away RENAME TO tracking_events');
    }
  });

  it('test-event: each single event, invalid type, and the chain with its cap', async () => {
    const shop = await seedProgram(api);
    const send = (body: unknown) => api.request('POST', '/api/v1/cli/test-event', { body, headers: bearer(shop.apiKey) });
    for (const eventType of ['click', 'lead', 'sale']) {
      const reply = await send({ event_type: eventType, program_id: String(shop.programId) });
      expect(reply.status).toBe(200);
      expect(reply.body.data).toEqual({ received: true, event_id: expect.any(String), attributed: true, message: `Test ${eventType} recorded (test mode, no commission).` });
    }
    expect((await send({ event_type: 'refund' })).body).toEqual(platformError(400, 'BadRequestError', 'Invalid event_type: refund. Valid: click, lead, sale'));
    const { rows } = await db.pool.query('SELECT count(*)::int AS n FROM commissions WHERE program_id = $1', [shop.programId]);
    expect(rows[0].n).toBe(0);

    for (let i = 0; i < 10; i++) {
      const chain = await send({ type: 'chain' });
      expect(chain.body.data).toEqual({
        type: 'chain', short_code: `affix-test-${shop.programId}`, customer_key: expect.stringMatching(/^affix_test_/),
        verdict: { click: 'pass', lead: 'pass', sale: 'pass' }, attributed: true,
      });
    }
    const capped = await send({ type: 'chain' });
    expect(capped.status).toBe(429);
    expect(capped.body).toEqual({
      error: { code: 'rate_limited', message: 'Too many synthetic chains (max 10/program/hour).', status: 429, retry_after_seconds: expect.any(Number) },
    });
    expect(Number(capped.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('a disabled test link is turned back on by the next chain (fixture records refreshed)', async () => {
    const shop = await seedProgram(api);
    await api.request('POST', '/api/v1/cli/test-event', { body: { event_type: 'click' }, headers: bearer(shop.apiKey) });
    await db.pool.query('UPDATE referral_links SET enabled = false WHERE short_link = $1', [`affix-test-${shop.programId}`]);
    const reply = await api.request('POST', '/api/v1/cli/test-event', { body: { type: 'chain' }, headers: bearer(shop.apiKey) });
    expect(reply.body.data.verdict).toEqual({ click: 'pass', lead: 'pass', sale: 'pass' });
  });

  it('stripe-connect is retired: 410', async () => {
    const reply = await api.request('POST', '/api/v1/cli/stripe-connect', { raw: '', headers: json });
    expect(reply.status).toBe(410);
    expect(reply.body).toEqual(platformError(410, 'GoneError', "This endpoint is retired. Connect Stripe from the dashboard (the program's Stripe page, Connect with Stripe)."));
  });
});
