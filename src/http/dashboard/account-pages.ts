// The dashboard's pages around the programs: sign-in, joining a team, the program list, the team,
// the person's sign-ins and mail, the key regeneration question. Routes read, call the use case
// and render one of these.
import { describeCommission } from '../../core/programs.js';
import { ROLES, ROLE_WORDS, type Role, mayEndSignInsOf } from '../../core/permissions.js';
import type { CommissionType } from '../../core/types.js';
import { type Html, field, html, raw, select } from '../kit/html.js';
import { programForm, sectionUrl } from './program-page.js';
import { dataTable } from '../kit/table.js';
import { emptyState, mailSettings, minuteUtc } from '../kit/components.js';

export function loginPage(error: string | null, email: string, singleSignOn: boolean): Html {
  return html`<section><form method="post" action="/dashboard/login">
${error ? html`<p class="error" role="alert">${error}</p>` : ''}
<label for="email">Email</label><input id="email" name="email" type="email" value="${email}" autocomplete="username" required autofocus>
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required>
<div><button type="submit">Sign in</button></div></form>
<p><a href="/dashboard/password/forgot">Forgot password?</a></p>
${singleSignOn ? html`<p><a href="/dashboard/login/sso">Sign in with single sign-on</a></p>` : ''}
<p class="muted">Same accounts as <code>affix login</code>.</p></section>`;
}

export const invitationGonePage = (): Html => html`<section><p class="error" role="alert">This invitation expired or was already used. Ask for a new one.</p></section>`;

export function joinPage(invitation: { accountEmail: string; email: string; role: string }, token: string, error: string | null): Html {
  return html`<section><p>${invitation.accountEmail} invited <strong>${invitation.email}</strong> as <strong>${invitation.role}</strong>.</p>
<form method="post" action="/dashboard/join"><input type="hidden" name="token" value="${token}">
${error ? html`<p class="error" role="alert" id="password-error">${error}</p>` : ''}
<label for="password">Choose a password (12 characters or more)</label><input id="password" name="password" type="password" autocomplete="new-password" required ${error ? raw('aria-invalid="true" aria-describedby="password-error"') : ''}>
<div><button type="submit">Join</button></div></form></section>`;
}

interface ProgramRow {
  id: number;
  name: string;
  domain: string;
  commission_type: CommissionType;
  commission_rate: string | number;
  duration_months: number | null;
  attribution_window_days: number;
}

export function programsPage(programs: ProgramRow[], values: Record<string, unknown>, errs: Record<string, string>): Html {
  return html`<section><h2>Your programs</h2>
${programs.length === 0 ? emptyState('No programs yet: create the first one below.') : dataTable(['Program', 'Domain', 'Commission', 'Window'], programs.map((p) => [html`<a href="/dashboard/programs/${p.id}">${p.name}</a>`, p.domain, describeCommission(p.commission_type, p.commission_rate, p.duration_months), `${p.attribution_window_days} days`]))}</section>
<section><h2>Create a program</h2>${programForm(values, errs, '/dashboard/programs', 'Create program')}</section>`;
}

type SignInCount = { sessions: number; cliTokens: number };
const signedInWords = (count: SignInCount | undefined) => {
  const { sessions = 0, cliTokens = 0 } = count ?? {};
  return `${sessions} ${sessions === 1 ? 'session' : 'sessions'}, ${cliTokens} CLI ${cliTokens === 1 ? 'token' : 'tokens'}`;
};
const endSignInsForm = (target: string | number, whose: string) =>
  html`<form method="post" action="/dashboard/team/${target}/sign-ins/end" class="inline"><button type="submit">End the sessions of ${whose}</button></form>`;

/**
 * The team: an owner sees every form; an admin sees who is signed in and ends the sessions of
 * members below owner (mayEndSignInsOf). Key 0 of `signIns` is the account's own sign-in.
 */
export function teamPage(
  team: { id: number; email: string; role: Role; accepted_at: Date | null }[],
  ownerSignIn: string,
  signIns: Map<number, SignInCount>,
  viewerRole: Role,
  errs: Record<string, string>,
): Html {
  const owner = viewerRole === 'owner';
  // The account's own sign-in first, as a card like the members' (it has no member row).
  const accountCard = html`<li class="card"><h3>${ownerSignIn}</h3><p class="muted">the account's own sign-in · ${ROLE_WORDS.owner}</p>
<p>Signed in: ${signedInWords(signIns.get(0))}.</p>
${mayEndSignInsOf(viewerRole, 'owner') ? endSignInsForm('account', ownerSignIn) : ''}</li>`;
  return html`<section id="team"><h2>Members</h2>
<p class="muted">The account's own sign-in is always an owner: it cannot be removed or demoted.</p>
<ul class="cards">${accountCard}${team.map(
    (m) => html`<li class="card"><h3>${m.email}</h3><p class="muted">${m.accepted_at ? 'joined' : 'invited, not joined yet'} · ${ROLE_WORDS[m.role]}</p>
<p>Signed in: ${signedInWords(signIns.get(m.id))}.</p>
${owner ? html`<form method="post" action="/dashboard/team/${m.id}/role" class="inline"><label for="role_${m.id}">Role of ${m.email}</label><select id="role_${m.id}" name="role">${ROLES.map((r) => html`<option value="${r}" ${r === m.role ? raw('selected') : ''}>${r}</option>`)}</select> <button type="submit">Save role</button></form>` : ''}
${mayEndSignInsOf(viewerRole, m.role) ? endSignInsForm(m.id, m.email) : ''}
${owner ? html`<form method="post" action="/dashboard/team/${m.id}/remove" class="inline"><button type="submit">Remove ${m.email}</button></form>` : ''}</li>`,
  )}</ul>
${team.length === 0 ? emptyState(owner ? 'No one else yet: invite someone below.' : 'No one else yet.') : ''}</section>
${owner ? html`<section id="invite"><h2>Invite someone</h2><form method="post" action="/dashboard/team/invite" novalidate>
${field('email', 'Their email', '', errs, 'type="email" autocomplete="off"')}
${select('role', 'Role', 'viewer', [...ROLES], errs, ROLE_WORDS)}
<div><button type="submit">Send the invitation</button></div></form></section>` : ''}`;
}

/** The person's own page: their mail, their password, their CLI tokens and dashboard sessions (never anyone else's). */
export function signInsPage(
  email: string,
  mails: { kind: string; words: string; on: boolean }[],
  cliTokens: { id: number; created_at: Date; expires_at: Date }[],
  sessions: { id: number; created_at: Date; expires_at: Date; current: boolean }[],
  passwordErrors: Record<string, string> = {},
): Html {
  return html`${mailSettings('/dashboard/account/mail', `Notices to ${email}`, mails, 'Sign-in links, invitations, password reset links and a webhook endpoint turned off always reach you.')}
<section id="password"><h2>Password</h2><form method="post" action="/dashboard/account/password" novalidate>
${passwordErrors.form ? html`<p class="error" role="alert">${passwordErrors.form}</p>` : ''}
${field('current_password', 'Current password', '', passwordErrors, 'type="password" autocomplete="current-password" required')}
${field('password', 'New password (12 characters or more)', '', passwordErrors, 'type="password" autocomplete="new-password" required minlength="12"')}
<p class="muted">Your other sessions and your CLI tokens end; this browser stays signed in.</p>
<div><button type="submit">Change password</button></div></form></section>
<section><h2>Your CLI login tokens</h2>
${cliTokens.length === 0 ? emptyState('No CLI is signed in.') : dataTable(['Issued', 'Expires', ''], cliTokens.map((t) => [minuteUtc(t.created_at), minuteUtc(t.expires_at), html`<form method="post" action="/dashboard/account/tokens/${t.id}/revoke" class="inline"><button type="submit">Revoke token ${t.id}</button></form>`]))}</section>
<section><h2>Your dashboard sessions</h2>${dataTable(['Started', 'Expires', ''], sessions.map((s) => [`${minuteUtc(s.created_at)}${s.current ? ' (this browser)' : ''}`, minuteUtc(s.expires_at),
  s.current ? '' : html`<form method="post" action="/dashboard/account/sessions/${s.id}/revoke" class="inline"><button type="submit">End session ${s.id}</button></form>`]))}</section>`;
}

export function regenerateKeyPage(programId: number, key: { id: number; masked: string }): Html {
  return html`<section><h2>Regenerate ${key.masked}?</h2>
<p class="error">The key <code>${key.masked}</code> stops working at once: every server still using it gets 401 until it has the new key. To switch without downtime, use "Mark for rotation" instead.</p>
<form method="post" action="/dashboard/programs/${programId}/keys/${key.id}/regenerate"><div><button type="submit">Yes, revoke ${key.masked} and create a new key</button>
<a href="${sectionUrl(programId, 'keys')}">Cancel</a></div></form></section>`;
}
