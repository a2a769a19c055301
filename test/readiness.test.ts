import { describe, expect, it } from 'vitest';
import {
  type SeededProgram,
  type TestApi,
  type TestDatabase,
  bearer,
  seedProgram,
  trackClick,
} from './support/harness.js';
import { useSeededApi } from './support/seeded-api.js';

let db: TestDatabase;
let api: TestApi;
let shop: SeededProgram;

useSeededApi({ programs: [{}] }, (t) => ({ db, api, programs: [shop] } = t));

const readiness = (headers: Record<string, string>) => api.request('GET', '/api/v1/programs/me/readiness', { headers });

describe('GET /api/v1/programs/me/readiness', () => {
  it.each([
    [{}, 'Missing or malformed Authorization header. Expected: Bearer <api_token>.'],
    [{ Authorization: 'Basic x' }, 'Missing or malformed Authorization header. Expected: Bearer <api_token>.'],
    [{ Authorization: 'Bearer ' }, 'Missing API token.'],
    [{ Authorization: 'Bearer affix_sk_unknown' }, 'Invalid API token.'],
  ])('401 typed invalid_key for %j', async (headers, message) => {
    const reply = await readiness(headers);
    expect(reply.status).toBe(401);
    expect(reply.body).toEqual({ error: { code: 'invalid_key', message } });
    expect(reply.headers.get('x-request-id')).toBeTruthy();
  });

  it('walks the gates as the integration progresses', async () => {
    const fresh = await readiness(bearer(shop.apiKey));
    expect(fresh.status).toBe(200);
    expect(fresh.body).toEqual({
      program_id: shop.programId,
      state: 'incomplete',
      integration_verified: false,
      blocker: 'click_tracked',
      gates: {
        api_key: { status: 'pass', next_action: null },
        referral_link: { status: 'pass', next_action: null },
        allowed_origins: { status: 'pass', next_action: null },
        click_tracked: { status: 'fail', next_action: expect.any(String) },
        lead_tracked: { status: 'fail', next_action: expect.any(String) },
        sale_tracked: { status: 'fail', next_action: expect.any(String) },
      },
      last_event_at: null,
      counts_24h: { clicks: 0, leads: 0, sales: 0 },
    });

    const clickId = await trackClick(api, shop.affiliateUrl);
    await api.request('POST', '/api/v1/track/lead', { body: { click_id: clickId, customer_key: 'u1' } });
    await api.request('POST', '/api/v1/track/sale', {
      body: { transaction_id: `r_${Date.now()}`, amount_cents: 100, customer_key: 'u1' },
      headers: bearer(shop.apiKey),
    });
    const done = await readiness(bearer(shop.apiKey));
    expect(done.body).toMatchObject({
      state: 'ready',
      integration_verified: true,
      blocker: null,
      counts_24h: { clicks: 1, leads: 1, sales: 1 },
      last_event_at: expect.stringMatching(/^\d{4}-/),
    });
  });

  it('names the first failing gate as the blocker', async () => {
    const bare = await seedProgram(api, { allowed_origins: [] });
    await api.request('PATCH', `/api/v1/admin/links/${bare.linkId}`, {
      body: { enabled: false },
      headers: { Authorization: 'Bearer test-admin-token-0123456789' },
    });
    const reply = await readiness(bearer(bare.apiKey));
    expect(reply.body.blocker).toBe('referral_link');
    expect(reply.body.gates.allowed_origins.status).toBe('fail');
  });

  it('integration_verified is true only when every gate passes (events through the API alone do not verify a missing origin)', async () => {
    const serverOnly = await seedProgram(api, { allowed_origins: [] });
    const clickId = await trackClick(api, serverOnly.affiliateUrl);
    await api.request('POST', '/api/v1/track/lead', { body: { click_id: clickId, customer_key: 'u_origins' } });
    await api.request('POST', '/api/v1/track/sale', {
      body: { transaction_id: `ro_${Date.now()}`, amount_cents: 100, customer_key: 'u_origins' },
      headers: bearer(serverOnly.apiKey),
    });
    const reply = await readiness(bearer(serverOnly.apiKey));
    expect(reply.body).toMatchObject({ state: 'incomplete', blocker: 'allowed_origins', integration_verified: false });
  });

  it('api_key fails for a program whose keys are all revoked (as the dashboard sees it)', async () => {
    const { PgStore } = await import('../src/db/tracking/store.js');
    const { computeReadiness } = await import('../src/core/readiness.js');
    const keyless = await seedProgram(api);
    await db.pool.query('UPDATE api_keys SET revoked_at = now() WHERE program_id = $1', [keyless.programId]);
    const readinessOf = computeReadiness(keyless.programId, await new PgStore(db.pool).readinessFacts(keyless.programId, new Date()));
    expect(readinessOf.gates.api_key).toEqual({ status: 'fail', next_action: expect.stringContaining('Create an API key') });
    expect(readinessOf).toMatchObject({ blocker: 'api_key', integration_verified: false });
  });

  it('500 typed internal_error with retry_after_seconds 10', async () => {
    await db.pool.query('ALTER TABLE tracking_events RENAME TO tracking_events_away');
    try {
      const reply = await readiness(bearer(shop.apiKey));
      expect(reply.status).toBe(500);
      expect(reply.body).toEqual({
        error: { code: 'internal_error', message: 'Failed to compute readiness. Retry shortly.', retry_after_seconds: 10 },
      });
      expect(reply.headers.get('x-request-id')).toBeTruthy();
    } finally {
      await db.pool.query('ALTER TABLE tracking_events_away RENAME TO tracking_events');
    }
  });
});
