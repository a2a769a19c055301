// Only changes are recorded (docs/audit.md): a save that changes nothing writes no audit entry,
// where it once wrote one with `changes: {}`; a save that changes something still writes one.
import { describe, expect, it } from 'vitest';
import { type TestApi, type TestDatabase, adminHeaders, seedProgram } from './support/harness.js';
import { useSeededApi } from './support/seeded-api.js';
import { uid } from './support/money.js';

let db: TestDatabase;
let api: TestApi;

useSeededApi({ env: { AFFIX_SECRET_KEY: 'audit-changes-only-secret-0123' } }, (t) => ({ db, api } = t));

const must = async (method: string, path: string, body?: unknown) => {
  const reply = await api.request(method, `/api/v1/admin${path}`, { body, headers: adminHeaders });
  if (reply.status >= 300) throw new Error(`${method} ${path}: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.data;
};
const entriesOf = async (programId: number, action: string) =>
  (await db.pool.query('SELECT changes FROM audit_log WHERE program_id = $1 AND action = $2 ORDER BY id', [programId, action])).rows.map((r) => r.changes);

describe('only changes are recorded', () => {
  it('payout settings saved unchanged write no entry; a changed hold writes one with just that field', async () => {
    const shop = await seedProgram(api, { commission_rate: 10 });
    await must('PATCH', `/programs/${shop.programId}/payout-settings`, { hold_days: 45 });
    await must('PATCH', `/programs/${shop.programId}/payout-settings`, { hold_days: 45 });
    await must('PATCH', `/programs/${shop.programId}/payout-settings`, {});
    expect(await entriesOf(shop.programId, 'payout_settings.updated')).toEqual([{ holdDays: { from: 30, to: 45 } }]);
  });

  it('the application page saved unchanged writes no entry; a new slug writes one', async () => {
    const shop = await seedProgram(api, { commission_rate: 10 });
    const slug = uid('page').replaceAll('_', '-').toLowerCase();
    await must('PATCH', `/programs/${shop.programId}/application-settings`, { slug });
    await must('PATCH', `/programs/${shop.programId}/application-settings`, { slug });
    await must('PATCH', `/programs/${shop.programId}/application-settings`, {});
    expect(await entriesOf(shop.programId, 'application_page.updated')).toEqual([{ slug: { from: null, to: slug } }]);
  });

  it('a bulk archive without a reason is still recorded (the action is the change)', async () => {
    const shop = await seedProgram(api, { commission_rate: 10 });
    await must('POST', `/programs/${shop.programId}/partners/bulk`, { action: 'archive', partner_ids: [shop.partnerId] });
    expect(await entriesOf(shop.programId, 'partner.archive')).toHaveLength(1);
  });
});
