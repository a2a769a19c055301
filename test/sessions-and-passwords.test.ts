// Sessions, CLI tokens and passwords (docs/team.md): each person sees and ends only their own
// sessions and tokens; from the team page an owner ends anyone's, an admin those of members below
// owner, finance and viewers nobody's; a password reset by mail (once, 30 minutes, the same answer
// for every address) ends every session and CLI token of the address; a password change needs the
// current password. Every end and every password change is in the audit log.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDashboardSession } from '../src/app/accounts/access.js';
import { sha256 } from '../src/core/secrets.js';
import { insertLoginToken } from '../src/db/accounts/cli-logins.js';
import { hashPassword } from '../src/platform/passwords.js';
import { type TestApi, type TestDatabase, adminHeaders, closeTestApi, openTestApi } from './support/harness.js';
import { dashboardVisitor } from './support/dashboard-visitor.js';
import { outboxSent, startSmtpReceiver } from './support/smtp.js';

let db: TestDatabase;
let api: TestApi;
let smtp: Awaited<ReturnType<typeof startSmtpReceiver>>;

beforeAll(async () => {
  smtp = await startSmtpReceiver();
  ({ db, api } = await openTestApi(
    { AFFIX_SECRET_KEY: 'sessions-test-secret-key-0123456789', AFFIX_SMTP_URL: smtp.url, AFFIX_WORKER_POLL_SECONDS: '0.5' },
    { queueUrl: 'own', workers: true },
  ));
});
afterAll(async () => {
  await closeTestApi({ db, api });
  await smtp.close();
});

let ipCounter = 0;
const nextIp = () => `203.0.113.${(++ipCounter % 250) + 1}`;

/** A tiny browser (test/support/dashboard-visitor.ts), each from its own address unless told. */
const visitor = (sessionToken: string | null = null, ip = nextIp()) => dashboardVisitor(api.url, { sessionToken, ip });

const admin = async (method: string, path: string, body?: unknown) => {
  const reply = await api.request(method, `/api/v1/admin${path}`, { body, headers: adminHeaders });
  if (reply.status >= 300) throw new Error(`${method} ${path}: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.data;
};

/** The account's own sign-in ('account') and a member of each role. */
const PEOPLE = ['account', 'owner', 'admin', 'finance', 'viewer'] as const;
type Who = (typeof PEOPLE)[number];

async function makeTeam(password: string) {
  const tag = randomBytes(4).toString('hex');
  const emails = Object.fromEntries(PEOPLE.map((who) => [who, `${who}-${tag}@team.test`])) as Record<Who, string>;
  const account = await admin('POST', '/accounts', { email: emails.account, password });
  const memberIds = new Map<Who, number | null>([['account', null]]);
  const hash = await hashPassword(password);
  for (const role of PEOPLE.slice(1)) {
    const { rows } = await db.pool.query('INSERT INTO account_members (account_id, email, role, password_hash, accepted_at) VALUES ($1, $2, $3, $4, now()) RETURNING id', [account.id, emails[role], role, hash]);
    memberIds.set(role, Number(rows[0].id));
  }
  return { accountId: Number(account.id), emails, memberIds };
}
type Team = Awaited<ReturnType<typeof makeTeam>>;

/** A session (its cookie token and id) and a CLI token (its id) for a person, made as a sign-in makes them. */
async function sessionOf(team: Team, who: Who) {
  const { token } = await openDashboardSession(db.pool, team.accountId, new Date(), team.memberIds.get(who)!);
  const { rows } = await db.pool.query('SELECT id FROM dashboard_sessions WHERE token_hash = $1', [sha256(token)]);
  return { token, id: Number(rows[0].id) };
}
async function cliTokenOf(team: Team, who: Who) {
  const token = `affix_cli_${randomBytes(16).toString('hex')}`;
  await insertLoginToken(db.pool, token, team.accountId, new Date(Date.now() + 86_400_000), team.memberIds.get(who)!);
  const { rows } = await db.pool.query('SELECT id FROM cli_tokens WHERE token_hash = $1', [sha256(token)]);
  return Number(rows[0].id);
}
const liveSessions = async (ids: number[]) => (await db.pool.query('SELECT count(*)::int AS n FROM dashboard_sessions WHERE id = ANY($1)', [ids])).rows[0].n;
const liveTokens = async (ids: number[]) => (await db.pool.query('SELECT count(*)::int AS n FROM cli_tokens WHERE id = ANY($1) AND revoked_at IS NULL', [ids])).rows[0].n;
const auditOf = async (accountId: number, action: string) =>
  (await db.pool.query('SELECT actor_id, actor_label, object_id, changes FROM audit_log WHERE account_id = $1 AND action = $2 ORDER BY id', [accountId, action])).rows;
const idsIn = (text: string, words: string) => [...text.matchAll(new RegExp(`${words} (\\d+)`, 'g'))].map((m) => Number(m[1])).sort((a, b) => a - b);

describe('each person sees and ends only their own sessions and CLI tokens', () => {
  let team: Team;
  const held = new Map<Who, { browser: ReturnType<typeof visitor>; current: number; other: number; token: number }>();

  beforeAll(async () => {
    team = await makeTeam('team password 1234');
    for (const who of PEOPLE) {
      const current = await sessionOf(team, who);
      const other = await sessionOf(team, who);
      const token = await cliTokenOf(team, who);
      held.set(who, { browser: visitor(current.token), current: current.id, other: other.id, token });
    }
  });

  it('the account page lists the signed-in person’s own sessions and tokens, nobody else’s', async () => {
    for (const who of PEOPLE) {
      const mine = held.get(who)!;
      const page = await mine.browser.get('/dashboard/account');
      expect(page.status, who).toBe(200);
      // The current session has no button (sign out instead); the other one and the token do.
      expect(idsIn(page.text, 'End session'), who).toEqual([mine.other]);
      expect(idsIn(page.text, 'Revoke token'), who).toEqual([mine.token]);
    }
  });

  it('every role × every session and token route: someone else’s id is refused (404) and stays live', async () => {
    const refusals: string[] = [];
    for (const actor of PEOPLE) {
      const browser = held.get(actor)!.browser;
      await browser.get('/dashboard/account');
      for (const target of PEOPLE.filter((p) => p !== actor)) {
        const theirs = held.get(target)!;
        for (const [path, id] of [['sessions', theirs.current], ['sessions', theirs.other], ['tokens', theirs.token]] as const) {
          const reply = await browser.post(`/dashboard/account/${path}/${id}/revoke`);
          if (reply.status !== 404) refusals.push(`${actor} ended ${target}'s ${path} ${id}: ${reply.status}`);
        }
      }
    }
    expect(refusals).toEqual([]);
    const all = PEOPLE.map((who) => held.get(who)!);
    expect(await liveSessions(all.flatMap((h) => [h.current, h.other]))).toBe(10);
    expect(await liveTokens(all.map((h) => h.token))).toBe(5);
    expect(await auditOf(team.accountId, 'session.ended')).toEqual([]);
  });

  it('each person ends their own session and token; each end is in the audit log with who did it', async () => {
    for (const who of PEOPLE) {
      const mine = held.get(who)!;
      await mine.browser.get('/dashboard/account');
      expect((await mine.browser.post(`/dashboard/account/sessions/${mine.other}/revoke`)).location).toBe('/dashboard/account?done=revoked');
      expect((await mine.browser.post(`/dashboard/account/tokens/${mine.token}/revoke`)).location).toBe('/dashboard/account?done=revoked');
      expect(await liveSessions([mine.other, mine.current])).toBe(1);
      expect(await liveTokens([mine.token])).toBe(0);
    }
    const personIds = PEOPLE.map((who) => (who === 'account' ? `account:${team.accountId}` : String(team.memberIds.get(who))));
    const ended = await auditOf(team.accountId, 'session.ended');
    expect(ended.map((e) => [e.actor_id, e.actor_label, e.object_id])).toEqual(PEOPLE.map((who, i) => [personIds[i], team.emails[who], String(held.get(who)!.other)]));
    const revoked = await auditOf(team.accountId, 'cli_token.revoked');
    expect(revoked.map((e) => [e.actor_id, e.object_id])).toEqual(PEOPLE.map((who, i) => [personIds[i], String(held.get(who)!.token)]));
  });
});

describe('the team page ends a member’s sessions: owners anyone’s, admins below owner', () => {
  /** Written down, not read from the code: whose sign-ins each person may end. */
  const MAY_END: Record<Who, Who[]> = {
    account: ['owner', 'admin', 'finance', 'viewer'],
    owner: ['account', 'admin', 'finance', 'viewer'],
    admin: ['finance', 'viewer'],
    finance: [],
    viewer: [],
  };

  it('every role × every other person: allowed ends all their sessions and tokens (audited), refused leaves them live', async () => {
    const team = await makeTeam('team password 1234');
    const target = (who: Who) => (who === 'account' ? 'account' : String(team.memberIds.get(who)));
    const wrong: string[] = [];
    let allowed = 0;
    for (const actor of PEOPLE) {
      for (const whom of PEOPLE.filter((p) => p !== actor)) {
        const browser = visitor((await sessionOf(team, actor)).token);
        const theirs = [(await sessionOf(team, whom)).id, (await sessionOf(team, whom)).id];
        const token = await cliTokenOf(team, whom);
        await browser.get('/dashboard/account');
        const reply = await browser.post(`/dashboard/team/${target(whom)}/sign-ins/end`);
        const may = MAY_END[actor].includes(whom);
        const [sessions, tokens] = [await liveSessions(theirs), await liveTokens([token])];
        if (may && (reply.location !== '/dashboard/team?done=ended' || sessions !== 0 || tokens !== 0)) wrong.push(`${actor} → ${whom}: ${reply.status}, ${sessions} sessions, ${tokens} tokens left`);
        if (!may && (reply.status !== 403 || sessions !== 2 || tokens !== 1)) wrong.push(`${actor} → ${whom}: ${reply.status}, ${sessions} sessions, ${tokens} tokens left`);
        if (may) allowed += 1;
      }
    }
    expect(wrong).toEqual([]);
    const logged = await auditOf(team.accountId, 'member.sign_ins_ended');
    expect(logged).toHaveLength(allowed);
    // Each entry counts what ended: both of that person's sessions and their token.
    expect(logged.every((e) => e.changes.sessions.from >= 2 && e.changes.cli_tokens.from >= 1)).toBe(true);
  });

  it('an admin sees who is signed in and the end buttons below owner, and no invitation or role forms', async () => {
    const team = await makeTeam('team password 1234');
    const page = await visitor((await sessionOf(team, 'admin')).token).get('/dashboard/team');
    expect(page.status).toBe(200);
    expect(page.text).toContain(`End the sessions of ${team.emails.finance}`);
    expect(page.text).toContain(`End the sessions of ${team.emails.viewer}`);
    expect(page.text).not.toContain(`End the sessions of ${team.emails.owner}`);
    expect(page.text).not.toContain('Send the invitation');
    expect(page.text).not.toContain('Save role');
    const owners = await visitor((await sessionOf(team, 'owner')).token).get('/dashboard/team');
    expect(owners.text).toContain(`End the sessions of ${team.emails.admin}`);
    expect(owners.text).toContain('End the sessions of the account owner');
    expect(owners.text).toContain('Send the invitation');
    expect((await visitor((await sessionOf(team, 'finance')).token).get('/dashboard/team')).status).toBe(403);
  });
});

describe('password reset by mail', () => {
  const resetLink = (email: string) => {
    const mail = [...smtp.mails].reverse().find((m) => m.to.toLowerCase() === email.toLowerCase() && m.subject === 'Reset your Affix password');
    const link = mail ? /https?:\/\/\S+\/dashboard\/password\/reset\?token=[\w-]+/.exec(mail.text)?.[0] : undefined;
    return link ? link.replace(/^https?:\/\/[^/]+/, '') : null;
  };
  const withoutCsrf = (text: string) => text.replace(/name="_csrf" value="[^"]+"/g, '').replace(/nonce-[\w+/=]+|nonce="[^"]+"/g, '');

  it('the sign-in page links to it; a known and an unknown address get the same answer, only the known one a mail', async () => {
    const team = await makeTeam('team password 1234');
    const login = await visitor().get('/dashboard/login');
    expect(login.text).toContain('<a href="/dashboard/password/forgot">Forgot password?</a>');
    const ask = async (email: string) => {
      const browser = visitor();
      await browser.get('/dashboard/password/forgot');
      return browser.post('/dashboard/password/forgot', { email });
    };
    const unknown = `nobody-${randomBytes(4).toString('hex')}@team.test`;
    const [known, stranger] = [await ask(team.emails.viewer), await ask(unknown)];
    expect(known.status).toBe(200);
    expect(stranger.status).toBe(200);
    expect(withoutCsrf(stranger.text)).toBe(withoutCsrf(known.text));
    expect(known.text).toContain('a link to choose a new password is on its way');
    await outboxSent(db.pool);
    expect(resetLink(team.emails.viewer)).toMatch(/^\/dashboard\/password\/reset\?token=/);
    const mail = smtp.mails.find((m) => m.to === team.emails.viewer)!;
    expect(mail.headers['list-unsubscribe']).toBeUndefined(); // essential: no unsubscribe
    expect(smtp.mails.filter((m) => m.to === unknown)).toEqual([]);
    expect((await db.pool.query("SELECT count(*)::int AS n FROM mail_outbox WHERE to_email = $1", [unknown])).rows[0].n).toBe(0);
    expect((await auditOf(team.accountId, 'password.reset_requested')).map((e) => e.object_id)).toEqual([String(team.memberIds.get('viewer'))]);
  });

  it('the link works once, within 30 minutes: every session and CLI token of that person ends, nobody else’s; the new password signs in', async () => {
    const team = await makeTeam('team password 1234');
    const start = new Date(api.clock.now);
    try {
      const asker = visitor();
      await asker.get('/dashboard/password/forgot');
      await asker.post('/dashboard/password/forgot', { email: team.emails.finance });
      await outboxSent(db.pool);
      const link = resetLink(team.emails.finance)!;
      const theirs = [(await sessionOf(team, 'finance')).id, (await sessionOf(team, 'finance')).id];
      const theirToken = await cliTokenOf(team, 'finance');
      const others = [(await sessionOf(team, 'owner')).id, (await sessionOf(team, 'account')).id];
      const otherToken = await cliTokenOf(team, 'viewer');

      api.clock.now = new Date(start.getTime() + 29 * 60_000); // 29 minutes later: still open
      const browser = visitor();
      expect((await browser.get(link)).text).toContain('Choose a new password');
      const short = await browser.post('/dashboard/password/reset', { token: link.split('token=')[1]!, password: 'short' });
      expect(short.status).toBe(400);
      expect(short.text).toContain('A password of at least 12 characters.');
      const used = await browser.post('/dashboard/password/reset', { token: link.split('token=')[1]!, password: 'a brand new password 42' });
      expect(used.location).toBe('/dashboard/login?done=reset');
      expect(await liveSessions(theirs)).toBe(0);
      expect(await liveTokens([theirToken])).toBe(0);
      expect(await liveSessions(others)).toBe(2);
      expect(await liveTokens([otherToken])).toBe(1);

      // Once only.
      const again = visitor();
      expect((await again.get(link)).status).toBe(400);
      await again.get('/dashboard/password/forgot'); // a form's CSRF token: the refusal page has no form
      const reuse = await again.post('/dashboard/password/reset', { token: link.split('token=')[1]!, password: 'yet another password 42' });
      expect(reuse.status).toBe(400);
      expect(reuse.text).toContain('This link expired or was already used.');

      const signIn = async (password: string) => {
        const b = visitor();
        await b.get('/dashboard/login');
        return b.post('/dashboard/login', { email: team.emails.finance, password });
      };
      expect((await signIn('team password 1234')).status).toBe(401);
      expect((await signIn('a brand new password 42')).location).toBe('/dashboard');
      const [entry] = await auditOf(team.accountId, 'password.reset');
      expect(entry).toMatchObject({ actor_label: team.emails.finance, object_id: String(team.memberIds.get('finance')) });
      expect(entry.changes).toEqual({ password: { from: 'set', to: 'changed' }, sessions: { from: 2, to: 0 }, cli_tokens: { from: 1, to: 0 } });
    } finally {
      api.clock.now = start;
    }
  });

  it('after 30 minutes the link is refused and the password stays', async () => {
    const team = await makeTeam('team password 1234');
    const start = new Date(api.clock.now);
    try {
      const asker = visitor();
      await asker.get('/dashboard/password/forgot');
      await asker.post('/dashboard/password/forgot', { email: team.emails.admin });
      await outboxSent(db.pool);
      const link = resetLink(team.emails.admin)!;
      const session = await sessionOf(team, 'admin');
      api.clock.now = new Date(start.getTime() + 30 * 60_000 + 1000);
      const browser = visitor();
      expect((await browser.get(link)).status).toBe(400);
      await browser.get('/dashboard/password/forgot'); // a form's CSRF token: the refusal page has no form
      const late = await browser.post('/dashboard/password/reset', { token: link.split('token=')[1]!, password: 'a brand new password 42' });
      expect(late.status).toBe(400);
      expect(await liveSessions([session.id])).toBe(1);
      const b = visitor();
      await b.get('/dashboard/login');
      expect((await b.post('/dashboard/login', { email: team.emails.admin, password: 'team password 1234' })).location).toBe('/dashboard');
    } finally {
      api.clock.now = start;
    }
  });

  it('using one link closes the address’s other open links', async () => {
    const team = await makeTeam('team password 1234');
    const asker = visitor();
    await asker.get('/dashboard/password/forgot');
    await asker.post('/dashboard/password/forgot', { email: team.emails.account });
    await outboxSent(db.pool);
    const older = resetLink(team.emails.account)!;
    await asker.get('/dashboard/password/forgot');
    await asker.post('/dashboard/password/forgot', { email: team.emails.account });
    await outboxSent(db.pool);
    const newer = resetLink(team.emails.account)!;
    expect(newer).not.toBe(older);
    const browser = visitor();
    await browser.get(newer);
    expect((await browser.post('/dashboard/password/reset', { token: newer.split('token=')[1]!, password: 'owner newer password 42' })).location).toBe('/dashboard/login?done=reset');
    // The older link's page says it is spent, and posting it anyway changes nothing.
    expect((await visitor().get(older)).status).toBe(400);
    const again = visitor();
    await again.get('/dashboard/password/forgot');
    const reply = await again.post('/dashboard/password/reset', { token: older.split('token=')[1]!, password: 'someone else password 42' });
    expect(reply.status).toBe(400);
    const b = visitor();
    await b.get('/dashboard/login');
    expect((await b.post('/dashboard/login', { email: team.emails.account, password: 'owner newer password 42' })).location).toBe('/dashboard');
  });

  it('the account’s own sign-in (no member row) resets too', async () => {
    const team = await makeTeam('team password 1234');
    const asker = visitor();
    await asker.get('/dashboard/password/forgot');
    await asker.post('/dashboard/password/forgot', { email: team.emails.account });
    await outboxSent(db.pool);
    const link = resetLink(team.emails.account)!;
    const session = await sessionOf(team, 'account');
    const memberSession = await sessionOf(team, 'owner');
    const browser = visitor();
    await browser.get(link);
    expect((await browser.post('/dashboard/password/reset', { token: link.split('token=')[1]!, password: 'owner new password 42' })).location).toBe('/dashboard/login?done=reset');
    expect(await liveSessions([session.id])).toBe(0);
    expect(await liveSessions([memberSession.id])).toBe(1);
    const b = visitor();
    await b.get('/dashboard/login');
    expect((await b.post('/dashboard/login', { email: team.emails.account, password: 'owner new password 42' })).location).toBe('/dashboard');
    expect((await auditOf(team.accountId, 'password.reset')).map((e) => e.object_id)).toEqual([`account:${team.accountId}`]);
  });
});

describe('password change on the account page', () => {
  it('needs the current password; then the person’s other sessions and CLI tokens end, this browser stays; audited', async () => {
    const team = await makeTeam('team password 1234');
    const current = await sessionOf(team, 'viewer');
    const other = await sessionOf(team, 'viewer');
    const token = await cliTokenOf(team, 'viewer');
    const colleague = await sessionOf(team, 'admin');
    const browser = visitor(current.token);
    expect((await browser.get('/dashboard/account')).text).toContain('Change password');
    const wrong = await browser.post('/dashboard/account/password', { current_password: 'not my password', password: 'changed password 1234' });
    expect(wrong.status).toBe(400);
    expect(wrong.text).toContain('This is not your current password.');
    expect(await liveSessions([other.id])).toBe(1);
    const changed = await browser.post('/dashboard/account/password', { current_password: 'team password 1234', password: 'changed password 1234' });
    expect(changed.location).toBe('/dashboard/account?done=password');
    expect(await liveSessions([current.id, other.id, colleague.id])).toBe(2);
    expect(await liveSessions([other.id])).toBe(0);
    expect(await liveTokens([token])).toBe(0);
    expect((await browser.get('/dashboard/account')).status).toBe(200);
    const b = visitor();
    await b.get('/dashboard/login');
    expect((await b.post('/dashboard/login', { email: team.emails.viewer, password: 'changed password 1234' })).location).toBe('/dashboard');
    const [entry] = await auditOf(team.accountId, 'password.changed');
    expect(entry).toMatchObject({ actor_id: String(team.memberIds.get('viewer')), object_id: String(team.memberIds.get('viewer')) });
    expect(entry.changes).toEqual({ password: { from: 'set', to: 'changed' }, sessions: { from: 1, to: 0 }, cli_tokens: { from: 1, to: 0 } });
  });
});
