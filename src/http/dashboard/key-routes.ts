// A program's API keys: issue one, regenerate one (a page asks first: the live key is revoked at
// once), mark one for rotation. A new key is shown once, by the page the browser is sent to.
import type { Response, Router } from 'express';
import { errors } from '../../core/errors.js';
import { issueKey, listKeys, markKeyForRotation, regenerateKey } from '../../app/programs/management.js';
import { regenerateKeyPage } from './account-pages.js';
import type { ProgramKit } from './route-kit.js';
import { holdNewKey } from './session.js';

export function registerKeyRoutes(router: Router, kit: ProgramKit): void {
  const { form, send, app, scope, ownProgram, programPage, back } = kit;
  const { secretBox } = kit.deps;

  /** Post, redirect, get: the new key is shown once by the page the browser is sent to. */
  const showKeyOnce = (res: Response, id: number, apiKey: string) => {
    if (!secretBox) return void programPage(res.req, res, 'keys', { newKey: apiKey });
    holdNewKey(res, secretBox, id, apiKey, kit.secureCookies);
    back(res, id, 'key', 'keys');
  };

  // Regenerating revokes the live key at once: a page says so and asks before it happens.
  router.get('/dashboard/programs/:id/keys/:keyId/regenerate', async (req, res) => {
    const id = await ownProgram(req, res);
    const keyId = Number(req.params.keyId);
    const key = (await listKeys(app(), scope(res), id)).find((k) => k.id === keyId && !k.revoked_at);
    if (!key) throw errors.notFound('API key not found');
    send(res, 200, 'Regenerate API key', regenerateKeyPage(id, key));
  });

  router.post('/dashboard/programs/:id/keys', ...form, async (req, res) => {
    const id = await ownProgram(req, res);
    const issued = await issueKey(app(), scope(res), id);
    showKeyOnce(res, id, issued.apiKey);
  });

  router.post('/dashboard/programs/:id/keys/:keyId/regenerate', ...form, async (req, res) => {
    const id = await ownProgram(req, res);
    try {
      const issued = await regenerateKey(app(), scope(res), Number(req.params.keyId));
      showKeyOnce(res, id, issued.apiKey);
    } catch (error) {
      if ((error as { status?: number }).status !== 409) throw error;
      await programPage(req, res, 'keys', { status: 409, error: 'That key was already revoked.' });
    }
  });

  router.post('/dashboard/programs/:id/keys/:keyId/rotate', ...form, async (req, res) => {
    const id = await ownProgram(req, res);
    const date = String((req.body as Record<string, string>)[`rotate_by_${req.params.keyId}`] ?? '');
    const deadline = /^\d{4}-\d{2}-\d{2}$/.test(date) ? new Date(`${date}T00:00:00Z`) : null;
    try {
      await markKeyForRotation(app(), scope(res), Number(req.params.keyId), deadline);
    } catch (error) {
      if ((error as { status?: number }).status !== 400) throw error;
      return programPage(req, res, 'keys', { status: 400, fieldErrors: { [`rotate_by_${req.params.keyId}`]: 'Choose a date in the future.' } });
    }
    back(res, id, 'rotation', 'keys');
  });
}
