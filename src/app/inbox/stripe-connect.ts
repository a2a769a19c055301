// Connecting a brand's Stripe account to a program through Stripe Connect OAuth (Standard
// accounts): the account is bound only once its owner authorized the platform on Stripe, so no
// brand can claim an account it does not own. Operators may still bind one by hand through the
// admin API (admin token).
import { withTransaction } from '../../db/infra/pool.js';
import { type AccountScope } from '../accounts/scope.js';
import { audit } from '../programs/management.js';
import { randomBytes } from 'node:crypto';
import Stripe from 'stripe';
import { AffixError, errors } from '../../core/errors.js';
import type { Pool } from '../../db/infra/pool.js';
import { bindConnectedAccount, createConnectState, takeConnectState } from '../../db/programs/stripe-connect.js';

export const CONNECT_STATE_TTL_MS = 10 * 60_000;

export interface StripeConnectSettings {
  clientId: string;
  secretKey: string;
}

export interface ConnectDeps {
  pool: Pool;
  settings: StripeConnectSettings | undefined;
  publicUrl: string;
  now: () => Date;
}

export const connectCallbackPath = '/dashboard/stripe/connect/callback';

function required(settings: StripeConnectSettings | undefined): StripeConnectSettings {
  if (!settings) throw new AffixError(404, 'Stripe Connect is not configured: set STRIPE_CONNECT_CLIENT_ID and STRIPE_SECRET_KEY');
  return settings;
}

/** Where to send the brand: Stripe's authorization page, with a one-time state for this program. */
export async function startStripeConnect(deps: ConnectDeps, programId: number, accountId: number): Promise<string> {
  const settings = required(deps.settings);
  const state = randomBytes(24).toString('base64url');
  await createConnectState(deps.pool, state, programId, accountId, new Date(deps.now().getTime() + CONNECT_STATE_TTL_MS));
  return new Stripe(settings.secretKey).oauth.authorizeUrl({
    client_id: settings.clientId,
    response_type: 'code',
    scope: 'read_write',
    state,
    redirect_uri: `${deps.publicUrl}${connectCallbackPath}`,
  });
}

/** Stripe's redirect back: the code is exchanged for the connected account id, which is bound. */
export async function finishStripeConnect(
  deps: ConnectDeps,
  callback: { state: string; code: string; error?: string; errorDescription?: string },
  scope: AccountScope,
): Promise<{ programId: number; stripeAccountId: string }> {
  const { accountId } = scope;
  const settings = required(deps.settings);
  const programId = await takeConnectState(deps.pool, callback.state, accountId);
  if (programId === null) throw errors.badRequest('This Stripe connection link expired or was already used. Start again from the program page.');
  if (callback.error) throw errors.badRequest(`Stripe did not connect the account: ${callback.errorDescription ?? callback.error}`);
  let stripeAccountId: string | undefined;
  try {
    stripeAccountId = (await new Stripe(settings.secretKey).oauth.token({ grant_type: 'authorization_code', code: callback.code })).stripe_user_id;
  } catch (error) {
    throw new AffixError(502, `Stripe refused the authorization code: ${(error as Error).message}`, { cause: error });
  }
  if (!stripeAccountId) throw new AffixError(502, 'Stripe answered without a connected account id');
  const bound = await withTransaction(deps.pool, async (client) => {
    const outcome = await bindConnectedAccount(client, programId, stripeAccountId);
    if (outcome === 'bound') {
      await audit(client, scope, [{ programId, action: 'stripe.connected', objectType: 'program', objectId: programId, changes: { connect_account_id: { from: null, to: stripeAccountId } } }]);
    }
    return outcome;
  });
  if (bound === 'taken') {
    throw new AffixError(409, `The Stripe account ${stripeAccountId} is already connected to another program. Disconnect it there first.`);
  }
  return { programId, stripeAccountId };
}
