// Names reach mail headers (the sender's name, subjects): a name with a line break or another
// control character is refused beside its field (400 naming it), wherever a name is typed.
import { describe, expect, it } from 'vitest';
import { type SeededProgram, type TestApi, type TestDatabase, adminHeaders } from './support/harness.js';
import { useSeededApi } from './support/seeded-api.js';

let db: TestDatabase;
let api: TestApi;
let shop: SeededProgram;

useSeededApi({ env: { AFFIX_SECRET_KEY: 'header-injection-key-0123456789' }, programs: [{ name: 'Clean Shop' }] }, (t) => ({ db, api, programs: [shop] } = t));

const admin = (method: string, path: string, body?: unknown) => api.request(method, `/api/v1/admin${path}`, { body, headers: adminHeaders });
const INJECTED = ['A\r\nX-Injected: yes', 'A\nB', 'A\rB', 'Tab\there', 'Bell\u0007', 'Next\u0085line', 'Line\u2028separator'];

describe('names with control characters', () => {
  it.each(INJECTED)('a program name %j is refused (create and update), beside the name field', async (name) => {
    const updated = await admin('PATCH', `/programs/${shop.programId}`, { name });
    expect(updated.status).toBe(400);
    expect(updated.body.error.message).toBe('name must not contain line breaks, tabs or other control characters');
    const created = await admin('POST', '/programs', { account_id: shop.accountId, name, domain: 'shop.example.com', commission_type: 'percent', commission_rate: 10 });
    expect(created.status).toBe(400);
    expect(created.body.error.message).toBe('name must not contain line breaks, tabs or other control characters');
    expect((await db.pool.query('SELECT name FROM programs WHERE account_id = $1', [shop.accountId])).rows).toEqual([{ name: 'Clean Shop' }]);
  });

  it('an account, partner and group name with CR/LF is refused, each naming its field; nothing is written', async () => {
    const name = 'A\r\nX-Injected: yes';
    const account = await admin('POST', '/accounts', { email: 'crlf-account@example.com', name });
    expect([account.status, account.body.error.message]).toEqual([400, 'name: An account name must not contain line breaks, tabs or other control characters.']);
    const partner = await admin('POST', `/programs/${shop.programId}/partners`, { name, email: 'crlf@partner.example' });
    expect([partner.status, partner.body.error.message]).toEqual([400, 'name: Partner name must not contain line breaks, tabs or other control characters.']);
    const edited = await admin('PATCH', `/programs/${shop.programId}/partners/${shop.partnerId}`, { name });
    expect([edited.status, edited.body.error.message]).toEqual([400, 'name: Partner name must not contain line breaks, tabs or other control characters.']);
    const group = await admin('POST', `/programs/${shop.programId}/groups`, { name, slug: 'crlf', commission_type: 'percent', commission_rate: 30 });
    expect([group.status, group.body.error.message]).toEqual([400, 'name: A group name must not contain line breaks, tabs or other control characters.']);
    expect((await db.pool.query("SELECT count(*)::int AS n FROM accounts WHERE email = 'crlf-account@example.com'")).rows[0].n).toBe(0);
    expect((await db.pool.query("SELECT count(*)::int AS n FROM partners WHERE name LIKE '%X-Injected%'")).rows[0].n).toBe(0);
    expect((await db.pool.query("SELECT count(*)::int AS n FROM partner_groups WHERE slug = 'crlf'")).rows[0].n).toBe(0);
  });

  it('an applicant typing a name with CR/LF on the public page is refused beside the name field; no partner is made', async () => {
    await admin('PATCH', `/programs/${shop.programId}/application-settings`, { applications_open: true, slug: 'crlf-shop' });
    const reply = await api.request('POST', '/apply/crlf-shop', {
      raw: new URLSearchParams({ name: 'Ann\r\nBcc: victim@example.com', email: 'ann@creators.test', accept_terms: 'on' }).toString(),
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    });
    expect(reply.status).toBe(400);
    expect(String(reply.body)).toContain('Your name must not contain line breaks, tabs or other control characters.');
    expect((await db.pool.query("SELECT count(*)::int AS n FROM partners WHERE email = 'ann@creators.test'")).rows[0].n).toBe(0);
  });

  it('an imported row whose name has a line break is a problem of its line', async () => {
    const csv = 'name,email\n"Ann\r\nX-Injected: yes",ann-import@x.test\nBob,bob-import@x.test\n';
    const reply = await api.request('POST', `/api/v1/admin/programs/${shop.programId}/partners/import?dry_run=true`, { raw: csv, headers: { ...adminHeaders, 'Content-Type': 'text/csv' } });
    expect(reply.status).toBe(200);
    expect(reply.body.data).toMatchObject({ create: 1, problems: [{ line: 2, problems: ['name must not contain line breaks, tabs or other control characters'] }] });
  });

  it('names in any script, with spaces and punctuation, are accepted', async () => {
    for (const name of ['Zoë Ünal-Smith', '山田 太郎', "O'Brien & Co. (EU)"]) {
      expect((await admin('PATCH', `/programs/${shop.programId}`, { name })).status, name).toBe(200);
      expect((await admin('POST', `/programs/${shop.programId}/partners`, { name, email: null })).status, name).toBe(201);
    }
  });
});
