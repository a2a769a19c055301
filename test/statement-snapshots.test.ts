// A numbered statement does not change after it is issued (docs/payouts.md, "Statements"): the
// transaction that numbers a payout stores its title, the brand's legal name, address and tax id,
// and the partner's details as shared; later changes to any of them leave it as issued, while a
// payout not yet numbered shows live data. And the programs of a brand, which share one series,
// give the same tax id (or none).
import { describe, expect, it } from 'vitest';
import { OPERATOR } from '../src/app/accounts/scope.js';
import * as commissionLifecycle from '../src/app/money/commission-lifecycle.js';
import * as payoutConfig from '../src/app/money/payout-settings.js';
import * as payoutRuns from '../src/app/money/payout-runs.js';
import { partnerPayout, programPayout, programStatementCsv, saveInvoiceDetails, updateStatementDetails } from '../src/app/money/payout-statements.js';
import type { ManagementDeps } from '../src/app/programs/management.js';
import type { AffixError } from '../src/core/errors.js';
import { type TestApi, type TestDatabase, adminHeaders, seedProgram } from './support/harness.js';
import { useSeededApi } from './support/seeded-api.js';
import { apiSale } from './support/money.js';

let db: TestDatabase;
let api: TestApi;
const deps = (): ManagementDeps => ({ pool: db.pool, secretBox: null, now: () => new Date(api.clock.now) });

useSeededApi({ env: { AFFIX_SECRET_KEY: 'statement-snapshots-test-key-0123' } }, (t) => ({ db, api } = t));

describe('numbered statements as issued', () => {
  it('a numbered statement keeps its title and both parties after the brand and the partner change theirs; an unnumbered one shows live data', async () => {
    const shop = await seedProgram(api, { commission_rate: 10 });
    const email = 'rosa@snapshot.example';
    await db.pool.query("UPDATE partners SET email = $1, invited_at = now(), status = 'approved' WHERE id = $2", [email, shop.partnerId]);
    await payoutConfig.updatePayoutSettings(deps(), OPERATOR, shop.programId, { hold_days: 0 });
    await updateStatementDetails(deps(), OPERATOR, shop.programId, { legal_name: 'Harbour Goods GmbH', address: 'Kai 1\n20457 Hamburg', tax_id: 'DE811907980' });
    await saveInvoiceDetails(deps(), email, { name: 'Rosa Studio', address: 'Via Roma 3\n00184 Roma', country: 'IT', tax_id: 'IT12345678901', share: [String(shop.partnerId)] });

    const pay = async (saleCents: number) => {
      await apiSale(api, shop, saleCents);
      api.clock.now = new Date(api.clock.now.getTime() + 60_000);
      await commissionLifecycle.approveDueCommissions(deps());
      return (await payoutRuns.runPayouts(deps(), OPERATOR, shop.programId)).payouts[0]!.id;
    };
    const paid = await pay(100_000);
    await payoutRuns.markPayoutPaid(deps(), OPERATOR, shop.programId, paid, { reference: 'ref-1' });
    const unpaid = await pay(50_000);
    const issued = (await programPayout(deps(), OPERATOR, shop.programId, paid)).document;
    expect([issued.title, issued.from, issued.to]).toEqual([
      'Self-billing invoice',
      { name: 'Harbour Goods GmbH', address: 'Kai 1\n20457 Hamburg', taxId: 'DE811907980' },
      { name: 'Rosa Studio', address: 'Via Roma 3\n00184 Roma', country: 'IT', taxId: 'IT12345678901', email },
    ]);
    const csvBefore = await programStatementCsv(deps(), OPERATOR, shop.programId, paid);

    // Everything changes: the brand's legal name and address, its VAT id removed (a statement, no longer an invoice), the partner's details.
    await updateStatementDetails(deps(), OPERATOR, shop.programId, { legal_name: 'Harbour Holdings AG', address: 'Neuer Wall 9\n20354 Hamburg', tax_id: '' });
    await saveInvoiceDetails(deps(), email, { name: 'Rosa Bianchi', address: 'Via Nova 8\n20121 Milano', country: 'IT', tax_id: '', share: [String(shop.partnerId)] });

    const brandCopy = (await programPayout(deps(), OPERATOR, shop.programId, paid)).document;
    const partnerCopy = (await partnerPayout({ ...deps(), brandAccountId: null }, email, shop.partnerId, paid)).document;
    for (const doc of [brandCopy, partnerCopy]) expect([doc.title, doc.from, doc.to]).toEqual([issued.title, issued.from, issued.to]);
    expect(await programStatementCsv(deps(), OPERATOR, shop.programId, paid)).toBe(csvBefore);

    // Not yet numbered: live.
    const live = (await programPayout(deps(), OPERATOR, shop.programId, unpaid)).document;
    expect([live.number, live.title, live.from.name, live.to.name]).toEqual([null, 'Statement', 'Harbour Holdings AG', 'Rosa Bianchi']);
  });
});

describe('one tax id per brand', () => {
  it('a program’s tax id that differs from another program of the same brand is refused in words; the same id (however spaced) or none is taken; another brand’s does not count', async () => {
    const shop = await seedProgram(api);
    const made = await api.request('POST', '/api/v1/admin/programs', { body: { account_id: shop.accountId, name: 'Harbour Outlet', domain: 'outlet.example', commission_type: 'percent', commission_rate: 10 }, headers: adminHeaders });
    const outlet = Number(made.body.data.id);
    await updateStatementDetails(deps(), OPERATOR, shop.programId, { legal_name: 'Harbour Goods GmbH', tax_id: 'DE811907980' });
    const refused = await updateStatementDetails(deps(), OPERATOR, outlet, { legal_name: 'Harbour Goods GmbH', tax_id: 'DE999999999' }).then(() => null, (e: AffixError) => e);
    const message = `${(await db.pool.query('SELECT name FROM programs WHERE id = $1', [shop.programId])).rows[0].name}, another program of this brand, gives the tax id DE811907980: the programs of a brand share one series of statement numbers, so they give the same VAT or tax id (or none).`;
    expect([refused?.status, refused?.message, refused?.init.fields]).toEqual([400, message, { tax_id: message }]);
    expect((await updateStatementDetails(deps(), OPERATOR, outlet, { tax_id: 'de 811 907 980' })).taxId).toBe('DE 811 907 980');
    expect((await updateStatementDetails(deps(), OPERATOR, outlet, { tax_id: '' })).taxId).toBe('');
    const stranger = await seedProgram(api);
    expect((await updateStatementDetails(deps(), OPERATOR, stranger.programId, { tax_id: 'FR12345678901' })).taxId).toBe('FR12345678901');
  });
});
