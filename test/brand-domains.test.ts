// A brand's own hosts (docs/domains.md): the Host decides the brand. partners.<brand> serves only
// that brand's partner portal, go.<brand> only redirects that program's codes, an unknown host
// gets a plain 404, and the service's own host is unchanged. One person enrolled with both
// brands sees each brand's program on its host only.
import { request } from 'node:http';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256 } from '../src/core/secrets.js';
import { mail } from '../src/core/mail.js';
import { queueMails } from '../src/db/outbound/mail-outbox.js';
import { sendNextMail } from '../src/app/outbound/mail.js';
import { type TestApi, type TestDatabase, type SeededProgram, adminHeaders, closeTestApi, openTestApi, seedProgram } from './support/harness.js';
import { signedInVisitor } from './support/dashboard-visitor.js';

let db: TestDatabase;
let api: TestApi;

beforeAll(async () => {
  ({ db, api } = await openTestApi({ AFFIX_SECRET_KEY: 'brand-domains-test-key-0123456789' }));
});
afterAll(async () => closeTestApi({ db, api }));

interface Reply {
  status: number;
  type: string;
  location: string | undefined;
  text: string;
}

/** One request with this Host header (fetch may not set it). */
function hit(host: string, path: string, options: { cookie?: string; method?: string; json?: unknown } = {}): Promise<Reply> {
  const { port } = new URL(api.url);
  const body = options.json === undefined ? undefined : JSON.stringify(options.json);
  const headers = { host, ...(options.cookie ? { cookie: options.cookie } : {}), ...(body ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) } : {}) };
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method: options.method ?? 'GET', headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, type: String(res.headers['content-type'] ?? ''), location: res.headers.location, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const admin = async (method: string, path: string, body?: unknown) => (await api.request(method, `/api/v1/admin${path}`, { body, headers: adminHeaders })).body.data;

async function brandDashboard(shop: SeededProgram, password: string) {
  await admin('PATCH', `/accounts/${shop.accountId}`, { password });
  const email = (await db.pool.query('SELECT email FROM accounts WHERE id = $1', [shop.accountId])).rows[0].email;
  return signedInVisitor(api.url, email, password);
}

/** A portal session for this email, as the mailed link would make. */
async function portalCookie(email: string): Promise<string> {
  const token = randomBytes(32).toString('base64url');
  await db.pool.query(`INSERT INTO partner_sessions (token_hash, email, expires_at) VALUES ($1, $2, now() + interval '1 hour')`, [sha256(token), email]);
  return `affix_portal=${token}`;
}

describe('brand domains', () => {
  let alpha: SeededProgram;
  let beta: SeededProgram;
  let patAlpha: number;
  let patBeta: number;
  let cookie: string;
  const email = 'pat@both.example';

  beforeAll(async () => {
    alpha = await seedProgram(api, { name: 'Alpha Outdoor', domain: 'alpha-outdoor.example' });
    beta = await seedProgram(api, { name: 'Beta Books', domain: 'beta-books.example' });
    patAlpha = (await admin('POST', `/programs/${alpha.programId}/partners`, { name: 'Pat', email })).id;
    patBeta = (await admin('POST', `/programs/${beta.programId}/partners`, { name: 'Pat', email })).id;
    await admin('POST', `/programs/${alpha.programId}/links`, { partner_id: patAlpha, short_link: 'pat-alpha' });
    await admin('POST', `/programs/${beta.programId}/links`, { partner_id: patBeta, short_link: 'pat-beta' });
    await db.pool.query('UPDATE partners SET invited_at = now() WHERE id = ANY($1)', [[patAlpha, patBeta]]);
    cookie = await portalCookie(email);
  });

  it('the settings form refuses a bad host and a taken one, saves good ones and audits the change', async () => {
    const a = await brandDashboard(alpha, 'alpha owner password 1');
    const path = `/dashboard/programs/${alpha.programId}/settings/domains`;
    expect((await a.get(path)).text).toContain('Partner portal host');
    const bad = await a.post(path, { portal_host: 'https://partners.alpha.test/x', links_host: '203.0.113.9' });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('Give the host name alone: no https://, path or port (like partners.example.com).');
    expect(bad.text).toContain('Give a host name, not an IP address.');
    expect((await a.post(path, { portal_host: 'Partners.Alpha.test', links_host: 'go.alpha.test' })).status).toBe(303);
    expect((await a.get(path)).text).toContain('value="partners.alpha.test"');

    const b = await brandDashboard(beta, 'beta owner password 1');
    const bPath = `/dashboard/programs/${beta.programId}/settings/domains`;
    await b.get(bPath);
    const taken = await b.post(bPath, { portal_host: 'partners.alpha.test', links_host: '' });
    expect(taken.status).toBe(400);
    expect(taken.text).toContain('This host is already in use: choose another.');
    expect((await b.post(bPath, { portal_host: 'partners.beta.test', links_host: '' })).status).toBe(303);

    const audit = await db.pool.query(`SELECT action FROM audit_log WHERE program_id = $1 AND action = 'program_domains.updated'`, [alpha.programId]);
    expect(audit.rowCount).toBe(1);
  });

  it("each brand's portal host shows its own program only; the other's enrollment is the same 404 as none", async () => {
    const onAlpha = await hit('partners.alpha.test', '/portal', { cookie });
    expect(onAlpha.status).toBe(200);
    expect(onAlpha.text).toContain('Alpha Outdoor');
    expect(onAlpha.text).not.toContain('Beta Books');
    const onBeta = await hit('partners.beta.test', '/portal', { cookie });
    expect(onBeta.text).toContain('Beta Books');
    expect(onBeta.text).not.toContain('Alpha Outdoor');

    const own = await hit('partners.alpha.test', `/portal/programs/${patAlpha}`, { cookie });
    expect(own.status).toBe(200);
    // Alpha's links host is what the partner copies and what the QR code holds.
    expect(own.text).toContain('data-copy="https://go.alpha.test/pat-alpha"');
    expect(own.text).toContain('data-link="https://go.alpha.test/pat-alpha"');
    const none = await hit('partners.alpha.test', '/portal/programs/999999999', { cookie });
    for (const path of [`/portal/programs/${patBeta}`, `/portal/programs/${patBeta}/referrals`, `/portal/programs/${patBeta}/referrals.csv`]) {
      const other = await hit('partners.alpha.test', path, { cookie });
      expect(other.status, path).toBe(404);
      expect(other.text, path).not.toContain('Beta Books');
    }
    const tokenless = (text: string) => text.replace(/name="_csrf" value="[^"]+"/g, '');
    expect(tokenless((await hit('partners.alpha.test', `/portal/programs/${patBeta}`, { cookie })).text)).toBe(tokenless(none.text));
    // Beta has no links host: its links stay the referral URL on its site.
    expect((await hit('partners.beta.test', `/portal/programs/${patBeta}`, { cookie })).text).toContain('data-copy="https://beta-books.example/?aff=pat-beta"');

    // The service's own host is unchanged: both programs.
    const service = await hit(new URL(api.url).host, '/portal', { cookie });
    expect(service.text).toContain('Alpha Outdoor');
    expect(service.text).toContain('Beta Books');
  });

  it('a portal host leads / to the portal and answers a plain 404 for the dashboard, the admin API and tracking', async () => {
    const root = await hit('partners.alpha.test', '/');
    expect([root.status, root.location]).toEqual([302, '/portal']);
    expect((await hit('partners.alpha.test', '/portal/login')).status).toBe(200);
    for (const [method, path] of [['GET', '/dashboard'], ['GET', '/dashboard/login'], ['GET', '/api/v1/admin/programs'], ['POST', '/api/v1/track/click'], ['GET', '/healthz'], ['GET', '/pat-alpha']]) {
      const reply = await hit('partners.alpha.test', path!, { method });
      expect([reply.status, reply.type, reply.text], `${method} ${path}`).toEqual([404, 'text/plain; charset=utf-8', 'Not found\n']);
    }
  });

  it("the reverse proxy's certificate check knows the brands' hosts only", async () => {
    const own = new URL(api.url).host;
    expect((await hit(own, '/brand-hosts/check?domain=partners.alpha.test')).status).toBe(200);
    expect((await hit(own, '/brand-hosts/check?domain=GO.ALPHA.TEST')).status).toBe(200);
    expect((await hit(own, '/brand-hosts/check?domain=someone-else.test')).status).toBe(404);
    expect((await hit('partners.alpha.test', '/brand-hosts/check?domain=partners.alpha.test')).status).toBe(404);
  });

  it("a portal host serves its own program's apply page, not another brand's", async () => {
    await admin('PATCH', `/programs/${alpha.programId}/application-settings`, { applications_open: true, slug: 'alpha-outdoor' });
    await admin('PATCH', `/programs/${beta.programId}/application-settings`, { applications_open: true, slug: 'beta-books' });
    const own = await hit('partners.alpha.test', '/apply/alpha-outdoor');
    expect(own.status).toBe(200);
    expect(own.text).toContain('Become a partner of Alpha Outdoor');
    for (const path of ['/apply/beta-books', `/apply/${beta.programId}`]) {
      const other = await hit('partners.alpha.test', path);
      expect(other.status, path).toBe(404);
      expect(other.text, path).not.toContain('Beta Books');
    }
    expect((await hit(new URL(api.url).host, '/apply/beta-books')).status).toBe(200);
  });

  it('a click and a webhook stay on the service host: a brand host answers them 404', async () => {
    const click = { affiliate_url: 'https://alpha-outdoor.example/?aff=pat-alpha' };
    const onBrand = await hit('partners.alpha.test', '/api/v1/track/click', { method: 'POST', json: click });
    expect([onBrand.status, onBrand.text]).toEqual([404, 'Not found\n']);
    expect((await hit('go.alpha.test', '/api/v1/track/click', { method: 'POST', json: click })).status).toBe(404);
    expect((await hit('partners.alpha.test', `/api/v1/webhooks/stripe/${alpha.programId}`, { method: 'POST', json: {} })).status).toBe(404);
    expect((await hit(new URL(api.url).host, '/api/v1/track/click', { method: 'POST', json: click })).status).toBe(200);
  });

  it('an unknown host gets a plain 404 that names nothing', async () => {
    for (const path of ['/', '/portal', '/dashboard', '/apply/1']) {
      const reply = await hit('someone-else.test', path);
      expect([reply.status, reply.type, reply.text], path).toEqual([404, 'text/plain; charset=utf-8', 'Not found\n']);
    }
  });

  it("the links host redirects its own program's codes and 404s another program's", async () => {
    const own = await hit('go.alpha.test', '/pat-alpha');
    expect([own.status, own.location]).toEqual([302, 'https://alpha-outdoor.example/?aff=pat-alpha']);
    expect((await hit('go.alpha.test', '/PAT-ALPHA')).location).toBe('https://alpha-outdoor.example/?aff=pat-alpha');
    for (const path of ['/pat-beta', '/no-such-code', '/portal', '/', '/pat-alpha/x']) {
      const reply = await hit('go.alpha.test', path);
      expect([reply.status, reply.text], path).toEqual([404, 'Not found\n']);
    }
  });

  it("a sign-in link asked for on the brand's host leads back to it", async () => {
    const { port } = new URL(api.url);
    const body = new URLSearchParams({ email }).toString();
    // The login form's CSRF token and cookie first.
    const form = await new Promise<{ csrf: string; cookies: string }>((resolve, reject) => {
      request({ host: '127.0.0.1', port, path: '/portal/login', headers: { host: 'partners.alpha.test' } }, (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ csrf: /name="_csrf" value="([^"]+)"/.exec(text)![1]!, cookies: (res.headers['set-cookie'] ?? []).map((c) => c.split(';')[0]).join('; ') }));
      }).on('error', reject).end();
    });
    const status = await new Promise<number>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, path: '/portal/login', method: 'POST', headers: { host: 'partners.alpha.test', origin: 'https://partners.alpha.test', cookie: form.cookies, 'content-type': 'application/x-www-form-urlencoded' } }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode!));
      });
      req.on('error', reject);
      req.end(`${body}&_csrf=${encodeURIComponent(form.csrf)}`);
    });
    expect(status).toBe(200);
    const mail = await db.pool.query(`SELECT body FROM mail_outbox WHERE to_email = $1 AND kind = 'partner_sign_in' ORDER BY id DESC LIMIT 1`, [email]);
    expect(mail.rows[0].body).toContain('Sign in: https://partners.alpha.test/portal/auth?token=');
  });

  it("every partner mail of a program with a portal host links to that host when sent (a reminder written with the service's address)", async () => {
    const written = mail('payout_details_reminder', {
      programId: alpha.programId, to: 'remind@alpha.test', senderName: 'Alpha Outdoor', subject: 'Add your payout details',
      body: 'Add them in your partner portal: {{affix}}/portal/programs/7#payout-details\nOr ' + api.url + '/portal\n', dedupeKey: `remind-test-${alpha.programId}`,
    });
    await queueMails(db.pool, [written]);
    const sent: { to: string; text: string }[] = [];
    const mailer = { send: async (m: { to: string; text: string }) => void sent.push(m) };
    while (await sendNextMail({ pool: db.pool, mailer, secretKey: undefined, publicUrl: api.url, now: () => new Date() }));
    const text = sent.find((m) => m.to === 'remind@alpha.test')!.text;
    expect(text).toBe('Add them in your partner portal: https://partners.alpha.test/portal/programs/7#payout-details\nOr https://partners.alpha.test/portal\n');
  });
});
