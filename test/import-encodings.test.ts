// The partner import's encodings and limits (docs/partners.md, "Encodings"; docs/api.md): a UTF-8
// mark is dropped, UTF-16 is decoded, bytes that are not UTF-8 are refused in words naming the fix;
// the JSON form takes a file as large as its schema allows.
import { describe, expect, it } from 'vitest';
import { openDashboardSession } from '../src/app/accounts/access.js';
import { decodeCsvBytes } from '../src/core/csv-encoding.js';
import { type TestApi, type TestDatabase, adminHeaders, seedProgram } from './support/harness.js';
import { useSeededApi } from './support/seeded-api.js';
import { uid } from './support/money.js';

let db: TestDatabase;
let api: TestApi;

useSeededApi({ env: { AFFIX_SECRET_KEY: 'import-encodings-test-secret-01' } }, (t) => ({ db, api } = t));

/** The file's bytes as the body (text/csv), as a script sends an Excel export. */
async function uploadBytes(programId: number, bytes: Uint8Array) {
  const reply = await fetch(`${api.url}/api/v1/admin/programs/${programId}/partners/import?dry_run=true`, {
    method: 'POST',
    headers: { ...adminHeaders, 'Content-Type': 'text/csv' },
    body: new Uint8Array(bytes),
  });
  return { status: reply.status, body: (await reply.json()) as any };
}

const utf16le = (text: string) => Uint8Array.from([0xff, 0xfe, ...Buffer.from(text, 'utf16le')]);
const utf16be = (text: string) => {
  const le = Buffer.from(text, 'utf16le');
  for (let i = 0; i < le.length; i += 2) [le[i], le[i + 1]] = [le[i + 1]!, le[i]!];
  return Uint8Array.from([0xfe, 0xff, ...le]);
};

describe('import encodings', () => {
  it('a UTF-16 file (LE or BE, with its mark) is read: its header and its accented name', async () => {
    const shop = await seedProgram(api);
    const email = `jose-${uid('e')}@x.test`;
    for (const bytes of [utf16le(`name,email\r\nJosé Müller,${email}\r\n`), utf16be(`name,email\r\nJosé Müller,${email}\r\n`)]) {
      const reply = await uploadBytes(shop.programId, bytes);
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);
      expect(reply.body.data).toMatchObject({ rows: 1, create: 1, problems: [], columns: { name: 'name', email: 'email' } });
    }
    expect(decodeCsvBytes(utf16le('name\r\nJosé\r\n'))).toBe('name\r\nJosé\r\n');
    expect(decodeCsvBytes(utf16be('name\r\nJosé\r\n'))).toBe('name\r\nJosé\r\n');
  });

  it('a UTF-8 file with its mark is read, the mark dropped', async () => {
    const shop = await seedProgram(api);
    const reply = await uploadBytes(shop.programId, Uint8Array.from([0xef, 0xbb, 0xbf, ...Buffer.from(`name,email\nZoë,zoe-${uid('e')}@x.test\n`)]));
    expect(reply.status).toBe(200);
    expect(reply.body.data).toMatchObject({ rows: 1, create: 1, columns: { name: 'name', email: 'email' } });
    expect(decodeCsvBytes(Uint8Array.from([0xef, 0xbb, 0xbf, 0x61]))).toBe('a');
  });

  it('a Latin-1 (Windows-1252) file is refused in words naming the encoding and the fix, nothing garbled', async () => {
    const shop = await seedProgram(api);
    const latin1 = Buffer.from(`name,email\nJosé Müller,jose-${uid('e')}@x.test\n`, 'latin1');
    const reply = await uploadBytes(shop.programId, latin1);
    expect(reply.status).toBe(400);
    expect(JSON.stringify(reply.body)).toContain('The file is not UTF-8 (it looks like Latin-1/Windows-1252): save it as UTF-8 (\\"CSV UTF-8\\" in Excel');
    expect(() => decodeCsvBytes(latin1)).toThrow(/not UTF-8.*save it as UTF-8/);
  });

  it('the JSON form {csv} takes a file over 100 kB (its schema allows 20,000,000 characters)', async () => {
    const shop = await seedProgram(api);
    const rows = Array.from({ length: 3000 }, (_, i) => `Partner ${i} ${'x'.repeat(20)},p${i}-${uid('e')}@x.test`);
    const csv = `name,email\n${rows.join('\n')}\n`;
    expect(csv.length).toBeGreaterThan(150_000);
    const reply = await api.request('POST', `/api/v1/admin/programs/${shop.programId}/partners/import`, { body: { csv, dry_run: true }, headers: adminHeaders });
    expect(reply.status, JSON.stringify(reply.body).slice(0, 300)).toBe(200);
    expect(reply.body.data).toMatchObject({ rows: 3000, create: 3000, problems: [] });
  });

  it('the dashboard upload decodes UTF-16 and refuses a Latin-1 file beside its field, with the fix', async () => {
    const shop = await seedProgram(api);
    const importPath = `/dashboard/programs/${shop.programId}/partners/import`;
    const { token } = await openDashboardSession(db.pool, shop.accountId, new Date());
    const session = `affix_dashboard=${token}`;
    const page = await fetch(`${api.url}${importPath}`, { headers: { cookie: session } });
    const html = await page.text();
    const action = /<form method="post" action="([^"]+)" enctype="multipart\/form-data"/.exec(html)![1]!.replaceAll('&amp;', '&');
    const cookie = [session, ...page.headers.getSetCookie().map((c) => c.split(';')[0]!)].join('; ');
    const send = async (bytes: Uint8Array) => {
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(bytes)], { type: 'text/csv' }), 'partners.csv');
      const reply = await fetch(new URL(action, api.url), { method: 'POST', headers: { cookie }, body: form });
      return { status: reply.status, html: await reply.text() };
    };
    const utf16 = await send(utf16le(`name,email\r\nJosé Müller,jose-${uid('e')}@x.test\r\n`));
    expect(utf16.status).toBe(200);
    expect(utf16.html).toContain('José Müller');
    const latin1 = await send(Buffer.from(`name,email\nJosé Müller,jose-${uid('e')}@x.test\n`, 'latin1'));
    expect(latin1.status).toBe(400);
    expect(latin1.html).toContain('The file is not UTF-8 (it looks like Latin-1/Windows-1252): save it as UTF-8');
  });
});
