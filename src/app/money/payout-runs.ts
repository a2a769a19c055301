// Paying partners: a payout run (approved balances become one batch's payouts), the reminder to
// partners without payout details, marking a payout paid (by hand or through Stripe), canceling
// one, the batch's export and the balances. Every change is one transaction with its ledger
// entries and outbound events.
import { z } from 'zod';
import { clawbackSettledEntry, netCents, type PayoutLine, paidEntry, hasPayoutDetails, linesByPayoutDetails, payableBalances, payoutLines, releaseClaim } from '../../core/commission-ledger.js';
import Stripe from 'stripe';
import { AffixError, errors } from '../../core/errors.js';
import { formatMoney } from '../../core/money.js';
import type { Currency } from '../../core/types.js';
import { toStripeAmount } from '../../core/stripe/amounts.js';
import type { OutboundEvent } from '../../core/outbound-events.js';
import { type ExportFormat, payoutCsvHeader, payoutCsvLines } from '../../core/payout-export.js';
import { appendLines } from '../../db/money/ledger.js';
import { DEFAULT_OUTBOUND_QUEUE, writeMessage } from '../../db/outbound/messages.js';
import * as payouts from '../../db/money/commissions-and-payouts.js';
import { type PoolClient, withTransaction } from '../../db/infra/pool.js';
import { type ManagementDeps, audit, parseInput } from '../programs/management.js';
import { type Scope, programInScope } from '../accounts/scope.js';
import { type MailLinks, mailBrand, payoutDetailsReminderMail, payoutRunReadyMail, payoutSentMail, queueForManagers } from '../outbound/mail.js';
import { queueMails } from '../../db/outbound/mail-outbox.js';
import { programName } from '../../db/programs/programs-links-keys.js';
import { numberPaidStatement } from './statement-numbers.js';
import { type TaxWaitingLine, heldWords, holdForTaxDetails } from './tax-details.js';

const emit = (client: PoolClient, event: OutboundEvent) => writeMessage(client, DEFAULT_OUTBOUND_QUEUE, event);

/** A balance a run left owed because the partner has no payout details. */
export interface WaitingLine {
  partnerId: number;
  partnerName: string;
  currency: Currency;
  amountCents: number;
}

/**
 * A payout run: each partner's approved balance per currency (clawbacks netted) at or above the
 * program's minimum becomes a payout line of one new batch, claiming what it pays. A partner
 * without payout details (a method and where to pay) is not paid: their balance stays owed and
 * is answered under `missingPayoutDetails`, so the dashboard and the API both say what waits.
 */
export async function runPayouts(
  deps: ManagementDeps,
  scope: Scope,
  programId: number,
): Promise<{ batchId: number; payouts: payouts.PayoutRow[]; missingPayoutDetails: WaitingLine[]; missingTaxDetails: TaxWaitingLine[] }> {
  await programInScope(deps, scope, programId);
  return withTransaction(deps.pool, async (client) => {
    await payouts.lockProgramPayouts(client, programId);
    const payable = await payouts.lockPayableItems(client, programId);
    const balances = payableBalances(payable);
    const partnerIds = [...new Set(balances.map((b) => b.partnerId))];
    const minimums = await payouts.payoutMinimumsOf(client, programId, partnerIds);
    const details = await payouts.payoutDetailsOf(client, programId, partnerIds);
    const { pay: withDetails, waiting } = linesByPayoutDetails(payoutLines(balances, (partnerId) => minimums.get(partnerId) ?? {}), (partnerId) => details.get(partnerId));
    const missingPayoutDetails = await waitingLines(client, programId, waiting);
    // The brand may ask for tax details before a partner's year reaches its threshold (docs/payouts.md, "Tax details").
    const { pay: lines, held: missingTaxDetails } = await holdForTaxDetails(client, programId, withDetails, deps.now());
    if (lines.length === 0) {
      if (missingTaxDetails.length > 0) {
        throw errors.conflict(`Nothing to pay: the partners owed need tax details before this year's payouts reach the threshold (${heldWords(missingTaxDetails)}); remind them to add them`, 'missing_tax_details');
      }
      if (waiting.length > 0) {
        const partners = new Set(waiting.map((w) => w.partnerId)).size;
        throw errors.conflict(
          `Nothing to pay: ${partners === 1 ? 'the partner' : `all ${partners} partners`} owed at or above the minimum ${partners === 1 ? 'has' : 'have'} no payout details yet (${owedWords(waiting)}); remind them to add them`,
          'missing_payout_details',
        );
      }
      throw errors.conflict('Nothing to pay: no partner has an approved balance at or above the minimum', 'nothing_to_pay');
    }
    const batchId = await payouts.insertBatch(client, programId, lines, payable);
    await audit(client, scope, [
      {
        programId, action: 'payout.run', objectType: 'payout_batch', objectId: batchId,
        changes: {
          payouts: { from: null, to: lines.length },
          ...(waiting.length ? { waiting_for_details: { from: null, to: waiting.length } } : {}),
          ...(missingTaxDetails.length ? { waiting_for_tax_details: { from: null, to: missingTaxDetails.length } } : {}),
        },
      },
    ]);
    await queueForManagers(
      client,
      programId,
      payoutRunReadyMail({
        programId,
        batchId,
        payouts: lines.length,
        waiting: missingPayoutDetails.length ? { partners: new Set(waiting.map((w) => w.partnerId)).size, owed: owedWords(waiting) } : null,
      }),
    );
    // Every payout of the batch (a list page stops at 200; a run pays thousands).
    return { batchId, payouts: await payouts.listPayouts(client, programId, { batchId, limit: lines.length }), missingPayoutDetails, missingTaxDetails };
  });
}

/** "$430.00 and €80.00": what lines add up to, per currency. */
const owedWords = (lines: { currency: Currency; amountCents: number }[]): string => {
  const sums = new Map<Currency, number>();
  for (const l of lines) sums.set(l.currency, (sums.get(l.currency) ?? 0) + l.amountCents);
  return [...sums].sort(([a], [b]) => a.localeCompare(b)).map(([c, cents]) => formatMoney(cents, c)).join(' and ');
};

async function waitingLines(client: PoolClient, programId: number, waiting: PayoutLine[]): Promise<WaitingLine[]> {
  if (waiting.length === 0) return [];
  const names = new Map((await payouts.partnersByIds(client, programId, [...new Set(waiting.map((w) => w.partnerId))])).map((p) => [p.partnerId, p.name]));
  return waiting.map((w) => ({ partnerId: w.partnerId, partnerName: names.get(w.partnerId) ?? '', currency: w.currency, amountCents: w.amountCents }));
}

/** A partner owed money who cannot be paid yet: no payout details. */
export interface MissingDetails {
  partnerId: number;
  partnerName: string;
  /** Owed per currency (approved, not in an open payout). */
  owed: { currency: Currency; cents: number }[];
}

/** The partners owed money (approved, not claimed by an open payout) who have no payout details: a run cannot pay them. */
export function partnersMissingDetails(balances: payouts.PartnerBalance[]): MissingDetails[] {
  const byPartner = new Map<number, MissingDetails>();
  for (const b of balances) {
    const owed = b.approvedCents - b.inPayoutCents;
    if (owed <= 0 || hasPayoutDetails(b)) continue;
    const entry = byPartner.get(b.partnerId) ?? { partnerId: b.partnerId, partnerName: b.partnerName, owed: [] };
    entry.owed.push({ currency: b.currency, cents: owed });
    byPartner.set(b.partnerId, entry);
  }
  return [...byPartner.values()];
}

export interface ReminderDeps extends ManagementDeps {
  mailLinks: MailLinks;
}

/**
 * Mails the partners named (or every one owed without payout details) a reminder to add them, through
 * the mail queue: at most one a partner a day (its key), the brand's mail taking its turns with
 * other brands'. A partner who has details by now, or no email, gets none. Returns how many were written.
 */
export const remindInput = z.object({
  /** The partners to remind; absent: every partner owed money without payout details. */
  partner_ids: z.array(z.coerce.number().int().positive(), { error: 'partner_ids must be a list of partner ids.' }).max(100_000).optional(),
});

export async function remindPayoutDetails(deps: ReminderDeps, scope: Scope, programId: number, input: unknown): Promise<{ reminded: number; partners: number }> {
  const body = parseInput(remindInput, input ?? {});
  const program = await programInScope(deps, scope, programId);
  const owed = partnersMissingDetails(await payouts.partnerBalances(deps.pool, programId));
  const named = body.partner_ids === undefined ? null : new Set(body.partner_ids);
  const chosen = owed.filter((o) => named === null || named.has(o.partnerId));
  if (chosen.length === 0) throw errors.conflict('Nobody to remind: every partner owed money has payout details', 'nobody_to_remind');
  const owedOf = new Map(chosen.map((o) => [o.partnerId, o.owed]));
  const day = deps.now().toISOString().slice(0, 10);
  const recipients = (await payouts.partnersToRemind(deps.pool, programId, [...owedOf.keys()])).filter((p) => !hasPayoutDetails(p));
  const brand = await mailBrand(deps.pool, programId);
  const mails = recipients.map((p) =>
    payoutDetailsReminderMail(deps.mailLinks, { programId, programName: program.name, brand, email: p.email, partnerId: p.partnerId, owed: owedOf.get(p.partnerId)!, day }),
  );
  return withTransaction(deps.pool, async (client) => {
    const reminded = await queueMails(client, mails);
    await audit(client, scope, recipients.map((p) => ({ programId, action: 'partner.payout_details_reminded', objectType: 'partner', objectId: p.partnerId, changes: {} })));
    return { reminded, partners: recipients.length };
  });
}

export const markPaidInput = z.object({
  reference: z
    .string({ error: 'Give the payment reference (the transfer or batch id).' })
    .trim()
    .min(1, 'Give the payment reference (the transfer or batch id).')
    .max(200, 'A reference is at most 200 characters.'),
});

/**
 * The payout of a program the caller may touch, locked (after the program's payout lock: the
 * one lock order, src/db/money/commissions-and-payouts.ts) and in one of the statuses the change accepts.
 */
export async function withPayout<T>(
  deps: ManagementDeps,
  programId: number,
  payoutId: number,
  fn: (client: PoolClient, payout: payouts.PayoutRow) => Promise<T>,
  accepts: payouts.PayoutStatus[] = ['pending'],
) {
  return withTransaction(deps.pool, async (client) => {
    await payouts.lockProgramPayouts(client, programId);
    const payout = Number.isSafeInteger(payoutId) ? await payouts.lockPayout(client, programId, payoutId) : null;
    if (!payout) throw errors.notFound('Payout not found');
    if (payout.status === 'processing' && !accepts.includes('processing')) {
      // PayPal and Wise payouts are followed by a job until they settle (src/app/money/payout-providers.ts).
      if (payout.payoutMethod === 'paypal' || payout.payoutMethod === 'wise') {
        throw errors.conflict(`This payout is being paid through ${payout.payoutMethod === 'paypal' ? 'PayPal' : 'Wise'}; it is marked paid or failed when the provider settles it`, 'payout_processing');
      }
      throw errors.conflict('This payout is being paid through Stripe; pay it through Stripe again to finish', 'payout_processing');
    }
    if (!accepts.includes(payout.status)) throw errors.conflict(`This payout is already ${payout.status}`, `payout_${payout.status}`);
    return fn(client, payout);
  });
}

/** The money went out: the payout's commissions become paid and its clawbacks are settled. */
export async function markPayoutPaid(deps: ManagementDeps, scope: Scope, programId: number, payoutId: number, input: unknown) {
  const { reference } = parseInput(markPaidInput, input);
  await programInScope(deps, scope, programId);
  return markPaid(deps, scope, programId, payoutId, reference, ['pending']);
}

/** For a program already checked against the caller's scope (the PayPal and Wise followers too). */
export async function markPaid(deps: ManagementDeps, scope: Scope, programId: number, payoutId: number, reference: string, accepts: payouts.PayoutStatus[]) {
  return withPayout(deps, programId, payoutId, async (client, payout) => {
    const now = deps.now();
    const contents = await payouts.payoutContents(client, payout.id);
    await payouts.changeStage(client, 'paid', contents.commissions.map((c) => ({ commission: c, entry: paidEntry(c.payoutCents ?? netCents(c)) })), { at: now });
    await appendLines(
      client,
      contents.clawbacks.map((clawback) => ({
        commissionId: clawback.commissionId,
        programId,
        partnerId: payout.partnerId,
        currency: payout.currency,
        entry: clawbackSettledEntry(clawback.amountCents),
        payoutId: payout.id,
      })),
    );
    await payouts.setPayoutStatus(client, payout.id, 'paid', reference, now);
    // Its statement's number, from the brand's gap-free series, in this same transaction.
    await numberPaidStatement(client, payout.id, now);
    await audit(client, scope, [{ programId, action: 'payout.paid', objectType: 'payout', objectId: payout.id, changes: { status: { from: payout.status, to: 'paid' }, reference: { from: null, to: reference } } }]);
    // The partner hears it with the change (sent once it commits).
    if (payout.partnerEmail) {
      const program = await programName(client, programId);
      await queueMails(client, [payoutSentMail({ publicUrl: '{{affix}}' }, { programId, programName: program, brand: await mailBrand(client, programId), email: payout.partnerEmail, payoutId: payout.id, amountCents: payout.amountCents, currency: payout.currency, reference })]);
    }
    await emit(client, {
      programId,
      type: 'payout.paid',
      test: false,
      data: {
        program_id: programId, payout_id: payout.id, batch_id: payout.batchId, partner_id: payout.partnerId, amount_cents: payout.amountCents,
        currency: payout.currency, reference, commission_ids: contents.commissions.map((c) => c.id), clawback_ids: contents.clawbacks.map((c) => c.id),
      },
    });
    return { ...payout, status: 'paid' as const, reference, paidAt: now };
  }, accepts);
}

/** A Stripe error that means Stripe answered and refused (no transfer exists), not a lost connection. */
export const stripeRefused = (error: unknown): boolean => {
  const status = (error as { statusCode?: unknown }).statusCode;
  return typeof status === 'number' && status >= 400 && status < 500;
};

/**
 * Pays a payout as a Stripe transfer to the partner's connected account. The payout is claimed
 * first ('processing': no cancel or manual mark-paid meanwhile), then transferred with the
 * payout's idempotency key, then recorded as paid. A retry after a crash anywhere finds it
 * processing and gets the same transfer back from Stripe, never a second one; a transfer Stripe
 * refused returns it to pending.
 */
export async function payWithStripe(deps: ManagementDeps & { stripeSecretKey: string | undefined }, scope: Scope, programId: number, payoutId: number) {
  if (!deps.stripeSecretKey) throw errors.conflict('Stripe transfers are not configured: set STRIPE_SECRET_KEY', 'stripe_not_configured');
  await programInScope(deps, scope, programId);
  const payout = await withPayout(deps, programId, payoutId, async (client, claimed) => {
    if (claimed.payoutMethod !== 'stripe' || !claimed.payoutReference?.startsWith('acct_')) {
      throw errors.conflict('This partner is not paid through Stripe: set their payout method to stripe with their connected account id (acct_…)', 'not_stripe');
    }
    // Stripe's unit, not ISO's (ISK x100, MGA /100); an amount Stripe cannot represent stays
    // pending with the reason, never rounded: pay it another way.
    const stripeAmount = toStripeAmount(claimed.amountCents, claimed.currency);
    if ('problem' in stripeAmount) throw errors.conflict(`This payout cannot be sent through Stripe: ${stripeAmount.problem}. Pay it another way and mark it paid.`, 'stripe_amount_unrepresentable');
    if (claimed.status === 'pending') await payouts.setPayoutStatus(client, claimed.id, 'processing', null, deps.now());
    return { ...claimed, stripeAmount: stripeAmount.amount };
  }, ['pending', 'processing']);
  let transferId: string;
  try {
    const transfer = await new Stripe(deps.stripeSecretKey, { maxNetworkRetries: 2 }).transfers.create(
      {
        amount: payout.stripeAmount,
        currency: payout.currency.toLowerCase(),
        destination: payout.payoutReference!,
        transfer_group: `affix_batch_${payout.batchId}`,
        metadata: { affix_payout_id: String(payout.id), affix_program_id: String(programId) },
      },
      { idempotencyKey: `affix-payout-${payout.id}` },
    );
    transferId = transfer.id;
  } catch (error) {
    if (stripeRefused(error)) {
      await withPayout(deps, programId, payoutId, (client, claimed) => payouts.setPayoutStatus(client, claimed.id, 'pending', null, deps.now()), ['processing']);
    }
    throw new AffixError(502, `Stripe refused the transfer: ${(error as Error).message}`, { cause: error, code: 'stripe_transfer_failed' });
  }
  return markPaid(deps, scope, programId, payoutId, transferId, ['processing']);
}

/** Not paid after all: exactly what it claimed goes back to the partner's approved balance. */
export async function cancelPayout(deps: ManagementDeps, scope: Scope, programId: number, payoutId: number) {
  await programInScope(deps, scope, programId);
  return withPayout(deps, programId, payoutId, async (client, payout) => {
    await releasePayout(client, payout, deps.now());
    await audit(client, scope, [{ programId, action: 'payout.canceled', objectType: 'payout', objectId: payout.id, changes: { status: { from: payout.status, to: 'canceled' } } }]);
    return { ...payout, status: 'canceled' as const };
  });
}

async function releasePayout(client: PoolClient, payout: payouts.PayoutRow, at: Date): Promise<void> {
  await releasePayoutClaim(client, payout);
  await payouts.setPayoutStatus(client, payout.id, 'canceled', null, at);
}

/** Exactly what the payout claimed is owed again: its approved commissions unclaimed, its clawbacks released (a cancel, a failure). */
export async function releasePayoutClaim(client: PoolClient, payout: payouts.PayoutRow): Promise<void> {
  const unclaimed = await payouts.unclaimCommissions(client, payout.id);
  await payouts.applyClaimRelease(client, payout, releaseClaim(await payouts.clawbacksMadeUnder(client, payout.id, unclaimed)));
}

/**
 * Cancels a pending payout inside the caller's transaction (a ban cancels its partner's), which
 * took the program's payout lock first (the one lock order, src/db/money/commissions-and-payouts.ts).
 */
export async function cancelPayoutIn(client: PoolClient, programId: number, payoutId: number, at: Date): Promise<void> {
  const payout = await payouts.lockPayout(client, programId, payoutId);
  if (payout?.status === 'pending') await releasePayout(client, payout, at);
}

/** Takes the program's payout lock in the caller's transaction (before any commission or partner row). */
export const lockProgramPayouts = (client: PoolClient, programId: number) => payouts.lockProgramPayouts(client, programId);

/**
 * A batch's payouts as CSV in one of the formats, a chunk per page of 1,000 as it is read. The
 * scope, the format and the batch are checked before the first chunk.
 */
export async function* payoutExportCsv(deps: ManagementDeps, scope: Scope, programId: number, batchId: number, format: string): AsyncGenerator<string> {
  const program = await programInScope(deps, scope, programId);
  const known: ExportFormat[] = ['generic', 'paypal', 'wise'];
  if (!known.includes(format as ExportFormat)) throw errors.invalid(`format must be one of ${known.join(', ')}`, { format: 'Choose generic, paypal or wise.' });
  const pages = Number.isSafeInteger(batchId) ? payouts.batchPayoutPages(deps.pool, programId, batchId) : null;
  const first = pages ? await pages.next() : null;
  if (!pages || !first || first.done) throw errors.notFound('Payout batch not found');
  // PayPal and Wise files hold only the partners paid by that method (a bank reference has no place in PayPal's Email column).
  const method = format === 'generic' ? null : format;
  const lines = (rows: payouts.PayoutRow[]) =>
    payoutCsvLines(format as ExportFormat, rows.filter((r) => r.status !== 'canceled' && r.status !== 'failed' && (method === null || r.payoutMethod === method)), { programName: program.name });
  yield payoutCsvHeader(format as ExportFormat);
  yield lines(first.value);
  for await (const rows of pages) yield lines(rows);
}

/** The same CSV whole (a batch is read page by page all the same). */
export async function exportPayouts(deps: ManagementDeps, scope: Scope, programId: number, batchId: number, format: string): Promise<string> {
  let csv = '';
  for await (const chunk of payoutExportCsv(deps, scope, programId, batchId, format)) csv += chunk;
  return csv;
}

export async function balances(deps: ManagementDeps, scope: Scope, programId: number) {
  await programInScope(deps, scope, programId);
  return payouts.partnerBalances(deps.pool, programId);
}

export async function listPayouts(deps: ManagementDeps, scope: Scope, programId: number) {
  await programInScope(deps, scope, programId);
  return payouts.listPayouts(deps.pool, programId);
}
