// An account's programs: the list (and a new program), one program's page per section with its
// done messages, the activity CSV, and the settings and currencies forms.
import type { Request, Response, Router } from 'express';
import { errors } from '../../core/errors.js';
import { parseNewProgram } from '../../core/programs.js';
import { allows } from '../../core/permissions.js';
import type { ActivityFilter } from '../../db/reads/program-activity.js';
import { PROGRAM_SECTIONS, type ProgramSection, accountPrograms, activityCsv, programPageData } from '../../app/programs/dashboard-pages.js';
import { createProgram, updateProgram } from '../../app/programs/management.js';
import { sendCsv } from '../csv-stream.js';
import { showsOwnWrite } from '../own-write.js';
import { programsPage } from './account-pages.js';
import { BRAND_DONE } from './brand-routes.js';
import { fieldErrors, programInput } from '../kit/forms.js';
import { html } from '../kit/html.js';
import { MONEY_DONE } from './money-routes.js';
import { DISCOUNT_DONE } from './discounts-routes.js';
import { PARTNER_DONE, bulkDone } from './partner-routes.js';
import { type PageExtra, programPageBody, sectionTitle, sectionUrl } from './program-page.js';
import type { DashboardKit, ProgramKit } from './route-kit.js';
import { takeNewKey } from './session.js';

const DONE: Record<string, string> = {
  settings: 'Settings saved.',
  currencies: 'Currency setting saved.',
  partner: 'Partner added.',
  link: 'Referral link created.',
  toggled: 'Referral link updated.',
  rotation: 'Key marked for rotation.',
  stripe: 'Stripe settings saved.',
  paddle: 'Paddle settings saved.',
  lemonsqueezy: 'Lemon Squeezy settings saved.',
  connected: 'Stripe account connected.',
  replayed: 'Event queued again.',
  key: 'API key created: copy it now.',
};

const DAY = 86_400_000;

/** The page's period, partner and live/test filter from its query (default: the last 14 days). */
function activityFilter(q: Record<string, string | undefined>, now: Date): ActivityFilter {
  const from = q.from && !Number.isNaN(Date.parse(q.from)) ? new Date(q.from) : new Date(now.getTime() - 13 * DAY);
  const to = q.to && !Number.isNaN(Date.parse(q.to)) ? new Date(Date.parse(q.to) + DAY) : new Date(now.getTime() + DAY);
  const startOfDay = (d: Date) => new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()));
  return {
    partnerId: q.partner && /^\d+$/.test(q.partner) ? Number(q.partner) : null,
    from: startOfDay(from),
    to: startOfDay(to),
    mode: q.mode === 'live' || q.mode === 'test' ? q.mode : 'all',
  };
}

/** One program's page of a section: its data, what the last form did, and a form's refusal (`extra`). */
export function programPageSender(kit: DashboardKit) {
  const { deps } = kit;
  const { config } = deps;
  return async function programPage(req: Request, res: Response, section: ProgramSection, extra: PageExtra = {}) {
    const id = Number(req.params.id);
    const now = kit.now();
    const heldKey = section === 'keys' ? (extra.newKey ?? takeNewKey(req, res, deps.secretBox ?? null, id)) : null;
    const query = req.query as Record<string, string | undefined>;
    const filter = activityFilter(query, now);
    const requested = Number(query.page);
    const afterOwnWrite = showsOwnWrite(req, now);
    const data = await programPageData({ ...kit.app(), store: deps.store, publicUrl: config.publicUrl }, kit.scope(res), id, section, filter, Number.isSafeInteger(requested) && requested > 0 ? requested : 1, query, afterOwnWrite);
    const people = allows(res.locals.account.role, 'read_people');
    const behind = data.behindSeconds === null ? '' : html`<p class="muted" role="status">Figures may be up to ${data.behindSeconds} s behind.</p>`;
    const body = html`${behind}${programPageBody({ ...data, now, heldKey, extra, filter, publicUrl: config.publicUrl, connectConfigured: Boolean(config.stripeConnect), stripeTransfers: Boolean(config.stripeSecretKey), people })}`;
    const done = DONE[String(query.done)] ?? MONEY_DONE[String(query.done)] ?? PARTNER_DONE[String(query.done)] ?? BRAND_DONE[String(query.done)] ?? DISCOUNT_DONE[String(query.done)] ?? (query.done === 'bulk' ? bulkDone(query) : null);
    kit.send(res, extra.status ?? 200, sectionTitle(data.program.name, section), body, extra.status && extra.status >= 400 ? null : done);
  };
}

export function registerProgramRoutes(router: Router, kit: ProgramKit): void {
  const { form, send, app, scope, ownProgram, programPage, back } = kit;
  async function home(res: Response, status: number, values: Record<string, unknown>, errs: Record<string, string>) {
    const programs = await accountPrograms(kit.deps.pool, res.locals.account.id);
    send(res, status, 'Programs', programsPage(programs, values, errs));
  }

  router.get('/dashboard', (_req, res) => home(res, 200, {}, {}));

  router.post('/dashboard/programs', ...form, async (req, res) => {
    const body = req.body as Record<string, unknown>;
    let settings;
    try {
      settings = await createProgram(app(), res.locals.account.id, programInput(body), scope(res));
    } catch (error) {
      return home(res, 400, body, fieldErrors(error));
    }
    res.redirect(303, `/dashboard/programs/${settings.id}`);
  });

  for (const section of PROGRAM_SECTIONS) {
    router.get(section === 'overview' ? '/dashboard/programs/:id' : `/dashboard/programs/:id/${section}`, (req, res) => programPage(req, res, section));
  }

  router.get('/dashboard/programs/:id/activity.csv', async (req, res) => {
    await sendCsv(res, `affix-activity-${req.params.id}.csv`, activityCsv(app(), scope(res), Number(req.params.id), activityFilter(req.query as Record<string, string | undefined>, kit.now())));
  });

  router.post('/dashboard/programs/:id/settings', ...form, async (req, res) => {
    const id = await ownProgram(req, res);
    const body = req.body as Record<string, unknown>;
    try {
      const input = programInput(body);
      if (!input.name || !input.domain) parseNewProgram(input); // the required-field message
      await updateProgram(app(), scope(res), id, input);
    } catch (error) {
      return programPage(req, res, 'settings', { status: 400, settingsValues: body, settingsErrors: fieldErrors(error) });
    }
    back(res, id, 'settings', 'settings');
  });

  // ---- set-up: the currencies a program takes (a program setting, docs/architecture.md, "Currencies") ---------
  router.post('/dashboard/programs/:id/setup/currencies', ...form, async (req, res) => {
    const id = await ownProgram(req, res);
    const choice = String((req.body as Record<string, unknown>).currencies ?? '');
    try {
      if (choice !== 'all' && choice !== 'contract') throw errors.invalid('Choose which currencies to take', { currencies: 'Choose which currencies to take.' });
      await updateProgram(app(), scope(res), id, { accept_all_currencies: choice === 'all' });
    } catch (error) {
      return programPage(req, res, 'setup', { status: 400, fieldErrors: fieldErrors(error) });
    }
    res.redirect(303, `${sectionUrl(id, 'setup')}?done=currencies#currencies`);
  });
}
