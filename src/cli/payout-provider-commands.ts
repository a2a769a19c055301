// `affix admin payouts pay-batch` and `affix admin payouts provider`: paying a batch through
// PayPal or Wise, and the program's credentials with them (docs/payouts.md). Thin clients of the
// admin API. A secret is read from the environment, never from a flag (flags show in `ps` and in
// shell history).
import type { Command } from 'commander';
import { positiveInt } from './arguments.js';
import { adminCall, printJson } from './http-client.js';

const call = async (command: Command, method: string, path: string, body?: unknown) => printJson(await adminCall(command, method, path, body));
type P = { program: number };

/** The environment variable each provider's secret is read from. */
export const PROVIDER_SECRET_ENV = { paypal: 'AFFIX_PAYPAL_CLIENT_SECRET', wise: 'AFFIX_WISE_API_TOKEN' } as const;

export function registerPayoutProviderCommands(payouts: Command): void {
  payouts.command('pay-batch <batchId>')
    .description("pay the batch's pending PayPal, Wise or Stripe payouts through the provider's API (a job; each payout's outcome on the Payouts page)")
    .requiredOption('--program <id>', 'program id', positiveInt)
    .requiredOption('--provider <provider>', 'paypal, wise or stripe')
    .action(function (this: Command, id: string, f: P & { provider: string }) {
      return call(this, 'POST', `/programs/${f.program}/payout-batches/${positiveInt(id)}/pay`, { provider: f.provider });
    });
  payouts.command('provider [provider]')
    .description(`show the PayPal and Wise credentials (never the secret), or save one provider's: the secret from ${PROVIDER_SECRET_ENV.paypal} or ${PROVIDER_SECRET_ENV.wise} (left out: the saved one is kept)`)
    .requiredOption('--program <id>', 'program id', positiveInt)
    .option('--client-id <id>', "PayPal: the REST app's client id")
    .option('--profile-id <id>', 'Wise: the profile that pays', positiveInt)
    .option('--sandbox', "the provider's sandbox")
    .action(function (this: Command, provider: string | undefined, f: P & { clientId?: string; profileId?: number; sandbox?: boolean }) {
      if (!provider) return call(this, 'GET', `/programs/${f.program}/payout-providers`);
      const secret = provider === 'paypal' || provider === 'wise' ? process.env[PROVIDER_SECRET_ENV[provider]] : undefined;
      const body = provider === 'paypal'
        ? { client_id: f.clientId, client_secret: secret, sandbox: Boolean(f.sandbox) }
        : { profile_id: f.profileId, api_token: secret, sandbox: Boolean(f.sandbox) };
      return call(this, 'PUT', `/programs/${f.program}/payout-providers/${encodeURIComponent(provider)}`, body);
    });
}
