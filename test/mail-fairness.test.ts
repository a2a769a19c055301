// Mail is shared by every brand (docs/architecture.md, "Fairness between brands"; docs/mail.md): a person's
// own sign-in link never waits behind another brand's bulk notices, and brands' notices go out
// in turn. Order and counts are asserted, never the machine's speed: the test SMTP server holds
// the mails being sent while a test writes more, then releases them and looks at what came next.
import { copyFile, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import PgBoss from 'pg-boss';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { sendNextMail } from '../src/app/outbound/mail.js';
import type { OutgoingMail } from '../src/core/mail.js';
import { NEXT_MAIL_SQL, queueMails } from '../src/db/outbound/mail-outbox.js';
import { MIGRATIONS_DIR, migrate } from '../src/db/infra/migrate.js';
import { type Pool, createPool, withTransaction } from '../src/db/infra/pool.js';
import { type TestApi, type TestDatabase, adminHeaders, createTestDatabase, seedProgram, startTestApi } from './support/harness.js';
import { uid } from './support/money.js';
import { outboxSent, startSmtpReceiver } from './support/smtp.js';

/** Mails handed to SMTP at once (src/jobs/mail-sender.ts, MAIL_SENDERS), written down here. */
const SENDERS = 2;

let opened: { db: TestDatabase; api: TestApi; pool: Pool; smtp: Awaited<ReturnType<typeof startSmtpReceiver>> } | null = null;
afterEach(async () => {
  if (!opened) return;
  opened.smtp.release();
  await opened.api.close();
  await opened.pool.end();
  await opened.db.drop();
  await opened.smtp.close();
  opened = null;
});

async function open() {
  const smtp = await startSmtpReceiver();
  const db = await createTestDatabase();
  // The service's pool (20 by default), not the harness's 5: the tests hold both senders'
  // connections at the SMTP server while the API and three listeners keep working.
  const pool = createPool(db.url, { max: 10, applicationName: 'affix-test' });
  const api = await startTestApi(pool, { AFFIX_SECRET_KEY: 'fairness-secret-key-0123456789', AFFIX_SMTP_URL: smtp.url, AFFIX_WORKER_POLL_SECONDS: '0.5' }, { queueUrl: db.url, workers: true });
  opened = { db, api, pool, smtp };
  return { db: { pool }, api, smtp };
}

const must = async (api: TestApi, method: string, path: string, body?: unknown) => {
  const reply = await api.request(method, `/api/v1/admin${path}`, { body, headers: adminHeaders });
  if (reply.status >= 300) throw new Error(`${method} ${path}: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.data;
};

/** `count` notices of one brand (a ban each), written in one statement as a bulk action does. */
const notices = (programId: number, tag: string, count: number): OutgoingMail[] =>
  Array.from({ length: count }, (_, i) => ({
    programId,
    kind: 'partner_banned' as const,
    to: `${tag}-${i}@creators.test`,
    senderName: tag,
    subject: `${tag} notice ${i}`,
    body: 'You were removed from the program.',
    canUnsubscribe: false,
    dedupeKey: `${tag}:${i}:${uid('n')}`,
  }));

/** A partner asks for a portal sign-in link, as the login form does. */
async function askForSignInLink(api: TestApi, email: string): Promise<void> {
  const page = await fetch(`${api.url}/portal/login`);
  const cookie = page.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await page.text())![1]!;
  const reply = await fetch(`${api.url}/portal/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie, origin: api.url },
    body: new URLSearchParams({ _csrf: csrf, email }).toString(),
  });
  expect(reply.status).toBe(200);
}

describe('mail: urgent first, then brands in turn', () => {
  it("with 10,000 notices of one brand waiting, another brand's partner's sign-in link is the next mail handed to SMTP", async () => {
    const { db, api, smtp } = await open();
    const bulk = await seedProgram(api, { name: 'Bulk Brand' });
    const quiet = await seedProgram(api, { name: 'Quiet Brand' });
    const partner = `${uid('quiet')}@creators.test`;
    await must(api, 'PATCH', `/programs/${quiet.programId}/partners/${quiet.partnerId}`, { email: partner });
    await must(api, 'POST', `/programs/${quiet.programId}/partners/${quiet.partnerId}/invite`);
    await outboxSent(db.pool);

    expect(await queueMails(db.pool, notices(bulk.programId, 'bulk', 10_000))).toBe(10_000);
    const bulkMails = () => smtp.mails.filter((m) => m.fromName === 'bulk').length;
    await expect.poll(bulkMails, { timeout: 30_000, interval: 20 }).toBeGreaterThan(0);

    // The senders are busy with the bulk brand's notices (held at the SMTP server) when the link is asked for.
    smtp.hold();
    await askForSignInLink(api, partner);
    const before = smtp.mails.length;
    smtp.release();
    const signInLinks = () => smtp.mails.filter((m) => m.to === partner && m.subject === 'Your Affix partner sign-in link');
    await expect.poll(() => signInLinks().length > 0 || smtp.mails.length - before >= 200, { timeout: 60_000, interval: 20 }).toBe(true);
    const after = smtp.mails.slice(before);
    const link = after.findIndex((m) => m.to === partner);
    const noticesFirst = link === -1 ? after.length : link;
    console.log(`[mail-fairness] bulk notices handed to SMTP after the sign-in link was asked for and before it: ${noticesFirst} (of 10,000 waiting)`);
    // Only the mails already being sent when it was asked for (and one more sender's worth) go first.
    expect(link).toBeGreaterThanOrEqual(0);
    expect(noticesFirst).toBeLessThanOrEqual(2 * SENDERS);

    // The senders read the backlog in index order: no sort of the 10,000 waiting rows.
    const plan = (await db.pool.query(`EXPLAIN ${NEXT_MAIL_SQL}`, [[], new Date()])).rows.map((r) => r['QUERY PLAN']).join('\n');
    expect(plan).toContain('Index Scan using mail_outbox_next_idx');
    expect(plan).not.toMatch(/Sort/);

    // The figure (printed, not asserted): how long a sign-in link takes with the backlog still there.
    const waiting = (await db.pool.query('SELECT count(*)::int AS n FROM mail_outbox WHERE sent_at IS NULL AND skipped IS NULL')).rows[0].n;
    const started = performance.now();
    await askForSignInLink(api, partner);
    await expect.poll(() => signInLinks().length, { timeout: 60_000, interval: 5 }).toBe(2);
    console.log(`[mail-fairness] sign-in link asked for -> handed to SMTP: ${(performance.now() - started).toFixed(0)} ms with ${waiting} notices of another brand waiting`);
  }, 120_000);

  it("a brand's 3 notices written while another's 100 are being sent go out among the next few mails, in turn with the other's", async () => {
    const { db, api, smtp } = await open();
    const big = await seedProgram(api, { name: 'Big Brand' });
    const small = await seedProgram(api, { name: 'Small Brand' });
    await outboxSent(db.pool);

    await queueMails(db.pool, notices(big.programId, 'big', 100));
    await expect.poll(() => smtp.mails.filter((m) => m.fromName === 'big').length, { timeout: 30_000, interval: 10 }).toBeGreaterThan(0);
    smtp.hold();
    await queueMails(db.pool, notices(small.programId, 'small', 3));
    const before = smtp.mails.length;
    smtp.release();
    await outboxSent(db.pool, 60_000);
    const after = smtp.mails.slice(before).map((m) => m.fromName);
    const lastSmall = after.lastIndexOf('small');
    console.log(`[mail-fairness] order after the small brand's 3 notices were written: ${after.slice(0, 12).join(' ')} ...`);
    expect(after.filter((name) => name === 'small')).toHaveLength(3);
    // 6 in turn (big, small, big, small, big, small) after the mails already being sent.
    expect(lastSmall + 1).toBeLessThanOrEqual(6 + 2 * SENDERS);
  }, 120_000);

  it('two brands written in one transaction, 100 then 3: the 3 are among the first 6 sent', async () => {
    const { db, api, smtp } = await open();
    const big = await seedProgram(api, { name: 'Big Brand' });
    const small = await seedProgram(api, { name: 'Small Brand' });
    await outboxSent(db.pool);
    const before = smtp.mails.length;
    await withTransaction(db.pool, async (client) => {
      await queueMails(client, notices(big.programId, 'big', 100));
      await queueMails(client, notices(small.programId, 'small', 3));
    });
    await outboxSent(db.pool, 60_000);
    const order = smtp.mails.slice(before).map((m) => m.fromName);
    expect(order).toHaveLength(103);
    // big, small, big, small, big, small: two senders may swap neighbours, never more.
    expect(order.lastIndexOf('small') + 1).toBeLessThanOrEqual(6 + SENDERS - 1);
  }, 120_000);
});

/** An account and a program, written directly (no API needed). */
async function brand(pool: Pool, name: string): Promise<number> {
  const account = await pool.query('INSERT INTO accounts (email) VALUES ($1) RETURNING id', [`${uid(name)}@brands.test`]);
  const program = await pool.query("INSERT INTO programs (account_id, name, domain, commission_type, commission_rate) VALUES ($1, $2, 'brand.test', 'percent', 10) RETURNING id", [account.rows[0].id, name]);
  return Number(program.rows[0].id);
}

describe('a mail server that fails', () => {
  it('a failed mail waits 30 s, then twice as long each time; after 8 attempts it is given up, never sent; other mail goes on meanwhile', async () => {
    const db = await createTestDatabase();
    try {
      const programId = await brand(db.pool, 'Retry Brand');
      let clock = new Date('2026-03-02T10:00:00Z');
      let refuse = true;
      const sent: string[] = [];
      const deps = {
        pool: db.pool,
        mailer: { send: async (m: { subject: string }) => (refuse ? Promise.reject(new Error('421 try again later')) : void sent.push(m.subject)) },
        secretKey: undefined,
        publicUrl: 'https://affix.test',
        now: () => clock,
      };
      await queueMails(db.pool, notices(programId, 'refused', 1));
      const waits: number[] = [];
      let retryAt = clock;
      for (let attempt = 1; attempt <= 7; attempt++) {
        clock = retryAt;
        const report = await sendNextMail(deps);
        expect(report).toMatchObject({ outcome: 'failed', attempts: attempt });
        retryAt = report!.retryAt!;
        waits.push((retryAt.getTime() - clock.getTime()) / 1000);
        clock = new Date(retryAt.getTime() - 1);
        expect(await sendNextMail(deps)).toBeNull(); // not before its time
      }
      expect(waits).toEqual([30, 60, 120, 240, 480, 960, 1920]);
      // Meanwhile other mail is not held up by it.
      await queueMails(db.pool, notices(programId, 'other', 1));
      refuse = false;
      expect(await sendNextMail(deps)).toMatchObject({ outcome: 'sent' });
      refuse = true;
      clock = retryAt;
      expect(await sendNextMail(deps)).toMatchObject({ outcome: 'given_up', attempts: 8 });
      refuse = false;
      clock = new Date(clock.getTime() + 86_400_000);
      expect(await sendNextMail(deps)).toBeNull();
      expect(sent).toEqual(['other notice 0']);
      const row = await db.pool.query("SELECT skipped, attempts, last_error, body FROM mail_outbox WHERE subject = 'refused notice 0'");
      expect(row.rows).toEqual([{ skipped: 'failed', attempts: 8, last_error: '421 try again later', body: null }]);
    } finally {
      await db.drop();
    }
  });
});

describe('0037: mail waiting for its job when the outbox became the queue', () => {
  it('is sent by the new senders, urgent first; its jobs are gone; mail whose job gave up stays given up', async () => {
    const adminUrl = inject('pgAdminUrl');
    const name = `affix_m37_${Date.now()}`;
    const url = new URL(adminUrl);
    url.pathname = `/${name}`;
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    const before = await mkdtemp(join(tmpdir(), 'affix-migrations-'));
    const pool = createPool(url.toString(), { max: 3 });
    try {
      const all = (await readdir(MIGRATIONS_DIR)).filter((file) => file.endsWith('.sql')).sort();
      for (const file of all.filter((file) => file < '0037')) await copyFile(join(MIGRATIONS_DIR, file), join(before, file));
      await migrate(pool, before);
      // The world before: pg-boss with a queue `mail` and a job per waiting row.
      const boss = new PgBoss({ connectionString: url.toString(), supervise: false, schedule: false });
      await boss.start();
      await boss.createQueue('mail', { name: 'mail', retryLimit: 7, retryDelay: 30, retryBackoff: true, expireInSeconds: 120 });
      const programId = await brand(pool, 'Old Brand');
      const row = async (kind: string, subject: string, program: number | null, extra = '') =>
        Number((await pool.query(`INSERT INTO mail_outbox (program_id, kind, to_email, subject, body, dedupe_key${extra ? ', attempts, last_error' : ''}) VALUES ($1, $2, 'p@creators.test', $3, 'x', $3${extra}) RETURNING id`, [program, kind, subject])).rows[0].id);
      const waiting = [await row('partner_banned', 'notice 1', programId), await row('partner_sign_in', 'sign-in', null), await row('partner_banned', 'notice 2', programId)];
      await row('partner_banned', 'gave up', programId, ", 8, 'refused'");
      for (const mailId of waiting) await boss.send('mail', { mailId });
      await boss.stop({ graceful: false, wait: true, close: true });

      expect(await migrate(pool)).toEqual(all.filter((file) => file >= '0037'));
      expect((await pool.query("SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'mail' AND state IN ('created', 'retry')")).rows[0].n).toBe(0);
      expect((await pool.query("SELECT skipped FROM mail_outbox WHERE subject = 'gave up'")).rows).toEqual([{ skipped: 'failed' }]);

      const sent: string[] = [];
      const deps = { pool, mailer: { send: async (m: { subject: string }) => void sent.push(m.subject) }, secretKey: undefined, publicUrl: 'https://affix.test', now: () => new Date() };
      while (await sendNextMail(deps));
      expect(sent).toEqual(['sign-in', 'notice 1', 'notice 2']);
    } finally {
      await pool.end();
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
      await rm(before, { recursive: true, force: true });
    }
  }, 60_000);
});
