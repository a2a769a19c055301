// A brand reads a person's invoice and tax details only when the person shared them with that
// enrollment (docs/payouts.md, "Who sees a partner's details"). Brand A points one of its partners
// at the email of someone who gave details in brand B's portal: A's copy of the statement, its
// year-end tax export and its threshold hold see none of them; once the person shares them with
// A's enrollment they do; once A changes the email again, they stop.
import { describe, expect, it } from 'vitest';
import { OPERATOR } from '../src/app/accounts/scope.js';
import * as commissionLifecycle from '../src/app/money/commission-lifecycle.js';
import * as payoutConfig from '../src/app/money/payout-settings.js';
import * as payoutRuns from '../src/app/money/payout-runs.js';
import { programPayout, saveInvoiceDetails } from '../src/app/money/payout-statements.js';
import * as tax from '../src/app/money/tax-details.js';
import { shareChoicesOf } from '../src/app/money/partner-detail-shares.js';
import type { ManagementDeps } from '../src/app/programs/management.js';
import { createSecretBox } from '../src/platform/secret-box.js';
import { type SeededProgram, type TestApi, type TestDatabase, adminHeaders, seedProgram } from './support/harness.js';
import { useSeededApi } from './support/seeded-api.js';
import { apiSale } from './support/money.js';

const KEY = 'detail-shares-test-secret-key-0123456789';
let db: TestDatabase;
let api: TestApi;
const deps = (): ManagementDeps => ({ pool: db.pool, secretBox: createSecretBox(KEY), now: () => new Date(api.clock.now) });

useSeededApi({ env: { AFFIX_SECRET_KEY: KEY } }, (t) => ({ db, api } = t));

const must = async (method: string, path: string, body?: unknown) => {
  const reply = await api.request(method, `/api/v1/admin${path}`, { body, headers: adminHeaders });
  if (reply.status >= 300) throw new Error(`${path}: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.data;
};

const PAT = 'pat@person.example';
const US = { legal_name: 'Pat Rivera', country: 'US', address: '9 Elm St\nDenver, CO 80202', us_person: 'yes', tin_kind: 'ssn', tin: '123-45-6789' };
const INVOICE = { name: 'Pat Rivera Studio', address: '9 Elm St\nDenver, CO 80202', country: 'US', tax_id: 'US99-887766' };

/** A payout of the seeded partner: one sale, approved and run; marked paid unless `open`. */
async function payout(shop: SeededProgram, saleCents: number, open = false) {
  await payoutConfig.updatePayoutSettings(deps(), OPERATOR, shop.programId, { hold_days: 0 });
  await apiSale(api, shop, saleCents);
  api.clock.now = new Date(api.clock.now.getTime() + 60_000);
  await commissionLifecycle.approveDueCommissions(deps());
  const run = await payoutRuns.runPayouts(deps(), OPERATOR, shop.programId);
  const made = run.payouts.find((p) => p.partnerId === shop.partnerId)!;
  if (!open) await payoutRuns.markPayoutPaid(deps(), OPERATOR, shop.programId, made.id, { reference: `ref-${made.id}` });
  return made.id;
}

const exportRow = async (shop: SeededProgram) => {
  const csv = (await tax.yearEndExport(deps(), OPERATOR, shop.programId, { year: new Date(api.clock.now).getUTCFullYear() })).csv;
  return csv.trim().split('\r\n')[1]!;
};
const heldPartners = async (shop: SeededProgram) =>
  (await tax.holdForTaxDetails(db.pool, shop.programId, [{ partnerId: shop.partnerId, currency: 'USD', amountCents: 70_000 }], new Date(api.clock.now))).held.map((h) => h.partnerId);

describe('who sees a partner’s details', () => {
  it('a brand that sets its partner’s email to someone’s address sees none of their details until that person shares them with its enrollment, and not after it changes the email', async () => {
    // Pat is B's partner and gives both kinds of details, shared with B's enrollment.
    const b = await seedProgram(api, { commission_rate: 10 });
    await db.pool.query("UPDATE partners SET email = $1, invited_at = now(), status = 'approved' WHERE id = $2", [PAT, b.partnerId]);
    await saveInvoiceDetails(deps(), PAT, { ...INVOICE, share: [String(b.partnerId)] });
    await tax.saveTaxDetails(deps(), PAT, { ...US, share: String(b.partnerId) });
    const bPayout = await payout(b, 100_000, true);
    await payout(b, 50_000);
    expect((await programPayout(deps(), OPERATOR, b.programId, bPayout)).document.to).toMatchObject({ name: 'Pat Rivera Studio', taxId: 'US99-887766' });
    expect(await exportRow(b)).toContain('123-45-6789');

    // Brand A edits its own partner's email to Pat's address (and invites them).
    const a = await seedProgram(api, { commission_rate: 10 });
    await must('PATCH', `/programs/${a.programId}/partners/${a.partnerId}`, { email: 'PAT@person.example' });
    await db.pool.query("UPDATE partners SET invited_at = now(), status = 'approved' WHERE id = $1", [a.partnerId]);
    // A paid payout (for the year-end export) and an open one (its statement, not numbered yet, reads live data).
    await payout(a, 200_000);
    const aPayout = await payout(a, 100_000, true);
    await must('PATCH', `/programs/${a.programId}/tax-settings`, { tax_details_required: true });

    const seenByA = async () => {
      const statement = await programPayout(deps(), OPERATOR, a.programId, aPayout);
      const csv = await (await import('../src/app/money/payout-statements.js')).programStatementCsv(deps(), OPERATOR, a.programId, aPayout);
      return { to: statement.document.to, text: JSON.stringify(statement) + csv, row: await exportRow(a), held: await heldPartners(a) };
    };
    const before = await seenByA();
    const partnerName = (await db.pool.query('SELECT name FROM partners WHERE id = $1', [a.partnerId])).rows[0].name;
    expect(before.to).toEqual({ name: partnerName, address: '', country: '', taxId: '', email: 'PAT@person.example' });
    for (const secret of ['Pat Rivera', 'Elm St', 'US99-887766', '123-45-6789', '6789']) {
      expect(before.text).not.toContain(secret);
      expect(before.row).not.toContain(secret);
    }
    expect(before.row).toContain('not given or not shared');
    expect(before.held).toEqual([a.partnerId]);

    // Pat sees A's program listed under their email, unticked, and shares with it.
    const choices = await shareChoicesOf({ ...deps(), brandAccountId: null }, PAT);
    expect(choices.map((c) => [c.partnerId, c.shared]).sort()).toEqual([[a.partnerId, false], [b.partnerId, true]].sort());
    await tax.saveTaxDetails(deps(), PAT, { ...US, tin: '', share: [String(a.partnerId), String(b.partnerId)] });
    const shared = await seenByA();
    expect(shared.to).toMatchObject({ name: 'Pat Rivera Studio', address: '9 Elm St\nDenver, CO 80202', taxId: 'US99-887766' });
    expect(shared.row).toContain('Pat Rivera');
    expect(shared.row).toContain('123-45-6789');
    expect(shared.held).toEqual([]);

    // A changes the email again: the share made under Pat's address no longer counts.
    await must('PATCH', `/programs/${a.programId}/partners/${a.partnerId}`, { email: 'someone-else@person.example' });
    const after = await seenByA();
    for (const secret of ['Pat Rivera', 'Elm St', 'US99-887766', '123-45-6789']) {
      expect(after.text).not.toContain(secret);
      expect(after.row).not.toContain(secret);
    }
    expect(after.held).toEqual([a.partnerId]);

    // Unticking ends a share: B no longer sees them either.
    await saveInvoiceDetails(deps(), PAT, { ...INVOICE, share: [] });
    expect((await programPayout(deps(), OPERATOR, b.programId, bPayout)).document.to.taxId).toBe('');
    expect(await exportRow(b)).not.toContain('123-45-6789');
  });
});
