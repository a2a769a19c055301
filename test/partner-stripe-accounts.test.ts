// A partner connects a Stripe Express account from the portal (issue 47, item 1), against Stripe's
// documented requests and answers (nock): the account is made once per enrollment on the
// platform's account (a second click, a 5xx or a lost answer never makes a second one: the same
// Idempotency-Key), an onboarding link back to the program's portal host, a refusal said beside
// the country; signed `account.updated` events on the Connect endpoint change what the portal
// shows; and a run pays the connected partner by transfer and names the one Stripe still waits on.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import type { ManagementDeps } from '../src/app/programs/management.js';
import { OPERATOR } from '../src/app/accounts/scope.js';
import { approveDueCommissions } from '../src/app/money/commission-lifecycle.js';
import { payWithStripe, runPayouts } from '../src/app/money/payout-runs.js';
import { updatePayoutSettings } from '../src/app/money/payout-settings.js';
import { type ExpressDeps, startExpressOnboarding } from '../src/app/money/partner-stripe-accounts.js';
import { sha256 } from '../src/core/secrets.js';
import { expressAccountClient } from '../src/platform/stripe-accounts.js';
import { type TestApi, type TestDatabase, adminHeaders, count, seedProgram } from './support/harness.js';
import { useSeededApi } from './support/seeded-api.js';
import { apiSale } from './support/money.js';
import { nockForThisFile } from './support/nock.js';
import { CONNECT_SECRET, deliver } from './support/stripe.js';

const nock = nockForThisFile({ strict: true });
const STRIPE = 'https://api.stripe.com';

let db: TestDatabase;
let api: TestApi;
const deps = (): ManagementDeps => ({ pool: db.pool, secretBox: null, now: () => api.clock.now });
const expressDeps = (): ExpressDeps => ({ ...deps(), brandAccountId: null, stripe: expressAccountClient('sk_test_affix', { minTimeoutMs: 0 }), serviceUrl: 'https://affix.example' });

useSeededApi({ env: { AFFIX_SECRET_KEY: 'stripe-express-test-secret-key-0123', STRIPE_SECRET_KEY: 'sk_test_affix', STRIPE_CONNECT_WEBHOOK_SECRET: CONNECT_SECRET }, options: { queueUrl: 'own' } }, (t) => ({ db, api } = t));

/** An invited partner with an email and a link (no payout details), and a portal session of theirs. */
async function partner(programId: number, name: string) {
  const email = `${name.toLowerCase()}-${randomBytes(3).toString('hex')}@partner.example`;
  const made = await api.request('POST', `/api/v1/admin/programs/${programId}/partners`, { body: { name, email }, headers: adminHeaders });
  const partnerId = made.body.data.id as number;
  const code = `${name.toLowerCase()}-${partnerId}`;
  await api.request('POST', `/api/v1/admin/programs/${programId}/links`, { body: { partner_id: partnerId, short_link: code }, headers: adminHeaders });
  await db.pool.query('UPDATE partners SET invited_at = now() WHERE id = $1', [partnerId]);
  const token = randomBytes(24).toString('base64url');
  await db.pool.query("INSERT INTO partner_sessions (token_hash, email, expires_at) VALUES ($1, $2, now() + interval '1 hour')", [sha256(token), email]);
  return { partnerId, email, affiliateUrl: `https://shop.example.com/?aff=${code}`, cookie: `affix_portal=${token}` };
}

/** Stripe's `account` object as its API documents it, for an Express account. */
const account = (id: string, state: { payouts?: boolean; charges?: boolean; submitted?: boolean; due?: string[]; pastDue?: string[]; disabled?: string | null } = {}) => ({
  id, object: 'account', type: 'express', country: 'DE', email: null, default_currency: 'eur', created: 1_764_300_000,
  capabilities: { transfers: state.payouts ? 'active' : 'inactive' },
  charges_enabled: state.charges ?? false, payouts_enabled: state.payouts ?? false, details_submitted: state.submitted ?? false,
  requirements: {
    alternatives: [], current_deadline: null, currently_due: state.due ?? ['business_type', 'external_account', 'tos_acceptance.date', 'tos_acceptance.ip'],
    disabled_reason: state.disabled === undefined ? 'requirements.past_due' : state.disabled, errors: [], eventually_due: state.due ?? [], past_due: state.pastDue ?? [], pending_verification: [],
  },
  metadata: {},
});

const accountLink = (url: string) => ({ object: 'account_link', created: 1_764_300_000, expires_at: 1_764_300_300, url });

/** A signed account.updated from the Connect endpoint, made `seconds` after now. */
async function accountUpdated(acct: string, seconds: number, state: Parameters<typeof account>[1]) {
  const event = {
    id: `evt_${randomBytes(8).toString('hex')}`, object: 'event', type: 'account.updated', api_version: '2025-03-31.basil', account: acct, livemode: false,
    created: Math.floor(Date.now() / 1000) + seconds, data: { object: account(acct, state), previous_attributes: {} }, pending_webhooks: 1, request: { id: null, idempotency_key: null },
  };
  return deliver(api, '/api/v1/webhooks/stripe', event, { secret: CONNECT_SECRET });
}

/** A partner's browser without following redirects: cookies kept, each form carrying the last page's CSRF token. */
function visitor(sessionCookie: string) {
  const jar = new Map<string, string>([sessionCookie.split('=') as [string, string]]);
  let last = '';
  return async (method: 'GET' | 'POST', path: string, form?: Record<string, string>) => {
    const headers: Record<string, string> = { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') };
    let body: string | undefined;
    if (form) {
      body = new URLSearchParams({ _csrf: /name="_csrf" value="([^"]+)"/.exec(last)?.[1] ?? '', ...form }).toString();
      headers['content-type'] = 'application/x-www-form-urlencoded';
      headers.origin = api.url;
    }
    const response = await fetch(`${api.url}${path}`, { method, headers, body, redirect: 'manual' });
    for (const cookie of response.headers.getSetCookie()) {
      const [name, ...value] = cookie.split(';')[0]!.split('=');
      jar.set(name!, value.join('='));
    }
    const text = await response.text();
    if (method === 'GET') last = text;
    return { status: response.status, location: response.headers.get('location'), text };
  };
}

const portalPage = async (cookie: string, path: string) => {
  const response = await fetch(`${api.url}${path}`, { headers: { cookie }, redirect: 'manual' });
  return { status: response.status, location: response.headers.get('location'), text: await response.text() };
};

describe('Stripe Express onboarding', () => {
  it('makes the account once (the same key after a 5xx; a second click reuses it) and links back to the program’s portal host', async () => {
    const shop = await seedProgram(api);
    await db.pool.query("INSERT INTO program_domains (host, program_id, kind) VALUES ($1, $2, 'portal')", [`partners-${shop.programId}.shop.test`, shop.programId]);
    const ana = await partner(shop.programId, 'Ana');

    const keys: string[] = [];
    const created: URLSearchParams[] = [];
    const record = function (this: { req: { headers: Record<string, string> } }, _uri: string, body: string) {
      keys.push(this.req.headers['idempotency-key']!);
      created.push(new URLSearchParams(body));
    };
    // A 5xx (retried with the same key), then the account.
    nock(STRIPE).post('/v1/accounts').reply(function (uri, body) {
      record.call(this, uri, body as string);
      return [500, { error: { type: 'api_error', message: 'An unknown error occurred' } }];
    });
    nock(STRIPE).post('/v1/accounts').reply(function (uri, body) {
      record.call(this, uri, body as string);
      return [200, account('acct_1AnaExpress')];
    });
    let links: URLSearchParams[] = [];
    nock(STRIPE).post('/v1/account_links').times(2).reply(function (_uri, body) {
      links.push(new URLSearchParams(body as string));
      return [200, accountLink('https://connect.stripe.com/setup/e/acct_1AnaExpress/abc')];
    });
    const url = await startExpressOnboarding(expressDeps(), ana.email, ana.partnerId, { country: 'de' });
    expect(url).toBe('https://connect.stripe.com/setup/e/acct_1AnaExpress/abc');
    expect(keys).toHaveLength(2);
    expect(new Set(keys).size).toBe(1);
    expect(keys[0]).toMatch(new RegExp(`^affix-express-${ana.partnerId}-DE-[0-9a-f]{16}$`));
    expect(Object.fromEntries(created[1]!)).toMatchObject({ type: 'express', country: 'DE', email: ana.email, 'capabilities[transfers][requested]': 'true', 'metadata[affix_partner_id]': String(ana.partnerId) });
    expect(Object.fromEntries(links[0]!)).toEqual({
      account: 'acct_1AnaExpress',
      type: 'account_onboarding',
      refresh_url: `https://partners-${shop.programId}.shop.test/portal/programs/${ana.partnerId}/stripe/refresh`,
      return_url: `https://partners-${shop.programId}.shop.test/portal/programs/${ana.partnerId}/stripe/return`,
    });

    // A second click reuses the account: only a new link is asked for.
    links = [];
    expect(await startExpressOnboarding(expressDeps(), ana.email, ana.partnerId, { country: 'FR' })).toBe('https://connect.stripe.com/setup/e/acct_1AnaExpress/abc');
    expect(links.map((l) => l.get('account'))).toEqual(['acct_1AnaExpress']);
    expect(await count(db.pool, 'SELECT 1 FROM partner_stripe_accounts WHERE partner_id = $1', [ana.partnerId])).toBe(1);
    const audit = await db.pool.query("SELECT action FROM audit_log WHERE program_id = $1 AND action = 'partner.stripe_account_created'", [shop.programId]);
    expect(audit.rows).toHaveLength(1);
  });

  it('a connection lost every time answers 502 and stores nothing; the next click gets the account Stripe made (the same key), not a second one', async () => {
    const shop = await seedProgram(api);
    const ben = await partner(shop.programId, 'Ben');
    const keys: string[] = [];
    // Stripe made it, but every answer is lost on the way back (the first try and its 3 retries).
    nock(STRIPE).post('/v1/accounts').matchHeader('idempotency-key', (key) => Boolean(keys.push(key))).times(4).replyWithError({ code: 'ECONNRESET', message: 'socket hang up' });
    await expect(startExpressOnboarding(expressDeps(), ben.email, ben.partnerId, { country: 'US' })).rejects.toMatchObject({ status: 502, message: 'Stripe could not be reached. Try again in a few minutes.' });
    expect(await count(db.pool, 'SELECT 1 FROM partner_stripe_accounts WHERE partner_id = $1', [ben.partnerId])).toBe(0);

    // Stripe replays the first answer for the same key: the same account.
    nock(STRIPE).post('/v1/accounts').reply(function () {
      keys.push(this.req.headers['idempotency-key'] as string);
      return [200, account('acct_1BenExpress'), { 'Idempotent-Replayed': 'true' }];
    });
    nock(STRIPE).post('/v1/account_links').reply(200, accountLink('https://connect.stripe.com/setup/e/acct_1BenExpress/xyz'));
    await startExpressOnboarding(expressDeps(), ben.email, ben.partnerId, { country: 'US' });
    expect(keys).toHaveLength(5);
    expect(new Set(keys).size).toBe(1);
    const stored = await db.pool.query('SELECT stripe_account_id FROM partner_stripe_accounts WHERE partner_id = $1', [ben.partnerId]);
    expect(stored.rows).toEqual([{ stripe_account_id: 'acct_1BenExpress' }]);
  });

  it('two clicks at once send the same key and store one account', async () => {
    const shop = await seedProgram(api);
    const hal = await partner(shop.programId, 'Hal');
    const keys: string[] = [];
    // Both clicks reach Stripe before either answer (neither has stored the account yet); Stripe
    // answers a key's second request with the first one's account.
    let bothArrived: () => void = () => undefined;
    const arrived = new Promise<void>((resolve) => (bothArrived = resolve));
    nock(STRIPE).post('/v1/accounts').times(2).reply(async function () {
      if (keys.push(this.req.headers['idempotency-key'] as string) === 2) bothArrived();
      await arrived;
      return [200, account('acct_1HalExpress')];
    });
    nock(STRIPE).post('/v1/account_links').times(2).reply(200, accountLink('https://connect.stripe.com/setup/e/acct_1HalExpress/c'));
    const urls = await Promise.all([1, 2].map(() => startExpressOnboarding(expressDeps(), hal.email, hal.partnerId, { country: 'GB' })));
    expect(urls).toEqual(['https://connect.stripe.com/setup/e/acct_1HalExpress/c', 'https://connect.stripe.com/setup/e/acct_1HalExpress/c']);
    expect(new Set(keys).size).toBe(1);
    const stored = await db.pool.query('SELECT stripe_account_id FROM partner_stripe_accounts WHERE program_id = $1', [shop.programId]);
    expect(stored.rows).toEqual([{ stripe_account_id: 'acct_1HalExpress' }]);
    expect(await count(db.pool, "SELECT 1 FROM audit_log WHERE program_id = $1 AND action = 'partner.stripe_account_created'", [shop.programId])).toBe(1);
  });

  it('a country Stripe refuses (400) is said beside the country, not retried, and stores nothing', async () => {
    const shop = await seedProgram(api);
    const cleo = await partner(shop.programId, 'Cleo');
    nock(STRIPE).post('/v1/accounts').once().reply(400, {
      error: { type: 'invalid_request_error', param: 'country', message: 'Connected accounts in IR are not supported.', request_log_url: 'https://dashboard.stripe.com/test/logs/req_1' },
    });
    await expect(startExpressOnboarding(expressDeps(), cleo.email, cleo.partnerId, { country: 'IR' })).rejects.toMatchObject({
      status: 400,
      init: { fields: { country: 'Stripe cannot open an account for this country: Connected accounts in IR are not supported.' } },
    });
    await expect(startExpressOnboarding(expressDeps(), cleo.email, cleo.partnerId, { country: 'XX' })).rejects.toMatchObject({ status: 400, init: { fields: { country: 'Choose your country.' } } });
    expect(await count(db.pool, 'SELECT 1 FROM partner_stripe_accounts WHERE partner_id = $1', [cleo.partnerId])).toBe(0);

    // Through the portal: the form again, with Stripe's words beside the country.
    nock(STRIPE).post('/v1/accounts').once().reply(400, { error: { type: 'invalid_request_error', param: 'country', message: 'Connected accounts in IR are not supported.' } });
    const visit = visitor(cleo.cookie);
    await visit('GET', `/portal/programs/${cleo.partnerId}/stripe`);
    const refused = await visit('POST', `/portal/programs/${cleo.partnerId}/stripe/connect`, { country: 'IR' });
    expect(refused.status).toBe(400);
    const text = refused.text;
    expect(text).toContain('<p class="error" id="country-error">Stripe cannot open an account for this country: Connected accounts in IR are not supported.</p>');
    expect(text).toMatch(/<option value="IR" selected>/);
  });
});

describe('account.updated keeps the portal current, and a run pays only the connected partner', () => {
  it('needs-more-info, then connected: the portal says what Stripe needs; a run names the waiting partner and pays the connected one by transfer', async () => {
    const shop = await seedProgram(api, { commission_rate: 10 });
    await updatePayoutSettings(deps(), OPERATOR, shop.programId, { hold_days: 0 });
    const dana = await partner(shop.programId, 'Dana');
    const eli = await partner(shop.programId, 'Eli');
    for (const [who, acct] of [[dana, 'acct_1DanaExpress'], [eli, 'acct_1EliExpress']] as const) {
      nock(STRIPE).post('/v1/accounts').reply(200, account(acct));
      nock(STRIPE).post('/v1/account_links').reply(200, accountLink(`https://connect.stripe.com/setup/e/${acct}/l`));
      await startExpressOnboarding(expressDeps(), who.email, who.partnerId, { country: 'DE' });
    }
    const danaPage = () => portalPage(dana.cookie, `/portal/programs/${dana.partnerId}/stripe`);
    expect((await danaPage()).text).toContain('Stripe needs more information');

    // Dana sent her details; Stripe still needs a document and her bank account.
    const needs = await accountUpdated('acct_1DanaExpress', 10, { submitted: true, due: ['individual.verification.document', 'external_account', 'individual.dob.day', 'individual.dob.month'], disabled: 'requirements.past_due' });
    expect(needs.body).toMatchObject({ received: true, status: 'processed' });
    let page = (await danaPage()).text;
    expect(page).toContain('Stripe needs more information');
    expect(page).toContain('<li>a bank account or debit card to receive your payouts</li>');
    expect(page).toContain('<li>a photo of your identity document</li>');
    expect(page.match(/your date of birth/g)).toHaveLength(1);

    // Then payouts enabled: connected, and her payout details point at the account.
    expect((await accountUpdated('acct_1DanaExpress', 30, { submitted: true, payouts: true, charges: true, due: [], disabled: null })).body.status).toBe('processed');
    // An older event delivered late changes nothing.
    const late = await accountUpdated('acct_1DanaExpress', 20, { submitted: true, due: ['external_account'] });
    const lateRow = await db.pool.query('SELECT reason FROM webhook_events WHERE id = $1', [late.body.id]);
    expect(lateRow.rows[0].reason).toBe(`partner ${dana.partnerId}'s Stripe account: an older state than the one stored: kept the newer`);
    page = (await danaPage()).text;
    expect(page).toContain('Connected: payouts go to your Stripe account');
    expect(page).not.toContain('What Stripe still needs');
    const program = (await portalPage(dana.cookie, `/portal/programs/${dana.partnerId}`)).text;
    expect(program).toContain('Stripe: <strong>Connected: payouts go to your Stripe account</strong>');

    // Both earn; a run pays Dana (connected) and names Eli (Stripe still waits on him).
    api.clock.now = new Date(Date.now() + 60_000);
    await apiSale(api, { ...shop, affiliateUrl: dana.affiliateUrl }, 50_000, { currency: 'EUR' });
    await apiSale(api, { ...shop, affiliateUrl: eli.affiliateUrl }, 30_000, { currency: 'USD' });
    await approveDueCommissions(deps());
    const run = await runPayouts(deps(), OPERATOR, shop.programId);
    expect(run.payouts.map((p) => [p.partnerId, p.currency, p.amountCents])).toEqual([[dana.partnerId, 'EUR', 5000]]);
    expect(run.missingPayoutDetails.map((w) => [w.partnerId, w.currency, w.amountCents])).toEqual([[eli.partnerId, 'USD', 3000]]);

    let sent: URLSearchParams | null = null;
    nock(STRIPE).post('/v1/transfers').reply(function (_uri, body) {
      sent = new URLSearchParams(body as string);
      expect(this.req.headers['idempotency-key']).toBe(`affix-payout-${run.payouts[0]!.id}`);
      return [200, { id: 'tr_1DanaPaid', object: 'transfer', amount: 5000, currency: 'eur', destination: 'acct_1DanaExpress', reversed: false }];
    });
    const paid = await payWithStripe({ ...deps(), stripeSecretKey: 'sk_test_affix' }, OPERATOR, shop.programId, run.payouts[0]!.id);
    expect(paid).toMatchObject({ status: 'paid', reference: 'tr_1DanaPaid' });
    expect(Object.fromEntries(sent!)).toMatchObject({ amount: '5000', currency: 'eur', destination: 'acct_1DanaExpress' });

    // Stripe pauses Dana's payouts: her details come off the account, and the next run names her.
    expect((await accountUpdated('acct_1DanaExpress', 40, { submitted: true, due: ['individual.verification.additional_document'], pastDue: ['individual.verification.additional_document'], disabled: 'requirements.past_due' })).body.status).toBe('processed');
    page = (await danaPage()).text;
    expect(page).toContain('Stripe paused payouts: some details are past due.');
    expect(page).toContain('<li>a document that proves your address</li>');
    await apiSale(api, { ...shop, affiliateUrl: dana.affiliateUrl }, 20_000, { currency: 'EUR' });
    await approveDueCommissions(deps());
    await expect(runPayouts(deps(), OPERATOR, shop.programId)).rejects.toMatchObject({ status: 409, init: { code: 'missing_payout_details' } });
    const changes = await db.pool.query("SELECT actor_type, changes FROM audit_log WHERE program_id = $1 AND action = 'partner.payout_details_updated' AND object_id = $2 ORDER BY id", [shop.programId, String(dana.partnerId)]);
    expect(changes.rows.map((r) => [r.actor_type, r.changes.payout_method.to])).toEqual([['system', 'stripe'], ['system', null]]);
  });

  it('a brand’s own connected account’s account.updated is not a partner’s: stored as before', async () => {
    const reply = await accountUpdated('acct_1NotAPartner', 5, {});
    expect(reply.body).toMatchObject({ received: true, status: 'ignored' });
  });

  it('the return address reads the account back from Stripe at once; the refresh address makes a new link', async () => {
    const shop = await seedProgram(api);
    const fay = await partner(shop.programId, 'Fay');
    nock(STRIPE).post('/v1/accounts').reply(200, account('acct_1FayExpress'));
    nock(STRIPE).post('/v1/account_links').reply(200, accountLink('https://connect.stripe.com/setup/e/acct_1FayExpress/1'));
    await startExpressOnboarding(expressDeps(), fay.email, fay.partnerId, { country: 'NL' });

    nock(STRIPE).get('/v1/accounts/acct_1FayExpress').reply(200, account('acct_1FayExpress', { submitted: true, due: [], disabled: 'requirements.pending_verification' }));
    const back = await portalPage(fay.cookie, `/portal/programs/${fay.partnerId}/stripe/return`);
    expect(back).toMatchObject({ status: 303, location: `/portal/programs/${fay.partnerId}/stripe?done=stripe` });
    const page = (await portalPage(fay.cookie, `/portal/programs/${fay.partnerId}/stripe?done=stripe`)).text;
    expect(page).toContain('Stripe is checking your details');
    expect(page).toContain('Stripe is verifying the details you gave.');

    nock(STRIPE).post('/v1/account_links', (body) => body.account === 'acct_1FayExpress' && body.type === 'account_onboarding').reply(200, accountLink('https://connect.stripe.com/setup/e/acct_1FayExpress/2'));
    const again = await portalPage(fay.cookie, `/portal/programs/${fay.partnerId}/stripe/refresh`);
    expect(again).toMatchObject({ status: 303, location: 'https://connect.stripe.com/setup/e/acct_1FayExpress/2' });

    // Another partner's enrollment: the same 404 as none, and Stripe is not asked.
    const other = await partner(shop.programId, 'Gus');
    expect((await portalPage(other.cookie, `/portal/programs/${fay.partnerId}/stripe/refresh`)).status).toBe(404);
  });
});
