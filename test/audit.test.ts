// The audit log (docs/audit.md): append-only; one entry per change, written in the change's
// transaction (a refused change writes none); who acted — a signed-in account from its IP, the
// operator's admin token from its IP, the scheduled approval as the system, an applicant — and
// what changed, secrets never in clear; read by the admin API, the CLI and the dashboard (CSV).
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { approveDueCommissions } from '../src/app/money/commission-lifecycle.js';
import { ADMIN_TOKEN, type TestApi, type TestDatabase, adminHeaders, seedProgram } from './support/harness.js';
import { useSeededApi } from './support/seeded-api.js';
import { apiSale, uid } from './support/money.js';
import { signedInVisitor } from './support/dashboard-visitor.js';

let db: TestDatabase;
let api: TestApi;

useSeededApi({ env: { AFFIX_SECRET_KEY: 'audit-test-secret-key-0123456789' }, options: { queueUrl: 'own' } }, (t) => ({ db, api } = t));

const admin = (method: string, path: string, body?: unknown, ip = '203.0.113.90') =>
  api.request(method, `/api/v1/admin${path}`, { body, headers: { ...adminHeaders, 'X-Forwarded-For': ip } });
const must = async (method: string, path: string, body?: unknown) => {
  const reply = await admin(method, path, body);
  if (reply.status >= 300) throw new Error(`${method} ${path}: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.data;
};
const entries = async (programId: number) =>
  (await db.pool.query('SELECT actor_type, actor_label, host(ip) AS ip, action, object_type, object_id, changes FROM audit_log WHERE program_id = $1 ORDER BY id', [programId])).rows;

describe('the audit log', () => {
  it('is append-only', async () => {
    const shop = await seedProgram(api);
    const [row] = (await db.pool.query('SELECT id FROM audit_log WHERE program_id = $1 LIMIT 1', [shop.programId])).rows;
    await expect(db.pool.query("UPDATE audit_log SET action = 'x' WHERE id = $1", [row.id])).rejects.toThrow('audit_log is append-only');
    await expect(db.pool.query('DELETE FROM audit_log WHERE id = $1', [row.id])).rejects.toThrow('audit_log is append-only');
  });

  it('refuses TRUNCATE, of the log itself or cascading from the programs it refers to; every entry stays', async () => {
    const shop = await seedProgram(api);
    const count = async () => (await db.pool.query('SELECT count(*)::int AS n FROM audit_log')).rows[0].n as number;
    const before = await count();
    expect(before).toBeGreaterThan(0);
    await expect(db.pool.query('TRUNCATE audit_log')).rejects.toThrow('audit_log is append-only');
    await expect(db.pool.query('TRUNCATE programs CASCADE')).rejects.toThrow('audit_log is append-only');
    expect(await count()).toBe(before);
    expect((await db.pool.query('SELECT count(*)::int AS n FROM programs WHERE id = $1', [shop.programId])).rows[0].n).toBe(1);
  });

  it('records each change with its actor, object and changed fields; a refused change records nothing; secrets only as "set"', async () => {
    const shop = await seedProgram(api, { commission_rate: 10 });
    const before = (await entries(shop.programId)).length;
    await must('PATCH', `/programs/${shop.programId}`, { commission_rate: 15 });
    await must('PATCH', `/programs/${shop.programId}/stripe`, { webhook_secret: 'whsec_audit_secret_value' });
    const group = await must('POST', `/programs/${shop.programId}/groups`, { name: 'VIP', slug: 'vip', commission_type: 'percent', commission_rate: 30, hold_days: 7 });
    await must('POST', `/programs/${shop.programId}/partners/${shop.partnerId}/move`, { group_id: group.id });
    // Refused: a link code already taken. Nothing recorded for it.
    expect((await admin('POST', `/programs/${shop.programId}/links`, { partner_id: shop.partnerId, short_link: shop.shortLink })).status).toBe(409);
    await must('PATCH', `/links/${shop.linkId}`, { enabled: false });
    const endpoint = await must('POST', `/programs/${shop.programId}/webhook-endpoints`, { url: 'https://hooks.example.com/affix', event_types: ['sale.created'] });
    await must('POST', `/programs/${shop.programId}/webhook-endpoints/${endpoint.id ?? endpoint.endpoint.id}/rotate-secret`);
    await must('PATCH', `/links/${shop.linkId}`, { enabled: true });
    const sales = [await apiSale(api, shop, 10_000), await apiSale(api, shop, 20_000)];
    await must('POST', `/programs/${shop.programId}/commissions/bulk`, { action: 'approve', commission_ids: sales.map((s) => s.commissionId), reason: 'checked' });
    const run = await must('POST', `/programs/${shop.programId}/payouts/run`);
    await must('POST', `/programs/${shop.programId}/payouts/${run.payouts[0].id}/paid`, { reference: 'REF-9' });
    await must('POST', `/programs/${shop.programId}/keys`);

    const log = (await entries(shop.programId)).slice(before);
    expect(log.map((e) => e.action)).toEqual([
      'program.updated', 'stripe.updated', 'group.created', 'partner.move_group', 'link.disabled', 'webhook_endpoint.created', 'webhook_endpoint.secret_rotated',
      'link.enabled', 'commission.approve', 'commission.approve', 'payout.run', 'payout.paid', 'key.created',
    ]);
    expect(log.every((e) => e.actor_type === 'operator' && e.ip === '203.0.113.90')).toBe(true);
    expect(log[0].changes).toEqual({ commission_rate: { from: 10, to: 15 } });
    expect(log[1].changes).toEqual({ webhook_secret: { from: null, to: 'set' } });
    expect(JSON.stringify(log)).not.toContain('whsec_audit_secret_value');
    expect(log[3]).toMatchObject({ object_type: 'partner', object_id: String(shop.partnerId), changes: { group_id: { from: null, to: group.id } } });
    expect(log[11].changes).toEqual({ status: { from: 'pending', to: 'paid' }, reference: { from: null, to: 'REF-9' } });
  });

  it('the scheduled approval acts as the system; an applicant as the applicant', async () => {
    const shop = await seedProgram(api, { commission_rate: 10 });
    await must('PATCH', `/programs/${shop.programId}/payout-settings`, { hold_days: 0 });
    const sale = await apiSale(api, shop, 10_000);
    await approveDueCommissions({ pool: db.pool, secretBox: null, now: () => new Date(Date.now() + 60_000) });
    const slug = uid('audit').replaceAll('_', '-').toLowerCase();
    await must('PATCH', `/programs/${shop.programId}/application-settings`, { applications_open: true, slug });
    await api.request('POST', `/apply/${slug}`, {
      raw: new URLSearchParams({ name: 'Ava Applicant', email: `${uid('ava')}@creators.test`, accept_terms: 'on' }).toString(),
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'X-Forwarded-For': '203.0.113.91' },
    });
    const log = await entries(shop.programId);
    expect(log.find((e) => e.action === 'commission.approve' && e.object_id === String(sale.commissionId))).toMatchObject({ actor_type: 'system', actor_label: 'scheduled approval' });
    expect(log.find((e) => e.action === 'partner.applied')).toMatchObject({ actor_type: 'applicant', actor_label: 'Ava Applicant', ip: '203.0.113.91' });
  });

  it('the admin API, the CLI and the dashboard read it; the dashboard names the signed-in account and its IP', async () => {
    const shop = await seedProgram(api);
    await must('PATCH', `/accounts/${shop.accountId}`, { password: 'audit owner password 1' });
    const email = (await db.pool.query('SELECT email FROM accounts WHERE id = $1', [shop.accountId])).rows[0].email;
    // Sign in to the dashboard and change a setting from 198.51.100.7.
    const ip = '198.51.100.7';
    const { get, post } = await signedInVisitor(api.url, email, 'audit owner password 1', { ip });
    await get(`/dashboard/programs/${shop.programId}/partners`);
    expect((await post(`/dashboard/programs/${shop.programId}/partners`, { partner_name: 'Added in the dashboard' })).status).toBe(303);

    const page = await get(`/dashboard/programs/${shop.programId}/audit?action=partner.created`);
    expect(page.headers.get('cache-control')).toBe('no-store');
    const text = page.text;
    expect(text).toContain('partner.created');
    expect(text).toContain(`${email} (Team member) · from ${ip}`);
    const csv = (await get(`/dashboard/programs/${shop.programId}/audit.csv?action=partner.created`)).text;
    const lines = csv.trim().split('\r\n');
    expect(lines[0]).toBe('id,created_at,program_id,actor_type,actor_id,actor_label,ip,action,object_type,object_id,changes');
    expect(lines.filter((l) => l.includes(`member,account:${shop.accountId},${email},${ip},partner.created`))).toHaveLength(1);

    const read = await must('GET', `/audit-log?program_id=${shop.programId}&actor_type=member`);
    expect(read.entries.map((e: any) => e.action)).toEqual(['partner.created']);
    const run = promisify(execFile);
    const { stdout } = await run(process.execPath, ['bin/affix.mjs', 'admin', 'audit', '--program', String(shop.programId), '--action', 'partner.created', '--actor', 'member'], {
      env: { ...process.env, AFFIX_ADMIN_TOKEN: ADMIN_TOKEN, AFFIX_API_URL: api.url },
    });
    expect(JSON.parse(stdout).entries.map((e: any) => [e.actor_type, e.actor_label])).toEqual([['member', email]]);
  }, 60_000);

  it('ending a member’s sign-ins and changing a password are in the account’s log: the program’s audit page and the admin API show who and from where', async () => {
    const { openDashboardSession } = await import('../src/app/accounts/access.js');
    const shop = await seedProgram(api);
    await must('PATCH', `/accounts/${shop.accountId}`, { password: 'audit owner password 2' });
    const email = (await db.pool.query('SELECT email FROM accounts WHERE id = $1', [shop.accountId])).rows[0].email;
    const viewer = Number((await db.pool.query("INSERT INTO account_members (account_id, email, role, accepted_at) VALUES ($1, $2, 'viewer', now()) RETURNING id", [shop.accountId, `${uid('viewer')}@team.test`])).rows[0].id);
    await openDashboardSession(db.pool, shop.accountId, new Date(), viewer);
    const ip = '198.51.100.8';
    const cookies = new Map<string, string>();
    const remember = (reply: Response) => reply.headers.getSetCookie().forEach((c) => cookies.set(c.split('=')[0]!, c.split(';')[0]!));
    const cookie = () => [...cookies.values()].join('; ');
    let page = '';
    const get = async (path: string) => {
      const reply = await fetch(`${api.url}${path}`, { headers: { cookie: cookie(), 'x-forwarded-for': ip }, redirect: 'manual' });
      remember(reply);
      page = await reply.text();
      return page;
    };
    const post = async (path: string, fields: Record<string, string>) => {
      const reply = await fetch(`${api.url}${path}`, {
        method: 'POST',
        redirect: 'manual',
        headers: { cookie: cookie(), 'content-type': 'application/x-www-form-urlencoded', origin: api.url, 'x-forwarded-for': ip },
        body: new URLSearchParams({ _csrf: /name="_csrf" value="([^"]+)"/.exec(page)![1]!, ...fields }).toString(),
      });
      remember(reply);
      return reply.status;
    };
    await get('/dashboard/login');
    expect(await post('/dashboard/login', { email, password: 'audit owner password 2' })).toBe(303);
    await get('/dashboard/team');
    expect(await post(`/dashboard/team/${viewer}/sign-ins/end`, {})).toBe(303);
    await get('/dashboard/account');
    expect(await post('/dashboard/account/password', { current_password: 'audit owner password 2', password: 'audit owner password 3' })).toBe(303);

    const text = await get(`/dashboard/programs/${shop.programId}/audit`);
    expect(text).toContain('member.sign_ins_ended');
    expect(text).toContain('password.changed');
    expect(text).toContain(`${email} (Team member) · from ${ip}`);
    const read = await must('GET', `/audit-log?account_id=${shop.accountId}&actor_type=member`);
    expect(read.entries.map((e: any) => [e.action, e.object_id, e.ip])).toEqual([
      ['password.changed', `account:${shop.accountId}`, ip],
      ['member.sign_ins_ended', String(viewer), ip],
    ]);
    expect(read.entries[1].changes).toEqual({ sessions: { from: 1, to: 0 }, cli_tokens: { from: 0, to: 0 } });
  }, 60_000);
});
