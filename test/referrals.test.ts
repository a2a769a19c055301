// Issue 44, item 3: a partner's referrals. A partner never sees another partner's or another
// program's referrals (the same 404 as an id that does not exist, on the page and every CSV);
// customers' emails are masked; the click keeps the link builder's sub-ID; a partner's own link
// code (on the application page or in the portal) follows the format, reserved-word and
// uniqueness rules, and approval gives the applicant the code they chose when it is still free.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOwnLink } from '../src/app/partners/portal.js';
import { sha256 } from '../src/core/secrets.js';
import { type TestApi, type TestDatabase, adminHeaders, bearer, closeTestApi, openTestApi, seedProgram, trackClick } from './support/harness.js';
import { uid } from './support/money.js';

let db: TestDatabase;
let api: TestApi;

beforeAll(async () => {
  ({ db, api } = await openTestApi({ AFFIX_SECRET_KEY: 'referrals-test-key-0123456789abcdef' }));
});
afterAll(async () => closeTestApi({ db, api }));

const must = async (method: string, path: string, body?: unknown) => {
  const reply = await api.request(method, `/api/v1/admin${path}`, { body, headers: adminHeaders });
  if (reply.status >= 300) throw new Error(`${method} ${path}: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.data;
};
const form = (path: string, fields: Record<string, string>, ip: string) =>
  api.request('POST', path, { raw: new URLSearchParams(fields).toString(), headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'X-Forwarded-For': ip } });

/** A signed-in portal cookie for this email (the session row as sign-in writes it). */
async function portalCookie(email: string) {
  const token = randomBytes(24).toString('base64url');
  await db.pool.query("INSERT INTO partner_sessions (token_hash, email, expires_at) VALUES ($1, lower($2), now() + interval '1 hour')", [sha256(token), email]);
  return { cookie: `affix_portal=${token}` };
}
const get = async (path: string, headers: Record<string, string>) => {
  const response = await fetch(`${api.url}${path}`, { headers, redirect: 'manual' });
  // The page's CSRF token differs per answer; nothing else may.
  return { status: response.status, text: (await response.text()).replace(/name="_csrf" value="[^"]+"/g, '') };
};

describe('a partner sees only their own referrals', () => {
  it("another partner's or program's referrals answer the same 404 as none, on the page and every CSV; emails are masked", async () => {
    const alpha = await seedProgram(api, { name: 'Alpha Referrals' });
    const beta = await seedProgram(api, { name: 'Beta Referrals' });
    const partner = async (programId: number, name: string, email: string, code: string) => {
      const p = await must('POST', `/programs/${programId}/partners`, { name, email });
      await must('POST', `/programs/${programId}/links`, { partner_id: p.id, short_link: code });
      await db.pool.query('UPDATE partners SET invited_at = now() WHERE id = $1', [p.id]);
      return p.id as number;
    };
    const anaAlpha = await partner(alpha.programId, 'Ana', 'ana@referrals.example', 'ana-alpha-r');
    const anaBeta = await partner(beta.programId, 'Ana B', 'ana@referrals.example', 'ana-beta-r');
    const bob = await partner(alpha.programId, 'Bob', 'bob@referrals.example', 'bob-alpha-r');
    const sale = async (apiKey: string, code: string, customer: string, cents: number) => {
      const clickId = await trackClick(api, `https://shop.example.com/?aff=${code}`);
      const reply = await api.request('POST', '/api/v1/track/sale', { body: { transaction_id: uid('t'), amount_cents: cents, click_id: clickId, customer_key: customer }, headers: bearer(apiKey) });
      expect(reply.status).toBe(200);
    };
    await sale(alpha.apiKey, 'ana-alpha-r', 'jane.doe@buyer.example', 10_000);
    await sale(beta.apiKey, 'ana-beta-r', 'zoe@beta-buyer.example', 20_000);
    await sale(alpha.apiKey, 'bob-alpha-r', 'bob.customer@secret.example', 30_000);

    const ana = await portalCookie('ana@referrals.example');
    const own = await get(`/portal/programs/${anaAlpha}/referrals`, ana);
    expect(own.status).toBe(200);
    expect(own.text).toContain('j***@buyer.example');
    expect(own.text).not.toContain('jane.doe');
    // Her Beta customer is on her Beta page only; Bob's is on none of hers.
    expect(own.text).not.toContain('beta-buyer.example');
    expect(own.text).not.toContain('secret.example');
    expect((await get(`/portal/programs/${anaBeta}/referrals`, ana)).text).toContain('z***@beta-buyer.example');

    const none = await get('/portal/programs/999999999/referrals', ana);
    expect(none.status).toBe(404);
    for (const path of ['referrals', 'referrals.csv', 'commissions.csv', 'sub-ids.csv']) {
      const other = await get(`/portal/programs/${bob}/${path}`, ana);
      expect(other.status, path).toBe(404);
      expect(other.text, path).toBe((await get(`/portal/programs/999999999/${path}`, ana)).text);
      expect(other.text).not.toContain('secret.example');
    }
    const csv = await get(`/portal/programs/${anaAlpha}/referrals.csv`, ana);
    expect(csv.text.split('\r\n').slice(1, -1).map((l) => l.split(',').filter((_, i) => i !== 1))).toEqual([['j***@buyer.example', 'customer', '1', 'USD', '100.00', '20.00']]);
    // Not signed in: the sign-in page, nothing else.
    expect((await get(`/portal/programs/${anaAlpha}/commissions.csv`, {})).status).toBe(303);
  });
});

describe('long lists', () => {
  it('the customers come 50 to a page, newest first, the next page by its link; the CSV holds them all', async () => {
    const shop = await seedProgram(api);
    const email = `${uid('many')}@referrals.example`;
    await db.pool.query('UPDATE partners SET email = $2, invited_at = now() WHERE id = $1', [shop.partnerId, email]);
    await db.pool.query(
      `INSERT INTO customers (program_id, customer_key, status, partner_id, lead_at) SELECT $1, 'lead' || i || '@many.example', 'lead', $2, now() FROM generate_series(1, 51) i`,
      [shop.programId, shop.partnerId],
    );
    const cookie = await portalCookie(email);
    const first = await get(`/portal/programs/${shop.partnerId}/referrals`, cookie);
    const masked = (text: string) => [...text.matchAll(/<td data-label="Customer">([^<]+)<\/td>/g)].map((m) => m[1]);
    expect(masked(first.text)).toHaveLength(50);
    const older = /<a href="([^"]+)">Older customers<\/a>/.exec(first.text)![1]!.replaceAll('&amp;', '&');
    const second = await get(older, cookie);
    expect(masked(second.text)).toEqual(['l***@many.example']);
    expect(second.text).not.toContain('Older customers');
    expect((await get(`/portal/programs/${shop.partnerId}/referrals.csv`, cookie)).text.split('\r\n').filter(Boolean)).toHaveLength(1 + 51);
  });
});

describe('sub-IDs', () => {
  it("the click keeps the link builder's sub-ID; one the builder would not make is left out, the click still counts", async () => {
    const shop = await seedProgram(api);
    const tagged = await trackClick(api, `https://shop.example.com/pricing?aff=${shop.shortLink}&sub_id=yt-video-7&utm_source=youtube`);
    const odd = await trackClick(api, `https://shop.example.com/?aff=${shop.shortLink}&sub_id=${encodeURIComponent('a b<script>')}`);
    const plain = await trackClick(api, `https://shop.example.com/?aff=${shop.shortLink}`);
    const { rows } = await db.pool.query('SELECT click_id, sub_id FROM clicks WHERE click_id = ANY ($1::text[])', [[tagged, odd, plain]]);
    expect(Object.fromEntries(rows.map((r) => [r.click_id, r.sub_id]))).toEqual({ [tagged]: 'yt-video-7', [odd]: null, [plain]: null });
  });
});

describe('own link codes', () => {
  async function openProgram() {
    const shop = await seedProgram(api, { commission_rate: 10 });
    const slug = uid('codes').replaceAll('_', '-').toLowerCase();
    await must('PATCH', `/programs/${shop.programId}/application-settings`, { applications_open: true, slug, terms_text: 'Be nice.' });
    return { shop, slug };
  }
  const applicant = (email: string, code: string) => ({ name: 'Cleo', email, accept_terms: 'on', terms_version: '1', code });

  it('the application page refuses a malformed, reserved or taken code beside its field; approval gives the chosen code, or a random one when it was taken since', async () => {
    const { shop, slug } = await openProgram();
    let attempt = 0;
    const refused = async (code: string) => {
      attempt += 1;
      const reply = await form(`/apply/${slug}`, applicant(`${uid('a')}@codes.example`, code), `203.0.113.${100 + attempt}`);
      expect(reply.status, code).toBe(400);
      return /<p class="error" id="code-error">([^<]+)<\/p>/.exec(reply.body)?.[1];
    };
    expect(await refused('x')).toBe('Link code must be 3 to 64 letters, digits, - or _.');
    expect(await refused('no spaces')).toBe('Link code must be 3 to 64 letters, digits, - or _.');
    for (const word of ['admin', 'API', 'Dashboard', 'portal', 'www', 'affix', 'affix-test-1', 'test']) {
      expect(await refused(word)).toBe('This code is reserved: choose another (not admin, api, dashboard, portal, www, test or a word starting with affix).');
    }
    // Codes are one namespace (?aff= finds a link without its program): another program's, in any case, is taken.
    expect(await refused(shop.shortLink.toUpperCase())).toBe('This code is already taken: choose another.');

    const cleo = `${uid('cleo')}@codes.example`;
    expect((await form(`/apply/${slug}`, applicant(cleo, 'cleo-reviews'), '203.0.113.71')).status).toBe(200);
    const dan = `${uid('dan')}@codes.example`;
    expect((await form(`/apply/${slug}`, applicant(dan, 'dan-deals'), '203.0.113.72')).status).toBe(200);
    const ids = Object.fromEntries((await must('GET', `/programs/${shop.programId}/applications`)).applications.map((a: { email: string; partner_id: number }) => [a.email, a.partner_id]));
    // Someone takes Dan's code before the brand approves him.
    await must('POST', `/programs/${shop.programId}/links`, { partner_id: shop.partnerId, short_link: 'DAN-deals' });
    await must('POST', `/programs/${shop.programId}/partners/bulk`, { action: 'approve', partner_ids: [ids[cleo], ids[dan]] });
    const codeOf = async (partnerId: number) => (await db.pool.query('SELECT short_link FROM referral_links WHERE partner_id = $1', [partnerId])).rows.map((r) => r.short_link);
    expect(await codeOf(ids[cleo])).toEqual(['cleo-reviews']);
    expect(await codeOf(ids[dan])).toEqual([expect.stringMatching(/^[0-9a-f]{10}$/)]);
  });

  it('in the portal: a reserved or malformed code is refused beside its field, a free one becomes a new link', async () => {
    const shop = await seedProgram(api);
    await must('PATCH', `/programs/${shop.programId}/payout-settings`, { partners_can_create_links: true });
    const email = `${uid('own')}@codes.example`;
    const partnerId = (await must('POST', `/programs/${shop.programId}/partners`, { name: 'Own', email })).id;
    await db.pool.query('UPDATE partners SET invited_at = now() WHERE id = $1', [partnerId]);
    const deps = { pool: db.pool, secretBox: null, now: () => new Date(), brandAccountId: null };
    const problem = async (code: string) => ((await createOwnLink(deps, email, partnerId, { short_link: code }).catch((e) => e)) as { init: { fields: Record<string, string> } }).init.fields.short_link;
    expect(await problem('Portal')).toBe('This code is reserved: choose another (not admin, api, dashboard, portal, www, test or a word starting with affix).');
    expect(await problem('a/b')).toBe('Link code must be 3 to 64 letters, digits, - or _.');
    expect(await problem(shop.shortLink.toUpperCase())).toBe('This code is already taken: choose another.');
    expect((await createOwnLink(deps, email, partnerId, { short_link: 'own-choice' })).short_link).toBe('own-choice');
  });
});
