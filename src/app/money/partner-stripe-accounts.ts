// A partner connects a Stripe Express account from the portal (docs/payouts.md, "Stripe
// Express"): Affix creates the account on the platform's Stripe account (once per enrollment: a
// second click reuses it), sends the partner to Stripe's onboarding, and keeps Stripe's state of
// it current from `account.updated` events (and a read when the partner comes back). While
// Stripe lets the account receive payouts, the partner's payout details point at it, so a run
// pays them by transfer as any Stripe partner; when it stops, the details are taken off it and
// the run names the partner under missing payout details until Stripe is satisfied again.
import type Stripe from 'stripe';
import { SYSTEM } from '../../core/audit.js';
import { AffixError, errors } from '../../core/errors.js';
import { portalBaseUrl } from '../../core/domains.js';
import { COUNTRY_CODES } from '../../core/payout-statements.js';
import { type ExpressAccountState, expressAccountKey } from '../../core/stripe-express.js';
import { withTransaction } from '../../db/infra/pool.js';
import type { Pool, PoolClient } from '../../db/infra/pool.js';
import * as accounts from '../../db/money/partner-stripe-accounts.js';
import { programHosts } from '../../db/programs/domains.js';
import { invoiceDetails } from '../../db/money/payout-statements.js';
import { type ExpressAccountClient, StripeRefusal, accountState } from '../../platform/stripe-accounts.js';
import { audit } from '../programs/management.js';
import { type PortalReadDeps, ownPartner } from '../partners/portal.js';

export interface ExpressDeps extends PortalReadDeps {
  /** The platform's Stripe (STRIPE_SECRET_KEY); null: Express onboarding is not offered. */
  stripe: ExpressAccountClient | null;
  /** The service's own address (the portal's, where the program has no portal host). */
  serviceUrl: string;
}

/** The portal's paths of the onboarding; Stripe sends the partner back to these. */
export const expressPaths = (partnerId: number) => {
  const page = `/portal/programs/${partnerId}/stripe`;
  return { page, connect: `${page}/connect`, refresh: `${page}/refresh`, return: `${page}/return` };
};

function required(deps: ExpressDeps): ExpressAccountClient {
  if (!deps.stripe) throw errors.notFound('Stripe payouts are not offered on this server');
  return deps.stripe;
}

/** Stripe's refusal as the partner's form shows it; anything else says Stripe could not be reached. */
function fromStripe(error: unknown): AffixError {
  if (error instanceof StripeRefusal) {
    return error.param === 'country'
      ? errors.invalid(`Stripe refused the country: ${error.message}`, { country: `Stripe cannot open an account for this country: ${error.message}` })
      : new AffixError(502, `Stripe refused the request: ${error.message}`, { cause: error, code: 'stripe_refused' });
  }
  return new AffixError(502, 'Stripe could not be reached. Try again in a few minutes.', { cause: error, code: 'stripe_unavailable' });
}

/** What the portal's Stripe page shows: the account's state, or what the partner would connect with. */
export async function expressAccountView(deps: ExpressDeps, email: string, partnerId: number) {
  const partner = await ownPartner(deps, email, partnerId);
  const [account, invoice] = await Promise.all([accounts.expressAccountOf(deps.pool, partner.programId, partner.partnerId), invoiceDetails(deps.pool, email)]);
  return { partner, account, offered: deps.stripe !== null, suggestedCountry: invoice?.country ?? null };
}

/** The program page's one line: whether Stripe is offered and the enrollment's account (the partner's own row, already checked). */
export async function expressSummaryOf(deps: ExpressDeps, programId: number, partnerId: number) {
  return { offered: deps.stripe !== null, account: deps.stripe ? await accounts.expressAccountOf(deps.pool, programId, partnerId) : null };
}

/** Where Stripe sends the partner back: the program's portal host when it has one (src/core/domains.ts). */
async function returnUrls(deps: ExpressDeps, programId: number, partnerId: number) {
  const base = portalBaseUrl(deps.serviceUrl, (await programHosts(deps.pool, programId)).portal);
  const paths = expressPaths(partnerId);
  return { refreshUrl: `${base}${paths.refresh}`, returnUrl: `${base}${paths.return}` };
}

/**
 * "Connect with Stripe": the enrollment's account (made now with the partner's email and the
 * country they chose, or the one made before) and a fresh onboarding link to send them to.
 */
export async function startExpressOnboarding(deps: ExpressDeps, email: string, partnerId: number, input: { country?: unknown }): Promise<string> {
  const stripe = required(deps);
  const partner = await ownPartner(deps, email, partnerId);
  let account = await accounts.expressAccountOf(deps.pool, partner.programId, partner.partnerId);
  if (!account) {
    const country = String(input.country ?? '').trim().toUpperCase();
    if (!COUNTRY_CODES.includes(country)) throw errors.invalid('Choose the country you live in or your business is registered in.', { country: 'Choose your country.' });
    let made: { id: string; state: ExpressAccountState };
    try {
      made = await stripe.createExpressAccount(
        { email, country, metadata: { affix_program_id: String(partner.programId), affix_partner_id: String(partner.partnerId) } },
        expressAccountKey(partner.partnerId, country, email),
      );
    } catch (error) {
      throw fromStripe(error);
    }
    account = await withTransaction(deps.pool, async (client) => {
      const stored = await accounts.recordExpressAccount(client, { programId: partner.programId, partnerId: partner.partnerId, stripeAccountId: made.id, country }, made.state, deps.now());
      if (!stored.row) throw new AffixError(502, 'Stripe answered with an account that belongs to another partner', { code: 'stripe_account_taken' });
      // A click at the same moment stored it first: recorded once.
      if (stored.inserted) {
        await audit(client, asPartner(partner.partnerId), [{ programId: partner.programId, action: 'partner.stripe_account_created', objectType: 'partner', objectId: partner.partnerId, changes: { stripe_account_id: { from: null, to: stored.row.stripeAccountId } } }]);
      }
      return stored.row;
    });
  }
  return onboardingLink(deps, stripe, account.programId, account.partnerId, account.stripeAccountId);
}

async function onboardingLink(deps: ExpressDeps, stripe: ExpressAccountClient, programId: number, partnerId: number, stripeAccountId: string): Promise<string> {
  try {
    return (await stripe.onboardingLink(stripeAccountId, await returnUrls(deps, programId, partnerId))).url;
  } catch (error) {
    throw fromStripe(error);
  }
}

/** Stripe's refresh_url (the link expired or was used): a new link to the same account. */
export async function continueExpressOnboarding(deps: ExpressDeps, email: string, partnerId: number): Promise<string | null> {
  const stripe = required(deps);
  const partner = await ownPartner(deps, email, partnerId);
  const account = await accounts.expressAccountOf(deps.pool, partner.programId, partner.partnerId);
  if (!account) return null;
  return onboardingLink(deps, stripe, account.programId, account.partnerId, account.stripeAccountId);
}

/**
 * Stripe's return_url: the partner left the onboarding (finished or not). The account is read
 * back so the page says where it stands at once, before Stripe's event arrives.
 */
export async function expressReturn(deps: ExpressDeps, email: string, partnerId: number): Promise<void> {
  const stripe = required(deps);
  const partner = await ownPartner(deps, email, partnerId);
  const account = await accounts.expressAccountOf(deps.pool, partner.programId, partner.partnerId);
  if (!account) return;
  let state: ExpressAccountState;
  try {
    state = await stripe.retrieveAccount(account.stripeAccountId);
  } catch {
    // The page shows the state Stripe's events left; the next event brings the rest.
    return;
  }
  await withTransaction(deps.pool, (client) => applyState(client, account.stripeAccountId, state, deps.now()));
}

const asPartner = (partnerId: number) => ({ kind: 'operator' as const, actor: { type: 'partner' as const, id: String(partnerId), label: null, ip: null } });
const FROM_STRIPE = { kind: 'operator' as const, actor: SYSTEM('Stripe account update') };

/**
 * Stripe's state as of `at`, and what it means for the partner's payout details: pointed at the
 * account once it can be paid, taken off it when it no longer can (so a run names them).
 * Null: not a partner's account; 'stale': a newer state is already stored.
 */
async function applyState(client: PoolClient, stripeAccountId: string, state: ExpressAccountState, at: Date): Promise<{ programId: number; partnerId: number; outcome: string } | null> {
  const account = await accounts.lockExpressAccount(client, stripeAccountId);
  if (!account) return null;
  const { programId, partnerId } = account;
  if (!(await accounts.setExpressState(client, stripeAccountId, state, at))) return { programId, partnerId, outcome: 'an older state than the one stored: kept the newer' };
  const details = await accounts.payoutDetailsNow(client, programId, partnerId);
  const pointsHere = details?.payoutMethod === 'stripe' && details.payoutReference === stripeAccountId;
  const target = state.payoutsEnabled && !pointsHere ? stripeAccountId : !state.payoutsEnabled && pointsHere ? null : undefined;
  if (target !== undefined && details) {
    await accounts.setStripePayoutTarget(client, programId, partnerId, target);
    await audit(client, FROM_STRIPE, [{
      programId, action: 'partner.payout_details_updated', objectType: 'partner', objectId: partnerId,
      changes: { payout_method: { from: details.payoutMethod, to: target ? 'stripe' : null }, payout_reference: { from: details.payoutReference ? 'set' : null, to: target ? 'set' : 'removed' } },
    }]);
  }
  const outcome = state.payoutsEnabled ? 'payouts enabled' : `payouts not enabled (${state.currentlyDue.length + state.pastDue.length} requirement(s) due)`;
  return { programId, partnerId, outcome: target === undefined ? outcome : `${outcome}; payout details ${target ? 'now point at the account' : 'taken off the account'}` };
}

/**
 * An `account.updated` event from the Connect endpoint (already verified on its raw body): when
 * the account is a partner's Express account, its state is stored now (events are few; an
 * older one delivered late changes nothing). Null: not a partner's account (the intake goes on).
 */
export async function recordPartnerAccountUpdate(pool: Pool, event: Pick<Stripe.Event, 'type' | 'account' | 'created' | 'data'>): Promise<{ programId: number; reason: string } | null> {
  if (event.type !== 'account.updated' || !event.account) return null;
  const object = event.data.object as unknown as Record<string, unknown>;
  if (object.id !== undefined && object.id !== event.account) return null;
  // Stripe's time of the change orders the events (an event without one never overwrites).
  const at = new Date(typeof event.created === 'number' ? event.created * 1000 : 0);
  const applied = await withTransaction(pool, (client) => applyState(client, event.account!, accountState(object), at));
  return applied && { programId: applied.programId, reason: `partner ${applied.partnerId}'s Stripe account: ${applied.outcome}` };
}
