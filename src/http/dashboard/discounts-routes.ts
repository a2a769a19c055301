// The Discounts page's forms (docs/discounts.md): each posts to a use case of src/app/partners/discounts.ts,
// then redirects back to the page (or shows it again with the refusal beside the field). Codes are
// made and deactivated by the job, never here.
import type { Request, Response, Router } from 'express';
import * as discounts from '../../app/partners/discounts.js';
import { fieldErrors } from '../kit/forms.js';
import type { MoneyRouteKit } from './money-routes.js';

export const DISCOUNT_DONE: Record<string, string> = {
  discount_set: "Discount saved: the group's partners' codes are being made in the processor.",
  discount_codes: 'Missing codes are being made in the processor.',
  discount_removed: 'Discount ended: its codes are being deactivated in the processor.',
  discount_key: 'API key saved.',
};

const text = (req: Request, name: string) => String((req.body as Record<string, unknown>)[name] ?? '').trim();
const DISCOUNT_FIELDS = ['processor', 'type', 'percent', 'amount', 'currency', 'duration', 'duration_months'];

export function registerDiscountRoutes(router: Router, kit: MoneyRouteKit): void {
  const { form, app, scope, ownProgram, programPage, back } = kit;
  const base = '/dashboard/programs/:id';
  const withKey = () => ({ ...app(), stripeSecretKey: kit.stripeSecretKey });
  /** A refusal shows the page again, the message beside its field and the values as typed. */
  const again = (req: Request, res: Response, error: unknown, aliases: Record<string, string> = {}) =>
    programPage(req, res, 'discounts', { status: (error as { status: number }).status, fieldErrors: fieldErrors(error, aliases), formValues: req.body as Record<string, string> });

  router.post(`${base}/discount`, ...form, async (req, res) => {
    const id = await ownProgram(req, res);
    const body = Object.fromEntries(DISCOUNT_FIELDS.map((name) => [name, text(req, name)]));
    try {
      await discounts.setGroupDiscount(withKey(), scope(res), id, Number(text(req, 'group_id')), body);
    } catch (error) {
      return again(req, res, error);
    }
    back(res, id, 'discount_set', 'discounts');
  });
  router.post(`${base}/groups/:groupId/discount/codes`, ...form, async (req, res) => {
    const id = await ownProgram(req, res);
    await discounts.issueGroupCodes(app(), scope(res), id, Number(req.params.groupId));
    back(res, id, 'discount_codes', 'discounts');
  });
  router.post(`${base}/groups/:groupId/discount/remove`, ...form, async (req, res) => {
    const id = await ownProgram(req, res);
    await discounts.removeGroupDiscount(app(), scope(res), id, Number(req.params.groupId));
    back(res, id, 'discount_removed', 'discounts');
  });
  router.post(`${base}/processor-api-keys/:processor`, ...form, async (req, res) => {
    const id = await ownProgram(req, res);
    const processor = String(req.params.processor);
    try {
      await discounts.saveProcessorApiKey(app(), scope(res), id, processor, { api_key: text(req, `${processor}_api_key`), store_id: text(req, `${processor}_store_id`), sandbox: text(req, 'sandbox') === 'true' });
    } catch (error) {
      return again(req, res, error, { api_key: `${processor}_api_key`, store_id: `${processor}_store_id` });
    }
    back(res, id, 'discount_key', 'discounts');
  });
}
