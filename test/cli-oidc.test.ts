// CLI sign-in through an OpenID Connect issuer: a fake issuer on loopback (discovery + JWKS),
// the page redirects there, the id_token comes back by form_post and is verified with jose.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT, exportJWK, generateKeyPair } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApi, type TestDatabase, closeTestApi, openTestApi, startTestApi } from './support/harness.js';

let db: TestDatabase;
let api: TestApi;
let issuerServer: Server;
let issuer = '';
const CLIENT_ID = 'affix-cli-test';
const keys = await generateKeyPair('RS256');
const strangerKeys = await generateKeyPair('RS256');

beforeAll(async () => {
  const jwk = { ...(await exportJWK(keys.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
  issuerServer = createServer((req, res) => {
    res.setHeader('Content-Type', 'application/json');
    if (req.url === '/.well-known/openid-configuration') {
      res.end(JSON.stringify({ issuer, authorization_endpoint: `${issuer}/authorize`, jwks_uri: `${issuer}/jwks` }));
    } else if (req.url === '/jwks') {
      res.end(JSON.stringify({ keys: [jwk] }));
    } else {
      res.statusCode = 404;
      res.end('{}');
    }
  });
  await new Promise<void>((done) => issuerServer.listen(0, '127.0.0.1', done));
  issuer = `http://127.0.0.1:${(issuerServer.address() as AddressInfo).port}`;
  ({ db, api } = await openTestApi({ AFFIX_OIDC_ISSUER: issuer, AFFIX_OIDC_CLIENT_ID: CLIENT_ID, AFFIX_PUBLIC_URL: 'http://affix.test', AFFIX_SECRET_KEY: 'oidc-test-secret-key-123' }));
});
afterAll(async () => {
  await api.close();
  await db.drop();
  await new Promise((done) => issuerServer.close(done));
});

const idToken = (claims: Record<string, unknown>, key = keys.privateKey) =>
  new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: 'k1' }).setIssuer(issuer).setAudience(CLIENT_ID).setIssuedAt().setExpirationTime('5m').sign(key);

async function start(): Promise<string> {
  const reply = await api.request('POST', '/api/v1/cli/auth/start', { raw: '', headers: { 'Content-Type': 'application/json' } });
  return reply.body.data.state;
}

const formPost = (stateValue: string, token: string) =>
  api.request('POST', '/cli/oidc/callback', {
    raw: new URLSearchParams({ state: stateValue, id_token: token }).toString(),
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
  });

describe('OpenID Connect sign-in', () => {
  it('the sign-in page redirects to the issuer with state, nonce and form_post', async () => {
    const stateValue = await start();
    const response = await fetch(`${api.url}/cli/login?state=${encodeURIComponent(stateValue)}`, { redirect: 'manual' });
    expect(response.status).toBe(302);
    const target = new URL(response.headers.get('location')!);
    expect(`${target.origin}${target.pathname}`).toBe(`${issuer}/authorize`);
    expect(Object.fromEntries(target.searchParams)).toEqual({
      response_type: 'id_token', response_mode: 'form_post', client_id: CLIENT_ID, redirect_uri: 'http://affix.test/cli/oidc/callback',
      scope: 'openid email profile', state: stateValue, nonce: stateValue,
    });
  });

  it('the issuer posts back an id_token: verified against its JWKS, the first login creates the account', async () => {
    const stateValue = await start();
    const reply = await formPost(stateValue, await idToken({ email: 'sso@brand.example', name: 'SSO User', nonce: stateValue }));
    expect(reply.status).toBe(200);
    expect(reply.body).toContain('You are signed in');
    const poll = await api.request('GET', `/api/v1/cli/auth/poll?state=${encodeURIComponent(stateValue)}`);
    expect(poll.body.data).toMatchObject({ status: 'complete', email: 'sso@brand.example', token: expect.any(String) });
    const { rows } = await db.pool.query("SELECT name FROM accounts WHERE email = 'sso@brand.example'");
    expect(rows).toEqual([{ name: 'SSO User' }]);
  });

  it('refuses a token signed by another key, or with another nonce; the session stays pending', async () => {
    const stateValue = await start();
    const forged = await formPost(stateValue, await idToken({ email: 'x@brand.example', nonce: stateValue }, strangerKeys.privateKey));
    expect(forged.status).toBe(401);
    const replayed = await formPost(stateValue, await idToken({ email: 'x@brand.example', nonce: 'another-session' }));
    expect(replayed.status).toBe(401);
    expect(replayed.body).toContain('nonce does not match');
    const poll = await api.request('GET', `/api/v1/cli/auth/poll?state=${encodeURIComponent(stateValue)}`);
    expect(poll.body.data).toEqual({ status: 'pending' });
  });

  it("the API callback accepts the issuer's id_token too", async () => {
    const stateValue = await start();
    const reply = await api.request('POST', '/api/v1/cli/auth/callback', { body: { state: stateValue, id_token: await idToken({ email: 'api@brand.example' }) } });
    expect(reply.body).toEqual({ data: { status: 'signed_in', email: 'api@brand.example' } });
  });

  it('the dashboard signs in through the same issuer, once per state', async () => {
    const start = await fetch(`${api.url}/dashboard/login/sso`, { redirect: 'manual' });
    expect(start.status).toBe(302);
    const target = new URL(start.headers.get('location')!);
    expect(target.searchParams.get('redirect_uri')).toBe('http://affix.test/dashboard/sso/callback');
    const stateValue = target.searchParams.get('state')!;
    const post = async (token: string) =>
      fetch(`${api.url}/dashboard/sso/callback`, {
        method: 'POST',
        redirect: 'manual',
        // The issuer posts the form from its own origin.
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: issuer },
        body: new URLSearchParams({ state: stateValue, id_token: token }).toString(),
      });
    expect((await post(await idToken({ email: 'dash-sso@brand.example', nonce: 'other' }))).status).toBe(401);
    const signedIn = await post(await idToken({ email: 'dash-sso@brand.example', nonce: stateValue }));
    expect(signedIn.status).toBe(303);
    expect(signedIn.headers.get('location')).toBe('/dashboard');
    const cookie = signedIn.headers.get('set-cookie')!.split(';')[0]!;
    expect(cookie).toMatch(/^affix_dashboard=/);
    const home = await fetch(`${api.url}/dashboard`, { headers: { Cookie: cookie } });
    expect(await home.text()).toContain('dash-sso@brand.example');
    expect((await post(await idToken({ email: 'dash-sso@brand.example', nonce: stateValue }))).status).toBe(400);
  });
});
