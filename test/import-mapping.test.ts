// The partner import's group mapping (docs/partners.md, "Import and export"; issue 41, item 12): a
// Rewardful export whose campaigns are no group of the program maps each campaign to an existing
// group, a new group or none, columns may be ignored, the dry run shows the mapping's effect, the
// real run makes the groups and the partners in one transaction, audited, and the same file with
// the same mapping again changes nothing. Two imports at once make a name-known partner once.
import { describe, expect, it } from 'vitest';
import { insertImported } from '../src/db/partners/import.js';
import { type TestApi, type TestDatabase, adminHeaders, count, seedProgram } from './support/harness.js';
import { useSeededApi } from './support/seeded-api.js';
import { uid } from './support/money.js';

let db: TestDatabase;
let api: TestApi;

useSeededApi({ env: { AFFIX_SECRET_KEY: 'import-mapping-test-secret-01' } }, (t) => ({ db, api } = t));

const importJson = (programId: number, body: Record<string, unknown>) =>
  api.request('POST', `/api/v1/admin/programs/${programId}/partners/import`, { body, headers: adminHeaders });

/** Rewardful's affiliate export, its columns as it writes them. */
function rewardfulFile(tag: string) {
  const row = (n: number, campaign: string) =>
    `${uid('aff')},${tag}-${n}@rw.test,First${n},Last${n},pay-${tag}-${n}@rw.test,${campaign},${tag}-code-${n},2024-03-0${n}T10:00:00Z`;
  return [
    'id,email,first_name,last_name,paypal_email,campaign,token,created_at',
    row(1, 'Default Campaign'),
    row(2, 'Default Campaign'),
    row(3, 'Default Campaign'),
    row(4, 'Influencers'),
    row(5, 'Old Campaign'),
    '',
  ].join('\n');
}

describe('the group mapping of an import', () => {
  it('unmapped campaigns fail their rows; mapped, the dry run shows where each goes; the import makes the group once, audited; again, nothing changes', async () => {
    const shop = await seedProgram(api, { commission_type: 'recurring_percent', commission_rate: 30, duration_months: 12 });
    const group = await api.request('POST', `/api/v1/admin/programs/${shop.programId}/groups`, {
      body: { name: 'Influencers', slug: 'influencers-2024', commission_type: 'percent', commission_rate: 40, hold_days: 30 },
      headers: adminHeaders,
    });
    expect(group.status).toBe(201);
    const tag = uid('rw').replaceAll('_', '-').toLowerCase();
    const csv = rewardfulFile(tag);

    // Without a mapping: every row of a campaign no group has is refused, as before.
    const plain = await importJson(shop.programId, { csv, dry_run: true });
    expect(plain.status).toBe(200);
    expect(plain.body.data.problems).toEqual([1, 2, 3, 4, 5].map((n) => ({ line: n + 1, problems: [`no group "${['Default Campaign', 'Default Campaign', 'Default Campaign', 'Influencers', 'Old Campaign'][n - 1]}" in this program`] })));
    expect(plain.body.data.groups).toEqual([
      { source: 'Default Campaign', rows: 3, maps_to: 'unmapped', group_id: null, group_name: null },
      { source: 'Influencers', rows: 1, maps_to: 'unmapped', group_id: null, group_name: null },
      { source: 'Old Campaign', rows: 1, maps_to: 'unmapped', group_id: null, group_name: null },
    ]);

    const mapping = {
      group_mapping: { 'Default Campaign': { new_group: 'Rewardful default' }, Influencers: { group: 'Influencers' }, 'Old Campaign': null },
      ignore_columns: ['paypal_email'],
    };
    const dry = await importJson(shop.programId, { csv, dry_run: true, ...mapping });
    expect(dry.status, JSON.stringify(dry.body)).toBe(200);
    expect(dry.body.data).toMatchObject({ dry_run: true, rows: 5, create: 5, problems: [], ignored_columns: ['paypal_email'] });
    expect(dry.body.data.columns).not.toHaveProperty('paypal_email');
    expect(dry.body.data.groups).toEqual([
      { source: 'Default Campaign', rows: 3, maps_to: 'new', group_id: null, group_name: 'Rewardful default' },
      { source: 'Influencers', rows: 1, maps_to: 'existing', group_id: group.body.data.id, group_name: 'Influencers' },
      { source: 'Old Campaign', rows: 1, maps_to: 'none', group_id: null, group_name: null },
    ]);
    expect(await count(db.pool, 'SELECT 1 FROM partner_groups WHERE program_id = $1', [shop.programId])).toBe(1);

    const done = await importJson(shop.programId, { csv, ...mapping });
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect(done.body.data.written).toEqual({ partners: 5, links: 5, groups: 1 });
    const made = (await db.pool.query('SELECT id, slug, commission_type, commission_rate::float AS rate, recurring_duration_months AS months FROM partner_groups WHERE program_id = $1 AND name = $2', [shop.programId, 'Rewardful default'])).rows;
    expect(made).toEqual([{ id: expect.anything(), slug: 'rewardful-default', commission_type: 'recurring_percent', rate: 30, months: 12 }]);
    const rows = (await db.pool.query('SELECT email, group_id, payout_method FROM partners WHERE program_id = $1 AND email LIKE $2 ORDER BY email', [shop.programId, `${tag}-%`])).rows;
    expect(rows.map((r) => [r.email, r.group_id === null ? null : Number(r.group_id), r.payout_method])).toEqual([
      [`${tag}-1@rw.test`, Number(made[0].id), null],
      [`${tag}-2@rw.test`, Number(made[0].id), null],
      [`${tag}-3@rw.test`, Number(made[0].id), null],
      [`${tag}-4@rw.test`, group.body.data.id, null],
      [`${tag}-5@rw.test`, null, null],
    ]);
    expect(await count(db.pool, "SELECT 1 FROM audit_log WHERE program_id = $1 AND action = 'group.created' AND object_id = $2", [shop.programId, made[0].id])).toBe(1);
    expect(await count(db.pool, "SELECT 1 FROM audit_log WHERE program_id = $1 AND action = 'partner.imported'", [shop.programId])).toBe(5);

    // The same file with the same mapping, as JSON and as the file with its mapping in the query: nothing changes.
    const again = await importJson(shop.programId, { csv, ...mapping });
    expect(again.body.data).toMatchObject({ create: 0, unchanged: 5, problems: [], written: { partners: 0, links: 0, groups: 0 } });
    expect(again.body.data.groups[0]).toMatchObject({ source: 'Default Campaign', maps_to: 'existing', group_name: 'Rewardful default' });
    const query = new URLSearchParams({ group_mapping: JSON.stringify(mapping.group_mapping), ignore_columns: 'paypal_email' });
    const asFile = await api.request('POST', `/api/v1/admin/programs/${shop.programId}/partners/import?${query}`, { raw: csv, headers: { ...adminHeaders, 'Content-Type': 'text/csv' } });
    expect(asFile.status, JSON.stringify(asFile.body)).toBe(200);
    expect(asFile.body.data).toMatchObject({ unchanged: 5, problems: [], written: { partners: 0, links: 0, groups: 0 } });
    expect(await count(db.pool, 'SELECT 1 FROM partner_groups WHERE program_id = $1', [shop.programId])).toBe(2);
    expect(await count(db.pool, 'SELECT 1 FROM partners WHERE program_id = $1 AND email LIKE $2', [shop.programId, `${tag}-%`])).toBe(5);
  });

  it('a mapping to a group that is not there, or a new group whose address name another group holds, is refused by the value', async () => {
    const shop = await seedProgram(api);
    await api.request('POST', `/api/v1/admin/programs/${shop.programId}/groups`, {
      body: { name: 'Partners Old', slug: 'vip', commission_type: 'percent', commission_rate: 10, hold_days: 30 },
      headers: adminHeaders,
    });
    const csv = `email,first_name,campaign\nmap-${uid('m')}@x.test,Ann,Default\n`;
    const missing = await importJson(shop.programId, { csv, dry_run: true, group_mapping: { Default: { group: 'Nope' } } });
    expect(missing.status).toBe(400);
    expect(missing.body.error.message).toBe('group_mapping: "Default": no group "Nope" in this program.');
    const taken = await importJson(shop.programId, { csv, dry_run: true, group_mapping: { Default: { new_group: 'VIP' } } });
    expect(taken.status).toBe(400);
    expect(taken.body.error.message).toContain('the group "Partners Old" already has the address name "vip"');
    const unknownColumn = await importJson(shop.programId, { csv, dry_run: true, ignore_columns: ['iban'] });
    expect(unknownColumn.status).toBe(400);
    expect(unknownColumn.body.error.message).toBe('ignore_columns: no column "iban" in the file');
  });

  it('the real import is one transaction: a row failing at the end (after the first statement of 500) leaves no partner', async () => {
    const shop = await seedProgram(api);
    const tag = uid('tx').replaceAll('_', '-').toLowerCase();
    // 600 rows (more than one chunk of 500); the last one fails inside the database.
    const rows = Array.from({ length: 600 }, (_, i) => `${tag}-${i}@tx.test,Row ${i}`);
    await db.pool.query(`CREATE FUNCTION fail_${tag.replaceAll('-', '_')}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF NEW.email = '${tag}-599@tx.test' THEN RAISE EXCEPTION 'the test fails this row'; END IF; RETURN NEW; END $$`);
    await db.pool.query(`CREATE TRIGGER fail_${tag.replaceAll('-', '_')} BEFORE INSERT ON partners FOR EACH ROW EXECUTE FUNCTION fail_${tag.replaceAll('-', '_')}()`);
    try {
      const reply = await importJson(shop.programId, { csv: `email,name\n${rows.join('\n')}\n` });
      expect(reply.status).toBe(500);
    } finally {
      await db.pool.query(`DROP TRIGGER fail_${tag.replaceAll('-', '_')} ON partners`);
    }
    expect(await count(db.pool, 'SELECT 1 FROM partners WHERE program_id = $1 AND email LIKE $2', [shop.programId, `${tag}-%`])).toBe(0);
  });

  it('two imports of the same file at once make a partner known by its name once', async () => {
    const shop = await seedProgram(api);
    const name = `Only Name ${uid('n')}`;
    const csv = `name,code\n${name},\n`;
    // The first import is writing (its transaction open, its partner made, not committed) when the second runs.
    const first = await db.pool.connect();
    try {
      await first.query('BEGIN');
      await insertImported(first, shop.programId, [{ name, email: null, groupId: null, tags: [], payoutMethod: null, payoutReference: null, nameKey: name.toLowerCase() }]);
      let settled = false;
      const second = importJson(shop.programId, { csv }).finally(() => (settled = true));
      // Until the second import waits for the first (a lock) or is done.
      const waiting = async () =>
        (await db.pool.query("SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%pg_advisory_xact_lock%'")).rowCount! > 0;
      while (!settled && !(await waiting())) await new Promise((resolve) => setImmediate(resolve));
      await first.query('COMMIT');
      const reply = await second;
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);
      expect(reply.body.data.written).toMatchObject({ partners: 0 });
    } finally {
      first.release();
    }
    expect(await count(db.pool, 'SELECT 1 FROM partners WHERE program_id = $1 AND name = $2', [shop.programId, name])).toBe(1);
  });
});
