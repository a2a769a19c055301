// Recruiting and running partners (docs/partners.md) through the admin API, the public
// application page and the tracking API, on a real database.
import { describe, expect, it } from 'vitest';
import { type TestApi, type TestDatabase, adminHeaders, seedProgram, trackClick } from './support/harness.js';
import { useSeededApi } from './support/seeded-api.js';
import { apiRefund, apiSale, uid } from './support/money.js';
import { OPERATOR } from '../src/app/accounts/scope.js';
import { createGroup } from '../src/app/partners/groups.js';
import { partnerActionOfOne } from '../src/app/partners/bulk-actions.js';

let db: TestDatabase;
let api: TestApi;

useSeededApi({ env: { AFFIX_SECRET_KEY: 'partners-test-secret-key-0123' }, options: { queueUrl: 'own' } }, (t) => ({ db, api } = t));

const admin = (method: string, path: string, body?: unknown) => api.request(method, `/api/v1/admin${path}`, { body, headers: adminHeaders });
const must = async (method: string, path: string, body?: unknown) => {
  const reply = await admin(method, path, body);
  if (reply.status >= 300) throw new Error(`${method} ${path}: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.data;
};
const form = (path: string, fields: Record<string, string>, ip = '203.0.113.9') =>
  api.request('POST', path, { raw: new URLSearchParams(fields).toString(), headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'X-Forwarded-For': ip } });
const commissionRow = async (commissionId: number) =>
  (await db.pool.query('SELECT c.stage, c.amount_cents, c.terms, cs.state FROM commissions c JOIN commission_states cs ON cs.id = c.id WHERE c.id = $1', [commissionId])).rows[0];
/** An endpoint of the program that listens to every partner event (nothing delivers in this file: no workers). */
const listen = (programId: number) =>
  db.pool.query(
    `INSERT INTO webhook_endpoints (program_id, url, event_types, secret_sealed)
     VALUES ($1, 'https://hooks.example.test/affix', '{partner.applied,partner.approved,partner.rejected,partner.banned,partner.unbanned,partner.archived,partner.group_changed,commission.approved}', 'unused')`,
    [programId],
  );
const outboundTypes = async (programId: number) => (await db.pool.query("SELECT type FROM webhook_messages WHERE program_id = $1 AND type LIKE 'partner.%' ORDER BY created_at", [programId])).rows.map((r) => r.type);

/** A partner of the program with a link of their own: the affiliate URL for apiSale. */
async function partnerWithLink(program: { programId: number; apiKey: string }, body: Record<string, unknown>) {
  const partner = await must('POST', `/programs/${program.programId}/partners`, body);
  // A payout run pays only partners with payout details.
  await must('PATCH', `/programs/${program.programId}/partners/${partner.id}/payout-details`, { payout_method: 'bank_transfer', payout_reference: `DE00 ${partner.id}` });
  const code = uid('l').replaceAll('_', '-');
  await must('POST', `/programs/${program.programId}/links`, { partner_id: partner.id, short_link: code });
  return { ...program, partnerId: partner.id as number, code, affiliateUrl: `https://shop.example.com/?aff=${code}` };
}

describe('one partner, many programs', () => {
  it('the same email twice in a program is refused with a clear message, in any case; the person is one profile across the account', async () => {
    const shop = await seedProgram(api);
    const first = await must('POST', `/programs/${shop.programId}/partners`, { name: 'Ana', email: 'ana@creators.test' });
    const again = await admin('POST', `/programs/${shop.programId}/partners`, { name: 'Ana again', email: 'ANA@creators.test' });
    expect(again.status).toBe(409);
    expect(again.body.error.message).toBe(`A partner with this email is already in this program (partner ${first.id})`);
    // Another program of the same account enrolls the same person: one profile, two enrollments.
    const second = await must('POST', '/programs', { account_id: shop.accountId, name: 'Second', domain: 'second.example.com', commission_type: 'percent', commission_rate: 10 });
    const there = await must('POST', `/programs/${second.id}/partners`, { name: 'Ana (second)', email: 'ana@creators.test' });
    expect(there.profile_id).toBe(first.profile_id);
    expect(there.name).toBe('Ana');
    const page = await must('GET', `/programs/${shop.programId}/partners/${first.id}`);
    expect(page.elsewhere).toEqual([{ id: there.id, program_id: second.id, program_name: 'Second', status: 'approved' }]);
  });

  it('a partner added without an email is given one later and invited', async () => {
    const shop = await seedProgram(api);
    const partner = await must('POST', `/programs/${shop.programId}/partners`, { name: 'No mail yet' });
    expect((await admin('POST', `/programs/${shop.programId}/partners/${partner.id}/invite`)).status).toBe(400);
    const edited = await must('PATCH', `/programs/${shop.programId}/partners/${partner.id}`, { email: 'late@creators.test', notes: 'met at a fair', tags: 'youtube, EU' });
    expect(edited).toMatchObject({ email: 'late@creators.test', notes: 'met at a fair', tags: ['youtube', 'eu'] });
    expect((await admin('POST', `/programs/${shop.programId}/partners/${partner.id}/invite`)).status).toBe(200);
  });
});

describe('groups carry the terms', () => {
  it('group rate, then override, then back; each commission keeps the terms it was made under', async () => {
    const shop = await seedProgram(api, { commission_rate: 10 });
    const vip = await must('POST', `/programs/${shop.programId}/groups`, { name: 'VIP', slug: 'vip', commission_type: 'percent', commission_rate: 30, hold_days: 7 });
    const partner = await partnerWithLink(shop, { name: uid('p'), email: `${uid('g')}@creators.test`, group_id: vip.id });
    const inGroup = await apiSale(api, partner, 10_000);
    expect(await commissionRow(inGroup.commissionId!)).toMatchObject({
      amount_cents: 3000,
      terms: { source: 'group', commission_type: 'percent', commission_rate: '30', hold_days: 7, group_id: vip.id, override_id: null, duration_months: null },
    });
    // A later change of the group changes future commissions only.
    await must('PUT', `/programs/${shop.programId}/groups/${vip.id}`, { name: 'VIP', slug: 'vip', commission_type: 'percent', commission_rate: 25, hold_days: 7 });
    expect((await commissionRow(inGroup.commissionId!)).amount_cents).toBe(3000);
    expect((await commissionRow((await apiSale(api, partner, 10_000)).commissionId!)).amount_cents).toBe(2500);
    // An override is an explicit row with its source and wins over the group.
    await must('PUT', `/programs/${shop.programId}/partners/${partner.partnerId}/override`, { commission_type: 'fixed', commission_rate: 12, source: 'contract 2026-11' });
    const overridden = await apiSale(api, partner, 10_000);
    expect(await commissionRow(overridden.commissionId!)).toMatchObject({ amount_cents: 1200, terms: { source: 'override', commission_type: 'fixed' } });
    await must('DELETE', `/programs/${shop.programId}/partners/${partner.partnerId}/override`);
    // Moving out of the group: the program's terms for what comes next.
    await must('POST', `/programs/${shop.programId}/partners/${partner.partnerId}/move`, { group_id: null });
    expect(await commissionRow((await apiSale(api, partner, 10_000)).commissionId!)).toMatchObject({ amount_cents: 1000, terms: { source: 'program' } });
    expect((await commissionRow(inGroup.commissionId!)).amount_cents).toBe(3000);
  });

  it("a group's hold days decide the scheduled approval; its payout minimum decides the run", async () => {
    const shop = await seedProgram(api, { commission_rate: 10 });
    const fast = await must('POST', `/programs/${shop.programId}/groups`, {
      name: 'Fast', slug: 'fast', commission_type: 'percent', commission_rate: 10, hold_days: 0, payout_minimums_cents: { USD: 50_000 },
    });
    const partner = await partnerWithLink(shop, { name: uid('p'), group_id: fast.id });
    const made = await apiSale(api, partner, 10_000);
    const { approveDueCommissions } = await import('../src/app/money/commission-lifecycle.js');
    await approveDueCommissions({ pool: db.pool, secretBox: null, now: () => new Date(Date.now() + 60_000) });
    expect((await commissionRow(made.commissionId!)).stage).toBe('approved');
    // 1000 owed is under the group's 50,000 minimum: no payout line.
    expect((await admin('POST', `/programs/${shop.programId}/payouts/run`)).status).toBe(409);
  });

  it('a group needs complete terms: every missing field is named', async () => {
    const shop = await seedProgram(api);
    const reply = await admin('POST', `/programs/${shop.programId}/groups`, { name: '', slug: 'Bad Slug!' });
    expect(reply.status).toBe(400);
    expect(reply.body.error.message).toBe('Missing required fields: commission_type, commission_rate');
    const refused = await createGroup({ pool: db.pool, secretBox: null, now: () => new Date() }, OPERATOR, shop.programId, { name: '', slug: 'Bad Slug!' }).catch((e) => e);
    expect(Object.keys(refused.init.fields).sort()).toEqual(['commission_rate', 'commission_type', 'hold_days', 'name', 'slug']);
  });
});

describe('ban and lift', () => {
  it('a ban stops links (410), rejects pending and held commissions, cancels open payouts; lifting restores exactly those rows', async () => {
    const shop = await seedProgram(api, { commission_rate: 10 });
    await listen(shop.programId);
    const partner = await partnerWithLink(shop, { name: uid('p'), email: `${uid('b')}@creators.test` });
    const pending = await apiSale(api, partner, 10_000);
    const byHand = await apiSale(api, partner, 20_000);
    await db.pool.query(`UPDATE commissions SET stage = 'held', hold_reasons = '{self_referral}' WHERE id = $1`, [byHand.commissionId]);
    await must('POST', `/programs/${shop.programId}/commissions/${byHand.commissionId}/reject`, { reason: 'fraud, by hand' });
    const owed = await apiSale(api, partner, 30_000);
    const clickedBefore = await trackClick(api, partner.affiliateUrl);
    await must('POST', `/programs/${shop.programId}/commissions/${owed.commissionId}/approve`, { reason: 'ok' });
    const run = await must('POST', `/programs/${shop.programId}/payouts/run`);
    const payoutId = run.payouts.find((p: any) => p.partner_id === partner.partnerId).id;

    const banned = await must('POST', `/programs/${shop.programId}/partners/${partner.partnerId}/ban`, { reason: 'cookie stuffing' });
    expect(banned.report).toMatchObject({ changed: 1, skipped: {} });
    expect(banned.partner).toMatchObject({ status: 'banned', sanction: { kind: 'ban', reason: 'cookie stuffing' } });
    const click = await api.request('POST', '/api/v1/track/click', { body: { affiliate_url: partner.affiliateUrl } });
    expect(click.status).toBe(410);
    expect(await commissionRow(pending.commissionId!)).toMatchObject({ stage: 'rejected', state: 'rejected' });
    expect((await db.pool.query('SELECT status, canceled_by_sanction_id FROM payouts WHERE id = $1', [payoutId])).rows[0]).toMatchObject({ status: 'canceled' });
    expect(await commissionRow(owed.commissionId!)).toMatchObject({ state: 'approved' });
    // No payout for a banned partner: their approved balance waits.
    expect((await admin('POST', `/programs/${shop.programId}/payouts/run`)).status).toBe(409);
    // A sale by a customer they referred earlier: recorded, its commission rejected under the ban.
    const during = await apiSale(api, partner, 5_000, { clickId: clickedBefore });
    expect(await commissionRow(during.commissionId!)).toMatchObject({ stage: 'rejected' });
    expect(await outboundTypes(shop.programId)).toEqual(['partner.banned']);

    const lifted = await must('POST', `/programs/${shop.programId}/partners/${partner.partnerId}/unban`, {});
    expect(await outboundTypes(shop.programId)).toEqual(['partner.banned', 'partner.unbanned']);
    expect(lifted.partner).toMatchObject({ status: 'approved', sanction: null });
    expect((await api.request('POST', '/api/v1/track/click', { body: { affiliate_url: partner.affiliateUrl } })).status).toBe(200);
    expect(await commissionRow(pending.commissionId!)).toMatchObject({ stage: 'pending' });
    expect(await commissionRow(during.commissionId!)).toMatchObject({ stage: 'pending' });
    // Rejected by hand before the ban: stays rejected.
    expect(await commissionRow(byHand.commissionId!)).toMatchObject({ stage: 'rejected' });
    // What the cancelled payout claimed is owed again and paid by the next run.
    const next = await must('POST', `/programs/${shop.programId}/payouts/run`);
    expect(next.payouts.find((p: any) => p.partner_id === partner.partnerId).amount_cents).toBe(3000);
    const ledger = await db.pool.query(
      "SELECT kind, pending_cents FROM commission_ledger WHERE commission_id = $1 AND kind IN ('rejected', 'reinstated') ORDER BY id",
      [pending.commissionId],
    );
    expect(ledger.rows).toEqual([{ kind: 'rejected', pending_cents: -1000 }, { kind: 'reinstated', pending_cents: 1000 }]);
  });

  it('archive stops links and keeps history; restoring turns on exactly the links it turned off', async () => {
    const shop = await seedProgram(api);
    const partner = await partnerWithLink(shop, { name: uid('p') });
    const offBefore = await must('POST', `/programs/${shop.programId}/links`, { partner_id: partner.partnerId, short_link: uid('off').replaceAll('_', '-') });
    await must('PATCH', `/links/${offBefore.id}`, { enabled: false });
    const sale = await apiSale(api, partner, 10_000);
    await must('POST', `/programs/${shop.programId}/partners/${partner.partnerId}/archive`, {});
    expect((await api.request('POST', '/api/v1/track/click', { body: { affiliate_url: partner.affiliateUrl } })).status).toBe(410);
    expect(await commissionRow(sale.commissionId!)).toMatchObject({ stage: 'pending' });
    await must('POST', `/programs/${shop.programId}/partners/${partner.partnerId}/unarchive`, {});
    const links = (await db.pool.query('SELECT id, enabled FROM referral_links WHERE partner_id = $1 ORDER BY id', [partner.partnerId])).rows;
    expect(links.find((l) => Number(l.id) === offBefore.id).enabled).toBe(false);
    expect(links.filter((l) => l.enabled)).toHaveLength(1);
  });

  it('an action a partner is not in the state for is refused as one, and skipped in a batch', async () => {
    const shop = await seedProgram(api);
    const reply = await admin('POST', `/programs/${shop.programId}/partners/${shop.partnerId}/unban`, {});
    expect(reply.status).toBe(409);
    expect(reply.body.error.message).toBe('A partner who is approved cannot be given this action (unban)');
    const batch = await must('POST', `/programs/${shop.programId}/partners/bulk`, { action: 'unban', partner_ids: [shop.partnerId, 999_999_999] });
    expect(batch).toMatchObject({ requested: 2, changed: 0, skipped: { status_approved: 1, not_found: 1 } });
    expect((await admin('POST', `/programs/${shop.programId}/partners/${shop.partnerId}/ban`, {})).body.error.message).toBe('reason: Give a reason.');
    const deps = { pool: db.pool, secretBox: null, now: () => new Date() };
    expect((await partnerActionOfOne(deps, OPERATOR, shop.programId, shop.partnerId, 'ban', {}).catch((e) => e)).init.fields).toEqual({ reason: 'Give a reason.' });
  });
});

describe('applications', () => {
  async function openProgram() {
    const shop = await seedProgram(api, { commission_rate: 10 });
    const slug = uid('shop').replaceAll('_', '-').toLowerCase();
    await must('PATCH', `/programs/${shop.programId}/application-settings`, {
      applications_open: true, slug, terms_text: 'No paid search on our brand name.', field_lines: 'website | Your website | url | required\naudience | Audience | select: <1k, 1k-10k, >10k',
    });
    const creators = await must('POST', `/programs/${shop.programId}/groups`, {
      name: 'Creators', slug: 'creators', commission_type: 'percent', commission_rate: 25, hold_days: 30, applications_open: true,
    });
    return { shop, slug, creators };
  }

  it('a visitor applies; acceptance is stored; the answer never tells whether the address is known; approval gives a link, the group and an invitation', async () => {
    const { shop, slug, creators } = await openProgram();
    await listen(shop.programId);
    const page = await api.request('GET', `/apply/${slug}`);
    expect(page.status).toBe(200);
    expect(page.body).toContain('10% of the first paid sale');
    expect(page.body).toContain('No paid search on our brand name.');
    const email = `${uid('apply')}@creators.test`;
    const fields = { name: 'Cleo', email, answer_website: 'https://cleo.example', answer_audience: '1k-10k', accept_terms: 'on', terms_version: '1', admin: 'true', answer_extra: 'dropped' };
    const sent = await form(`/apply/${slug}/creators`, fields, '203.0.113.20');
    expect(sent.status).toBe(200);
    expect(sent.body).toContain('your application was received');
    // The same address again: the same answer, nothing new.
    const again = await form(`/apply/${slug}/creators`, fields, '203.0.113.21');
    expect(again.body).toBe(sent.body);
    const list = await must('GET', `/programs/${shop.programId}/applications`);
    expect(list.applications).toHaveLength(1);
    const application = list.applications[0];
    expect(application).toMatchObject({ name: 'Cleo', email, status: 'pending', group_id: creators.id, terms_version: '1' });
    // Only the brand's questions are kept: admin=true and answer_extra were dropped.
    expect(application.answers).toEqual({ website: 'https://cleo.example', audience: '1k-10k' });
    expect(application.partner_status).toBe('applied');
    expect(application.terms_ip).toBe('203.0.113.20');
    expect(application.terms_accepted_at).toBeTruthy();
    expect(await outboundTypes(shop.programId)).toEqual(['partner.applied']);

    const approved = await must('POST', `/programs/${shop.programId}/partners/${application.partner_id}/approve`, { group_id: creators.id });
    expect(approved.report).toMatchObject({ changed: 1, links_created: 1 });
    expect(approved.partner).toMatchObject({ status: 'approved', group_id: creators.id });
    expect(approved.partner.invited_at).toBeTruthy();
    expect(await outboundTypes(shop.programId)).toEqual(['partner.applied', 'partner.approved']);
    const link = (await db.pool.query('SELECT short_link FROM referral_links WHERE partner_id = $1', [application.partner_id])).rows[0].short_link;
    const made = await apiSale(api, { apiKey: shop.apiKey, affiliateUrl: `https://shop.example.com/?aff=${link}` }, 10_000);
    expect((await commissionRow(made.commissionId!)).amount_cents).toBe(2500);
  });

  it('every problem is named beside its field; missing terms acceptance is refused; the rate limit answers 429', async () => {
    const { slug } = await openProgram();
    const missing = await api.request('GET', '/apply/no-such-program');
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toContain('text/html');
    expect(missing.body).toContain('This application page does not exist. Check the link the brand gave you.');
    const bad = await form(`/apply/${slug}`, { name: '', email: 'nope', answer_website: 'ftp://x', answer_audience: 'huge' }, '203.0.113.30');
    expect(bad.status).toBe(400);
    for (const message of ['Give your name.', 'Give an email address we can reach you at.', 'Accept the program terms to apply.', 'give an address starting with https://', 'choose one of the options.']) {
      expect(bad.body).toContain(message);
    }
    const ip = '203.0.113.31';
    const statuses = [];
    for (let i = 0; i < 6; i++) statuses.push((await form(`/apply/${slug}`, { name: 'x', email: `${uid('r')}@x.test`, answer_website: 'https://x.test', accept_terms: 'on' }, ip)).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
  });

  it('reject with a reapply rule; auto-approve never approves a risky applicant', async () => {
    const { shop, slug } = await openProgram();
    const email = `${uid('rej')}@creators.test`;
    const fields = { name: 'Rex', email, answer_website: 'https://rex.test', accept_terms: 'on' };
    await form(`/apply/${slug}`, fields, '203.0.113.40');
    const [application] = (await must('GET', `/programs/${shop.programId}/applications`)).applications;
    await must('POST', `/programs/${shop.programId}/partners/bulk`, { action: 'reject', partner_ids: [application.partner_id], reason: 'audience too small', reapply: 'never' });
    await form(`/apply/${slug}`, fields, '203.0.113.41');
    const all = await must('GET', `/programs/${shop.programId}/applications?status=all`);
    expect(all.applications).toHaveLength(1);
    expect(all.applications[0]).toMatchObject({ status: 'rejected', reason: 'audience too small', reapply: 'never' });

    // After 30 days (the default rule) a rejected applicant may apply again; before, nothing changes.
    const later = `${uid('later')}@creators.test`;
    await form(`/apply/${slug}`, { ...fields, email: later }, '203.0.113.44');
    const laterId = (await must('GET', `/programs/${shop.programId}/applications`)).applications.find((a: any) => a.email === later).partner_id;
    await must('POST', `/programs/${shop.programId}/partners/${laterId}/reject`, { reason: 'not yet' });
    await form(`/apply/${slug}`, { ...fields, email: later }, '203.0.113.45');
    const count = async () => (await must('GET', `/programs/${shop.programId}/applications?status=all`)).applications.filter((a: any) => a.email === later).length;
    expect(await count()).toBe(1);
    api.clock.now = new Date(Date.now() + 31 * 86_400_000);
    try {
      await form(`/apply/${slug}`, { ...fields, email: later }, '203.0.113.46');
    } finally {
      api.clock.now = new Date();
    }
    expect(await count()).toBe(2);
    expect((await must('GET', `/programs/${shop.programId}/partners/${laterId}`)).partner.status).toBe('applied');

    const auto = await must('POST', `/programs/${shop.programId}/groups`, { name: 'Auto', slug: 'auto', commission_type: 'percent', commission_rate: 10, hold_days: 30, applications_open: true, auto_approve: true });
    const clean = `${uid('clean')}@brandco.test`;
    await form(`/apply/${slug}/auto`, { ...fields, email: clean }, '203.0.113.42');
    // Banned in another program of the account: never approved automatically.
    const other = await must('POST', '/programs', { account_id: shop.accountId, name: 'Other', domain: 'other.example.com', commission_type: 'percent', commission_rate: 10 });
    const risky = `${uid('risky')}@brandco.test`;
    const elsewhere = await must('POST', `/programs/${other.id}/partners`, { name: 'Risky', email: risky });
    await must('POST', `/programs/${other.id}/partners/${elsewhere.id}/ban`, { reason: 'fraud' });
    await form(`/apply/${slug}/auto`, { ...fields, email: risky }, '203.0.113.43');
    const rows = (await must('GET', `/programs/${shop.programId}/applications?status=all`)).applications.filter((a: any) => a.group_id === auto.id);
    expect(rows.find((a: any) => a.email === clean)).toMatchObject({ status: 'approved', partner_status: 'approved', risk_signals: [] });
    expect(rows.find((a: any) => a.email === risky)).toMatchObject({ status: 'pending', partner_status: 'applied', risk_signals: ['banned_in_other_program'] });
  });
});

describe('partner list and bulk actions', () => {
  it('search, filters, sort by a number, keyset pages; bulk on a filter moves everything it matches once', async () => {
    const shop = await seedProgram(api, { commission_rate: 10 });
    const made = [];
    for (let i = 0; i < 5; i++) {
      const p = await partnerWithLink(shop, { name: `Zed ${i}`, email: `zed${i}-${uid('z')}@creators.test`, tags: i % 2 ? ['video'] : ['blog'] });
      for (let s = 0; s < i; s++) await apiSale(api, p, 1000 * (s + 1));
      made.push(p);
    }
    const first = await must('GET', `/programs/${shop.programId}/partners?q=zed&sort=sales&limit=2`);
    expect(first.partners.map((p: any) => p.name)).toEqual(['Zed 4', 'Zed 3']);
    const second = await must('GET', `/programs/${shop.programId}/partners?q=zed&sort=sales&limit=2&after=${first.next_cursor}`);
    expect(second.partners.map((p: any) => p.name)).toEqual(['Zed 2', 'Zed 1']);
    const byTag = await must('GET', `/programs/${shop.programId}/partners?tag=video&sort=revenue`);
    expect(byTag.partners.map((p: any) => [p.name, p.revenue_cents])).toEqual([['Zed 3', 6000], ['Zed 1', 1000]]);

    const group = await must('POST', `/programs/${shop.programId}/groups`, { name: 'Blog', slug: 'blog', commission_type: 'percent', commission_rate: 15, hold_days: 30 });
    const moved = await must('POST', `/programs/${shop.programId}/partners/bulk`, { action: 'move_group', filter: { tag: 'blog' }, group_id: group.id });
    expect(moved).toMatchObject({ requested: 3, changed: 3 });
    const movedAgain = await must('POST', `/programs/${shop.programId}/partners/bulk`, { action: 'move_group', filter: { tag: 'blog' }, group_id: group.id });
    expect(movedAgain).toMatchObject({ requested: 3, changed: 0, skipped: { already_in_group: 3 } });
    expect((await must('GET', `/programs/${shop.programId}/partners?group_id=${group.id}`)).partners).toHaveLength(3);

    await listen(shop.programId);
    const approvals = await must('POST', `/programs/${shop.programId}/commissions/bulk`, { action: 'approve', filter: { partner_id: made[4]!.partnerId }, reason: 'checked in Stripe' });
    expect(approvals).toMatchObject({ action: 'approve', requested: 4, changed: 4 });
    // One event per approved commission, each with its delivery, written with the chunk.
    const told = await db.pool.query(
      `SELECT (m.data->>'commission_id')::bigint AS id, count(d.id)::int AS deliveries FROM webhook_messages m JOIN webhook_deliveries d ON d.message_id = m.id
        WHERE m.program_id = $1 AND m.type = 'commission.approved' GROUP BY 1 ORDER BY 1`,
      [shop.programId],
    );
    expect(told.rows.map((r) => Number(r.id))).toEqual([...approvals.changed_ids].sort((a: number, b: number) => a - b));
    expect(told.rows.every((r) => r.deliveries === 1)).toBe(true);
    expect(await must('POST', `/programs/${shop.programId}/commissions/bulk`, { action: 'approve', filter: { partner_id: made[4]!.partnerId }, reason: 'again' })).toMatchObject({ changed: 0 });
    const named = await must('POST', `/programs/${shop.programId}/commissions/bulk`, { action: 'approve', commission_ids: approvals.changed_ids, reason: 'again' });
    expect(named).toMatchObject({ requested: 4, changed: 0, skipped: { not_pending: 4 } });
  });

  it('the partners CSV is formula-safe and lists the codes', async () => {
    const shop = await seedProgram(api);
    await partnerWithLink(shop, { name: '=HYPERLINK("http://evil")', email: `${uid('csv')}@creators.test` });
    const csv = await admin('GET', `/programs/${shop.programId}/partners.csv`);
    expect(csv.status).toBe(200);
    expect(String(csv.body)).toContain(`"'=HYPERLINK(""http://evil"")"`);
  });
});

describe('import', () => {
  it('10,000 rows with 1 % bad: the dry run names every bad row and writes nothing; the import writes the rest; again, nothing changes', async () => {
    const shop = await seedProgram(api);
    const run = uid('imp').replaceAll('_', '-');
    const lines = ['first_name,last_name,email,token,paypal_email'];
    const bad = new Set<number>();
    for (let i = 0; i < 10_000; i++) {
      const line = i + 2;
      if (i % 100 === 7) {
        bad.add(line);
        lines.push(i % 200 === 7 ? `Bad,Mail,not-an-email,${run}-b${i},` : `Bad,Code,bad${i}-${run}@x.test,no spaces ${i},`);
      } else {
        lines.push(`Ana,Row ${i},row${i}-${run}@x.test,${run}-c${i},pay${i}@x.test`);
      }
    }
    const csv = lines.join('\n');
    const before = Number((await db.pool.query('SELECT count(*) FROM partners WHERE program_id = $1', [shop.programId])).rows[0].count);
    const upload = async (dryRun: boolean) => {
      const reply = await api.request('POST', `/api/v1/admin/programs/${shop.programId}/partners/import${dryRun ? '?dry_run=true' : ''}`, {
        raw: csv,
        headers: { ...adminHeaders, 'Content-Type': 'text/csv' },
      });
      if (reply.status !== 200) throw new Error(JSON.stringify(reply.body));
      return reply.body.data;
    };
    const dry = await upload(true);
    expect(dry).toMatchObject({ dry_run: true, rows: 10_000, create: 9_900, unchanged: 0 });
    expect(dry.columns).toEqual({ first_name: 'first_name', last_name: 'last_name', email: 'email', code: 'token', paypal_email: 'paypal_email' });
    expect(dry.problems.map((p: any) => p.line)).toEqual([...bad].sort((a, b) => a - b));
    expect(dry.problems[0].problems[0]).toBe('"not-an-email" is not an email address');
    expect(dry.problems[1].problems[0]).toMatch(/^referral code "no spaces 107" must be 3 to 64 letters/);
    expect(Number((await db.pool.query('SELECT count(*) FROM partners WHERE program_id = $1', [shop.programId])).rows[0].count)).toBe(before);

    const real = await upload(false);
    expect(real).toMatchObject({ dry_run: false, create: 9_900, written: { partners: 9_900, links: 9_900 } });
    const sample = await db.pool.query(
      `SELECT pa.name, pa.payout_method, pa.payout_reference, l.short_link FROM partners pa JOIN referral_links l ON l.partner_id = pa.id
        WHERE pa.program_id = $1 AND pa.email = $2`,
      [shop.programId, `row8-${run}@x.test`],
    );
    expect(sample.rows).toEqual([{ name: 'Ana Row 8', payout_method: 'paypal', payout_reference: 'pay8@x.test', short_link: `${run}-c8` }]);
    const again = await upload(false);
    expect(again).toMatchObject({ create: 0, add_link: 0, unchanged: 9_900, written: { partners: 0, links: 0 } });
    expect(Number((await db.pool.query('SELECT count(*) FROM partners WHERE program_id = $1', [shop.programId])).rows[0].count)).toBe(before + 9_900);
  }, 120_000);

  it('rows without an email each get their own partner and keep their own code', async () => {
    const shop = await seedProgram(api);
    const [a, b, c] = [uid('na').replaceAll('_', '-'), uid('nb').replaceAll('_', '-'), uid('nc').replaceAll('_', '-')];
    const csv = `name,email,code\nNo Mail A,,${a}\nWith Mail,${uid('wm')}@x.test,${b}\nNo Mail C,,${c}\n`;
    expect(await must('POST', `/programs/${shop.programId}/partners/import`, { csv })).toMatchObject({ written: { partners: 3, links: 3 } });
    const { rows } = await db.pool.query(
      'SELECT pa.name, l.short_link FROM partners pa JOIN referral_links l ON l.partner_id = pa.id WHERE pa.program_id = $1 AND l.short_link = ANY ($2) ORDER BY pa.name',
      [shop.programId, [a, b, c]],
    );
    expect(rows).toEqual([{ name: 'No Mail A', short_link: a }, { name: 'No Mail C', short_link: c }, { name: 'With Mail', short_link: b }]);
  });

  it("FirstPromoter's and Tolt's column names map; a code held by another brand is refused by row", async () => {
    const shop = await seedProgram(api);
    const other = await seedProgram(api);
    const fp = `Email,First Name,Last Name,Ref ID\nfp-${uid('a')}@x.test,Fay,Pro,${uid('fp').replaceAll('_', '-')}\nfp-${uid('b')}@x.test,Fil,Pro,${other.shortLink}\n`;
    const report = await must('POST', `/programs/${shop.programId}/partners/import`, { csv: fp, dry_run: true });
    expect(report.columns).toMatchObject({ email: 'Email', first_name: 'First Name', last_name: 'Last Name', code: 'Ref ID' });
    expect(report).toMatchObject({ create: 1, problems: [{ line: 3, problems: [`referral code "${other.shortLink}" is already taken`] }] });
    const tolt = await must('POST', `/programs/${shop.programId}/partners/import`, { csv: `first_name,last_name,email,referral code\nTo,Lt,tolt-${uid('t')}@x.test,${uid('tl').replaceAll('_', '-')}\n`, dry_run: true });
    expect(tolt).toMatchObject({ create: 1, problems: [], columns: { code: 'referral code' } });
  });
});

describe('refunds during a ban', () => {
  it('a commission refunded while its partner is banned comes back with what is left', async () => {
    const shop = await seedProgram(api, { commission_rate: 10 });
    const sale = await apiSale(api, shop, 10_000);
    await must('POST', `/programs/${shop.programId}/partners/${shop.partnerId}/ban`, { reason: 'review' });
    await apiRefund(api, shop, sale.transactionId, 4_000);
    await must('POST', `/programs/${shop.programId}/partners/${shop.partnerId}/unban`, {});
    const ledger = await db.pool.query('SELECT sum(pending_cents)::int AS pending FROM commission_ledger WHERE commission_id = $1', [sale.commissionId]);
    expect(ledger.rows[0].pending).toBe(600);
    expect(await commissionRow(sale.commissionId!)).toMatchObject({ stage: 'pending' });
    await trackClick(api, shop.affiliateUrl);
  });
});
