// Partner import rules (docs/partners.md, "Import and export"): the same file again changes
// nothing, headers are read whatever their case and punctuation, and the dry run refuses by line
// what the real import would refuse.
import { describe, expect, it } from 'vitest';
import { type TestApi, type TestDatabase, adminHeaders, seedProgram } from './support/harness.js';
import { useSeededApi } from './support/seeded-api.js';
import { uid } from './support/money.js';

let db: TestDatabase;
let api: TestApi;

useSeededApi({ env: { AFFIX_SECRET_KEY: 'import-rules-test-secret-key-01' } }, (t) => ({ db, api } = t));

/** The file as the body (text/csv), as the CLI and scripts send it. */
const upload = (programId: number, csv: string, dryRun: boolean) =>
  api.request('POST', `/api/v1/admin/programs/${programId}/partners/import${dryRun ? '?dry_run=true' : ''}`, { raw: csv, headers: { ...adminHeaders, 'Content-Type': 'text/csv' } });
const partnersNamed = async (programId: number, name: string) =>
  (await db.pool.query('SELECT name, email FROM partners WHERE program_id = $1 AND name = $2', [programId, name])).rows;

describe('partner import rules', () => {
  it('a row with neither email nor code imported twice is one partner (known by its name in the program)', async () => {
    const shop = await seedProgram(api);
    const name = `No Mail ${uid('nick')}`;
    const csv = `name,code\n${name},\n`;
    const first = await upload(shop.programId, csv, false);
    expect(first.status).toBe(200);
    expect(first.body.data).toMatchObject({ create: 1, written: { partners: 1 } });
    const dry = await upload(shop.programId, csv, true);
    expect(dry.body.data).toMatchObject({ create: 0, unchanged: 1, problems: [] });
    const again = await upload(shop.programId, csv, false);
    expect(again.body.data).toMatchObject({ create: 0, unchanged: 1, written: { partners: 0, links: 0 } });
    expect(await partnersNamed(shop.programId, name)).toEqual([{ name, email: null }]);
    // The same name twice in one file without email or code is one person twice: refused by line.
    const twice = await upload(shop.programId, `name\nTwin ${name}\nTwin ${name}\n`, true);
    expect(twice.body.data).toMatchObject({ create: 1, problems: [{ line: 3, problems: ['same name as line 2 (a row without email or code is known by its name)'] }] });
  });

  it('headers are read whatever their case and punctuation: E-mail, e_mail, EMAIL ADDRESS are the email column', async () => {
    const shop = await seedProgram(api);
    for (const header of ['E-mail', 'e_mail', 'EMAIL ADDRESS', 'Email-Address']) {
      const report = await upload(shop.programId, `Name,${header}\nAna,not-an-email\nBo,bo-${uid('m')}@x.test\n`, true);
      expect(report.status, header).toBe(200);
      expect(report.body.data.columns, header).toMatchObject({ name: 'Name', email: header });
      expect(report.body.data, header).toMatchObject({ create: 1, problems: [{ line: 2, problems: ['"not-an-email" is not an email address'] }] });
    }
  });

  it('a NUL character in a row is refused by line in the dry run and the import; the other rows are imported', async () => {
    const shop = await seedProgram(api);
    const good = `Good ${uid('g')}`;
    const csv = `name,email,group,tags\nNu\u0000l,,,\n${good},,,\nMail,m\u0000${uid('e')}@x.test,,\nTagged,,,a\u0000b\n`;
    const expected = [
      { line: 2, problems: ['name must not contain line breaks, tabs or other control characters'] },
      { line: 3 + 1, problems: ['email contains a NUL character'] },
      { line: 5, problems: ['tags contains a NUL character'] },
    ];
    const dry = await upload(shop.programId, csv, true);
    expect(dry.status, JSON.stringify(dry.body)).toBe(200);
    expect(dry.body.data).toMatchObject({ create: 1, problems: expected });
    const real = await upload(shop.programId, csv, false);
    expect(real.status, JSON.stringify(real.body)).toBe(200);
    expect(real.body.data).toMatchObject({ create: 1, problems: expected, written: { partners: 1 } });
    expect(await partnersNamed(shop.programId, good)).toEqual([{ name: good, email: null }]);
  });
});
