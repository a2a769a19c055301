// Partners' tax details (issue 47, item 4; docs/payouts.md, "Tax details"): the TIN is stored
// sealed and only ever answered masked; a brand that requires them has a run hold back a partner
// without them whose year would reach the threshold (and not one below it); the year-end export
// sums paid payouts per partner and currency (a failed one excluded), is for owner and finance,
// scoped to the brand, and every download is audited.
import { describe, expect, it } from 'vitest';
import { openDashboardSession } from '../src/app/accounts/access.js';
import { OPERATOR } from '../src/app/accounts/scope.js';
import * as commissionLifecycle from '../src/app/money/commission-lifecycle.js';
import { failPayout } from '../src/app/money/failed-payouts.js';
import * as payoutConfig from '../src/app/money/payout-settings.js';
import * as payoutRuns from '../src/app/money/payout-runs.js';
import * as tax from '../src/app/money/tax-details.js';
import type { ManagementDeps } from '../src/app/programs/management.js';
import { AffixError } from '../src/core/errors.js';
import { createSecretBox } from '../src/platform/secret-box.js';
import { type SeededProgram, type TestApi, type TestDatabase, adminHeaders, seedProgram } from './support/harness.js';
import { useSeededApi } from './support/seeded-api.js';
import { apiSale } from './support/money.js';

const KEY = 'tax-details-test-secret-key-0123456789';
let db: TestDatabase;
let api: TestApi;
const deps = (): ManagementDeps => ({ pool: db.pool, secretBox: createSecretBox(KEY), now: () => new Date(api.clock.now) });
const year = () => new Date(api.clock.now).getUTCFullYear();

useSeededApi({ env: { AFFIX_SECRET_KEY: KEY } }, (t) => ({ db, api } = t));

const admin = async (method: string, path: string, body?: unknown) => api.request(method, `/api/v1/admin${path}`, { body, headers: adminHeaders });
const must = async (method: string, path: string, body?: unknown) => {
  const reply = await admin(method, path, body);
  if (reply.status >= 300) throw new Error(`${path}: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.data;
};

/** A partner with an email, payout details and a link. */
async function partner(shop: SeededProgram, name: string) {
  const email = `${name.toLowerCase()}@tax.example`;
  const made = await must('POST', `/programs/${shop.programId}/partners`, { name, email });
  const code = `${name.toLowerCase()}-${shop.programId}`;
  await must('POST', `/programs/${shop.programId}/links`, { partner_id: made.id, short_link: code });
  await must('PATCH', `/programs/${shop.programId}/partners/${made.id}/payout-details`, { payout_method: 'paypal', payout_reference: `${name.toLowerCase()}@paypal.example` });
  // Invited: the person's portal lists the enrollment, to share their tax details with.
  await db.pool.query('UPDATE partners SET invited_at = now() WHERE id = $1', [made.id]);
  return { partnerId: made.id as number, email, affiliateUrl: `https://shop.example.com/?aff=${code}` };
}

async function approveAll() {
  api.clock.now = new Date(api.clock.now.getTime() + 60_000);
  await commissionLifecycle.approveDueCommissions(deps());
}

const US = { legal_name: 'Ana Lopez', country: 'US', address: '1 Main St\nAustin, TX 78701', us_person: 'yes', tin_kind: 'ssn', tin: '123-45-6789' };
const FOREIGN = (name: string) => ({ legal_name: name, country: 'DE', address: 'Hauptstr. 1\n10115 Berlin', us_person: 'no', certify: 'on', foreign_name: name, foreign_citizenship: 'DE', foreign_signed_on: '2026-01-02', foreign_signature: name });

const fieldsOf = async (work: Promise<unknown>) => {
  const error = await work.then(() => null, (e: unknown) => e);
  expect(error).toBeInstanceOf(AffixError);
  return (error as AffixError).init.fields;
};

describe('tax details', () => {
  it('the TIN is stored sealed, with its history, and answered only masked; the form says each problem beside its field', async () => {
    const email = 'sealed@tax.example';
    const saved = await tax.saveTaxDetails(deps(), email, US);
    expect(saved.tinMasked).toBe('•••-••-6789');
    const row = (await db.pool.query('SELECT * FROM partner_tax_details WHERE email = $1', [email])).rows[0];
    const history = (await db.pool.query('SELECT * FROM partner_tax_details_history WHERE email = $1', [email])).rows;
    for (const text of [JSON.stringify(row), JSON.stringify(history)]) {
      expect(text).not.toContain('123456789');
      expect(text).not.toContain('123-45-6789');
    }
    expect(row.tin_sealed).toMatch(/^v1\./);
    expect(createSecretBox(KEY).open(row.tin_sealed)).toBe('123456789');
    expect(JSON.stringify(await tax.taxDetailsOf(deps(), email))).not.toContain('12345');

    // Saved again with the TIN left empty: the sealed one stays; the change is in the history (who, when).
    const again = await tax.saveTaxDetails(deps(), email, { ...US, tin: '', legal_name: 'Ana Lopez Studio LLC' });
    expect([again.legalName, again.tinMasked]).toEqual(['Ana Lopez Studio LLC', '•••-••-6789']);
    expect(again.history.map((h) => h.changedBy)).toEqual([email, email]);

    expect(await fieldsOf(tax.saveTaxDetails(deps(), email, { ...US, tin: '000-12-3456' }))).toEqual({ tin: 'This is not a valid SSN: check the digits.' });
    expect(await fieldsOf(tax.saveTaxDetails(deps(), email, { ...US, tin_kind: 'ein', tin: '12-34567' }))).toEqual({ tin: 'An EIN has 9 digits, like 12-3456789.' });
    expect(await fieldsOf(tax.saveTaxDetails(deps(), 'new@tax.example', { legal_name: '', country: 'XX', address: '', us_person: 'no', foreign_signed_on: '2999-01-01', foreign_name: 'Jo', foreign_signature: 'Jon' }))).toEqual({
      legal_name: 'Give your legal name (or your business’s) as on your tax return.',
      country: 'Choose the country you live in (or your business is based in).',
      address: 'Give your address (street, postal code and city).',
      certify: 'Tick the statement to certify that you are not a US person.',
      foreign_citizenship: 'Choose your country of citizenship (or where your business is organized).',
      foreign_signed_on: 'The date cannot be in the future.',
      foreign_signature: 'Type the same name as above as your signature.',
    });
  });

  it('a run holds back a partner without tax details whose year would reach the threshold, pays one below it, and says so', async () => {
    const shop = await seedProgram(api, { commission_rate: 10 });
    await payoutConfig.updatePayoutSettings(deps(), OPERATOR, shop.programId, { hold_days: 0 });
    expect(await must('PATCH', `/programs/${shop.programId}/tax-settings`, { tax_details_required: true })).toEqual({ tax_details_required: true, tax_thresholds_cents: { USD: 60_000 } });
    const ana = await partner(shop, 'Ana');
    const ben = await partner(shop, 'Ben');
    const cleo = await partner(shop, 'Cleo');
    await tax.saveTaxDetails(deps(), ana.email, { ...US, share: [String(ana.partnerId)] });
    await apiSale(api, { ...shop, affiliateUrl: ana.affiliateUrl }, 700_000);
    await apiSale(api, { ...shop, affiliateUrl: ben.affiliateUrl }, 700_000);
    await apiSale(api, { ...shop, affiliateUrl: cleo.affiliateUrl }, 500_000);
    // EUR has no threshold: Ben's euros are paid.
    await apiSale(api, { ...shop, affiliateUrl: ben.affiliateUrl }, 900_000, { currency: 'EUR' });
    await approveAll();

    const run = await admin('POST', `/programs/${shop.programId}/payouts/run`);
    expect(run.status).toBe(201);
    expect(run.body.data.payouts.map((p: any) => [p.partner_id, p.currency, p.amount_cents]).sort()).toEqual(
      [[ana.partnerId, 'USD', 70_000], [ben.partnerId, 'EUR', 90_000], [cleo.partnerId, 'USD', 50_000]].sort(),
    );
    expect(run.body.data.missing_tax_details).toEqual([{ partner_id: ben.partnerId, partner_name: 'Ben', currency: 'USD', amount_cents: 70_000, paid_this_year_cents: 0, threshold_cents: 60_000 }]);
    expect(run.body.data.missing_payout_details).toEqual([]);
    expect((await must('GET', `/programs/${shop.programId}/tax-details/missing`)).map((m: any) => [m.partner_name, m.amount_cents])).toEqual([['Ben', 70_000]]);
    // The Payouts page says it, beside the list to remind them.
    const payoutsPage = await ownerPage(shop, `/dashboard/programs/${shop.programId}/payouts`);
    expect(payoutsPage.body).toContain('Missing tax details');
    expect(payoutsPage.body).toContain('Ask Ben for tax details');

    // Nothing else to pay: the run says why.
    const blocked = await admin('POST', `/programs/${shop.programId}/payouts/run`);
    expect([blocked.status, blocked.body.error.message]).toEqual([409, "Nothing to pay: the partners owed need tax details before this year's payouts reach the threshold ($700.00 to Ben); remind them to add them"]);
    expect(await must('POST', `/programs/${shop.programId}/tax-details/remind`, {})).toEqual({ reminded: 1, partners: 1 });
    const mail = (await db.pool.query("SELECT to_email, subject FROM mail_outbox WHERE program_id = $1 AND kind = 'tax_details_reminder'", [shop.programId])).rows;
    expect(mail.map((m) => m.to_email)).toEqual([ben.email]);
    expect(mail[0].subject).toMatch(/: add your tax details to be paid \$700\.00$/);

    // Cleo was paid $500 this year: another $100 reaches $600, so it waits too.
    for (const p of run.body.data.payouts) await payoutRuns.markPayoutPaid(deps(), OPERATOR, shop.programId, p.id, { reference: `ref-${p.id}` });
    await apiSale(api, { ...shop, affiliateUrl: cleo.affiliateUrl }, 100_000);
    await approveAll();
    await tax.saveTaxDetails(deps(), ben.email, { ...FOREIGN('Ben Weber'), share: [String(ben.partnerId)] });
    const second = await payoutRuns.runPayouts(deps(), OPERATOR, shop.programId);
    expect(second.payouts.map((p) => [p.partnerId, p.amountCents])).toEqual([[ben.partnerId, 70_000]]);
    expect(second.missingTaxDetails.map((m) => [m.partnerName, m.amountCents, m.paidThisYearCents])).toEqual([['Cleo', 10_000, 50_000]]);
  });

  it('the year-end export: paid per partner and currency (a failed payout excluded), TIN unmasked only there, for owner and finance, audited, and only the brand’s own', async () => {
    const shop = await seedProgram(api, { commission_rate: 10 });
    await payoutConfig.updatePayoutSettings(deps(), OPERATOR, shop.programId, { hold_days: 0 });
    const dana = await partner(shop, 'Dana');
    const eli = await partner(shop, 'Eli');
    await tax.saveTaxDetails(deps(), dana.email, { ...US, legal_name: 'Dana Ray', tin_kind: 'ein', tin: '12-3456789', share: [String(dana.partnerId)] });
    await apiSale(api, { ...shop, affiliateUrl: dana.affiliateUrl }, 100_000);
    await apiSale(api, { ...shop, affiliateUrl: dana.affiliateUrl }, 200_000, { currency: 'EUR' });
    await apiSale(api, { ...shop, affiliateUrl: eli.affiliateUrl }, 50_000);
    await approveAll();
    const first = await payoutRuns.runPayouts(deps(), OPERATOR, shop.programId);
    for (const p of first.payouts) await payoutRuns.markPayoutPaid(deps(), OPERATOR, shop.programId, p.id, { reference: `ref-${p.id}` });
    await apiSale(api, { ...shop, affiliateUrl: dana.affiliateUrl }, 300_000);
    await approveAll();
    const second = await payoutRuns.runPayouts(deps(), OPERATOR, shop.programId);
    await payoutRuns.markPayoutPaid(deps(), OPERATOR, shop.programId, second.payouts[0]!.id, { reference: 'ref-bounced' });
    await failPayout(deps(), OPERATOR, shop.programId, second.payouts[0]!.id, { reason: 'PayPal returned it' });

    const exported = await admin('GET', `/programs/${shop.programId}/tax-export?year=${year()}`);
    expect(exported.status).toBe(200);
    expect(exported.headers.get('content-type')).toContain('text/csv');
    const lines = (exported.body as string).trim().split('\r\n');
    expect(lines[0]).toBe('partner_id,partner_name,email,year,currency,amount_paid,payouts,tax_details,legal_name,address,country,us_person,tin_type,tin,foreign_status_certified_on,tax_details_updated_at');
    const rows = lines.slice(1).map(csvCells);
    // Dana's second USD payout ($300) failed: not counted.
    expect(rows.map((r) => r.slice(0, 14))).toEqual([
      [String(dana.partnerId), 'Dana', dana.email, String(year()), 'EUR', '200.00', '1', 'given', 'Dana Ray', '1 Main St, Austin, TX 78701', 'US', 'yes', 'EIN', '12-3456789'],
      [String(dana.partnerId), 'Dana', dana.email, String(year()), 'USD', '100.00', '1', 'given', 'Dana Ray', '1 Main St, Austin, TX 78701', 'US', 'yes', 'EIN', '12-3456789'],
      [String(eli.partnerId), 'Eli', eli.email, String(year()), 'USD', '50.00', '1', 'not given or not shared', '', '', '', '', '', ''],
    ]);
    const audited = await db.pool.query("SELECT actor_type, object_id FROM audit_log WHERE program_id = $1 AND action = 'tax_export.downloaded'", [shop.programId]);
    expect(audited.rows).toEqual([{ actor_type: 'operator', object_id: String(year()) }]);
    // Another year: nothing paid.
    expect(((await admin('GET', `/programs/${shop.programId}/tax-export?year=${year() - 1}`)).body as string).trim().split('\r\n')).toHaveLength(1);

    // The dashboard: owner and finance download it (each download audited); admin and viewer are refused.
    const path = `/dashboard/programs/${shop.programId}/payouts/tax/${year()}/export.csv`;
    const byRole: Record<string, number> = {};
    for (const role of ['owner', 'finance', 'admin', 'viewer']) byRole[role] = (await memberGet(shop.accountId, role, path)).status;
    expect(byRole).toEqual({ owner: 200, finance: 200, admin: 403, viewer: 403 });
    const members = await db.pool.query("SELECT actor_type, count(*)::int AS n FROM audit_log WHERE program_id = $1 AND action = 'tax_export.downloaded' GROUP BY actor_type ORDER BY actor_type", [shop.programId]);
    expect(members.rows).toEqual([{ actor_type: 'member', n: 2 }, { actor_type: 'operator', n: 2 }]);
    // The tax page itself shows no TIN, masked or not.
    const page = await memberGet(shop.accountId, 'owner', `/dashboard/programs/${shop.programId}/payouts/tax`);
    expect(page.status).toBe(200);
    expect(page.body).not.toContain('3456789');

    // Another brand's owner cannot read it: the same 404 as a program that does not exist.
    const other = await seedProgram(api);
    const stranger = await memberGet(other.accountId, 'owner', path);
    expect(stranger.status).toBe(404);
    expect(String(stranger.body)).not.toContain('12-3456789');
  });
});

/** One CSV line's cells (quoted cells may hold commas). */
const csvCells = (line: string) => [...line.matchAll(/(?:^|,)(?:"((?:[^"]|"")*)"|([^,]*))/g)].map((m) => (m[1] !== undefined ? m[1].replaceAll('""', '"') : m[2]!));

const sessions = new Map<string, string>();
/** A dashboard GET as a member of the account with the role. */
async function memberGet(accountId: number, role: string, path: string) {
  const key = `${accountId}:${role}`;
  if (!sessions.has(key)) {
    const { rows } = await db.pool.query('INSERT INTO account_members (account_id, email, role, accepted_at) VALUES ($1, $2, $3, now()) RETURNING id', [accountId, `${role}.${accountId}@team.test`, role]);
    const { token } = await openDashboardSession(db.pool, accountId, new Date(), Number(rows[0].id));
    sessions.set(key, `affix_dashboard=${token}`);
  }
  return api.request('GET', path, { headers: { Cookie: sessions.get(key)! } });
}
const ownerPage = (shop: SeededProgram, path: string) => memberGet(shop.accountId, 'owner', path);
