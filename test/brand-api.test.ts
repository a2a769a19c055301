// Issue 44, item 1: the brand through the admin API (contrast-checked colour, defaults when
// emptied) and in the partner's mail: the decision mail comes from the brand and names it first.
import { describe, expect, it } from 'vitest';
import { type TestApi, type TestDatabase, adminHeaders, seedProgram } from './support/harness.js';
import { useSeededApi } from './support/seeded-api.js';

let db: TestDatabase;
let api: TestApi;
useSeededApi({}, (t) => ({ db, api } = t));

const admin = (method: string, path: string, body?: unknown) => api.request(method, `/api/v1/admin${path}`, { body, headers: adminHeaders });

describe('the brand through the admin API', () => {
  it('refuses a colour below 4.5:1 with its ratio; sets and empties the brand; the reward summary defaults to the terms', async () => {
    const shop = await seedProgram(api, { name: 'Roastery', commission_type: 'recurring_percent', commission_rate: 20, duration_months: 12 });
    const refused = await admin('PATCH', `/programs/${shop.programId}/brand`, { accent_color: '#ffcc00' });
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toBe('#ffcc00 has a contrast of 1.41:1 with white text and the page; at least 4.5:1 is needed (WCAG AA). A darker shade such as #7f6600 passes.');
    const set = await admin('PATCH', `/programs/${shop.programId}/brand`, { brand_name: 'Northwind', pitch: 'Coffee worth talking about.', accent_color: '#1D4ED8' });
    expect(set.status).toBe(200);
    expect(set.body.data).toEqual({
      name: 'Northwind', brand_name: 'Northwind', pitch: 'Coffee worth talking about.', reward_summary: '20% of every sale for 12 months',
      generated_reward_summary: '20% of every sale for 12 months', accent_color: '#1d4ed8', logo_path: null, customer_label: 'masked_email',
    });
    const emptied = await admin('PATCH', `/programs/${shop.programId}/brand`, { brand_name: '', accent_color: '' });
    expect({ name: emptied.body.data.name, accent: emptied.body.data.accent_color, pitch: emptied.body.data.pitch }).toEqual({ name: 'Roastery', accent: null, pitch: 'Coffee worth talking about.' });
    expect((await admin('PATCH', `/programs/${shop.programId}/brand`, { pitch: 'x'.repeat(281) })).body.error.message).toContain('The pitch is at most 280 characters.');
  });

  it("a partner's decision mail comes from the brand and names it on its first line", async () => {
    const shop = await seedProgram(api, { name: 'Roastery Two' });
    await admin('PATCH', `/programs/${shop.programId}/brand`, { brand_name: 'Northwind Coffee' });
    await admin('PATCH', `/programs/${shop.programId}/application-settings`, { applications_open: true, slug: 'roastery-two' });
    const applied = await api.request('POST', '/apply/roastery-two', {
      raw: new URLSearchParams({ name: 'Ana', email: 'ana@brand-api.example', accept_terms: 'on' }).toString(),
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    });
    expect(applied.status).toBe(200);
    const partnerId = Number((await db.pool.query("SELECT id FROM partners WHERE email = 'ana@brand-api.example'")).rows[0].id);
    const approved = await admin('POST', `/programs/${shop.programId}/partners/${partnerId}/approve`, {});
    expect(approved.status, JSON.stringify(approved.body)).toBeLessThan(300);
    const { rows } = await db.pool.query("SELECT kind, sender_name, split_part(body, E'\\n', 1) AS first_line FROM mail_outbox WHERE to_email = 'ana@brand-api.example' ORDER BY id");
    expect(rows.map((r) => [r.kind, r.sender_name, r.first_line])).toEqual([
      ['application_received', 'Northwind Coffee', 'Northwind Coffee'],
      ['application_approved', 'Northwind Coffee', 'Northwind Coffee'],
      ['partner_invitation', 'Northwind Coffee', 'Northwind Coffee'],
    ]);
  });
});
