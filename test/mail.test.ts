// Mail to partners and managers (docs/mail.md) with a real SMTP receiver: each kind once per
// change, nothing for a change that rolled back, never twice for a retried job, a day's
// commissions in one digest, one-click unsubscribe of one kind with an expiring token, and a
// partner sign-in that answers in the same time whether or not the address is a partner's.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATOR } from '../src/app/accounts/scope.js';
import { queueCommissionDigests, sendOutboxMail } from '../src/app/outbound/mail.js';
import { unsubscribeToken } from '../src/core/mail.js';
import { queueMails } from '../src/db/outbound/mail-outbox.js';
import { withTransaction } from '../src/db/infra/pool.js';
import { createMailer } from '../src/platform/mailer.js';
import { qrPng } from '../src/platform/qr-image.js';
import { createLogger } from '../src/platform/logger.js';
import { type TestApi, type TestDatabase, adminHeaders, bearer, closeTestApi, openTestApi, seedProgram, trackClick } from './support/harness.js';
import { apiSale, uid } from './support/money.js';
import { type ReceivedMail, outboxSent, startSmtpReceiver } from './support/smtp.js';

const SECRET = 'mail-test-secret-key-0123456789';
let db: TestDatabase;
let api: TestApi;
let smtp: Awaited<ReturnType<typeof startSmtpReceiver>>;

beforeAll(async () => {
  smtp = await startSmtpReceiver();
  ({ db, api } = await openTestApi({ AFFIX_SECRET_KEY: SECRET, AFFIX_SMTP_URL: smtp.url, AFFIX_WORKER_POLL_SECONDS: '0.5' }, { queueUrl: 'own', workers: true }));
});
afterAll(async () => {
  await closeTestApi({ db, api });
  await smtp.close();
});

const must = async (method: string, path: string, body?: unknown) => {
  const reply = await api.request(method, `/api/v1/admin${path}`, { body, headers: adminHeaders });
  if (reply.status >= 300) throw new Error(`${method} ${path}: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.data;
};
const to = (email: string) => smtp.mails.filter((m) => m.to.toLowerCase() === email.toLowerCase());
const subjects = (email: string) => to(email).map((m) => m.subject);
const sendingDeps = () => ({ pool: db.pool, mailer: createMailer({ smtpUrl: smtp.url, from: 'Affix <no-reply@affix.test>' }, createLogger('silent')), secretKey: SECRET, publicUrl: api.url, now: () => new Date() });
const form = (path: string, fields: Record<string, string>, ip: string) =>
  api.request('POST', path, { raw: new URLSearchParams(fields).toString(), headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'X-Forwarded-For': ip } });

describe('mail of each kind, once per change', () => {
  it('applications: received to the applicant, new application to the manager; approved (with the invitation) or rejected with the reason; banned', async () => {
    const shop = await seedProgram(api, { name: 'Mail Shop' });
    const manager = (await db.pool.query('SELECT a.email FROM accounts a JOIN programs p ON p.account_id = a.id WHERE p.id = $1', [shop.programId])).rows[0].email;
    const slug = uid('mail').replaceAll('_', '-').toLowerCase();
    await must('PATCH', `/programs/${shop.programId}/application-settings`, { applications_open: true, slug });
    const [ann, bob] = [`${uid('ann')}@creators.test`, `${uid('bob')}@creators.test`];
    await form(`/apply/${slug}`, { name: 'Ann', email: ann, accept_terms: 'on' }, '203.0.113.70');
    await form(`/apply/${slug}`, { name: 'Bob', email: bob, accept_terms: 'on' }, '203.0.113.71');
    // The same address again: the same answer, and no second mail.
    await form(`/apply/${slug}`, { name: 'Ann', email: ann, accept_terms: 'on' }, '203.0.113.72');
    await outboxSent(db.pool);
    expect(subjects(ann)).toEqual(['Mail Shop: we received your application']);
    expect(to(ann)[0]!.fromName).toBe('Mail Shop');
    expect(subjects(manager).filter((s) => s.includes('new partner application'))).toEqual([
      'Mail Shop: new partner application from Ann',
      'Mail Shop: new partner application from Bob',
    ]);
    // A manager's notice is not essential: it carries one-click unsubscribe (RFC 8058).
    const notice = to(manager).find((m) => m.subject.includes('from Ann'))!;
    expect(notice.headers['list-unsubscribe-post']).toBe('List-Unsubscribe=One-Click');
    expect(notice.headers['list-unsubscribe']).toMatch(new RegExp(`^<${api.url}/mail/unsubscribe\\?token=[\\w.-]+>$`));
    expect(notice.text).toContain(`${api.url}/dashboard/programs/${shop.programId}/applications`);

    const { applications } = await must('GET', `/programs/${shop.programId}/applications`);
    const id = (email: string) => applications.find((a: any) => a.email === email).partner_id;
    await must('POST', `/programs/${shop.programId}/partners/${id(ann)}/approve`, {});
    await must('POST', `/programs/${shop.programId}/partners/${id(bob)}/reject`, { reason: 'your site is about another market' });
    // Sending the same decisions again changes nothing and mails nothing.
    await api.request('POST', `/api/v1/admin/programs/${shop.programId}/partners/bulk`, { body: { action: 'approve', partner_ids: [id(ann)] }, headers: adminHeaders });
    await outboxSent(db.pool);
    // (Mails written by one change may arrive in any order.)
    expect(subjects(ann).sort()).toEqual(['Mail Shop: we received your application', 'Mail Shop: you are approved', 'Mail Shop: your partner sign-in link']);
    // Essential mail carries no unsubscribe; the invitation's link works for days.
    const invitation = to(ann).find((m) => m.subject === 'Mail Shop: your partner sign-in link')!;
    expect(invitation.headers['list-unsubscribe']).toBeUndefined();
    expect(invitation.text).toMatch(/\/portal\/auth\?token=[\w-]+/);
    expect(invitation.text).toContain('Mail Shop approved you as a partner.');
    // Beside the text, the same words as HTML in the brand's name, with the sign-in link clickable.
    const signIn = /\/portal\/auth\?token=[\w-]+/.exec(invitation.text)![0];
    expect(invitation.html).toContain('<strong style="font-size:18px;vertical-align:middle">Mail Shop</strong>');
    expect(invitation.html).toContain(`<a href="${api.url}${signIn}"`);
    // A manager's notice has its HTML part too, without a brand's header.
    expect(notice.html).toContain(`${api.url}/dashboard/programs/${shop.programId}/applications`);
    expect(notice.html).not.toContain('<strong style="font-size:18px');
    expect(subjects(bob)).toEqual(['Mail Shop: we received your application', 'Mail Shop: your application']);
    expect(to(bob)[1]!.text).toContain('your site is about another market');

    await must('POST', `/programs/${shop.programId}/partners/${id(ann)}/ban`, { reason: 'cookie stuffing' });
    await outboxSent(db.pool);
    expect(subjects(ann).at(-1)).toBe('Mail Shop: you were removed from the partner program');
    expect(to(ann).at(-1)!.text).toContain('cookie stuffing');
  });

  it('money: a held commission tells the manager; a payout run tells the manager; a payout paid tells the partner (amount, currency, reference)', async () => {
    const shop = await seedProgram(api, { name: 'Pay Shop', commission_rate: 10 });
    const manager = (await db.pool.query('SELECT a.email FROM accounts a JOIN programs p ON p.account_id = a.id WHERE p.id = $1', [shop.programId])).rows[0].email;
    const email = `${uid('paid')}@creators.test`;
    // The team: finance hears of held commissions and payout runs; an admin does not (docs/mail.md).
    const [finance, adminMember] = [`${uid('fin')}@team.test`, `${uid('adm')}@team.test`];
    await db.pool.query(
      "INSERT INTO account_members (account_id, email, role, accepted_at) VALUES ($1, $2, 'finance', now()), ($1, $3, 'admin', now())",
      [shop.accountId, finance, adminMember],
    );
    await must('PATCH', `/programs/${shop.programId}/partners/${shop.partnerId}`, { email });
    await must('PATCH', `/programs/${shop.programId}/partners/${shop.partnerId}/payout-details`, { payout_method: 'paypal', payout_reference: email });
    // A signup from the partner's own email: held for review.
    const clickId = await trackClick(api, shop.affiliateUrl);
    await api.request('POST', '/api/v1/track/lead', { body: { click_id: clickId, customer_key: 'self', email }, headers: bearer(shop.apiKey) });
    const held = await api.request('POST', '/api/v1/track/sale', { body: { transaction_id: uid('held'), amount_cents: 5000, customer_key: 'self' }, headers: bearer(shop.apiKey) });
    const sale = await apiSale(api, shop, 10_000);
    await must('POST', `/programs/${shop.programId}/commissions/${sale.commissionId}/approve`, { reason: 'ok' });
    const run = await must('POST', `/programs/${shop.programId}/payouts/run`);
    await must('POST', `/programs/${shop.programId}/payouts/${run.payouts[0].id}/paid`, { reference: 'PAYPAL-7731' });
    await outboxSent(db.pool);
    expect(subjects(manager)).toEqual([`A commission was held for review (sale ${held.body.transaction_id})`, `Payout batch ${run.batch_id} is ready to pay (1 payout)`]);
    expect(to(manager)[0]!.text).toContain(`${api.url}/dashboard/programs/${shop.programId}/payouts?stage=held`);
    expect(subjects(finance)).toEqual(subjects(manager));
    expect(subjects(adminMember)).toEqual([]);
    const paid = to(email).find((m) => m.subject.includes('payout'))!;
    expect(paid.subject).toBe('Pay Shop: payout of $10.00 sent');
    expect(paid.text).toContain('Reference: PAYPAL-7731');
  });

  it('a rolled-back change writes no mail; a mail sent twice goes out once', async () => {
    const email = `${uid('rb')}@creators.test`;
    const outbox = { programId: null, kind: 'payout_sent' as const, to: email, senderName: 'Shop', subject: 'rolled back', body: 'x', canUnsubscribe: false };
    await withTransaction(db.pool, async (client) => {
      await queueMails(client, [{ ...outbox, dedupeKey: uid('rb') }]);
      throw new Error('the change failed');
    }).catch(() => undefined);
    expect((await db.pool.query('SELECT count(*)::int AS n FROM mail_outbox WHERE to_email = $1', [email])).rows[0].n).toBe(0);
    // Written not due before tomorrow (the senders would race this test): sent by hand, twice, as two senders would.
    const { rows } = await db.pool.query(
      `INSERT INTO mail_outbox (kind, to_email, subject, body, dedupe_key, retry_at) VALUES ('payout_sent', $1, 'once', 'x', $2, now() + interval '1 day') RETURNING id`,
      [email, uid('once')],
    );
    expect(await sendOutboxMail(sendingDeps(), Number(rows[0].id))).toBe('sent');
    expect(await sendOutboxMail(sendingDeps(), Number(rows[0].id))).toBe('already_sent');
    expect(subjects(email)).toEqual(['once']);
    expect((await db.pool.query('SELECT body FROM mail_outbox WHERE id = $1', [rows[0].id])).rows[0].body).toBeNull();
  });
});

describe('the daily digest and unsubscribing', () => {
  it("a day's commissions in one mail per partner; one-click unsubscribe stops that kind only; an expired token is refused", async () => {
    const shop = await seedProgram(api, { name: 'Digest Shop', commission_rate: 10 });
    const email = `${uid('digest')}@creators.test`;
    await must('PATCH', `/programs/${shop.programId}/partners/${shop.partnerId}`, { email });
    await must('POST', `/programs/${shop.programId}/partners/${shop.partnerId}/invite`);
    for (const cents of [1000, 2000, 3000]) await apiSale(api, shop, cents);
    const tomorrow = new Date(Date.now() + 86_400_000);
    await queueCommissionDigests({ pool: db.pool, publicUrl: api.url, now: () => tomorrow });
    await queueCommissionDigests({ pool: db.pool, publicUrl: api.url, now: () => tomorrow }); // the same day again: nothing new
    await outboxSent(db.pool);
    const digests = to(email).filter((m) => m.subject.includes('earned'));
    expect(digests.map((m) => m.subject)).toEqual([`Digest Shop: 3 commissions earned on ${new Date().toISOString().slice(0, 10)}`]);
    expect(digests[0]!.text).toContain('- 3 commissions: $6.00');

    // One-click, as a mail client does it: POST to the List-Unsubscribe URL.
    const url = /^<(.+)>$/.exec(digests[0]!.headers['list-unsubscribe']!)![1]!;
    const oneClick = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'List-Unsubscribe=One-Click' });
    expect(oneClick.status).toBe(200);
    expect(await oneClick.text()).toContain('You will no longer get "Daily summary of commissions earned" mails at this address.');
    await apiSale(api, shop, 4000);
    const dayAfter = new Date(Date.now() + 2 * 86_400_000);
    await db.pool.query("UPDATE commissions SET created_at = now() + interval '1 day' WHERE id = (SELECT max(id) FROM commissions WHERE program_id = $1)", [shop.programId]);
    await queueCommissionDigests({ pool: db.pool, publicUrl: api.url, now: () => dayAfter });
    // Other kinds still arrive: a payout sent (essential).
    const sale = await apiSale(api, shop, 10_000);
    await must('POST', `/programs/${shop.programId}/commissions/${sale.commissionId}/approve`, { reason: 'ok' });
    const run = await must('POST', `/programs/${shop.programId}/payouts/run`);
    await must('POST', `/programs/${shop.programId}/payouts/${run.payouts[0].id}/paid`, { reference: 'REF-1' });
    await outboxSent(db.pool);
    expect(to(email).filter((m) => m.subject.includes('earned'))).toHaveLength(1);
    expect((await db.pool.query("SELECT skipped FROM mail_outbox WHERE to_email = $1 AND kind = 'commission_digest' ORDER BY id", [email])).rows.map((r) => r.skipped)).toEqual([null, 'unsubscribed']);
    expect(to(email).some((m: ReceivedMail) => m.subject === 'Digest Shop: payout of $10.00 sent')).toBe(true);

    const expired = unsubscribeToken(SECRET, email, 'payout_sent', new Date(api.clock.now.getTime() - 1000));
    const refused = await fetch(`${api.url}/mail/unsubscribe?token=${expired}`, { method: 'POST', body: 'List-Unsubscribe=One-Click', headers: { 'Content-Type': 'application/x-www-form-urlencoded' } });
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain('This unsubscribe link expired');
    const forged = await fetch(`${api.url}/mail/unsubscribe?token=${expired.slice(0, -2)}xx`, { method: 'POST' });
    expect(forged.status).toBe(400);
  });
});

describe('the unsubscribe link, exactly as mailed', () => {
  it('a token with characters appended is refused and changes nothing; the exact token unsubscribes', async () => {
    const email = `${uid('exact')}@creators.test`;
    const token = unsubscribeToken(SECRET, email, 'commission_digest', new Date(api.clock.now.getTime() + 86_400_000));
    const post = (t: string) => fetch(`${api.url}/mail/unsubscribe?token=${encodeURIComponent(t)}`, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'List-Unsubscribe=One-Click' });
    const preferences = async () => (await db.pool.query('SELECT kind, wants FROM mail_preferences WHERE email = $1', [email])).rows;
    for (const altered of [`${token}.x`, `${token}.`, `${token}x`]) {
      const refused = await post(altered);
      expect(refused.status, altered).toBe(400);
      expect(await refused.text()).toContain('This unsubscribe link is not valid');
    }
    expect(await preferences()).toEqual([]);
    expect((await post(token)).status).toBe(200);
    expect(await preferences()).toEqual([{ kind: 'commission_digest', wants: false }]);
  });
});

describe('partner sign-in that does not leak', () => {
  // Equal answers by construction, not by a stopwatch (a loaded machine fails a timed bound): one
  // statement whatever the address, the same page, and the mail left to the sender. The time
  // gap is printed as a figure, never asserted.
  it('an invited and an unknown address get the same answer; the mail is left to the sender', async () => {
    const shop = await seedProgram(api);
    const invited = `${uid('known')}@creators.test`;
    const partner = await must('POST', `/programs/${shop.programId}/partners`, { name: 'Known', email: invited });
    await must('POST', `/programs/${partner.program_id}/partners/${partner.id}/invite`);
    await outboxSent(db.pool);
    const ask = async (email: string, i: number) => {
      const ip = `198.18.${Math.floor(i / 200)}.${(i % 200) + 1}`;
      const page = await fetch(`${api.url}/portal/login`, { headers: { 'x-forwarded-for': ip } });
      const cookie = page.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
      const csrf = /name="_csrf" value="([^"]+)"/.exec(await page.text())![1]!;
      const started = performance.now();
      const reply = await fetch(`${api.url}/portal/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie, origin: api.url, 'x-forwarded-for': ip },
        body: new URLSearchParams({ _csrf: csrf, email }).toString(),
      });
      const ms = performance.now() - started;
      // What differs between any two answers by design: the CSP nonce and the form's token.
      const text = (await reply.text()).replace(/nonce="[^"]*"/g, 'nonce=""').replace(/name="_csrf" value="[^"]*"/g, '');
      return { ms, status: reply.status, text };
    };
    const signInMails = async (email: string) =>
      Number((await db.pool.query(`SELECT count(*) FROM mail_outbox WHERE to_email = $1 AND kind = 'partner_sign_in'`, [email])).rows[0].count);
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
    const known: number[] = [];
    const unknown: number[] = [];
    for (let i = 0; i < 4; i++) {
      const a = await ask(invited, 2 * i);
      const b = await ask(`${uid('nobody')}@creators.test`, 2 * i + 1);
      expect([a.status, b.status]).toEqual([200, 200]);
      expect(a.text).toBe(b.text);
      known.push(a.ms);
      unknown.push(b.ms);
    }
    // Each invited request wrote its link's mail to the outbox, for the sender to send; the unknown wrote none.
    expect(await signInMails(invited)).toBe(4);
    await outboxSent(db.pool);
    console.log(`[mail] partner sign-in median: invited ${median(known).toFixed(1)} ms, unknown ${median(unknown).toFixed(1)} ms (a figure, not a bound)`);
  }, 60_000);
});

describe('password reset mail', () => {
  it('essential (no unsubscribe, sent even with every notice turned off), through the outbox; an unknown address gets the same page and no mail', async () => {
    const { saveMailPreferences } = await import('../src/app/outbound/mail.js');
    const owner = `${uid('reset')}@brand.test`;
    await must('POST', '/accounts', { email: owner, password: 'owner password 123' });
    await saveMailPreferences(db.pool, owner, 'manager', []);
    const ask = async (email: string) => {
      const page = await fetch(`${api.url}/dashboard/password/forgot`, { headers: { 'X-Forwarded-For': '203.0.113.140' } });
      const cookie = page.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
      const csrf = /name="_csrf" value="([^"]+)"/.exec(await page.text())![1]!;
      const reply = await fetch(`${api.url}/dashboard/password/forgot`, {
        method: 'POST',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded', origin: api.url, 'X-Forwarded-For': '203.0.113.140' },
        body: new URLSearchParams({ _csrf: csrf, email }).toString(),
      });
      return { status: reply.status, text: (await reply.text()).replace(/name="_csrf" value="[^"]+"/g, '') };
    };
    const stranger = `${uid('stranger')}@brand.test`;
    const [known, unknown] = [await ask(owner), await ask(stranger)];
    expect(unknown).toEqual(known);
    await outboxSent(db.pool);
    expect((await db.pool.query('SELECT kind, can_unsubscribe, skipped FROM mail_outbox WHERE to_email = $1', [owner])).rows).toEqual([{ kind: 'password_reset', can_unsubscribe: false, skipped: null }]);
    const [sent] = to(owner);
    expect(sent!.subject).toBe('Reset your Affix password');
    expect(sent!.text).toMatch(/\/dashboard\/password\/reset\?token=[\w-]+/);
    expect(sent!.text).toContain('The link works once, within 30 minutes.');
    expect(sent!.headers['list-unsubscribe']).toBeUndefined();
    expect(to(stranger)).toEqual([]);
  });
});

describe('a mail server that refuses', () => {
  it('changes no answer: the invitation and the sign-in request answer 200; the mail row keeps the error and is retried', async () => {
    const refusing = await openTestApi({ AFFIX_SECRET_KEY: SECRET, AFFIX_SMTP_URL: 'smtp://127.0.0.1:1', AFFIX_WORKER_POLL_SECONDS: '0.5' }, { queueUrl: 'own', workers: true });
    try {
      const shop = await seedProgram(refusing.api);
      const email = `${uid('refused')}@creators.test`;
      const partner = await refusing.api.request('POST', `/api/v1/admin/programs/${shop.programId}/partners`, { body: { name: 'R', email }, headers: adminHeaders });
      const invited = await refusing.api.request('POST', `/api/v1/admin/programs/${shop.programId}/partners/${partner.body.data.id}/invite`, { headers: adminHeaders });
      expect(invited.status).toBe(200);
      const page = await fetch(`${refusing.api.url}/portal/login`);
      const cookie = page.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
      const csrf = /name="_csrf" value="([^"]+)"/.exec(await page.text())![1]!;
      const reply = await fetch(`${refusing.api.url}/portal/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie, origin: refusing.api.url },
        body: new URLSearchParams({ _csrf: csrf, email }).toString(),
      });
      expect(reply.status).toBe(200);
      const failed = async () =>
        (await refusing.db.pool.query("SELECT count(*)::int AS n FROM mail_outbox WHERE to_email = $1 AND sent_at IS NULL AND attempts > 0 AND last_error IS NOT NULL", [email])).rows[0].n;
      await expect.poll(failed, { timeout: 10_000, interval: 100 }).toBe(2);
    } finally {
      await closeTestApi(refusing);
    }
  }, 60_000);
});

describe('preferences per person and kind', () => {
  it('a manager turns notices off and on in the dashboard; the kinds turned off are skipped, the others sent', async () => {
    const { openDashboardSession } = await import('../src/app/accounts/access.js');
    const shop = await seedProgram(api, { name: 'Pref Shop' });
    const manager = (await db.pool.query('SELECT email FROM accounts WHERE id = $1', [shop.accountId])).rows[0].email;
    const { token } = await openDashboardSession(db.pool, shop.accountId, new Date());
    const cookie = `affix_dashboard=${token}`;
    const page = await fetch(`${api.url}/dashboard/account`, { headers: { cookie } });
    const jar = [cookie, ...page.headers.getSetCookie().map((c) => c.split(';')[0]!)].join('; ');
    const text = await page.text();
    expect(text).toContain('New partner applications');
    const csrf = /name="_csrf" value="([^"]+)"/.exec(text)![1]!;
    // Keep only "payout run ready".
    const saved = await fetch(`${api.url}/dashboard/account/mail`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: jar, 'content-type': 'application/x-www-form-urlencoded', origin: api.url },
      body: new URLSearchParams([['_csrf', csrf], ['on', 'payout_run_ready']]).toString(),
    });
    expect(saved.status).toBe(303);
    const { mailPreferences } = await import('../src/app/outbound/mail.js');
    expect((await mailPreferences(db.pool, manager, 'manager')).map((p) => [p.kind, p.on])).toEqual([
      ['new_application', false],
      ['commission_held', false],
      ['payout_run_ready', true],
      ['daily_summary', false],
    ]);
    const sale = await apiSale(api, shop, 10_000);
    await must('POST', `/programs/${shop.programId}/commissions/${sale.commissionId}/approve`, { reason: 'ok' });
    await must('POST', `/programs/${shop.programId}/payouts/run`);
    const slug = uid('pref').replaceAll('_', '-').toLowerCase();
    await must('PATCH', `/programs/${shop.programId}/application-settings`, { applications_open: true, slug });
    await form(`/apply/${slug}`, { name: 'Pat', email: `${uid('pat')}@creators.test`, accept_terms: 'on' }, '203.0.113.99');
    await outboxSent(db.pool);
    expect(subjects(manager)).toEqual([expect.stringMatching(/^Payout batch \d+ is ready to pay/)]);
    expect((await db.pool.query("SELECT skipped FROM mail_outbox WHERE to_email = $1 AND kind = 'new_application'", [manager])).rows).toEqual([{ skipped: 'unsubscribed' }]);
  });

  it("the daily summary is opt-in: only who turned it on gets yesterday's numbers", async () => {
    const { queueDailySummaries, saveMailPreferences } = await import('../src/app/outbound/mail.js');
    const shop = await seedProgram(api, { name: 'Summary Shop' });
    const manager = (await db.pool.query('SELECT email FROM accounts WHERE id = $1', [shop.accountId])).rows[0].email;
    const finance = `${uid('sumfin')}@team.test`;
    await db.pool.query("INSERT INTO account_members (account_id, email, role, accepted_at) VALUES ($1, $2, 'finance', now())", [shop.accountId, finance]);
    await saveMailPreferences(db.pool, manager, 'manager', ['daily_summary', 'payout_run_ready']);
    await apiSale(api, shop, 10_000);
    await queueDailySummaries({ pool: db.pool, now: () => new Date(Date.now() + 86_400_000) });
    await outboxSent(db.pool);
    const summaries = to(manager).filter((m) => m.subject.startsWith('Summary Shop on '));
    expect(summaries).toHaveLength(1);
    expect(summaries[0]!.text).toContain('- 1 sales');
    expect(summaries[0]!.headers['list-unsubscribe-post']).toBe('List-Unsubscribe=One-Click');
    expect(to(finance).filter((m) => m.subject.startsWith('Summary Shop on '))).toEqual([]);
  });
});

describe('mail to an address anyone can type, capped per address', () => {
  it('applications with one address to 7 programs from 7 client addresses: all recorded, the applicant mailed 5 times (the cap an hour)', async () => {
    const HOUR = 3_600_000;
    api.clock.now = new Date(Math.ceil(api.clock.now.getTime() / HOUR) * HOUR + 60_000);
    const email = `${uid('typed')}@creators.test`;
    const answers = new Set<string>();
    for (let i = 0; i < 7; i++) {
      const shop = await seedProgram(api, { name: `Cap Shop ${i}` });
      const slug = uid(`cap${i}`).replaceAll('_', '-').toLowerCase();
      await must('PATCH', `/programs/${shop.programId}/application-settings`, { applications_open: true, slug });
      const reply = await form(`/apply/${slug}`, { name: 'Typed', email, accept_terms: 'on' }, `203.0.115.${i + 1}`);
      answers.add(`${reply.status} ${String(reply.body).includes('your application was received')}`);
    }
    expect([...answers]).toEqual(['200 true']);
    await outboxSent(db.pool);
    expect((await db.pool.query("SELECT count(*)::int AS n FROM partners WHERE email = $1 AND status = 'applied'", [email])).rows[0].n).toBe(7);
    expect(subjects(email)).toHaveLength(5);
    expect(subjects(email).every((s) => s.endsWith(': we received your application'))).toBe(true);
  });
});

describe('mail people open (issue 44, item 4)', () => {
  it("the approval mail carries the partner's link on the links host and its QR code as an inline image of the HTML part", async () => {
    const shop = await seedProgram(api, { name: 'Link Shop' });
    const linksHost = `go.${uid('links').replaceAll('_', '-').toLowerCase()}.test`;
    await db.pool.query("INSERT INTO program_domains (host, program_id, kind) VALUES ($1, $2, 'links')", [linksHost, shop.programId]);
    const slug = uid('qr').replaceAll('_', '-').toLowerCase();
    await must('PATCH', `/programs/${shop.programId}/application-settings`, { applications_open: true, slug });
    const cleo = `${uid('cleo')}@creators.test`;
    await form(`/apply/${slug}`, { name: 'Cleo', email: cleo, accept_terms: 'on' }, '203.0.113.90');
    await outboxSent(db.pool);
    const { applications } = await must('GET', `/programs/${shop.programId}/applications`);
    const partnerId = applications.find((a: any) => a.email === cleo).partner_id;
    await must('POST', `/programs/${shop.programId}/partners/${partnerId}/approve`, {});
    await outboxSent(db.pool);
    const code = (await db.pool.query('SELECT short_link FROM referral_links WHERE program_id = $1 AND partner_id = $2', [shop.programId, partnerId])).rows[0].short_link;
    const link = `https://${linksHost}/${code}`;
    const approved = to(cleo).find((m) => m.subject === 'Link Shop: you are approved')!;
    expect(approved.text).toContain(`Your referral link: ${link}\n`);
    expect(approved.html).toContain(`<a href="${link}"`);
    // The QR code: a PNG part of the mail, inline, that the HTML shows by its content id, and that holds the link.
    expect(approved.html).toContain(`<img src="cid:referral-link-qr@affix" alt="QR code of your referral link ${link}" width="180" height="180"`);
    const images = approved.attachments.filter((a) => a.contentType === 'image/png');
    expect(images.map((a) => [a.cid, a.inline])).toEqual([['referral-link-qr@affix', true]]);
    expect(images[0]!.content.equals(await qrPng(link))).toBe(true);
    // Other mails carry no image.
    expect(to(cleo).filter((m) => m !== approved).every((m) => m.attachments.length === 0)).toBe(true);

    // Without a links host, the link is the referral URL on the program's site (as the portal shows it).
    const plain = await seedProgram(api, { name: 'Plain Shop' });
    const plainSlug = uid('plain').replaceAll('_', '-').toLowerCase();
    await must('PATCH', `/programs/${plain.programId}/application-settings`, { applications_open: true, slug: plainSlug });
    const dan = `${uid('dan')}@creators.test`;
    await form(`/apply/${plainSlug}`, { name: 'Dan', email: dan, accept_terms: 'on' }, '203.0.113.91');
    await outboxSent(db.pool);
    const danId = (await must('GET', `/programs/${plain.programId}/applications`)).applications.find((a: any) => a.email === dan).partner_id;
    await must('POST', `/programs/${plain.programId}/partners/${danId}/approve`, {});
    await outboxSent(db.pool);
    const danCode = (await db.pool.query('SELECT short_link FROM referral_links WHERE program_id = $1 AND partner_id = $2', [plain.programId, danId])).rows[0].short_link;
    const danMail = to(dan).find((m) => m.subject === 'Plain Shop: you are approved')!;
    expect(danMail.text).toContain(`Your referral link: https://shop.example.com/?aff=${danCode}\n`);
    expect(danMail.attachments.map((a) => a.cid)).toEqual(['referral-link-qr@affix']);
  });

  it('the removal mail says what changed and what the partner can do', async () => {
    const shop = await seedProgram(api, { name: 'Strict Shop' });
    const email = `${uid('removed')}@creators.test`;
    await must('PATCH', `/programs/${shop.programId}/partners/${shop.partnerId}`, { email });
    await must('POST', `/programs/${shop.programId}/partners/${shop.partnerId}/invite`);
    await must('POST', `/programs/${shop.programId}/partners/${shop.partnerId}/ban`, { reason: 'brand bidding on search ads' });
    await outboxSent(db.pool);
    const removed = to(email).find((m) => m.subject === 'Strict Shop: you were removed from the partner program')!;
    expect(removed.text).toContain('Strict Shop removed you from its partner program: brand bidding on search ads.');
    expect(removed.text).toContain('What changed:\n- Your referral links no longer record clicks');
    expect(removed.text).toContain('- Commissions not yet approved are rejected, and payouts not yet sent are cancelled.');
    expect(removed.text).toContain('What you can do:\n- Take your links and codes of Strict Shop down');
    expect(removed.text).toContain('If you think this is a mistake, write to the Strict Shop team');
    expect(removed.html).toContain('What you can do:');
  });

  it('the digest says when the commissions can be paid, which are held for review, and where to follow them', async () => {
    const shop = await seedProgram(api, { name: 'Hold Shop', commission_rate: 10 });
    const email = `${uid('held')}@creators.test`;
    await must('PATCH', `/programs/${shop.programId}/partners/${shop.partnerId}`, { email });
    await must('POST', `/programs/${shop.programId}/partners/${shop.partnerId}/invite`);
    for (const cents of [1000, 2000]) await apiSale(api, shop, cents);
    await db.pool.query("UPDATE commissions SET hold_days = 14, stage = CASE WHEN id = (SELECT min(id) FROM commissions WHERE program_id = $1) THEN 'held' ELSE stage END WHERE program_id = $1", [shop.programId]);
    const today = new Date().toISOString().slice(0, 10);
    await queueCommissionDigests({ pool: db.pool, publicUrl: api.url, now: () => new Date(Date.now() + 86_400_000) });
    await outboxSent(db.pool);
    const digest = to(email).find((m) => m.subject.includes('earned'))!;
    const ends = new Date(Date.parse(`${today}T00:00:00Z`) + 15 * 86_400_000).toISOString().slice(0, 10);
    expect(digest.text).toContain(`What happens next: they wait out the program's hold of 14 days (time for refunds), which ends by ${ends}; then, unless a sale is refunded meanwhile, they are approved and paid with the next payout.`);
    expect(digest.text).toContain('1 of them is held for review by the team: paid only once the team releases it.');
    expect(digest.text).toContain(`- See each sale, its commission and the day it can be paid: ${api.url}/portal/programs/${shop.partnerId}/referrals`);
    expect(digest.text).toContain(`- Make sure your payout details are set, so the payout can pay you: ${api.url}/portal/programs/${shop.partnerId}#payout-details`);
  });
});
