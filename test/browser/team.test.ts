// A brand's team in Chromium: the owner invites a finance member (the mail's link works for
// days); the member joins, approves a commission, runs and pays a payout, but gets the 403 page
// for the API keys and cannot change the program; the audit page names each of them, and a
// scheduled approval as the system.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { approveDueCommissions } from '../../src/app/money/commission-lifecycle.js';
import { adminOf, type BrowserAppWithMail, browserAppWithMail, hasChromium, screenshotsAt, signInToDashboard, submitWithKeyboard, textOf } from '../support/browser.js';
import { type TestApi, bearer, trackClick } from '../support/harness.js';
import { outboxSent } from '../support/smtp.js';

let api: TestApi;
let page: Page;
let smtp: BrowserAppWithMail['smtp'];
browserAppWithMail('team-test-key-0123456789abcdef', (opened) => ({ api, page, smtp } = opened));

const admin = adminOf(() => api);
const submit = (name: string) => submitWithKeyboard(page, name);
const shot = (name: string) => screenshotsAt(page, name);

async function signIn(email: string, password: string) {
  await page.context().clearCookies();
  await signInToDashboard(page, api.url, email, password);
}

describe.skipIf(!hasChromium)('a team with roles', () => {
  it('owner invites finance; finance approves and pays, cannot see keys nor change the program; the audit page names each actor', async () => {
    page.setDefaultTimeout(5000);
    const account = await admin('POST', '/accounts', { email: 'owner@team-shop.example', password: 'owner password 123' });
    const program = await admin('POST', '/programs', { account_id: account.id, name: 'Team Shop', domain: 'shop.example.com', commission_type: 'percent', commission_rate: 10 });
    const partner = await admin('POST', `/programs/${program.id}/partners`, { name: 'Paula', email: 'paula@partner.example' });
    await admin('POST', `/programs/${program.id}/links`, { partner_id: partner.id, short_link: 'paula-team' });
    await admin('PATCH', `/programs/${program.id}/partners/${partner.id}/payout-details`, { payout_method: 'paypal', payout_reference: 'paula@paypal.example' });
    const key = (await admin('POST', `/programs/${program.id}/keys`)).api_key;
    const sale = async (txn: string) => {
      const click = await trackClick(api, 'https://shop.example.com/?aff=paula-team');
      const reply = await api.request('POST', '/api/v1/track/sale', { body: { transaction_id: txn, amount_cents: 10_000, click_id: click, customer_key: `c_${txn}` }, headers: bearer(key) });
      return reply.body.commission_id as number;
    };
    const byHand = await sale('team_1');
    const bySchedule = await sale('team_2');
    const base = `${api.url}/dashboard/programs/${program.id}`;

    // The owner invites Fiona as finance.
    await signIn('owner@team-shop.example', 'owner password 123');
    await page.getByRole('link', { name: 'Team', exact: true }).click();
    await page.getByLabel('Their email').fill('fiona@team-shop.example');
    await page.getByLabel('Role').selectOption('finance');
    await submit('Send the invitation');
    await expect.poll(() => textOf(page.getByRole('status'))).toBe('Invitation sent: the link works for 7 days.');
    await outboxSent(api.pool);
    const invitation = smtp.mails.find((m) => m.to === 'fiona@team-shop.example')!;
    expect(invitation.subject).toBe('owner@team-shop.example invited you to its Affix team');
    const link = /https?:\/\/\S+\/dashboard\/join\?token=[\w-]+/.exec(invitation.text)![0].replace(/^https?:\/\/[^/]+/, api.url);

    // Opened days later (6 days): it still works. Fiona chooses a password and is in.
    api.clock.now = new Date(api.clock.now.getTime() + 6 * 86_400_000);
    await page.context().clearCookies();
    await page.goto(link);
    expect(await textOf(page.locator('main section'))).toContain('owner@team-shop.example invited fiona@team-shop.example as finance.');
    await shot('team-join');
    await page.getByLabel('Choose a password (12 characters or more)').fill('fiona password 123');
    await submit('Join');
    await page.waitForURL(`${api.url}/dashboard`);

    // Finance approves, runs a payout and marks it paid.
    await page.goto(`${base}/payouts?stage=pending`);
    await submit(`Approve ${byHand}`);
    await expect.poll(() => textOf(page.getByRole('status'))).toBe('Commission approved.');
    await submit('Run payout');
    const payoutId = (await api.pool.query('SELECT id FROM payouts WHERE program_id = $1', [program.id])).rows[0].id;
    await page.locator(`#reference_${payoutId}`).fill('PP-TEAM-1');
    await submit(`Mark payout ${payoutId} paid`);
    await expect.poll(() => textOf(page.getByRole('status'))).toBe('Payout marked paid.');

    // … but not the keys, and not the program's settings.
    const keys = await page.goto(`${base}/keys`);
    expect(keys!.status()).toBe(403);
    expect(await textOf(page.getByRole('alert'))).toContain('Your role (finance) does not allow this');
    await shot('team-forbidden');
    await page.goto(`${base}/settings`);
    await page.getByLabel('Name').fill('Renamed by finance');
    const settings = page.waitForNavigation();
    await page.getByRole('button', { name: 'Save settings' }).click();
    await settings;
    expect(await textOf(page.getByRole('alert'))).toContain('Your role (finance) does not allow this');
    expect((await admin('GET', `/programs/${program.id}`)).name).toBe('Team Shop');

    // The scheduled approval, as the system.
    await approveDueCommissions({ pool: api.pool, secretBox: null, now: () => new Date(Date.now() + 31 * 86_400_000) });

    // The owner reads the audit log: Fiona's approval and payment, the system's approval.
    await signIn('owner@team-shop.example', 'owner password 123');
    await page.goto(`${base}/audit`);
    const entries = page.locator('#audit li.card');
    const card = async (text: string) => (await entries.filter({ hasText: text }).first().innerText()).replace(/\s+/g, ' ');
    expect(await card(`commission.approve · commission ${byHand}`)).toContain('fiona@team-shop.example (Team member)');
    expect(await card('payout.paid')).toContain('fiona@team-shop.example (Team member)');
    expect(await card(`commission.approve · commission ${bySchedule}`)).toContain('scheduled approval (Affix (scheduled))');
    expect(await card('member.invited')).toContain('owner@team-shop.example (Team member)');
    await shot('program-audit');
    await page.goto(`${api.url}/dashboard/team`);
    expect((await page.locator('#team li.card').filter({ hasText: 'fiona@team-shop.example' }).innerText()).replace(/\s+/g, ' ')).toContain('fiona@team-shop.example joined');
    await shot('team');
  }, 60_000);

  it('an admin ends a viewer’s sessions from the team page; the viewer resets a forgotten password by mail and signs in with it', async () => {
    page.setDefaultTimeout(5000);
    const account = await admin('POST', '/accounts', { email: 'owner@ends-shop.example', password: 'owner password 123' });
    const { hashPassword } = await import('../../src/platform/passwords.js');
    for (const [email, role] of [['adam@ends-shop.example', 'admin'], ['vic@ends-shop.example', 'viewer']]) {
      await api.pool.query('INSERT INTO account_members (account_id, email, role, password_hash, accepted_at) VALUES ($1, $2, $3, $4, now())', [account.id, email, role, await hashPassword(`${role} password 123`)]);
    }
    await signIn('vic@ends-shop.example', 'viewer password 123');
    await page.goto(`${api.url}/dashboard/account`);
    await shot('account');
    const vicsCookies = await page.context().cookies();

    // Adam (admin) sees the team and ends Vic's sessions; no button for the owner's.
    await signIn('adam@ends-shop.example', 'admin password 123');
    await page.getByRole('link', { name: 'Team', exact: true }).click();
    expect(await page.getByRole('button', { name: 'End the sessions of owner@ends-shop.example' }).count()).toBe(0);
    await shot('team-admin');
    await submit('End the sessions of vic@ends-shop.example');
    await expect.poll(() => textOf(page.getByRole('status'))).toBe('Their sessions ended and their CLI tokens stopped.');
    await page.context().clearCookies();
    await page.context().addCookies(vicsCookies);
    await page.goto(`${api.url}/dashboard`);
    expect(page.url()).toBe(`${api.url}/dashboard/login`);

    // Vic forgot the password: a link by mail, a new password, signed in with it.
    await page.getByRole('link', { name: 'Forgot password?' }).click();
    await page.getByLabel('Your email').fill('vic@ends-shop.example');
    await submit('Send me a link');
    expect(await textOf(page.getByRole('status'))).toContain('a link to choose a new password is on its way');
    await outboxSent(api.pool);
    const mail = smtp.mails.find((m) => m.to === 'vic@ends-shop.example' && m.subject === 'Reset your Affix password')!;
    await page.goto(/https?:\/\/\S+\/dashboard\/password\/reset\?token=[\w-]+/.exec(mail.text)![0].replace(/^https?:\/\/[^/]+/, api.url));
    await page.getByLabel('New password (12 characters or more)').fill('a new viewer password');
    await submit('Save the new password');
    expect(await textOf(page.getByRole('status'))).toBe('Your password was changed: sign in with it.');
    await signIn('vic@ends-shop.example', 'a new viewer password');
  }, 60_000);
});
