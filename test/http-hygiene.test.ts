import { describe, expect, it } from 'vitest';
import { type TestApi, type TestDatabase, platformError, startTestApi } from './support/harness.js';
import { useSeededApi } from './support/seeded-api.js';

let db: TestDatabase;
let api: TestApi;

useSeededApi({ env: { AFFIX_BODY_LIMIT: '8kb' } }, (t) => ({ db, api } = t));

const json = { 'Content-Type': 'application/json' };

describe('bad input never yields HTML, a stack trace or a 500', () => {
  it.each(['/api/v1/track/click', '/api/v1/track/lead'])('malformed JSON on %s: 400 platform envelope', async (path) => {
    const reply = await api.request('POST', path, { raw: '{"affiliate_url": ', headers: json });
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual(platformError(400, 'BadRequestError', 'Malformed JSON body'));
    expect(reply.headers.get('content-type')).toContain('application/json');
  });

  it('a JSON array or string body: 400', async () => {
    for (const raw of ['[1,2]', '"text"', '12', 'null']) {
      const reply = await api.request('POST', '/api/v1/track/click', { raw, headers: json });
      expect(reply.status).toBe(400);
      expect(reply.body).toEqual(platformError(400, 'BadRequestError', 'Request body must be a JSON object'));
    }
  });

  it('a body over the limit: 413 in the platform envelope', async () => {
    const reply = await api.request('POST', '/api/v1/track/click', { body: { affiliate_url: 'x'.repeat(20_000) } });
    expect(reply.status).toBe(413);
    expect(reply.body).toEqual(platformError(413, 'PayloadTooLargeError', 'Request body is larger than 8kb'));
  });

  it('every size refusal names the limit of the parser that refused it (a form\'s, not the JSON API\'s)', async () => {
    const reply = await api.request('POST', '/cli/login', { raw: `state=${'x'.repeat(12_000)}`, headers: { 'Content-Type': 'application/x-www-form-urlencoded' } });
    expect(reply.status).toBe(413);
    expect(JSON.stringify(reply.body)).toContain('Request body is larger than 10kb');
  });

  it('no body or another content type reads as an empty object', async () => {
    const none = await api.request('POST', '/api/v1/track/click');
    expect(none.body).toEqual(platformError(400, 'BadRequestError', 'affiliate_url is required'));
    const form = await api.request('POST', '/api/v1/track/click', { raw: 'affiliate_url=x', headers: { 'Content-Type': 'application/x-www-form-urlencoded' } });
    expect(form.body).toEqual(platformError(400, 'BadRequestError', 'affiliate_url is required'));
  });

  it('wrong types in optional fields: a clear 400', async () => {
    const reply = await api.request('POST', '/api/v1/track/click', { body: { affiliate_url: 'https://a.example/?aff=x', additional_data: 'yes' } });
    expect(reply.body).toEqual(platformError(400, 'BadRequestError', 'additional_data must be an object'));
  });

  it('unknown routes: 404 JSON', async () => {
    const reply = await api.request('GET', '/api/v1/nothing');
    expect(reply.status).toBe(404);
    expect(reply.body).toEqual(platformError(404, 'NotFoundError', 'Route not found: GET /api/v1/nothing'));
  });

  it('health check', async () => {
    expect((await api.request('GET', '/healthz')).body).toEqual({ ok: true });
  });
});

describe('tracker script', () => {
  it('is served as JavaScript, gzip-compressed when accepted', async () => {
    const response = await fetch(`${api.url}/js/affix-tracker.js`, { headers: { 'Accept-Encoding': 'gzip' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('application/javascript');
    expect(response.headers.get('content-encoding')).toBe('gzip');
    const script = await response.text();
    expect(script).toContain('[Affix]');
    expect(script.length).toBeGreaterThan(1000);
  });
});
