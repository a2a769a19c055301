// Ban and lift, as a property (docs/partners.md, "Sanctions"): for any sequence of sales, holds,
// manual rejections, approvals, payout runs, payments, cancellations and refunds around bans
// and lifts, lifting a ban restores exactly what the ban changed and nothing else, and the
// ledger stays equal to the records after every step.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type TestApi, type TestDatabase, adminHeaders, seedProgram, trackClick } from './support/harness.js';
import { useSeededApi } from './support/seeded-api.js';
import { apiRefund, apiSale, uid } from './support/money.js';

let db: TestDatabase;
let api: TestApi;

useSeededApi({ options: { queueUrl: 'own' } }, (t) => ({ db, api } = t));

type Step =
  | { kind: 'sale'; partner: 0 | 1; cents: number }
  | { kind: 'hold'; pick: number }
  | { kind: 'reject'; pick: number }
  | { kind: 'approve'; pick: number }
  | { kind: 'refund'; pick: number; cents: number }
  | { kind: 'run' }
  | { kind: 'pay'; pick: number }
  | { kind: 'cancel'; pick: number }
  | { kind: 'ban' }
  | { kind: 'unban' };

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('sale' as const), partner: fc.constantFrom(0 as const, 1 as const), cents: fc.integer({ min: 100, max: 50_000 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('hold' as const), pick: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('reject' as const), pick: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('approve' as const), pick: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('refund' as const), pick: fc.nat(), cents: fc.integer({ min: 1, max: 60_000 }) }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'run' as const }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('pay' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('cancel' as const), pick: fc.nat() }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'ban' as const }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'unban' as const }) },
);

const admin = (method: string, path: string, body?: unknown) => api.request(method, `/api/v1/admin${path}`, { body, headers: adminHeaders });

interface Snapshot {
  stages: Map<number, { stage: string; payoutId: number | null }>;
  links: Map<number, boolean>;
}

async function snapshot(partnerId: number): Promise<Snapshot> {
  const commissions = await db.pool.query('SELECT id, stage, payout_id FROM commissions WHERE partner_id = $1', [partnerId]);
  const links = await db.pool.query('SELECT id, enabled FROM referral_links WHERE partner_id = $1', [partnerId]);
  return {
    stages: new Map(commissions.rows.map((r) => [Number(r.id), { stage: r.stage, payoutId: r.payout_id === null ? null : Number(r.payout_id) }])),
    links: new Map(links.rows.map((r) => [Number(r.id), r.enabled])),
  };
}

/** Each commission's entries sum to what it is owed now (nothing once rejected); pending and held sit in the pending bucket. */
async function checkLedger(programId: number) {
  const { rows } = await db.pool.query(
    `SELECT c.id, c.stage, (c.amount_cents - c.deducted_cents)::int AS net,
            coalesce(sum(l.pending_cents + l.approved_cents + l.paid_cents), 0)::int AS ledger, coalesce(sum(l.pending_cents), 0)::int AS pending
       FROM commissions c LEFT JOIN commission_ledger l ON l.commission_id = c.id WHERE c.program_id = $1 GROUP BY c.id`,
    [programId],
  );
  for (const row of rows) {
    expect(row.ledger, `commission ${row.id} (${row.stage})`).toBe(row.stage === 'rejected' ? 0 : row.net);
    expect(row.pending, `commission ${row.id} pending bucket`).toBe(['pending', 'held'].includes(row.stage) ? row.net : 0);
  }
}

describe('ban and lift, any interleaving', () => {
  it('lifting a ban restores exactly what it changed; manual rejections and the other partner are untouched', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 4, maxLength: 22 }), async (steps) => {
        const shop = await seedProgram(api, { commission_rate: 10 });
        const code = uid('o').replaceAll('_', '-');
        const other = await admin('POST', `/programs/${shop.programId}/partners`, { name: uid('other') });
        await admin('POST', `/programs/${shop.programId}/links`, { partner_id: other.body.data.id, short_link: code });
        const partners = [
          { partnerId: shop.partnerId, affiliateUrl: shop.affiliateUrl },
          { partnerId: other.body.data.id as number, affiliateUrl: `https://shop.example.com/?aff=${code}` },
        ];
        // Clicks made before any ban, so a sale can still come in for the banned partner.
        const clicks = [await trackClick(api, partners[0]!.affiliateUrl), await trackClick(api, partners[0]!.affiliateUrl)];
        const sales: { transactionId: string; commissionId: number }[] = [];
        const rejectedByHand = new Set<number>();
        let banned: Snapshot | null = null;
        const pick = <T>(items: T[], n: number) => (items.length ? items[n % items.length] : undefined);

        for (const s of steps) {
          if (s.kind === 'sale') {
            const clickId = s.partner === 0 && banned ? clicks.shift() : undefined;
            if (s.partner === 0 && banned && !clickId) continue;
            const made = await apiSale(api, { apiKey: shop.apiKey, affiliateUrl: partners[s.partner]!.affiliateUrl }, s.cents, clickId ? { clickId } : {});
            if (made.commissionId) sales.push({ transactionId: made.transactionId, commissionId: made.commissionId });
          } else if (s.kind === 'hold') {
            const c = pick(sales, s.pick);
            if (c) await db.pool.query(`UPDATE commissions SET stage = 'held', hold_reasons = '{self_referral}' WHERE id = $1 AND stage = 'pending'`, [c.commissionId]);
          } else if (s.kind === 'reject') {
            const c = pick(sales, s.pick);
            if (c && (await admin('POST', `/programs/${shop.programId}/commissions/${c.commissionId}/reject`, { reason: 'by hand' })).status === 200) rejectedByHand.add(c.commissionId);
          } else if (s.kind === 'approve') {
            const c = pick(sales, s.pick);
            if (c) await admin('POST', `/programs/${shop.programId}/commissions/${c.commissionId}/approve`, { reason: 'by hand' });
          } else if (s.kind === 'refund') {
            const c = pick(sales, s.pick);
            if (c) await apiRefund(api, shop, c.transactionId, s.cents).catch(() => undefined);
          } else if (s.kind === 'run') {
            await admin('POST', `/programs/${shop.programId}/payouts/run`);
          } else if (s.kind === 'pay' || s.kind === 'cancel') {
            const open = (await db.pool.query("SELECT id FROM payouts WHERE program_id = $1 AND status = 'pending' ORDER BY id", [shop.programId])).rows;
            const payout = pick(open, s.pick);
            if (payout) await admin('POST', `/programs/${shop.programId}/payouts/${payout.id}/${s.kind === 'pay' ? 'paid' : 'cancel'}`, s.kind === 'pay' ? { reference: 'ref' } : {});
          } else if (s.kind === 'ban') {
            const before = await snapshot(shop.partnerId);
            if ((await admin('POST', `/programs/${shop.programId}/partners/${shop.partnerId}/ban`, { reason: 'review' })).status === 200) banned = before;
          } else if (s.kind === 'unban') {
            if ((await admin('POST', `/programs/${shop.programId}/partners/${shop.partnerId}/unban`, {})).status !== 200) continue;
            const after = await snapshot(shop.partnerId);
            const cancelled = new Set(
              (await db.pool.query('SELECT id FROM payouts WHERE program_id = $1 AND canceled_by_sanction_id IS NOT NULL', [shop.programId])).rows.map((r) => Number(r.id)),
            );
            for (const [id, was] of banned!.stages) {
              // A payout the ban cancelled gave back what it claimed: owed again (the next run pays it).
              const expected = was.payoutId !== null && cancelled.has(was.payoutId) ? { stage: 'approved', payoutId: null } : was;
              const now = after.stages.get(id)!;
              // Between ban and lift only money moved on what the ban left alone (a refund, a payout of another partner).
              expect({ id, ...now }, 'a commission the ban saw').toEqual({ id, ...expected });
            }
            for (const [id, now] of after.stages) if (!banned!.stages.has(id)) expect(['pending', 'held'], `commission ${id} made during the ban`).toContain(now.stage);
            expect(after.links).toEqual(banned!.links);
            banned = null;
          }
          await checkLedger(shop.programId);
        }
        // Rejected by hand: rejected still, whatever bans came and went.
        for (const id of rejectedByHand) expect((await db.pool.query('SELECT stage FROM commissions WHERE id = $1', [id])).rows[0].stage).toBe('rejected');
      }),
      { numRuns: 30 },
    );
  }, 240_000);
});

describe('a ban racing with money', () => {
  it('a ban, a payout run, refunds and two bulk approvals at once: no error but refusals, the ledger to the cent, and the lift restores what the ban did', async () => {
    const shop = await seedProgram(api, { commission_rate: 10 });
    const sales = [];
    for (let i = 0; i < 12; i++) sales.push(await apiSale(api, shop, 1000 * (i + 1)));
    // Half approved before the race: a payout run can claim them while the ban cancels payouts.
    await admin('POST', `/programs/${shop.programId}/commissions/bulk`, { action: 'approve', commission_ids: sales.slice(0, 6).map((s) => s.commissionId), reason: 'before' });
    const replies = await Promise.all([
      admin('POST', `/programs/${shop.programId}/partners/${shop.partnerId}/ban`, { reason: 'race' }),
      admin('POST', `/programs/${shop.programId}/payouts/run`),
      admin('POST', `/programs/${shop.programId}/commissions/bulk`, { action: 'approve', filter: { partner_id: shop.partnerId }, reason: 'race one' }),
      admin('POST', `/programs/${shop.programId}/commissions/bulk`, { action: 'approve', filter: { partner_id: shop.partnerId }, reason: 'race two' }),
      ...sales.slice(3, 9).map((s) => apiRefund(api, shop, s.transactionId, 500).then((r) => ({ status: r.status }))),
    ]);
    // Every answer is a change or a refusal of a state (409: nothing to pay, already banned): never a 500 or a deadlock.
    for (const reply of replies) expect([200, 201, 409]).toContain(reply.status);
    await checkLedger(shop.programId);
    expect((await admin('POST', `/programs/${shop.programId}/partners/${shop.partnerId}/unban`, {})).status).toBe(200);
    await checkLedger(shop.programId);
    // Approved money the ledger holds = what open payouts and the next run pay (clawbacks netted), to the cent.
    const { rows } = await db.pool.query(
      `SELECT (SELECT coalesce(sum(approved_cents), 0) FROM commission_ledger WHERE program_id = $1)::int AS ledger,
              ((SELECT coalesce(sum(amount_cents), 0) FROM payouts WHERE program_id = $1 AND status = 'pending')
             + (SELECT coalesce(sum(amount_cents - deducted_cents), 0) FROM commissions WHERE program_id = $1 AND stage = 'approved' AND payout_id IS NULL)
             + (SELECT coalesce(sum(amount_cents), 0) FROM clawbacks WHERE program_id = $1 AND payout_id IS NULL)
             + (SELECT coalesce(sum(amount_cents), 0) FROM payouts WHERE program_id = $1 AND status = 'paid'))::int AS owed,
              (SELECT coalesce(sum(paid_cents), 0) FROM commission_ledger WHERE program_id = $1)::int AS paid`,
      [shop.programId],
    );
    expect(rows[0].ledger + rows[0].paid).toBe(rows[0].owed);
  });
});
