import { describe, expect, it } from 'vitest';
import { type TestApi, type TestDatabase, adminHeaders, bearer, startTestApi } from './support/harness.js';
import { useSeededApi } from './support/seeded-api.js';

let db: TestDatabase;
let api: TestApi;

useSeededApi({}, (t) => ({ db, api } = t));

const admin = (method: string, path: string, body?: unknown, headers: Record<string, string> = adminHeaders) =>
  api.request(method, `/api/v1/admin${path}`, { body, headers });

describe('admin API', () => {
  it('refuses a wrong or missing admin token', async () => {
    expect((await admin('POST', '/accounts', { email: 'a@b.co' }, {})).status).toBe(401);
    const wrong = await admin('POST', '/accounts', { email: 'a@b.co' }, bearer('nope'));
    expect(wrong.body.error.message).toBe('Invalid admin token');
  });

  it('is disabled without AFFIX_ADMIN_TOKEN', async () => {
    const closed = await startTestApi(db.pool, { AFFIX_ADMIN_TOKEN: '' });
    try {
      const reply = await closed.request('POST', '/api/v1/admin/accounts', { body: { email: 'x@y.co' }, headers: adminHeaders });
      expect(reply.status).toBe(401);
      expect(reply.body.error.message).toBe('Admin API is disabled. Set AFFIX_ADMIN_TOKEN to enable it.');
    } finally {
      await closed.close();
    }
  }, 30_000);

  it('creates an account, a program, a partner, a link and a key; keys are shown once, masked after', async () => {
    const account = await admin('POST', '/accounts', { email: 'Owner@Brand.example', name: 'Brand' });
    expect(account.status).toBe(201);
    expect(account.body.data).toMatchObject({ id: expect.any(Number), email: 'owner@brand.example', suspended: false });
    expect((await admin('POST', '/accounts', { email: 'owner@brand.example' })).status).toBe(409);

    const program = await admin('POST', '/programs', {
      account_id: account.body.data.id, name: 'Brand', domain: 'brand.example', commission_type: 'recurring_percent',
      commission_rate: 12.5, attribution_window_days: 30, lead_auth: 'server_required', allowed_origins: ['https://brand.example'],
      duration_months: 12,
    });
    expect(program.status).toBe(201);
    expect(program.body.data).toMatchObject({
      commission_type: 'recurring_percent', commission_rate: 12.5, attribution_window_days: 30, lead_auth: 'server_required',
      allowed_origins: ['https://brand.example'], duration_months: 12,
    });
    const programId = program.body.data.id;

    const partner = await admin('POST', `/programs/${programId}/partners`, { name: 'Alice' });
    const link = await admin('POST', `/programs/${programId}/links`, { partner_id: partner.body.data.id, short_link: 'alice' });
    expect(link.body.data).toMatchObject({ short_link: 'alice', enabled: true, url: 'https://brand.example/?aff=alice' });
    expect((await admin('POST', `/programs/${programId}/links`, { partner_id: partner.body.data.id, short_link: 'alice' })).status).toBe(409);

    const key = await admin('POST', `/programs/${programId}/keys`);
    expect(key.body.data.api_key).toMatch(/^affix_sk_[A-Za-z0-9_-]{32}$/);
    const listed = await admin('GET', `/programs/${programId}/keys`);
    expect(listed.body.data).toEqual([expect.objectContaining({ masked: `${key.body.data.api_key.slice(0, 13)}…${key.body.data.api_key.slice(-4)}` })]);
    expect(JSON.stringify(listed.body)).not.toContain(key.body.data.api_key);
    const { rows } = await db.pool.query('SELECT key_hash FROM api_keys WHERE id = $1', [key.body.data.id]);
    expect(rows[0].key_hash.toString('utf8')).not.toContain(key.body.data.api_key);
  });

  it('answers the spec messages for bad program input', async () => {
    const account = await admin('POST', '/accounts', { email: 'v@brand.example' });
    const base = { account_id: account.body.data.id, name: 'N', domain: 'd.example', commission_type: 'percent', commission_rate: 10 };
    expect((await admin('POST', '/programs', { ...base, commission_rate: undefined })).body.error.message).toBe(
      'Missing required fields: name, domain, commission_type, commission_rate',
    );
    expect((await admin('POST', '/programs', { ...base, commission_type: 'cpa' })).body.error.message).toBe(
      'Invalid commission_type: cpa. Valid: percent, fixed, recurring_percent, recurring_fixed',
    );
    expect((await admin('POST', '/programs', { ...base, commission_rate: '10' })).body.error.message).toBe('commission_rate must be a positive number');
    expect((await admin('POST', '/programs', { ...base, account_id: 999999 })).body.error.message).toBe('account_id must be the id of an existing account');
    expect((await admin('GET', '/programs/999999')).status).toBe(404);
  });

  it('suspends an account', async () => {
    const account = await admin('POST', '/accounts', { email: 's@brand.example' });
    const reply = await admin('PATCH', `/accounts/${account.body.data.id}`, { suspended: true });
    expect(reply.body.data.suspended).toBe(true);
  });
});
