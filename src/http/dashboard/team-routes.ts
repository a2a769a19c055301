// The team (docs/team.md): an invited person joins by choosing a password (the link lasts 7 days,
// before sign-in); the members with their roles (owners change them) and who is signed in
// (owners and admins).
import type { Request, Response, Router } from 'express';
import { AffixError } from '../../core/errors.js';
import { changeRole, invitationFor, inviteMember, joinTeam, listTeam, removeFromTeam } from '../../app/accounts/team.js';
import { teamSignIns } from '../../app/accounts/sign-ins.js';
import { invitationGonePage, joinPage as joinView, teamPage as teamView } from './account-pages.js';
import { fieldErrors } from '../kit/forms.js';
import type { DashboardKit } from './route-kit.js';
import { startSession } from './session.js';

const teamDeps = (kit: DashboardKit) => ({ pool: kit.deps.pool, now: kit.now, publicUrl: kit.deps.config.publicUrl });

const TEAM_DONE: Record<string, string> = { invited: 'Invitation sent: the link works for 7 days.', role: 'Role saved.', removed: 'Removed: their sessions ended and their CLI tokens stopped.', ended: 'Their sessions ended and their CLI tokens stopped.' };

/** Joining a team: before sign-in. */
export function registerJoinRoutes(router: Router, kit: DashboardKit): void {
  const { send, form } = kit;
  const joinPage = async (res: Response, token: string, status: number, error: string | null) => {
    const invitation = await invitationFor(teamDeps(kit), token);
    if (!invitation) return send(res, 400, 'Join a team', invitationGonePage());
    send(res, status, 'Join a team', joinView(invitation, token, error));
  };
  router.get('/dashboard/join', (req, res) => joinPage(res, String(req.query.token ?? ''), 200, null));
  router.post('/dashboard/join', ...form, async (req, res) => {
    const token = String((req.body as Record<string, unknown>).token ?? '');
    let joined;
    try {
      joined = await joinTeam(teamDeps(kit), token, { password: (req.body as Record<string, unknown>).password });
    } catch (error) {
      // Beside the password field, the field's own words (a refused password names no field name).
      const message = error instanceof AffixError && error.status === 400 ? (error.init.fields?.password ?? error.message) : null;
      if (message === null) throw error;
      return joinPage(res, token, 400, message);
    }
    await startSession(kit.deps.pool, res, joined.accountId, kit.secureCookies, kit.now(), joined.memberId);
    res.redirect(303, '/dashboard');
  });
}

/** The team page and its changes: after sign-in. */
export function registerTeamRoutes(router: Router, kit: DashboardKit): void {
  const { send, form, scope } = kit;
  const teamPage = async (req: Request, res: Response, status = 200, errs: Record<string, string> = {}, flash: string | null = null) => {
    const [team, signIns] = await Promise.all([listTeam(teamDeps(kit), scope(res)), teamSignIns(kit.deps.pool, res.locals.account.id)]);
    send(res, status, 'Team', teamView(team, res.locals.account.memberId === null ? res.locals.account.email : 'the account owner', signIns, res.locals.account.role, errs), flash);
  };
  router.get('/dashboard/team', (req, res) => teamPage(req, res, 200, {}, TEAM_DONE[String(req.query.done)] ?? null));
  router.post('/dashboard/team/invite', ...form, async (req, res) => {
    try {
      await inviteMember(teamDeps(kit), scope(res), req.body, res.locals.account.email);
    } catch (error) {
      return teamPage(req, res, 400, fieldErrors(error, { form: 'email' }));
    }
    res.redirect(303, '/dashboard/team?done=invited');
  });
  router.post('/dashboard/team/:memberId/role', ...form, async (req, res) => {
    try {
      await changeRole(teamDeps(kit), scope(res), Number(req.params.memberId), req.body);
    } catch (error) {
      return teamPage(req, res, 400, fieldErrors(error, { role: 'email', form: 'email' }));
    }
    res.redirect(303, '/dashboard/team?done=role');
  });
  router.post('/dashboard/team/:memberId/remove', ...form, async (req, res) => {
    await removeFromTeam(teamDeps(kit), scope(res), Number(req.params.memberId));
    res.redirect(303, '/dashboard/team?done=removed');
  });
}
