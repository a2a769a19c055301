// Statements numbered per brand without gaps (issue 47, item 5): a brand (an account) has one
// series across its programs, independent of other brands'; the number is issued in the
// transaction that marks the payout paid (by hand or a Stripe transfer), so concurrent payments
// get exactly 1..N and a rolled-back one burns none; a payout that fails after it was paid keeps
// its number and its statement says it was reversed; the migration numbers the payouts paid
// before it; the partner's and the brand's statements show the number, and another brand's is 404.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ManagementDeps } from '../src/app/programs/management.js';
import { OPERATOR } from '../src/app/accounts/scope.js';
import * as payoutRuns from '../src/app/money/payout-runs.js';
import * as payoutConfig from '../src/app/money/payout-settings.js';
import * as commissionLifecycle from '../src/app/money/commission-lifecycle.js';
import { failPayout } from '../src/app/money/failed-payouts.js';
import { partnerStatementCsv, programStatementCsv, updateStatementDetails } from '../src/app/money/payout-statements.js';
import { sha256 } from '../src/core/secrets.js';
import { type TestApi, type TestDatabase, adminHeaders, closeTestApi, openTestApi, seedProgram } from './support/harness.js';
import { apiRefund, apiSale } from './support/money.js';
import { nockForThisFile } from './support/nock.js';

// Stripe's transfer answered by nock, switched on for this file only (test/support/nock.ts).
const nock = nockForThisFile();

let db: TestDatabase;
let api: TestApi;
const clock = new Date(Date.now() + 60_000);
const deps = (): ManagementDeps => ({ pool: db.pool, secretBox: null, now: () => clock });

beforeAll(async () => {
  ({ db, api } = await openTestApi({ AFFIX_SECRET_KEY: 'statement-numbers-test-secret-key-0' }));
});
afterEach(() => nock.cleanAll());
afterAll(() => closeTestApi({ db, api }));

const must = async (method: string, path: string, body?: unknown) => {
  const reply = await api.request(method, `/api/v1/admin${path}`, { body, headers: adminHeaders });
  if (reply.status >= 300) throw new Error(`${method} ${path}: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.data;
};

/** A program of `accountId` (a new brand when absent) with `partners` partners, each owed one approved commission. */
async function programWithOwed(partners: number, accountId?: number) {
  const tag = randomBytes(3).toString('hex');
  const seeded = accountId === undefined ? await seedProgram(api, { commission_rate: 10 }) : null;
  const account = seeded?.accountId ?? accountId!;
  const programId: number = seeded?.programId ?? (await must('POST', '/programs', {
    account_id: account, name: `Second ${tag}`, domain: 'shop.example.com', commission_type: 'percent', commission_rate: 10, allowed_origins: ['https://shop.example.com'],
  })).id;
  const apiKey: string = seeded?.apiKey ?? (await must('POST', `/programs/${programId}/keys`)).api_key;
  await payoutConfig.updatePayoutSettings(deps(), OPERATOR, programId, { hold_days: 0, payout_minimums_cents: {} });
  const partnerIds: number[] = [];
  for (let i = 0; i < partners; i++) {
    const email = `p${i}-${tag}@partner.example`;
    const partner = await must('POST', `/programs/${programId}/partners`, { name: `Partner ${i} ${tag}`, email });
    await must('PATCH', `/programs/${programId}/partners/${partner.id}/payout-details`, { payout_method: 'bank_transfer', payout_reference: `DE00 ${tag} ${i}` });
    const code = `n${i}${tag}`;
    await must('POST', `/programs/${programId}/links`, { partner_id: partner.id, short_link: code });
    await apiSale(api, { apiKey, affiliateUrl: `https://shop.example.com/?aff=${code}` }, 10_000 + i * 100);
    partnerIds.push(partner.id);
  }
  await commissionLifecycle.approveDueCommissions(deps());
  return { accountId: account, programId, apiKey, partnerIds, tag };
}

const numbersOf = async (accountId: number) =>
  (await db.pool.query('SELECT sn.number, sn.payout_id FROM statement_numbers sn WHERE sn.account_id = $1 ORDER BY sn.number', [accountId])).rows.map((r) => ({ number: Number(r.number), payoutId: Number(r.payout_id) }));
const numberOf = async (payoutId: number) => (await db.pool.query('SELECT prefix || number AS n FROM statement_numbers WHERE payout_id = $1', [payoutId])).rows[0]?.n ?? null;
const oneToN = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

describe('statement numbers', () => {
  it('numbers 1..N without gaps per brand across its programs, independent between brands, with the brand\'s prefix', async () => {
    const first = await programWithOwed(2);
    const second = await programWithOwed(2, first.accountId);
    const other = await programWithOwed(2);
    const runFirst = await payoutRuns.runPayouts(deps(), OPERATOR, first.programId);
    const runSecond = await payoutRuns.runPayouts(deps(), OPERATOR, second.programId);
    const runOther = await payoutRuns.runPayouts(deps(), OPERATOR, other.programId);
    // A payout canceled in between takes no number.
    await payoutRuns.cancelPayout(deps(), OPERATOR, second.programId, runSecond.payouts[1]!.id);
    await payoutRuns.markPayoutPaid(deps(), OPERATOR, first.programId, runFirst.payouts[0]!.id, { reference: 'A-1' });
    await payoutRuns.markPayoutPaid(deps(), OPERATOR, other.programId, runOther.payouts[0]!.id, { reference: 'O-1' });
    await payoutRuns.markPayoutPaid(deps(), OPERATOR, second.programId, runSecond.payouts[0]!.id, { reference: 'B-1' });
    await expect(updateStatementDetails(deps(), OPERATOR, first.programId, { legal_name: 'Acme GmbH', number_prefix: 'ACME 2026' })).rejects.toThrow(/A number prefix is at most 20 letters/);
    await updateStatementDetails(deps(), OPERATOR, first.programId, { legal_name: 'Acme GmbH', address: '', tax_id: '', number_prefix: 'ACME-2026-' });
    await payoutRuns.markPayoutPaid(deps(), OPERATOR, first.programId, runFirst.payouts[1]!.id, { reference: 'A-2' });
    await payoutRuns.markPayoutPaid(deps(), OPERATOR, other.programId, runOther.payouts[1]!.id, { reference: 'O-2' });

    expect((await numbersOf(first.accountId)).map((r) => r.number)).toEqual([1, 2, 3]);
    expect((await numbersOf(first.accountId)).map((r) => r.payoutId)).toEqual([runFirst.payouts[0]!.id, runSecond.payouts[0]!.id, runFirst.payouts[1]!.id]);
    expect((await numbersOf(other.accountId)).map((r) => r.number)).toEqual([1, 2]);
    // The prefix is the brand's: numbers issued after it was set carry it, earlier ones keep theirs.
    expect(await numberOf(runFirst.payouts[0]!.id)).toBe('1');
    expect(await numberOf(runFirst.payouts[1]!.id)).toBe('ACME-2026-3');
    expect(await numberOf(runSecond.payouts[1]!.id)).toBeNull();
  });

  it('20 payouts of a brand marked paid at once (two programs) get exactly 1..20', async () => {
    const first = await programWithOwed(10);
    const second = await programWithOwed(10, first.accountId);
    const payouts = [
      ...(await payoutRuns.runPayouts(deps(), OPERATOR, first.programId)).payouts.map((p) => ({ programId: first.programId, id: p.id })),
      ...(await payoutRuns.runPayouts(deps(), OPERATOR, second.programId)).payouts.map((p) => ({ programId: second.programId, id: p.id })),
    ];
    expect(payouts).toHaveLength(20);
    await Promise.all(payouts.map((p) => payoutRuns.markPayoutPaid(deps(), OPERATOR, p.programId, p.id, { reference: `R-${p.id}` })));
    const numbers = await numbersOf(first.accountId);
    expect(numbers.map((r) => r.number)).toEqual(oneToN(20));
    expect(new Set(numbers.map((r) => r.payoutId))).toEqual(new Set(payouts.map((p) => p.id)));
  });

  it('a mark-paid that fails and rolls back burns no number; a Stripe transfer gets the next one', async () => {
    const shop = await programWithOwed(3);
    const run = await payoutRuns.runPayouts(deps(), OPERATOR, shop.programId);
    const [a, b, c] = run.payouts;
    await payoutRuns.markPayoutPaid(deps(), OPERATOR, shop.programId, a!.id, { reference: 'R-1' });
    // The audit entry is written after the number: refusing it rolls the whole payment back.
    await db.pool.query(`CREATE FUNCTION refuse_payout_audit() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
      IF NEW.action = 'payout.paid' AND NEW.object_id = '${b!.id}' THEN RAISE EXCEPTION 'audit refused'; END IF; RETURN NEW; END $$`);
    await db.pool.query('CREATE TRIGGER refuse_payout_audit BEFORE INSERT ON audit_log FOR EACH ROW EXECUTE FUNCTION refuse_payout_audit()');
    await expect(payoutRuns.markPayoutPaid(deps(), OPERATOR, shop.programId, b!.id, { reference: 'R-2' })).rejects.toThrow();
    await db.pool.query('DROP TRIGGER refuse_payout_audit ON audit_log; DROP FUNCTION refuse_payout_audit()');
    expect((await db.pool.query('SELECT status FROM payouts WHERE id = $1', [b!.id])).rows[0].status).toBe('pending');
    expect(await numberOf(b!.id)).toBeNull();

    // Paid through Stripe: the same mark-paid path, the next number.
    await db.pool.query("UPDATE payouts SET payout_method = 'stripe' WHERE id = $1", [c!.id]);
    await must('PATCH', `/programs/${shop.programId}/partners/${c!.partnerId}/payout-details`, { payout_method: 'stripe', payout_reference: 'acct_1NumberedTest' });
    nock('https://api.stripe.com').post('/v1/transfers').reply(200, { id: 'tr_numbered_1', object: 'transfer' });
    await payoutRuns.payWithStripe({ ...deps(), stripeSecretKey: 'sk_test_numbers' }, OPERATOR, shop.programId, c!.id);
    await payoutRuns.markPayoutPaid(deps(), OPERATOR, shop.programId, b!.id, { reference: 'R-2' });
    expect(await numbersOf(shop.accountId)).toEqual([{ number: 1, payoutId: a!.id }, { number: 2, payoutId: c!.id }, { number: 3, payoutId: b!.id }]);
  });

  it('a payout that fails after it was paid keeps its number, its statement says it was reversed, and the number is never reused', async () => {
    const shop = await programWithOwed(1);
    const email = (await db.pool.query('SELECT email FROM partners WHERE id = $1', [shop.partnerIds[0]])).rows[0].email as string;
    await db.pool.query("UPDATE partners SET invited_at = now(), status = 'approved' WHERE id = $1", [shop.partnerIds[0]]);
    const [payout] = (await payoutRuns.runPayouts(deps(), OPERATOR, shop.programId)).payouts;
    await payoutRuns.markPayoutPaid(deps(), OPERATOR, shop.programId, payout!.id, { reference: 'R-1' });
    await failPayout(deps(), OPERATOR, shop.programId, payout!.id, { reason: 'Account closed.' });
    expect(await numberOf(payout!.id)).toBe('1');
    const rows = (await partnerStatementCsv({ ...deps(), brandAccountId: null }, email, shop.partnerIds[0]!, payout!.id)).split('\r\n').map((l) => l.split(','));
    expect(rows.find((r) => r[0] === 'number')?.[1]).toBe('1');
    expect(rows.find((r) => r[0] === 'reversed')?.[1]).toBe(`Reversed on ${clock.toISOString().slice(0, 10)}: Account closed`);
    // Its lines stay as it paid them (the commission is owed again, the invoice keeps what it said).
    expect(rows.filter((r) => r[5] === 'commission').map((r) => r[4])).toEqual(['10.00']);
    expect(rows.find((r) => r[0] === 'total')?.[4]).toBe('10.00');
    // Owed again, paid again: a new payout, a new number.
    const [again] = (await payoutRuns.runPayouts(deps(), OPERATOR, shop.programId)).payouts;
    await payoutRuns.markPayoutPaid(deps(), OPERATOR, shop.programId, again!.id, { reference: 'R-2' });
    expect(await numbersOf(shop.accountId)).toEqual([{ number: 1, payoutId: payout!.id }, { number: 2, payoutId: again!.id }]);
  });

  it('a reversed statement keeps the clawback it netted, and its lines still sum to what it paid', async () => {
    const shop = await programWithOwed(1);
    const partnerId = shop.partnerIds[0]!;
    const email = (await db.pool.query('SELECT email FROM partners WHERE id = $1', [partnerId])).rows[0].email as string;
    await db.pool.query("UPDATE partners SET invited_at = now(), status = 'approved' WHERE id = $1", [partnerId]);
    const link = { apiKey: shop.apiKey, affiliateUrl: `https://shop.example.com/?aff=n0${shop.tag}` };
    const firstSale = (await db.pool.query('SELECT processor_event_id FROM sales WHERE partner_id = $1', [partnerId])).rows[0].processor_event_id as string;
    const [first] = (await payoutRuns.runPayouts(deps(), OPERATOR, shop.programId)).payouts;
    await payoutRuns.markPayoutPaid(deps(), OPERATOR, shop.programId, first!.id, { reference: 'R-1' });
    // Refunded after it was paid: a clawback of 5.00 netted by the next payout (a sale of 300.00: 30.00 less 5.00).
    await apiRefund(api, shop, firstSale, 5_000);
    await apiSale(api, link, 30_000);
    await commissionLifecycle.approveDueCommissions(deps());
    const [second] = (await payoutRuns.runPayouts(deps(), OPERATOR, shop.programId)).payouts;
    expect(second!.amountCents).toBe(2_500);
    await payoutRuns.markPayoutPaid(deps(), OPERATOR, shop.programId, second!.id, { reference: 'R-2' });
    await failPayout(deps(), OPERATOR, shop.programId, second!.id, { reason: 'Returned by the bank' });
    const rows = (await partnerStatementCsv({ ...deps(), brandAccountId: null }, email, partnerId, second!.id)).split('\r\n').map((l) => l.split(','));
    expect(rows.find((r) => r[0] === 'number')?.[1]).toBe('2');
    expect(rows.filter((r) => r[5] === 'commission').map((r) => r[4])).toEqual(['30.00']);
    expect(rows.filter((r) => r[5]?.startsWith('clawback')).map((r) => r[4])).toEqual(["'-5.00"]); // a spreadsheet-safe negative, as every CSV of Affix writes text cells
    expect(rows.find((r) => r[0] === 'total')?.[4]).toBe('25.00');
  });

  it('the migration numbers the payouts paid before it, in paid order per brand', async () => {
    const shop = await programWithOwed(3);
    const other = await programWithOwed(1);
    const run = await payoutRuns.runPayouts(deps(), OPERATOR, shop.programId);
    const [otherPayout] = (await payoutRuns.runPayouts(deps(), OPERATOR, other.programId)).payouts;
    // As before the migration: paid (one paid and failed since, one still open) with no numbers.
    const paidAt = (day: number) => new Date(Date.UTC(2026, 0, day));
    const [p1, p2, p3] = run.payouts;
    await db.pool.query("UPDATE payouts SET status = 'paid', paid_at = $2 WHERE id = $1", [p1!.id, paidAt(9)]);
    await db.pool.query("UPDATE payouts SET status = 'failed', paid_at = $2, failed_at = $2 WHERE id = $1", [p2!.id, paidAt(3)]);
    await db.pool.query("UPDATE payouts SET status = 'paid', paid_at = $2 WHERE id = $1", [otherPayout!.id, paidAt(5)]);
    const migration = readFileSync(new URL('../migrations/0072_statement_numbers.sql', import.meta.url), 'utf8');
    const client = await db.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query('DROP TABLE statement_numbers, statement_series');
      await client.query(migration);
      // The column migration 0073 adds to the table made again (the statements' snapshots).
      await client.query('ALTER TABLE statement_numbers ADD COLUMN snapshot jsonb');
      await client.query('COMMIT');
    } finally {
      client.release();
    }
    expect(await numbersOf(shop.accountId)).toEqual([{ number: 1, payoutId: p2!.id }, { number: 2, payoutId: p1!.id }]);
    expect(await numbersOf(other.accountId)).toEqual([{ number: 1, payoutId: otherPayout!.id }]);
    // The series goes on from there.
    await payoutRuns.markPayoutPaid(deps(), OPERATOR, shop.programId, p3!.id, { reference: 'R-3' });
    expect((await numbersOf(shop.accountId)).map((r) => r.number)).toEqual([1, 2, 3]);
  });
});

describe('statement pages', () => {
  async function cookie(kind: 'dashboard' | 'portal', who: number | string) {
    const token = randomBytes(24).toString('base64url');
    if (kind === 'dashboard') await db.pool.query("INSERT INTO dashboard_sessions (token_hash, account_id, expires_at) VALUES ($1, $2, now() + interval '1 hour')", [sha256(token), who]);
    else await db.pool.query("INSERT INTO partner_sessions (token_hash, email, expires_at) VALUES ($1, $2, now() + interval '1 hour')", [sha256(token), who]);
    return { cookie: `affix_${kind}=${token}` };
  }
  const page = async (path: string, headers: Record<string, string>) => {
    const response = await fetch(`${api.url}${path}`, { headers, redirect: 'manual' });
    return { status: response.status, text: (await response.text()).replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ') };
  };

  it('the partner\'s and the brand\'s statement show the title and the number; another brand\'s statement is 404', async () => {
    const shop = await programWithOwed(1);
    const other = await programWithOwed(1);
    const partnerId = shop.partnerIds[0]!;
    const email = (await db.pool.query('SELECT email FROM partners WHERE id = $1', [partnerId])).rows[0].email as string;
    await db.pool.query("UPDATE partners SET invited_at = now(), status = 'approved' WHERE id = $1", [partnerId]);
    await updateStatementDetails(deps(), OPERATOR, shop.programId, { legal_name: 'Acme GmbH', address: 'Hauptstr. 1\n10115 Berlin', tax_id: 'de123456789', number_prefix: 'ACME-2026-' });
    const [payout] = (await payoutRuns.runPayouts(deps(), OPERATOR, shop.programId)).payouts;
    const [otherPayout] = (await payoutRuns.runPayouts(deps(), OPERATOR, other.programId)).payouts;
    // Before it is paid: a statement, not numbered yet.
    const brand = await cookie('dashboard', shop.accountId);
    const base = `/dashboard/programs/${shop.programId}/payouts`;
    expect((await page(`${base}/${payout!.id}/statement`, brand)).text).toContain('Number Given when paid');
    await payoutRuns.markPayoutPaid(deps(), OPERATOR, shop.programId, payout!.id, { reference: 'SEPA-1' });

    const partner = await cookie('portal', email);
    const portalPage = await page(`/portal/programs/${partnerId}/payouts/${payout!.id}/statement`, partner);
    expect(portalPage.status).toBe(200);
    expect(portalPage.text).toContain('Self-billing invoice ACME-2026-1');
    expect(portalPage.text).toContain('VAT / tax id: DE123456789');
    const brandPage = await page(`${base}/${payout!.id}/statement`, brand);
    expect(brandPage.status).toBe(200);
    expect(brandPage.text).toContain('Self-billing invoice ACME-2026-1');
    expect(brandPage.text).toContain(`Number ACME-2026-1 Issue date ${clock.toISOString().slice(0, 10)}`);
    const csv = (await programStatementCsv(deps(), OPERATOR, shop.programId, payout!.id)).split('\r\n');
    expect(csv.slice(0, 3)).toEqual(['document,Self-billing invoice', 'number,ACME-2026-1', `issue_date,${clock.toISOString().slice(0, 10)}`]);
    const csvReply = await fetch(`${api.url}${base}/${payout!.id}/statement.csv`, { headers: brand });
    expect((await csvReply.text()).split('\r\n')[1]).toBe('number,ACME-2026-1');
    // The Payouts page links it.
    expect((await fetch(`${api.url}${base}`, { headers: brand }).then((r) => r.text()))).toContain(`href="${base}/${payout!.id}/statement"`);

    // Another brand's payout, through this brand's program or its own: the same 404 as none.
    expect((await page(`${base}/${otherPayout!.id}/statement`, brand)).status).toBe(404);
    expect((await page(`/dashboard/programs/${other.programId}/payouts/${otherPayout!.id}/statement`, brand)).status).toBe(404);
    expect((await fetch(`${api.url}${base}/${otherPayout!.id}/statement.csv`, { headers: brand })).status).toBe(404);
  });
});
