// Paying a batch through PayPal's Payouts API or Wise's API (docs/payouts.md, "PayPal and Wise
// through their APIs"):
// - the brand's credentials, sealed, per program (write-only: only the secret's last four show);
// - "pay batch": the batch's pending payouts of that method are claimed as 'processing' in one
//   transaction under the program's payout lock, beside a send and its job; lines the provider
//   cannot take stay pending with the reason;
// - the send (a job, outside any transaction): one attempt at a time (a lease), the same
//   sender_batch_id / customerTransactionId on every retry, so nothing is paid twice;
// - the follower (scheduled): asks about open items until each settles; paid goes through the
//   one mark-paid path, failed or returned through failPayout.
import { z } from 'zod';
import { SYSTEM } from '../../core/audit.js';
import { AffixError, errors } from '../../core/errors.js';
import type { Currency } from '../../core/types.js';
import * as payouts from '../../db/money/commissions-and-payouts.js';
import * as providers from '../../db/money/payout-providers.js';
import { withTransaction } from '../../db/infra/pool.js';
import { programName } from '../../db/programs/programs-links-keys.js';
import { type PayPalAccount, PayPalRefusal, type PayPalBatch, payoutOutcome, paypalLines, readPayPalBatch, sendPayPalBatch } from '../../platform/paypal-payouts.js';
import type { RetryOptions } from '../../platform/provider-request.js';
import { type WiseAccount, WiseRefusal, readWiseTransfer, sendWiseTransfer, wiseOutcome } from '../../platform/wise-transfers.js';
import { type Scope, programInScope } from '../accounts/scope.js';
import { type ManagementDeps, audit, parseInput } from '../programs/management.js';
import { failPayout } from './failed-payouts.js';
import { markPaid, withPayout } from './payout-runs.js';
import { type StripeBatchDeps, payBatchThroughStripe, sendThroughStripe } from './stripe-batch-payouts.js';

export type PayoutProvider = providers.PayoutProvider;
export type SendProvider = providers.SendProvider;
export const PAYOUT_PROVIDERS = ['paypal', 'wise'] as const;
/** A batch is paid through one of these; Stripe's transfers are src/app/money/stripe-batch-payouts.ts. */
export const BATCH_PROVIDERS = ['paypal', 'wise', 'stripe'] as const;
export const PROVIDER_NAMES: Record<SendProvider, string> = { paypal: 'PayPal', wise: 'Wise', stripe: 'Stripe' };

/** How long one attempt holds a send: past it, a crashed attempt's send is taken up again. */
export const SEND_LEASE_MS = 15 * 60_000;
/** A send still sending this long after its claim, with no attempt holding it, is sent again by the follower. */
export const STRANDED_AFTER_MS = 2 * 60_000;
/** PayPal returns an unclaimed item after 30 days; past it Affix treats it as failed itself. */
export const UNCLAIMED_DAYS = 30;

/**
 * At most this many payouts a send: PayPal takes 15,000 items a request but lists a batch's items
 * 1,000 a page (the client reads one page), so a larger batch goes as several sends, each its own
 * sender_batch_id.
 */
export const PAYOUTS_PER_SEND = 1000;

export interface ProviderDeps extends ManagementDeps {
  /** The provider calls' retries (tests pass no wait). */
  retry?: RetryOptions;
  /** The platform's Stripe key (STRIPE_SECRET_KEY): a batch's Stripe transfers. */
  stripeSecretKey?: string | undefined;
}

// ---- credentials ---------------------------------------------------------------------------------

const blank = z.literal('').transform(() => undefined);
const secret = (what: string) => z.string().trim().min(8, `${what} is at least 8 characters.`).max(2000).regex(/^\S+$/, `${what} has no spaces.`).optional().or(blank);
const flag = z.union([z.boolean(), z.enum(['true', 'false', 'on'])]).optional().transform((v) => v === true || v === 'true' || v === 'on');

export const providerAccountInput = z.object({
  client_id: z.string().trim().min(8, 'A PayPal client id is at least 8 characters.').max(200).regex(/^\S+$/, 'A PayPal client id has no spaces.').optional().or(blank),
  client_secret: secret('A PayPal client secret'),
  api_token: secret('A Wise API token'),
  profile_id: z.union([z.number(), z.string().trim().regex(/^\d{1,18}$/, 'A Wise profile id is a number (GET /v2/profiles, or Settings in Wise).')]).optional().or(blank)
    .transform((v) => (v === undefined ? undefined : Number(v))),
  sandbox: flag,
});

const providerOf = (value: string): PayoutProvider => {
  if (value !== 'paypal' && value !== 'wise') throw errors.notFound('Payout provider not found: paypal or wise');
  return value;
};

/** What the page and the API show of a saved account: never the secret, only its last four characters. */
export interface ProviderAccountView {
  provider: PayoutProvider;
  clientId: string | null;
  profileId: number | null;
  sandbox: boolean;
  secret: string;
  updatedAt: Date;
}

const view = (row: providers.ProviderAccountRow): ProviderAccountView => ({
  provider: row.provider, clientId: row.clientId, profileId: row.profileId, sandbox: row.sandbox, secret: `set, ends with …${row.secretLast4}`, updatedAt: row.updatedAt,
});

export async function providerAccountsOf(deps: ManagementDeps, scope: Scope, programId: number): Promise<ProviderAccountView[]> {
  await programInScope(deps, scope, programId);
  return (await providers.providerAccounts(deps.pool, programId)).map(view);
}

/** Saves PayPal's client id and secret or Wise's token and profile (sealed); a secret left out keeps the saved one. Audited. */
export async function saveProviderAccount(deps: ManagementDeps, scope: Scope, programId: number, providerName: string, input: unknown): Promise<ProviderAccountView> {
  const provider = providerOf(providerName);
  await programInScope(deps, scope, programId);
  const body = parseInput(providerAccountInput, input);
  const secretValue = provider === 'paypal' ? body.client_secret : body.api_token;
  const secretField = provider === 'paypal' ? 'client_secret' : 'api_token';
  if (provider === 'paypal' && !body.client_id) throw errors.invalid('Give the PayPal client id.', { client_id: 'Give the PayPal client id.' });
  if (provider === 'wise' && !body.profile_id) throw errors.invalid('Give the Wise profile id.', { profile_id: 'Give the Wise profile id.' });
  if (secretValue && !deps.secretBox) throw errors.badRequest('AFFIX_SECRET_KEY is not set: provider credentials cannot be stored');
  const before = await providers.providerAccount(deps.pool, programId, provider);
  const saved = await withTransaction(deps.pool, async (client) => {
    const ok = await providers.saveProviderAccount(client, programId, provider, {
      clientId: provider === 'paypal' ? body.client_id! : null,
      profileId: provider === 'wise' ? body.profile_id! : null,
      secretSealed: secretValue ? deps.secretBox!.seal(secretValue) : null,
      secretLast4: secretValue ? secretValue.slice(-4) : null,
      sandbox: body.sandbox,
      at: deps.now(),
    });
    if (ok) {
      await audit(client, scope, [{
        programId, action: 'program.payout_provider_saved', objectType: 'program', objectId: programId,
        changes: {
          provider: { from: null, to: provider },
          ...(secretValue ? { secret: { from: before ? 'set' : null, to: before ? 'changed' : 'set' } } : {}),
          ...(provider === 'paypal' && before?.clientId !== body.client_id ? { client_id: { from: before?.clientId ?? null, to: body.client_id } } : {}),
          ...(provider === 'wise' && before?.profileId !== body.profile_id ? { profile_id: { from: before?.profileId ?? null, to: body.profile_id } } : {}),
          ...(before?.sandbox !== body.sandbox ? { sandbox: { from: before?.sandbox ?? null, to: body.sandbox } } : {}),
        },
      }]);
    }
    return ok;
  });
  const what = provider === 'paypal' ? 'Give the PayPal client secret.' : 'Give the Wise API token.';
  if (!saved) throw errors.invalid(what, { [secretField]: what });
  return view((await providers.providerAccount(deps.pool, programId, provider))!);
}

type Account = { provider: 'paypal'; account: PayPalAccount } | { provider: 'wise'; account: WiseAccount };

async function accountOf(deps: ManagementDeps, programId: number, provider: PayoutProvider): Promise<Account | null> {
  const row = await providers.providerAccount(deps.pool, programId, provider);
  if (!row || !deps.secretBox) return null;
  const opened = deps.secretBox.open(row.secretSealed);
  return provider === 'paypal'
    ? { provider, account: { clientId: row.clientId!, clientSecret: opened, sandbox: row.sandbox } }
    : { provider, account: { token: opened, profileId: row.profileId!, sandbox: row.sandbox } };
}

// ---- paying a batch ------------------------------------------------------------------------------

export const payBatchInput = z.object({
  provider: z.enum(BATCH_PROVIDERS, { error: 'provider must be paypal, wise or stripe' }),
});

const looksLikeEmail = (value: string | null): value is string => value !== null && /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value);

/** The claimed lines a provider can take, and those it cannot, with why (they stay pending). */
function splitLines(provider: PayoutProvider, lines: Awaited<ReturnType<typeof providers.lockPendingOfMethod>>) {
  const refused: { payoutId: number; reason: string }[] = [];
  const addressed = lines.filter((line) => {
    if (looksLikeEmail(line.payTo)) return true;
    refused.push({ payoutId: line.payoutId, reason: `Not sent: ${PROVIDER_NAMES[provider]} pays an email address, and this payout's details are not one` });
    return false;
  });
  if (provider === 'wise') return { sendable: addressed.map((l) => l.payoutId), refused };
  const checked = paypalLines(addressed.map((l) => ({ payoutId: l.payoutId, receiver: l.payTo!, amountCents: l.amountCents, currency: l.currency as Currency })));
  for (const line of checked.refused) refused.push({ payoutId: line.payoutId, reason: `Not payable through PayPal: ${line.problem}` });
  return { sendable: checked.sendable.map((l) => l.payoutId), refused };
}

export interface BatchSend {
  /** The first send's id (a batch of more than PAYOUTS_PER_SEND payouts has several: `sendIds`). */
  sendId: number | null;
  sendIds: number[];
  provider: SendProvider;
  batchId: number;
  sending: number[];
  notSent: { payoutId: number; reason: string }[];
}

/**
 * Claims the batch's pending payouts of the provider's method as 'processing' and queues their
 * send, in one transaction under the program's payout lock: a second call at the same moment
 * finds nothing left to send (409). The provider is called by the job, never inside this.
 */
export async function payBatchThroughProvider(deps: StripeBatchDeps & { payoutsPerSend?: number }, scope: Scope, programId: number, batchId: number, input: unknown): Promise<BatchSend> {
  const { provider } = parseInput(payBatchInput, input);
  if (provider === 'stripe') return payBatchThroughStripe(deps, scope, programId, batchId, deps.payoutsPerSend ?? PAYOUTS_PER_SEND);
  await programInScope(deps, scope, programId);
  const name = PROVIDER_NAMES[provider];
  if (!(await providers.providerAccount(deps.pool, programId, provider)) || !deps.secretBox) {
    throw errors.conflict(`${name} is not set up for this program: save its credentials in the Payouts page's settings first`, 'payout_provider_not_configured');
  }
  const made = await withTransaction(deps.pool, async (client): Promise<BatchSend> => {
    await payouts.lockProgramPayouts(client, programId);
    if (!Number.isSafeInteger(batchId) || !(await providers.batchExists(client, programId, batchId))) throw errors.notFound('Payout batch not found');
    const now = deps.now();
    const { sendable, refused } = splitLines(provider, await providers.lockPendingOfMethod(client, programId, batchId, provider));
    await providers.markNotSent(client, programId, provider, refused, now);
    if (sendable.length === 0) return { sendId: null, sendIds: [], provider, batchId, sending: [], notSent: refused };
    for (const payoutId of sendable) await payouts.setPayoutStatus(client, payoutId, 'processing', null, now);
    const perSend = deps.payoutsPerSend ?? PAYOUTS_PER_SEND;
    const sendIds: number[] = [];
    for (let at = 0; at < sendable.length; at += perSend) sendIds.push(await providers.insertSend(client, programId, batchId, provider, sendable.slice(at, at + perSend), now));
    await audit(client, scope, [{
      programId, action: 'payout_batch.provider_send', objectType: 'payout_batch', objectId: batchId,
      changes: { provider: { from: null, to: provider }, payout_ids: { from: null, to: sendable } },
    }]);
    return { sendId: sendIds[0]!, sendIds, provider, batchId, sending: sendable, notSent: refused };
  });
  if (made.sendId === null) {
    const why = made.notSent.length ? `: ${made.notSent.map((n) => `payout ${n.payoutId}: ${n.reason}`).join('; ')}` : `: no payout of this batch paid by ${name} is waiting to be paid`;
    throw errors.conflict(`Nothing to send through ${name}${why}`, 'nothing_to_send');
  }
  return made;
}

// ---- the send (a job) ----------------------------------------------------------------------------

const systemScope = (provider: SendProvider): Scope => ({ kind: 'operator', actor: SYSTEM(`${PROVIDER_NAMES[provider]} payout`) });

/** PayPal's sender_batch_id of a send: the same on every attempt, new for a new send. */
export const senderBatchId = (send: { programId: number; batchId: number; id: number }) => `affix-${send.programId}-${send.batchId}-${send.id}`;

/** The provider refused a payout (or the whole request): it is pending again, with the reason. */
async function backToPending(deps: ManagementDeps, programId: number, payoutId: number, reason: string): Promise<void> {
  await withPayout(deps, programId, payoutId, (client, claimed) => payouts.setPayoutStatus(client, claimed.id, 'pending', null, deps.now()), ['processing']).catch(ignoreConflict);
  await providers.recordItem(deps.pool, payoutId, { outcome: 'not_sent', reason, at: deps.now() });
}

/** A payout someone else settled meanwhile (marked failed by hand): nothing more to do. */
const ignoreConflict = (error: unknown) => {
  if (error instanceof AffixError && error.status === 409) return;
  throw error;
};

export type SettleAs = { outcome: 'paid' | 'failed' | 'open'; providerItemId: string | null; providerStatus: string; reason: string | null };

/**
 * Records what the provider says of one payout: paid through the one mark-paid path (commissions
 * paid, payout.paid webhook, the partner's mail), failed through failPayout (owed again). The
 * payout changes before its item does, so a crash between them repeats the change, which is then
 * refused (paid) or answered as it is (failed): never twice.
 */
export async function settleItem(deps: ManagementDeps, programId: number, payoutId: number, provider: PayoutProvider, as: SettleAs): Promise<void> {
  const at = deps.now();
  let note: string | null = as.outcome === 'failed' ? as.reason : null;
  if (as.outcome === 'paid') {
    await markPaid(deps, systemScope(provider), programId, payoutId, as.providerItemId ?? `${provider}-${payoutId}`, ['processing']).catch((error: unknown) => {
      ignoreConflict(error);
      // Marked failed or paid by hand meanwhile: the money went out all the same; said beside it, never paid again silently.
      note = `${PROVIDER_NAMES[provider]} paid it, but it was already ${(error as AffixError).message.replace(/^This payout is already /, '')} here: check before paying it again`;
    });
  } else if (as.outcome === 'failed') {
    await failPayout(deps, systemScope(provider), programId, payoutId, { reason: as.reason ?? `${PROVIDER_NAMES[provider]}: ${as.providerStatus}`, providerReference: as.providerItemId }).catch(ignoreConflict);
  }
  await providers.recordItem(deps.pool, payoutId, { outcome: as.outcome, providerItemId: as.providerItemId, providerStatus: as.providerStatus, reason: note, at });
}

/** What a PayPal item's status means now: UNCLAIMED past 30 days is failed (PayPal returns it then). */
export function paypalSettleAs(item: PayPalBatch['items'][number], sentAt: Date | null, now: Date): SettleAs {
  let outcome = payoutOutcome(item.status);
  const unclaimedTooLong = item.status === 'UNCLAIMED' && sentAt !== null && now.getTime() - sentAt.getTime() >= UNCLAIMED_DAYS * 86_400_000;
  if (unclaimedTooLong) outcome = 'failed';
  const reason = unclaimedTooLong
    ? `PayPal: UNCLAIMED for ${UNCLAIMED_DAYS} days (the receiver never claimed it)`
    : `PayPal: ${item.status}${item.error ? ` (${item.error})` : ''}`;
  return { outcome, providerItemId: item.payoutItemId, providerStatus: item.status, reason: outcome === 'failed' ? reason : null };
}

const wiseSettleAs = (transferId: number, status: string): SettleAs => {
  const outcome = wiseOutcome(status as Parameters<typeof wiseOutcome>[0]);
  return { outcome, providerItemId: String(transferId), providerStatus: status, reason: outcome === 'failed' ? `Wise: transfer ${status}` : null };
};

export type SendOutcome = 'sent' | 'refused' | 'busy' | 'done' | 'not_configured';

/**
 * One attempt at a send. Only one attempt holds it at a time (another returns 'busy'). A refusal
 * returns its payouts to pending with the provider's words; a provider out of reach lets go of the
 * send and throws, for the queue to retry with the same ids.
 */
export async function sendProviderPayouts(deps: ProviderDeps, sendId: number): Promise<SendOutcome> {
  const now = deps.now();
  const send = await providers.leaseSend(deps.pool, sendId, now, new Date(now.getTime() + SEND_LEASE_MS));
  if (!send) {
    return (await providers.sendState(deps.pool, sendId)) === 'sending' ? 'busy' : 'done';
  }
  if (send.provider === 'stripe') {
    try {
      return await sendThroughStripe(deps, send);
    } catch (error) {
      await providers.releaseSend(deps.pool, send.id, (error as Error).message);
      throw error;
    }
  }
  const account = await accountOf(deps, send.programId, send.provider);
  if (!account) {
    await providers.releaseSend(deps.pool, send.id, `${PROVIDER_NAMES[send.provider]} is not set up for this program`);
    return 'not_configured';
  }
  const waiting = (await providers.sendItems(deps.pool, send.id)).filter((item) => item.outcome === 'sending');
  // Marked failed (or paid) by hand since the claim: never sent.
  for (const item of waiting.filter((i) => i.payoutStatus !== 'processing')) {
    await providers.recordItem(deps.pool, item.payoutId, { outcome: 'not_sent', reason: `Not sent: it was marked ${item.payoutStatus} before it went to ${PROVIDER_NAMES[send.provider]}`, at: now });
  }
  const items = waiting.filter((i) => i.payoutStatus === 'processing');
  if (items.length === 0) {
    await providers.finishSend(deps.pool, send.id, { state: 'sent', at: now });
    return 'sent';
  }
  try {
    if (account.provider === 'paypal') return await sendThroughPayPal(deps, send, account.account, items);
    return await sendThroughWise(deps, send, account.account, items);
  } catch (error) {
    await providers.releaseSend(deps.pool, send.id, (error as Error).message);
    throw error;
  }
}

type SendItem = Awaited<ReturnType<typeof providers.sendItems>>[number];

async function sendThroughPayPal(deps: ProviderDeps, send: providers.SendRow, account: PayPalAccount, items: SendItem[]): Promise<SendOutcome> {
  let batch: PayPalBatch;
  try {
    const program = await programName(deps.pool, send.programId);
    batch = await sendPayPalBatch(account, senderBatchId(send), items.map((i) => ({ payoutId: i.payoutId, receiver: i.payTo!, amountCents: i.amountCents, currency: i.currency as Currency })), {
      ...deps.retry, subject: `You have a payout from ${program}`.slice(0, 255),
    });
  } catch (error) {
    if (!(error instanceof PayPalRefusal)) throw error;
    for (const item of items) await backToPending(deps, send.programId, item.payoutId, error.message);
    await providers.finishSend(deps.pool, send.id, { state: 'refused', error: error.message, at: deps.now() });
    return 'refused';
  }
  const at = deps.now();
  // PayPal's batch id and every item open with it (listed in its answer yet or not), together: the follower reads them by that id.
  await withTransaction(deps.pool, async (client) => {
    for (const item of items) await providers.recordItem(client, item.payoutId, { outcome: 'open', at, sent: true });
    await providers.finishSend(client, send.id, { state: 'sent', providerBatchId: batch.payoutBatchId, at });
  });
  const ours = new Set(items.map((i) => i.payoutId));
  for (const item of batch.items) {
    if (ours.has(item.payoutId)) await settleItem(deps, send.programId, item.payoutId, 'paypal', paypalSettleAs(item, at, at));
  }
  return 'sent';
}

async function sendThroughWise(deps: ProviderDeps, send: providers.SendRow, account: WiseAccount, items: SendItem[]): Promise<SendOutcome> {
  const program = await programName(deps.pool, send.programId);
  for (const item of items) {
    let transfer;
    try {
      transfer = await sendWiseTransfer(account, {
        programId: send.programId, payoutId: item.payoutId, partnerName: item.partnerName, email: item.payTo!, amountCents: item.amountCents,
        currency: item.currency as Currency, reference: `${program} payout ${item.payoutId}`,
      }, deps.retry);
    } catch (error) {
      if (!(error instanceof WiseRefusal)) throw error;
      // Wise refused this one (a currency, the balance): it is pending again; the others go on.
      await backToPending(deps, send.programId, item.payoutId, error.message);
      continue;
    }
    await providers.recordItem(deps.pool, item.payoutId, { outcome: 'open', providerItemId: String(transfer.transferId), providerStatus: transfer.status, at: deps.now(), sent: true });
    await settleItem(deps, send.programId, item.payoutId, 'wise', wiseSettleAs(transfer.transferId, transfer.status));
  }
  await providers.finishSend(deps.pool, send.id, { state: 'sent', at: deps.now() });
  return 'sent';
}

// ---- following -----------------------------------------------------------------------------------

export interface FollowSummary {
  resent: number;
  asked: number;
  paid: number;
  failed: number;
  errors: string[];
}

/**
 * The scheduled follower: sends a crash left half-done are sent again (the same ids), then open
 * items are asked about, least recently asked first (PayPal: its batch once; Wise: each transfer).
 */
export async function followProviderPayouts(deps: ProviderDeps, limit = 200): Promise<FollowSummary> {
  const summary: FollowSummary = { resent: 0, asked: 0, paid: 0, failed: 0, errors: [] };
  const now = deps.now();
  for (const sendId of await providers.strandedSends(deps.pool, now, new Date(now.getTime() - STRANDED_AFTER_MS), 20)) {
    try {
      if ((await sendProviderPayouts(deps, sendId)) === 'sent') summary.resent++;
    } catch (error) {
      summary.errors.push(`send ${sendId}: ${(error as Error).message}`);
    }
  }
  const items = await providers.openItems(deps.pool, limit);
  const accounts = new Map<string, Account | null>();
  const accountFor = async (programId: number, provider: PayoutProvider) => {
    const key = `${programId}:${provider}`;
    if (!accounts.has(key)) accounts.set(key, await accountOf(deps, programId, provider));
    return accounts.get(key)!;
  };
  const batches = new Map<string, Promise<PayPalBatch>>();
  for (const item of items) {
    // A Stripe transfer is paid or refused in its answer: never open, nothing to ask about.
    if (item.provider === 'stripe') continue;
    const account = await accountFor(item.programId, item.provider);
    const touch = (reason: string) => providers.recordItem(deps.pool, item.payoutId, { outcome: 'open', reason, at: deps.now() });
    if (!account) {
      await touch(`${PROVIDER_NAMES[item.provider]} is not set up for this program: its credentials were removed`);
      continue;
    }
    try {
      let as: SettleAs | null;
      if (account.provider === 'paypal') {
        const key = `${item.programId}:${item.providerBatchId}`;
        if (!batches.has(key)) batches.set(key, readPayPalBatch(account.account, item.providerBatchId!, deps.retry));
        const found = (await batches.get(key)!).items.find((i) => i.payoutId === item.payoutId);
        as = found ? paypalSettleAs(found, item.sentAt, deps.now()) : null;
      } else {
        const transfer = await readWiseTransfer(account.account, Number(item.providerItemId), deps.retry);
        as = wiseSettleAs(transfer.transferId, transfer.status);
      }
      summary.asked++;
      if (!as) {
        await touch('PayPal does not list this item yet');
        continue;
      }
      await settleItem(deps, item.programId, item.payoutId, item.provider, as);
      if (as.outcome === 'paid') summary.paid++;
      if (as.outcome === 'failed') summary.failed++;
    } catch (error) {
      summary.errors.push(`payout ${item.payoutId}: ${(error as Error).message}`);
      await touch(`Could not ask ${PROVIDER_NAMES[item.provider]}: ${(error as Error).message}`);
    }
  }
  return summary;
}

// ---- reading -------------------------------------------------------------------------------------

export type ProviderItem = providers.ItemRow;

/** What the Payouts page shows of the providers: the saved accounts (never a secret) and each shown payout's item. */
export async function providerPanel(deps: { pool: ManagementDeps['pool'] }, programId: number, payoutIds: number[]): Promise<{ accounts: ProviderAccountView[]; items: ProviderItem[] }> {
  const [accounts, items] = await Promise.all([providers.providerAccounts(deps.pool, programId), providers.itemsOfPayouts(deps.pool, programId, payoutIds)]);
  return { accounts: accounts.map(view), items };
}
