// `affix admin partner|group|application|commissions` against a running API: the CLI is a thin
// client of the admin API, so each command's answer is the API's.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, type TestApi, type TestDatabase, closeTestApi, openTestApi, seedProgram } from './support/harness.js';
import { apiSale, uid } from './support/money.js';

const run = promisify(execFile);
let db: TestDatabase;
let api: TestApi;
let dir = '';

beforeAll(async () => {
  ({ db, api } = await openTestApi({}, { queueUrl: 'own' }));
  dir = await mkdtemp(join(tmpdir(), 'affix-partner-cli-'));
});
afterAll(async () => {
  await closeTestApi({ db, api });
  await rm(dir, { recursive: true, force: true });
});

const affix = async (...args: string[]) => {
  const { stdout } = await run(process.execPath, ['bin/affix.mjs', 'admin', ...args], { env: { ...process.env, AFFIX_ADMIN_TOKEN: ADMIN_TOKEN, AFFIX_API_URL: api.url } });
  return stdout;
};
const json = async (...args: string[]) => JSON.parse(await affix(...args));

describe('affix admin for partners', () => {
  it('groups, partners, a ban and its lift, bulk approval, import with a dry run, export', async () => {
    const shop = await seedProgram(api, { commission_rate: 10 });
    const p = String(shop.programId);
    const group = await json('group', 'create', '--program', p, '--name', 'Creators', '--slug', 'creators', '--type', 'percent', '--rate', '25', '--hold-days', '14', '--minimum', 'USD=5000', '--open');
    expect(group).toMatchObject({ name: 'Creators', commission_rate: 25, hold_days: 14, payout_minimums_cents: { USD: 5000 }, applications_open: true });
    const ana = await json('partner', 'create', '--program', p, '--name', 'Ana', '--email', `${uid('ana')}@creators.test`, '--group', String(group.id), '--tag', 'video');
    expect(ana).toMatchObject({ name: 'Ana', group_id: group.id, tags: ['video'], terms: { source: 'group', commission_rate: 25 } });
    const listed = await json('partner', 'list', '--program', p, '--tag', 'video');
    expect(listed.partners.map((x: any) => x.id)).toEqual([ana.id]);

    const banned = await json('partner', 'ban', String(shop.partnerId), '--program', p, '--reason', 'cookie stuffing');
    expect(banned).toMatchObject({ action: 'ban', changed: 1 });
    expect(await json('partner', 'unban', '--program', p, '--matching', '--status', 'banned')).toMatchObject({ action: 'unban', changed: 1 });

    await apiSale(api, shop, 10_000);
    await apiSale(api, shop, 20_000);
    expect(await json('commissions', 'bulk', 'approve', '--program', p, '--matching', '--partner', String(shop.partnerId), '--reason', 'checked')).toMatchObject({ changed: 2 });

    const file = join(dir, 'rewardful.csv');
    await writeFile(file, `first_name,last_name,email,token,campaign\nRe,Ward,${uid('rw')}@x.test,${uid('rw').replaceAll('_', '-')},creators\nBad,Row,not-mail,,\n`);
    const dry = await json('partner', 'import', file, '--program', p, '--dry-run');
    expect(dry).toMatchObject({ dry_run: true, create: 1, problems: [{ line: 3, problems: ['"not-mail" is not an email address'] }] });
    expect(await json('partner', 'import', file, '--program', p)).toMatchObject({ written: { partners: 1, links: 1 } });
    const csv = await affix('partner', 'export', '--program', p, '--group', String(group.id));
    expect(csv.split('\r\n')[0]).toBe('partner_id,name,email,status,group,tags,referral_codes,created_at');
    expect(csv).toContain('Re Ward');

    const settings = join(dir, 'questions.txt');
    await writeFile(settings, 'website | Your website | url | required\n');
    expect(await json('application', 'settings', '--program', p, '--open', '--slug', uid('cli').replaceAll('_', '-').toLowerCase(), '--questions-file', settings)).toMatchObject({
      applications_open: true,
      fields: [{ key: 'website', label: 'Your website', type: 'url', required: true }],
    });
  }, 90_000);

  it('import reads the file as bytes, decoded as the dashboard and the API decode them: UTF-16 and a mark read, Latin-1 refused in words', async () => {
    const shop = await seedProgram(api);
    const p = String(shop.programId);
    const email = `${uid('jose')}@x.test`;
    const utf16 = join(dir, 'excel-unicode.csv');
    await writeFile(utf16, Buffer.from([0xff, 0xfe, ...Buffer.from(`name,email\r\nJosé Müller,${email}\r\n`, 'utf16le')]));
    expect(await json('partner', 'import', utf16, '--program', p, '--dry-run')).toMatchObject({ dry_run: true, create: 1, problems: [], columns: { name: 'name', email: 'email' } });
    expect(await json('partner', 'import', utf16, '--program', p)).toMatchObject({ written: { partners: 1 } });
    expect((await db.pool.query('SELECT name FROM partners WHERE program_id = $1 AND email = $2', [shop.programId, email])).rows).toEqual([{ name: 'José Müller' }]);

    const latin1 = join(dir, 'latin1.csv');
    await writeFile(latin1, Buffer.from(`name,email\nJosé Müller,${uid('jose')}@x.test\n`, 'latin1'));
    const refused = await affix('partner', 'import', latin1, '--program', p, '--dry-run').then(
      () => null,
      (error: { code: number; stderr: string }) => error,
    );
    expect(refused?.code).toBe(5);
    expect(refused?.stderr).toContain('The file is not UTF-8 (it looks like Latin-1/Windows-1252): save it as UTF-8');
  }, 90_000);

  it('import takes the group mapping and the columns to ignore: --map-group and --ignore-column', async () => {
    const shop = await seedProgram(api);
    const file = join(dir, 'campaigns.csv');
    await writeFile(file, `email,first_name,last_name,paypal_email,campaign\n${uid('m')}@x.test,Mia,Map,mia.pay@x.test,Default Campaign\n`);
    const dry = await json('partner', 'import', file, '--program', String(shop.programId), '--dry-run', '--map-group', 'Default Campaign=new:Creators', '--ignore-column', 'paypal_email');
    expect(dry).toMatchObject({ dry_run: true, create: 1, problems: [], ignored_columns: ['paypal_email'] });
    expect(dry.groups).toEqual([{ source: 'Default Campaign', rows: 1, maps_to: 'new', group_id: null, group_name: 'Creators' }]);
  }, 90_000);
});
