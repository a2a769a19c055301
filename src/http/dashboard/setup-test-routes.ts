// Set-up checks of a program: test events sent through the real pipeline (a webhook through the
// intake, a click, lead or sale through the tracking path) and what they recorded; replaying an
// inbound event from the Inbox page.
import type { Router } from 'express';
import { AffixError, errors } from '../../core/errors.js';
import { replayEvent } from '../../app/programs/management.js';
import { sendTestEvent, sendTestStripeEvent } from '../../app/programs/setup-tests.js';
import type { IntakeDeps } from '../../app/inbox/webhook-intake.js';
import { processorEventEnqueuer } from '../../platform/queue.js';
import { fieldErrors } from '../kit/forms.js';
import type { ProgramKit } from './route-kit.js';

/** `intake`: the process's one webhook intake (http/app.ts), for the set-up page's test event. */
export function registerSetupTestRoutes(router: Router, kit: ProgramKit, intake?: IntakeDeps): void {
  const { form, app, scope, ownProgram, programPage, back, deps } = kit;
  router.post('/dashboard/programs/:id/setup/test', ...form, async (req, res) => {
    const id = await ownProgram(req, res);
    const kind = String((req.body as Record<string, unknown>).kind ?? '');
    const setupDeps = { ...app(), store: deps.store };
    try {
      if (kind === 'webhook') {
        if (!deps.queue || !intake) throw new AffixError(503, 'Webhook intake is not running on this instance');
        return programPage(req, res, 'setup', { testOutcome: await sendTestStripeEvent({ ...setupDeps, intake }, scope(res), id) });
      }
      if (kind !== 'click' && kind !== 'lead' && kind !== 'sale') throw errors.invalid('Choose a test to send', { test_webhook: 'Choose a test to send.' });
      return programPage(req, res, 'setup', { testOutcome: await sendTestEvent(setupDeps, scope(res), id, kind) });
    } catch (error) {
      return programPage(req, res, 'setup', { status: (error as { status?: number }).status ?? 500, fieldErrors: fieldErrors(error, { form: 'test_webhook' }) });
    }
  });

  router.post('/dashboard/programs/:id/events/:eventId/replay', ...form, async (req, res) => {
    const id = await ownProgram(req, res);
    const enqueue = deps.queue ? processorEventEnqueuer(deps.queue) : null;
    await replayEvent({ ...app(), enqueue }, scope(res), Number(req.params.eventId), id);
    back(res, id, 'replayed', 'inbox');
  });
}
