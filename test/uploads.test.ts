// The dashboard's file import over HTTP: each upload limit (two files, a file in another field,
// more than 10 fields, a file over 20 MB) is answered 400/413 with the import page and the limit
// named beside the file field; a post without a valid CSRF token or session is refused before its
// body is read (the server's socket had read a small part of it when the answer was sent), and a
// huge one is not read at all (the connection closes).
import { type IncomingMessage, createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDashboardSession } from '../src/app/accounts/access.js';
import { type SeededProgram, type TestApi, type TestDatabase, closeTestApi, count, openTestApi, seedProgram } from './support/harness.js';

let db: TestDatabase;
let api: TestApi;
let shop: SeededProgram;
/** The app behind a server of the test's own, which notes how much of each request its socket had read when the answer was done. */
let watched: { url: string; answered: { bytesRead: number; complete: boolean }[]; close: () => Promise<void> };

beforeAll(async () => {
  ({ db, api } = await openTestApi({ AFFIX_SECRET_KEY: 'uploads-secret-key-0123456789' }));
  shop = await seedProgram(api, { name: 'Upload Shop' });
  const answered: { bytesRead: number; complete: boolean }[] = [];
  const server = createServer((req, res) => {
    res.on('finish', () => answered.push({ bytesRead: req.socket.bytesRead, complete: req.complete }));
    api.app(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  watched = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    answered,
    close: () => new Promise<void>((resolve) => { server.close(() => resolve()); server.closeAllConnections(); }),
  };
}, 60_000);
afterAll(async () => {
  await watched?.close();
  await closeTestApi({ db, api });
});

const MB = 1024 * 1024;
const importPath = () => `/dashboard/programs/${shop.programId}/partners/import`;

/** A signed-in browser: its cookies, the import page, and the token its upload form carries. */
async function signedIn() {
  const { token } = await openDashboardSession(db.pool, shop.accountId, new Date());
  const session = `affix_dashboard=${token}`;
  const page = await fetch(`${api.url}${importPath()}`, { headers: { cookie: session } });
  expect(page.status).toBe(200);
  const html = await page.text();
  const action = /<form method="post" action="([^"]+)" enctype="multipart\/form-data"/.exec(html)?.[1] ?? '';
  const csrf = /[?&]_csrf=([^&"]+)/.exec(action)?.[1] ?? /name="_csrf" value="([^"]+)"/.exec(html)![1]!;
  const cookie = [session, ...page.headers.getSetCookie().map((c) => c.split(';')[0]!)].join('; ');
  return { cookie, csrf, html, action };
}

const BOUNDARY = 'affixTestBoundary7MA4YWxkTrZu0gW';
type Part = { name: string; value: string } | { name: string; filename: string; content: string } | { name: string; filename: string; bytes: number };
const partHead = (part: Part) =>
  `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${part.name}"${'filename' in part ? `; filename="${part.filename}"\r\nContent-Type: text/csv` : ''}\r\n\r\n`;
const CLOSING = `--${BOUNDARY}--\r\n`;

/** The form's bytes, generated as they are sent: a large file is one 64 KB chunk repeated, never held whole. */
function multipart(parts: Part[]): { length: number; body: Readable } {
  const CHUNK = Buffer.alloc(64 * 1024, 'a');
  let length = Buffer.byteLength(CLOSING);
  for (const part of parts) length += Buffer.byteLength(partHead(part)) + ('bytes' in part ? part.bytes : Buffer.byteLength('value' in part ? part.value : part.content)) + 2;
  function* pieces(): Generator<Buffer> {
    for (const part of parts) {
      yield Buffer.from(partHead(part));
      if ('bytes' in part) {
        for (let left = part.bytes; left > 0; left -= CHUNK.length) yield left >= CHUNK.length ? CHUNK : CHUNK.subarray(0, left);
      } else yield Buffer.from('value' in part ? part.value : part.content);
      yield Buffer.from('\r\n');
    }
    yield Buffer.from(CLOSING);
  }
  return { length, body: Readable.from(pieces(), { objectMode: false }) };
}

/** Posts the form on a connection of its own; resolves with the answer (the client may still be sending then). */
function post(base: string, path: string, form: { length: number; body: Readable }, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; headers: IncomingMessage['headers']; text: string }>((resolve, reject) => {
    const req = request(`${base}${path}`, {
      method: 'POST',
      agent: false,
      headers: { 'Content-Type': `multipart/form-data; boundary=${BOUNDARY}`, 'Content-Length': String(form.length), ...headers },
    });
    let answered = false;
    req.on('response', (res) => {
      answered = true;
      form.body.unpipe(req);
      form.body.destroy();
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => {
        req.destroy(); // what is left of a refused body is not sent
        resolve({ status: res.statusCode!, headers: res.headers, text });
      });
      res.on('error', () => resolve({ status: res.statusCode!, headers: res.headers, text }));
    });
    // Once answered, the server may close while the client is still sending: not a failure.
    req.on('error', (error) => (answered ? undefined : reject(error)));
    form.body.pipe(req);
  });
}

/** What the import page says beside its file field. */
const besideFile = (html: string) => /<p class="error" id="file-error">([^<]*)<\/p>/.exec(html)?.[1] ?? `(nothing beside the file field; the page says: ${html.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ').slice(0, 300)})`;

describe('the import: limits answered with the page, beside the file field', () => {
  it('the upload form carries its token in its action URL (a plain form, no script), not in a hidden field of its body', async () => {
    const { html, action, csrf } = await signedIn();
    expect(action).toBe(`${importPath()}?_csrf=${csrf}`);
    expect(csrf).toMatch(/^[0-9a-f]+\.[0-9a-f]+$/);
    expect(html).not.toMatch(/enctype="multipart\/form-data" novalidate><input type="hidden" name="_csrf"/);
  });

  it('two files: 400', async () => {
    const { cookie, csrf } = await signedIn();
    const reply = await post(api.url, `${importPath()}?_csrf=${csrf}`, multipart([
      { name: 'file', filename: 'a.csv', content: 'name,email\nAna,ana@two.test\n' },
      { name: 'file', filename: 'b.csv', content: 'name,email\nBen,ben@two.test\n' },
    ]), { cookie });
    expect(reply.status).toBe(400);
    expect(besideFile(reply.text)).toBe('Send one file at a time: this form takes one CSV file.');
    expect(reply.text).toContain('aria-invalid="true" aria-describedby="file-error"');
    expect(await count(db.pool, "SELECT 1 FROM partners WHERE email LIKE '%@two.test'")).toBe(0);
  });

  it('a file in another field: 400 naming the field', async () => {
    const { cookie, csrf } = await signedIn();
    const reply = await post(api.url, `${importPath()}?_csrf=${csrf}`, multipart([{ name: 'document', filename: 'a.csv', content: 'name\nAna\n' }]), { cookie });
    expect(reply.status).toBe(400);
    expect(besideFile(reply.text)).toBe('A file came in the field &quot;document&quot;: this form takes one CSV file, in its field &quot;file&quot;.');
  });

  it('more than 10 fields: 400', async () => {
    const { cookie, csrf } = await signedIn();
    const fields = Array.from({ length: 11 }, (_, i) => ({ name: `f${i}`, value: 'x' }));
    const reply = await post(api.url, `${importPath()}?_csrf=${csrf}`, multipart([...fields, { name: 'file', filename: 'a.csv', content: 'name\nAna\n' }]), { cookie });
    expect(reply.status).toBe(400);
    expect(besideFile(reply.text)).toBe('More than 10 fields were sent: this form takes at most 10.');
  });

  it('a file over 20 MB (streamed): 413', async () => {
    const { cookie, csrf } = await signedIn();
    const reply = await post(api.url, `${importPath()}?_csrf=${csrf}`, multipart([{ name: 'dry_run', value: 'true' }, { name: 'file', filename: 'big.csv', bytes: 20 * MB + 1 }]), { cookie });
    expect(reply.status).toBe(413);
    expect(besideFile(reply.text)).toBe('The file is larger than 20 MB: split it into files of at most 20 MB.');
    // Read to its end (the browser sees the page), so the connection is kept.
    expect(reply.headers.connection).not.toBe('close');
  }, 30_000);

  it('a file of exactly 20 MB is read (and checked: its rows have no name)', async () => {
    const { cookie, csrf } = await signedIn();
    const reply = await post(api.url, `${importPath()}?_csrf=${csrf}`, multipart([{ name: 'dry_run', value: 'true' }, { name: 'file', filename: 'big.csv', bytes: 20 * MB }]), { cookie });
    expect(reply.status).not.toBe(413);
    expect(reply.status).toBeLessThan(500);
  }, 30_000);

  it('a good file: the dry run, then the confirming form (multipart, token in its action) writes it', async () => {
    const { cookie, csrf } = await signedIn();
    const csv = 'name,email\nAna Up,ana@up.test\nBen Up,ben@up.test\n';
    const dry = await post(api.url, `${importPath()}?_csrf=${csrf}`, multipart([{ name: 'dry_run', value: 'true' }, { name: 'file', filename: 'ok.csv', content: csv }]), { cookie });
    expect(dry.status).toBe(200);
    expect(dry.text).toContain('Dry run: nothing was written');
    // The confirming form names the kept file (its token in a hidden field): the import reads the very bytes checked.
    const confirm = /<form method="post" action="([^"]+)">(?:<input type="hidden" name="_csrf" value="[^"]+">)?<input type="hidden" name="step" value="confirm">/.exec(dry.text)?.[1];
    expect(confirm).toMatch(new RegExp(`^${importPath()}/[0-9a-f-]{36}$`));
    const token = /name="_csrf" value="([^"]+)"/.exec(dry.text)![1]!;
    const written = await fetch(`${api.url}${confirm}`, { method: 'POST', headers: { cookie }, body: new URLSearchParams({ _csrf: token, step: 'confirm' }) });
    expect(written.status).toBe(200);
    expect(await written.text()).toContain('Written: 2 partners');
    expect(await count(db.pool, "SELECT 1 FROM partners WHERE email LIKE '%@up.test'")).toBe(2);
  });
});

describe('the import: refused before the body is read', () => {
  /** A 15 MB upload (under the limit) posted to the watched server: the answer, and how much of the body the server had read then. */
  async function refusedEarly(path: string, headers: Record<string, string>) {
    const before = watched.answered.length;
    const reply = await post(watched.url, path, multipart([{ name: 'dry_run', value: 'true' }, { name: 'file', filename: 'p.csv', bytes: 15 * MB }]), headers);
    await expect.poll(() => watched.answered.length).toBe(before + 1);
    return { reply, ...watched.answered[before]! };
  }

  it('no token: 403, with less than 1 MB of the 15 MB read', async () => {
    const { cookie } = await signedIn();
    const { reply, bytesRead, complete } = await refusedEarly(importPath(), { cookie });
    expect(reply.status).toBe(403);
    expect(reply.text).toContain('This form expired or did not come from this site.');
    expect({ complete, readUnder1MB: bytesRead < MB }).toEqual({ complete: false, readUnder1MB: true });
  }, 30_000);

  it('a wrong token (in the query or the header): 403, with less than 1 MB read', async () => {
    const { cookie, csrf } = await signedIn();
    const wrong = `${'0'.repeat(64)}.${csrf.split('.')[1]}`;
    for (const [path, headers] of [[`${importPath()}?_csrf=${wrong}`, { cookie }], [importPath(), { cookie, 'X-CSRF-Token': wrong }]] as const) {
      const { reply, bytesRead, complete } = await refusedEarly(path, headers);
      expect(reply.status).toBe(403);
      expect({ complete, readUnder1MB: bytesRead < MB }).toEqual({ complete: false, readUnder1MB: true });
    }
  }, 30_000);

  it('the token in the header works as in the action URL', async () => {
    const { cookie, csrf } = await signedIn();
    const reply = await post(api.url, importPath(), multipart([{ name: 'dry_run', value: 'true' }, { name: 'file', filename: 'h.csv', content: 'name,email\nHe Ader,he@header.test\n' }]), { cookie, 'X-CSRF-Token': csrf });
    expect(reply.status).toBe(200);
    expect(reply.text).toContain('Dry run: nothing was written');
  });

  it('no session: sent to sign in, with less than 1 MB read', async () => {
    const { csrf } = await signedIn();
    const { reply, bytesRead, complete } = await refusedEarly(`${importPath()}?_csrf=${csrf}`, {});
    expect(reply.status).toBe(303);
    expect(reply.headers.location).toBe('/dashboard/login');
    expect({ complete, readUnder1MB: bytesRead < MB }).toEqual({ complete: false, readUnder1MB: true });
  }, 30_000);

  it('a 200 MB body without a token: 403 at once, the connection closed, less than 1 MB read', async () => {
    const { cookie } = await signedIn();
    const before = watched.answered.length;
    const reply = await post(watched.url, importPath(), multipart([{ name: 'file', filename: 'huge.csv', bytes: 200 * MB }]), { cookie });
    expect(reply.status).toBe(403);
    expect(reply.headers.connection).toBe('close');
    await expect.poll(() => watched.answered.length).toBe(before + 1);
    const { bytesRead, complete } = watched.answered[before]!;
    expect({ complete, readUnder1MB: bytesRead < MB }).toEqual({ complete: false, readUnder1MB: true });
  }, 30_000);
});
