// The Payouts page's forms for paying through PayPal or Wise (docs/payouts.md): "Pay batch N
// through …" and the providers' credentials. Each posts to a use case of src/app/money/payout-providers.ts,
// then redirects back to the page (or shows it again with the refusal beside the field).
import type { Request, Router } from 'express';
import { payBatchThroughProvider, saveProviderAccount } from '../../app/money/payout-providers.js';
import { fieldErrors } from '../kit/forms.js';
import type { MoneyRouteKit } from './money-routes.js';

const text = (req: Request, name: string) => String((req.body as Record<string, unknown>)[name] ?? '').trim();

export function registerProviderPayoutRoutes(router: Router, kit: MoneyRouteKit): void {
  const { form, app, scope, ownProgram, programPage, back } = kit;
  const base = '/dashboard/programs/:id';
  router.post(`${base}/payouts/batches/:batchId/pay`, ...form, async (req, res) => {
    const id = await ownProgram(req, res);
    const batchId = Number(req.params.batchId);
    try {
      await payBatchThroughProvider({ ...app(), stripeSecretKey: kit.stripeSecretKey }, scope(res), id, batchId, { provider: text(req, 'provider') });
    } catch (error) {
      const fields = fieldErrors(error, { form: `pay_batch_${batchId}`, provider: `pay_batch_${batchId}` });
      return programPage(req, res, 'payouts', { status: (error as { status: number }).status, fieldErrors: fields });
    }
    back(res, id, 'provider_send', 'payouts');
  });
  router.post(`${base}/payouts/providers/:provider`, ...form, async (req, res) => {
    const id = await ownProgram(req, res);
    const provider = String(req.params.provider);
    const prefix = provider === 'wise' ? 'wise' : 'paypal';
    const body = provider === 'wise'
      ? { profile_id: text(req, 'wise_profile_id'), api_token: text(req, 'wise_api_token'), sandbox: text(req, 'wise_sandbox') === 'on' }
      : { client_id: text(req, 'paypal_client_id'), client_secret: text(req, 'paypal_client_secret'), sandbox: text(req, 'paypal_sandbox') === 'on' };
    try {
      await saveProviderAccount(app(), scope(res), id, provider, body);
    } catch (error) {
      const names = ['client_id', 'client_secret', 'profile_id', 'api_token', 'sandbox', 'form'];
      const fields = fieldErrors(error, Object.fromEntries(names.map((n) => [n, `${prefix}_${n === 'form' ? (prefix === 'wise' ? 'api_token' : 'client_secret') : n}`])));
      return programPage(req, res, 'payouts', { status: (error as { status: number }).status, fieldErrors: fields });
    }
    back(res, id, 'provider_saved', 'payouts');
  });
}
