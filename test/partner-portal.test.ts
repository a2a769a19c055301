// The partner portal over HTTP with a real SMTP receiver: invitations mail a one-time link
// (hashed at rest, 15 minutes, rate-limited requests, no address enumeration); a partner sees
// exactly their own rows across programs, never another partner's nor customers' emails.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type TestApi, type TestDatabase, adminHeaders, bearer, closeTestApi, openTestApi, seedProgram, trackClick } from './support/harness.js';
import { outboxSent, startSmtpReceiver } from './support/smtp.js';

let db: TestDatabase;
let api: TestApi;
let smtp: Awaited<ReturnType<typeof startSmtpReceiver>>;

beforeAll(async () => {
  smtp = await startSmtpReceiver();
  ({ db, api } = await openTestApi({ AFFIX_SECRET_KEY: 'partner-portal-test-key-0123456789', AFFIX_SMTP_URL: smtp.url, AFFIX_WORKER_POLL_SECONDS: '0.5' }, { queueUrl: 'own', workers: true }));
});
afterAll(async () => {
  await closeTestApi({ db, api });
  await smtp.close();
});

/** A browser of one's own: cookies kept, CSRF tokens read from the page's forms. */
function browser(ip?: string) {
  const jar = new Map<string, string>();
  let lastPage = '';
  async function go(method: string, path: string, form?: Record<string, string> | [string, string][]) {
    const headers: Record<string, string> = { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; '), ...(ip ? { 'x-forwarded-for': ip } : {}) };
    let body: string | undefined;
    if (form) {
      const csrf = /name="_csrf" value="([^"]+)"/.exec(lastPage)?.[1] ?? '';
      body = new URLSearchParams([['_csrf', csrf], ...(Array.isArray(form) ? form : Object.entries(form))]).toString();
      headers['content-type'] = 'application/x-www-form-urlencoded';
      headers.origin = api.url;
    }
    const response = await fetch(`${api.url}${path}`, { method, headers, body, redirect: 'manual' });
    for (const cookie of response.headers.getSetCookie()) {
      const [pair] = cookie.split(';');
      const [name, ...value] = pair!.split('=');
      jar.set(name!, value.join('='));
    }
    const text = await response.text();
    if (response.status === 303) return go('GET', response.headers.get('location')!.replace(api.url, ''));
    lastPage = text;
    return { status: response.status, text };
  }
  return { go };
}

async function signIn(email: string, ip?: string) {
  const b = browser(ip);
  await b.go('GET', '/portal/login');
  const before = smtp.mails.length;
  const sent = await b.go('POST', '/portal/login', { email });
  expect(sent.status).toBe(200);
  await vi.waitFor(() => expect(smtp.mails.length).toBeGreaterThan(before), { timeout: 5000, interval: 20 });
  await outboxSent(db.pool);
  const link = smtp.lastLink(email)!;
  await b.go('GET', link.replace(/^https?:\/\/[^/]+/, ''));
  const signedIn = await b.go('POST', '/portal/auth', { token: new URL(link).searchParams.get('token')! });
  return { b, signedIn, link };
}

const admin = (method: string, path: string, body?: unknown) => api.request(method, `/api/v1/admin${path}`, { body, headers: adminHeaders });

describe('partner portal', () => {
  let ana: { programA: number; partnerA: number; programB: number; partnerB: number };
  let bobPartner: number;

  beforeAll(async () => {
    const a = await seedProgram(api, { name: 'Alpha Shop' });
    const b = await seedProgram(api, { name: 'Beta Shop' });
    const anaA = (await admin('POST', `/programs/${a.programId}/partners`, { name: 'Ana', email: 'ana@partner.example' })).body.data.id;
    // Beta adds her as invited: her first sign-in accepts the invitation (approved).
    const anaB = (await admin('POST', `/programs/${b.programId}/partners`, { name: 'Ana B', email: 'ANA@partner.example', status: 'invited' })).body.data.id;
    bobPartner = (await admin('POST', `/programs/${a.programId}/partners`, { name: 'Bob', email: 'bob@partner.example' })).body.data.id;
    await admin('POST', `/programs/${a.programId}/links`, { partner_id: anaA, short_link: 'ana-alpha' });
    await admin('POST', `/programs/${a.programId}/links`, { partner_id: bobPartner, short_link: 'bob-alpha' });
    // Ana: one sale in Alpha; Bob: two (with a customer email Ana must never see).
    for (const [code, n] of [['ana-alpha', 1], ['bob-alpha', 2]] as const) {
      for (let i = 0; i < n; i++) {
        const clickId = await trackClick(api, `https://shop.example.com/?aff=${code}`);
        await api.request('POST', '/api/v1/track/lead', { body: { click_id: clickId, customer_key: `${code}_${i}`, email: `secret.customer.${code}${i}@example.com` }, headers: bearer(a.apiKey) });
        await api.request('POST', '/api/v1/track/sale', { body: { transaction_id: `t_${code}_${i}`, amount_cents: 10_000, customer_key: `${code}_${i}` }, headers: bearer(a.apiKey) });
      }
    }
    ana = { programA: a.programId, partnerA: anaA, programB: b.programId, partnerB: anaB };
  });

  it('an address nobody invited gets no mail, and the answer is the same as for an invited one', async () => {
    const b = browser();
    await b.go('GET', '/portal/login');
    const before = smtp.mails.length;
    const reply = await b.go('POST', '/portal/login', { email: 'ana@partner.example' });
    expect(reply.text).toContain('If this address belongs to an invited partner, a sign-in link is on its way.');
    expect(smtp.mails.length).toBe(before); // not invited yet
    expect((await browser().go('GET', '/portal')).text).toContain('Email me a sign-in link'); // no session: the sign-in page
  });

  it('the brand invites; the partner signs in from the mailed link (once) and sees exactly their own numbers across programs', async () => {
    expect((await admin('POST', `/programs/${ana.programA}/partners/${ana.partnerA}/invite`)).status).toBe(200);
    await vi.waitFor(() => expect(smtp.lastLink('ana@partner.example')).not.toBeNull(), { timeout: 5000, interval: 20 });
    const invitation = smtp.mails.at(-1)!;
    expect(invitation.subject).toBe('Alpha Shop: your partner sign-in link');
    expect(invitation.fromName).toBe('Alpha Shop');
    expect(invitation.text).toContain('Alpha Shop invited you to its partner program.');
    // An invitation opened days later still works (7 days), unlike a requested link (15 minutes).
    expect(invitation.text).toContain('within 7 day(s)');
    await admin('POST', `/programs/${ana.programB}/partners/${ana.partnerB}/invite`);

    const statusOf = async (id: number) => (await db.pool.query('SELECT status FROM partners WHERE id = $1', [id])).rows[0].status;
    expect(await statusOf(ana.partnerB)).toBe('invited');
    const { b, signedIn, link } = await signIn('ana@partner.example');
    expect(signedIn.status).toBe(200);
    expect(await statusOf(ana.partnerB)).toBe('approved');
    expect(signedIn.text).toContain('Alpha Shop');
    expect(signedIn.text).toContain('Beta Shop');
    expect(signedIn.text).toContain('<dt>Clicks</dt><dd>1</dd></div><div><dt>Leads</dt><dd>1</dd></div><div><dt>Sales</dt><dd>1</dd>');
    expect(signedIn.text).toContain('$20.00'); // Ana's one commission, in hold
    const alpha = await b.go('GET', `/portal/programs/${ana.partnerA}`);
    expect(alpha.text).toContain('https://shop.example.com/?aff=ana-alpha');
    // Never another partner's links or numbers, never a customer's email.
    for (const seen of [signedIn.text, alpha.text]) {
      expect(seen).not.toContain('bob-alpha');
      expect(seen).not.toContain('<dd>2</dd>');
      expect(seen).not.toContain('secret.customer');
    }
    // Another partner's program page, QR code and statement: the same 404 as none.
    expect((await b.go('GET', `/portal/programs/${bobPartner}`)).status).toBe(404);
    expect((await b.go('GET', `/portal/programs/${bobPartner}/payouts/1/statement.csv`)).status).toBe(404);
    // An address of the portal that does not exist: a page, not JSON.
    const missing = await b.go('GET', '/portal/no-such-page');
    expect(missing.status).toBe(404);
    expect(missing.text).toContain('There is no such page');
    // A failure of ours: a page with the reference to quote, never its detail.
    await db.pool.query('ALTER TABLE page_rollups RENAME TO page_rollups_away');
    try {
      const failed = await b.go('GET', '/portal');
      expect(failed.status).toBe(500);
      expect(failed.text).toContain('Something went wrong on our side');
      expect(failed.text).not.toContain('page_rollups');
    } finally {
      await db.pool.query('ALTER TABLE page_rollups_away RENAME TO page_rollups');
    }

    // The link worked once; the token is stored only as a digest.
    const again = browser();
    await again.go('GET', link.replace(/^https?:\/\/[^/]+/, ''));
    const reused = await again.go('POST', '/portal/auth', { token: new URL(link).searchParams.get('token')! });
    expect(reused.status).toBe(400);
    expect(reused.text).toContain('This sign-in link expired or was already used.');
    const stored = await db.pool.query('SELECT count(*)::int AS n FROM partner_sign_in_links WHERE token_hash = $1', [Buffer.from(new URL(link).searchParams.get('token')!)]);
    expect(stored.rows[0].n).toBe(0);

    // Own payout details: saved; another partner's: the same 404 as none.
    const saved = await b.go('POST', `/portal/programs/${ana.partnerA}/payout-details`, { payout_method: 'paypal', [`payout_reference_${ana.partnerA}`]: 'ana@paypal.example' });
    expect(saved.text).toContain('Payout details saved.');
    const bobs = await b.go('POST', `/portal/programs/${bobPartner}/payout-details`, { payout_method: 'paypal', [`payout_reference_${bobPartner}`]: 'evil@example.com' });
    expect(bobs.status).toBe(404);
    expect((await db.pool.query('SELECT payout_reference FROM partners WHERE id = $1', [bobPartner])).rows[0].payout_reference).toBeNull();
  });

  it('the mail settings take every ticked box (one field, several values); any other field sent twice is refused', async () => {
    const { b } = await signIn('ana@partner.example');
    await b.go('GET', '/portal');
    // Two values of the list field: the kind the portal shows, and an essential kind it ignores.
    const saved = await b.go('POST', '/portal/mail', [['on', 'commission_digest'], ['on', 'payout_sent']]);
    expect(saved.status).toBe(200);
    expect(saved.text).toContain('Mail settings saved.');
    const { mailPreferences } = await import('../src/app/outbound/mail.js');
    expect((await mailPreferences(db.pool, 'ana@partner.example', 'partner')).map((p) => [p.kind, p.on])).toEqual([['commission_digest', true], ['payout_details_reminder', false], ['tax_details_reminder', false]]);
    const repeated = await b.go('POST', '/portal/mail', [['on', 'commission_digest'], ['extra', '1'], ['extra', '2']]);
    expect(repeated.status).toBe(400);
    expect(repeated.text).toContain('The field extra was sent more than once');
  });

  it('extra links only where the program allows, and only for oneself', async () => {
    const { b } = await signIn('ana@partner.example');
    const refused = await b.go('POST', `/portal/programs/${ana.partnerA}/links`, { [`short_link_${ana.partnerA}`]: 'ana-extra' });
    expect(refused.status).toBe(403);
    await admin('PATCH', `/programs/${ana.programA}/payout-settings`, { hold_days: 30, payout_minimums_cents: {}, partners_can_create_links: true });
    const created = await b.go('POST', `/portal/programs/${ana.partnerA}/links`, { [`short_link_${ana.partnerA}`]: 'ana-extra' });
    expect(created.text).toContain('Link created.');
    expect(created.text).toContain('?aff=ana-extra');
    const forBob = await b.go('POST', `/portal/programs/${bobPartner}/links`, { [`short_link_${bobPartner}`]: 'bob-evil' });
    expect(forBob.status).toBe(404);
  });

  it('partner-made links stop at the program\'s limit, with a message beside the field; the brand\'s own are not limited', async () => {
    const { b } = await signIn('ana@partner.example');
    await admin('PATCH', `/programs/${ana.programA}/payout-settings`, { partners_can_create_links: true, partner_link_limit: 3 });
    const have = Number((await db.pool.query('SELECT count(*)::int AS n FROM referral_links WHERE partner_id = $1', [ana.partnerA])).rows[0].n);
    // Five at once: exactly up to the limit are made, one after the other (the partner row is the lock).
    const answers = await Promise.all(Array.from({ length: 5 }, (_, i) => b.go('POST', `/portal/programs/${ana.partnerA}/links`, { [`short_link_${ana.partnerA}`]: `ana-cap-${i}` })));
    const made = Number((await db.pool.query('SELECT count(*)::int AS n FROM referral_links WHERE partner_id = $1', [ana.partnerA])).rows[0].n);
    expect(made).toBe(Math.max(have, 3));
    const refused = answers.filter((a) => a.status === 400);
    expect(refused.length).toBe(5 - (made - have));
    expect(refused[0]!.text).toContain('You have 3 links, the most this program allows; reuse one or ask the brand for more.');
    // The brand adds one for her anyway.
    expect((await admin('POST', `/programs/${ana.programA}/links`, { partner_id: ana.partnerA, short_link: 'ana-by-brand' })).status).toBe(201);
  });

  it('a link older than 15 minutes does not sign in; requests are rate-limited by IP and address together', async () => {
    // A fresh hour of the address's mail cap (5 an hour), whatever the time the tests run at.
    api.clock.now = new Date(Math.ceil(api.clock.now.getTime() / HOUR) * HOUR + 60_000);
    await outboxSent(db.pool);
    const earlier = await signInMailsTo('ana@partner.example');
    const b = browser('203.0.113.60');
    await b.go('GET', '/portal/login');
    const before = smtp.mails.length;
    await b.go('POST', '/portal/login', { email: 'ana@partner.example' });
    await vi.waitFor(() => expect(smtp.mails.length).toBeGreaterThan(before), { timeout: 5000, interval: 20 });
    await outboxSent(db.pool);
    const link = smtp.lastLink('ana@partner.example')!;
    api.clock.now = new Date(api.clock.now.getTime() + 16 * 60_000);
    await b.go('GET', link.replace(/^https?:\/\/[^/]+/, ''));
    const late = await b.go('POST', '/portal/auth', { token: new URL(link).searchParams.get('token')! });
    expect(late.status).toBe(400);

    // Someone else asks for Ana's links from their own address: 5 per 15 minutes, then 429 …
    const spammer = browser('203.0.113.61');
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) {
      await spammer.go('GET', '/portal/login');
      statuses.push((await spammer.go('POST', '/portal/login', { email: 'ana@partner.example' })).status);
    }
    expect(statuses).toEqual([...Array(5).fill(200), 429, 429]);
    // … and the address's cap holds too: Ana's own request now answers the same and mails nothing
    // more, yet she is not locked out: the links already in her inbox still sign her in …
    await outboxSent(db.pool);
    const mailed = await signInMailsTo('ana@partner.example');
    expect(mailed - earlier).toBe(5);
    const own = browser('203.0.113.62');
    await own.go('GET', '/portal/login');
    expect((await own.go('POST', '/portal/login', { email: 'ana@partner.example' })).text).toContain('a sign-in link is on its way');
    await outboxSent(db.pool);
    expect(await signInMailsTo('ana@partner.example')).toBe(mailed);
    const inbox = smtp.lastLink('ana@partner.example')!;
    await own.go('GET', inbox.replace(/^https?:\/\/[^/]+/, ''));
    const withMailed = await own.go('POST', '/portal/auth', { token: new URL(inbox).searchParams.get('token')! });
    expect(withMailed.status).toBe(200);
    expect(withMailed.text).toContain('Alpha Shop');
    // … and the next hour, her own request mails her a new link.
    api.clock.now = new Date(api.clock.now.getTime() + HOUR);
    const { signedIn } = await signIn('ana@partner.example', '203.0.113.63');
    expect(signedIn.status).toBe(200);
    expect(signedIn.text).toContain('Alpha Shop');
  });

  it('15 sign-in requests for one address from 15 client addresses mail it 5 times (at most 10 in any hour); every answer is the same; the mailed links work', async () => {
    const email = 'flood@partner.example';
    const partner = (await admin('POST', `/programs/${ana.programA}/partners`, { name: 'Flood', email })).body.data.id;
    expect((await admin('POST', `/programs/${ana.programA}/partners/${partner}/invite`)).status).toBe(200);
    api.clock.now = new Date(Math.ceil(api.clock.now.getTime() / HOUR) * HOUR + 60_000);
    const flood = async (first: number) => {
      const answers = new Set<string>();
      for (let i = 0; i < 15; i++) {
        const b = browser(`203.0.114.${first + i}`);
        await b.go('GET', '/portal/login');
        const reply = await b.go('POST', '/portal/login', { email });
        answers.add(`${reply.status} ${/<section>.*<\/section>/s.exec(reply.text)?.[0]}`);
      }
      return [...answers];
    };
    const sameAnswer = ['200 <section><p role="status">If this address belongs to an invited partner, a sign-in link is on its way. Check your mail.</p><p><a href="/portal/login">Back</a></p></section>'];
    expect(await flood(1)).toEqual(sameAnswer);
    await outboxSent(db.pool);
    expect(await signInMailsTo(email)).toBe(5);
    expect(smtp.mails.filter((m) => m.to === email && m.subject === 'Your Affix partner sign-in link')).toHaveLength(5);
    // The first mail's link still signs in (the partner is never locked out by others' requests).
    const first = smtp.mails.find((m) => m.to === email && m.subject === 'Your Affix partner sign-in link')!;
    const link = /https?:\/\/\S+\/portal\/auth\?token=[\w-]+/.exec(first.text)![0];
    const b = browser('203.0.114.99');
    await b.go('GET', link.replace(/^https?:\/\/[^/]+/, ''));
    expect((await b.go('POST', '/portal/auth', { token: new URL(link).searchParams.get('token')! })).status).toBe(200);
    // 58 minutes on, the same hour: still nothing. The next hour: 5 more, never more.
    api.clock.now = new Date(api.clock.now.getTime() + 58 * 60_000);
    expect(await flood(20)).toEqual(sameAnswer);
    await outboxSent(db.pool);
    expect(await signInMailsTo(email)).toBe(5);
    api.clock.now = new Date(api.clock.now.getTime() + 2 * 60_000);
    expect(await flood(40)).toEqual(sameAnswer);
    await outboxSent(db.pool);
    expect(await signInMailsTo(email)).toBe(10);
  });
});

const HOUR = 3_600_000;
const signInMailsTo = async (email: string): Promise<number> =>
  (await db.pool.query("SELECT count(*)::int AS n FROM mail_outbox WHERE to_email = $1 AND kind = 'partner_sign_in'", [email])).rows[0].n;
