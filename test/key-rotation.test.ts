import { describe, expect, it } from 'vitest';
import {
  type SeededProgram,
  type TestApi,
  type TestDatabase,
  adminHeaders,
  bearer,
  trackClick,
} from './support/harness.js';
import { useSeededApi } from './support/seeded-api.js';

let db: TestDatabase;
let api: TestApi;
let shop: SeededProgram;

useSeededApi({ env: { AFFIX_DOCS_URL: 'https://docs.affix.test/errors#rotation' }, programs: [{}] }, (t) => ({ db, api, programs: [shop] } = t));

const DOCS = 'https://docs.affix.test/errors#rotation';

async function newKey(): Promise<{ id: number; key: string }> {
  const reply = await api.request('POST', `/api/v1/admin/programs/${shop.programId}/keys`, { headers: adminHeaders });
  return { id: reply.body.data.id, key: reply.body.data.api_key };
}

async function markForRotation(keyId: number, rotateBy: Date) {
  const reply = await api.request('POST', `/api/v1/admin/keys/${keyId}/rotation`, {
    body: { rotate_by: rotateBy.toISOString() },
    headers: adminHeaders,
  });
  expect(reply.status).toBe(200);
  return reply.body.data;
}

describe('key marked for rotation, before its deadline', () => {
  it('still authenticates, with Deprecation, Sunset, Link and a warnings array', async () => {
    const { id, key } = await newKey();
    const rotateBy = new Date(Date.now() + 7 * 86_400_000);
    const marked = await markForRotation(id, rotateBy);
    const markedSeconds = Math.floor(new Date(marked.rotation_marked_at).getTime() / 1000);

    const clickId = await trackClick(api, shop.affiliateUrl);
    const replies = [
      await api.request('POST', '/api/v1/track/lead', { body: { click_id: clickId, customer_key: 'rot1' }, headers: bearer(key) }),
      await api.request('POST', '/api/v1/track/sale', { body: { transaction_id: `rot_${Date.now()}`, amount_cents: 100, customer_key: 'rot1' }, headers: bearer(key) }),
      await api.request('GET', '/api/v1/programs/me/readiness', { headers: bearer(key) }),
      await api.request('POST', '/api/v1/track/refund', { body: { transaction_id: 'missing' }, headers: bearer(key) }),
    ];
    for (const reply of replies) {
      expect(reply.headers.get('deprecation')).toBe(`@${markedSeconds}`);
      expect(reply.headers.get('sunset')).toBe(new Date(Math.floor(rotateBy.getTime() / 1000) * 1000).toUTCString());
      expect(reply.headers.get('link')).toBe(`<${DOCS}>; rel="deprecation"`);
      expect(reply.body.warnings).toEqual([
        {
          code: 'api_key_rotation_required',
          message: expect.any(String),
          hint: expect.any(String),
          rotate_by: rotateBy.toISOString(),
          docs_url: DOCS,
        },
      ]);
    }
    expect(replies.map((r) => r.status)).toEqual([200, 200, 200, 404]);
    // The error body keeps its envelope, with warnings beside data.
    expect(replies[3]!.body.data).toBeNull();
  });

  it('an unmarked key carries no notice', async () => {
    const reply = await api.request('GET', '/api/v1/programs/me/readiness', { headers: bearer(shop.apiKey) });
    expect(reply.headers.get('deprecation')).toBeNull();
    expect(reply.body.warnings).toBeUndefined();
  });
});

describe('key past its deadline', () => {
  it('401 typed api_key_rotation_required on every endpoint', async () => {
    const { id, key } = await newKey();
    // A deadline already past retires the key at once.
    await markForRotation(id, new Date(Date.now() - 1000));
    const calls = [
      api.request('POST', '/api/v1/track/sale', { body: { transaction_id: 'x', amount_cents: 1, customer_key: 'c' }, headers: bearer(key) }),
      api.request('POST', '/api/v1/track/refund', { body: { transaction_id: 'x' }, headers: bearer(key) }),
      api.request('POST', '/api/v1/track/lead', { body: { customer_key: 'c' }, headers: bearer(key) }),
      api.request('GET', '/api/v1/programs/me/readiness', { headers: bearer(key) }),
      api.request('POST', '/api/v1/track/click', { body: { affiliate_url: shop.affiliateUrl }, headers: bearer(key) }),
    ];
    for (const reply of await Promise.all(calls)) {
      expect(reply.status).toBe(401);
      expect(reply.body).toEqual({
        error: { code: 'api_key_rotation_required', message: expect.stringContaining('retired'), hint: expect.any(String), docs_url: DOCS },
      });
      expect(reply.headers.get('deprecation')).toBeNull();
    }
  });

  it('regenerating a key revokes the old one at once', async () => {
    const { id, key } = await newKey();
    const regenerated = await api.request('POST', `/api/v1/admin/keys/${id}/regenerate`, { headers: adminHeaders });
    expect(regenerated.status).toBe(201);
    const old = await api.request('GET', '/api/v1/programs/me/readiness', { headers: bearer(key) });
    expect(old.body).toEqual({ error: { code: 'invalid_key', message: 'Invalid API token.' } });
    const fresh = await api.request('GET', '/api/v1/programs/me/readiness', { headers: bearer(regenerated.body.data.api_key) });
    expect(fresh.status).toBe(200);
  });
});
