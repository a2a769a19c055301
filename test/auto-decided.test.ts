// An application a group's auto-approve decides says so (docs/partners.md): auto_decided is true
// in the API answer, the CSV export and the partner.approved webhook; a manager's decision is false.
import { describe, expect, it } from 'vitest';
import { type TestApi, type TestDatabase, adminHeaders, seedProgram } from './support/harness.js';
import { useSeededApi } from './support/seeded-api.js';
import { uid } from './support/money.js';

let db: TestDatabase;
let api: TestApi;

useSeededApi({ env: { AFFIX_SECRET_KEY: 'auto-decided-test-secret-0123' }, options: { queueUrl: 'own' } }, (t) => ({ db, api } = t));

const must = async (method: string, path: string, body?: unknown) => {
  const reply = await api.request(method, `/api/v1/admin${path}`, { body, headers: adminHeaders });
  if (reply.status >= 300) throw new Error(`${method} ${path}: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.data;
};
const form = (path: string, fields: Record<string, string>, ip: string) =>
  api.request('POST', path, { raw: new URLSearchParams(fields).toString(), headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'X-Forwarded-For': ip } });

describe('auto_decided', () => {
  it('is true for an auto-approved application (API, CSV, webhook) and false for a manager approval', async () => {
    const shop = await seedProgram(api, { commission_rate: 10 });
    const slug = uid('auto').replaceAll('_', '-').toLowerCase();
    await must('PATCH', `/programs/${shop.programId}/application-settings`, { applications_open: true, slug, terms_text: 'Be fair.' });
    await must('POST', `/programs/${shop.programId}/webhook-endpoints`, { url: 'https://hooks.example.com/affix', event_types: ['partner.approved'] });
    await must('POST', `/programs/${shop.programId}/groups`, { name: 'Auto', slug: 'auto', commission_type: 'percent', commission_rate: 10, hold_days: 30, applications_open: true, auto_approve: true });
    const autoEmail = `${uid('auto')}@brandco.test`;
    const manualEmail = `${uid('manual')}@brandco.test`;
    const applied = await form(`/apply/${slug}/auto`, { name: 'Auto', email: autoEmail, accept_terms: 'on' }, '203.0.113.61');
    expect(applied.status, JSON.stringify(applied.body).slice(0, 400)).toBeLessThan(400);
    expect((await form(`/apply/${slug}`, { name: 'Manual', email: manualEmail, accept_terms: 'on' }, '203.0.113.62')).status).toBeLessThan(400);

    let rows = (await must('GET', `/programs/${shop.programId}/applications?status=all`)).applications;
    const manual = rows.find((a: any) => a.email === manualEmail);
    await must('POST', `/programs/${shop.programId}/partners/bulk`, { action: 'approve', partner_ids: [manual.partner_id], reason: 'looks good' });

    rows = (await must('GET', `/programs/${shop.programId}/applications?status=all`)).applications;
    expect(rows.find((a: any) => a.email === autoEmail)).toMatchObject({ status: 'approved', reason: 'approved automatically', auto_decided: true });
    expect(rows.find((a: any) => a.email === manualEmail)).toMatchObject({ status: 'approved', reason: 'looks good', auto_decided: false });

    const csv = await api.request('GET', `/api/v1/admin/programs/${shop.programId}/applications.csv`, { headers: adminHeaders });
    const lines = String(csv.body).trim().split('\r\n');
    const column = lines[0]!.split(',').indexOf('auto_decided');
    expect(column).toBeGreaterThan(-1);
    const cell = (email: string) => lines.find((l) => l.includes(email))!.split(',')[column];
    expect([cell(autoEmail), cell(manualEmail)]).toEqual(['true', 'false']);

    const events = (await db.pool.query("SELECT data FROM webhook_messages WHERE program_id = $1 AND type = 'partner.approved' ORDER BY created_at", [shop.programId])).rows.map((r) => r.data.auto_decided);
    expect(events).toEqual([true, false]);
  });
});
