// Passwords (docs/team.md "Passwords"): a person changes theirs on the account page (the current
// one required); anyone may ask for a reset link by address, and the answer is the same whether
// or not the address signs in anywhere. A link works once, within 30 minutes, sets the password
// of every sign-in of the address and ends every session and CLI token of each. All audited.
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { errors } from '../../core/errors.js';
import { mail } from '../../core/mail.js';
import { sha256 } from '../../core/secrets.js';
import { requestPasswordResetLink } from '../../db/outbound/mail-outbox.js';
import * as passwords from '../../db/accounts/passwords.js';
import { type Pool, withTransaction } from '../../db/infra/pool.js';
import { type Person, endSignInsOf } from '../../db/accounts/sign-ins.js';
import { hashPassword, verifyPassword } from '../../platform/passwords.js';
import { type Actor } from '../../core/audit.js';
import { mayMailAddress, rememberPlace } from './access.js';
import { audit, parseInput } from '../programs/management.js';
import { personId } from './sign-ins.js';

export const PASSWORD_RESET_TTL_MS = 30 * 60_000;

export interface PasswordDeps {
  pool: Pool;
  now: () => Date;
  publicUrl: string;
}

const TOKEN = /^[\w-]{20,100}$/;
const emailInput = z.object({ email: z.email('Give the email address you sign in with.').max(320) });
const newPasswordInput = z.object({ password: z.string().min(12, 'A password of at least 12 characters.').max(200) });

const asPerson = (person: Person, email: string, ip: string | null): Actor => ({ type: 'member', id: personId(person), label: email, ip });
/** Whoever typed the address on the form: not (yet) known to be the person. */
const resetForm = (ip: string | null): Actor => ({ type: 'system', id: null, label: 'password reset form', ip });

/**
 * Someone asks for a reset link. The same answer (nothing) and the same one statement for every
 * address; a link, its mail and its audit entries are written only for an address that signs in
 * somewhere, and at most a few an hour per address.
 */
export async function requestPasswordReset(deps: PasswordDeps, input: unknown, ip: string | null): Promise<void> {
  const { email } = parseInput(emailInput, input);
  const now = deps.now();
  // The cap on mail a stranger can trigger by typing an address (docs/mail.md), shared with the portal's sign-in links.
  if (!(await mayMailAddress(deps.pool, email, now))) return;
  const token = randomBytes(32).toString('base64url');
  const tokenHash = sha256(token);
  const address = email.trim().toLowerCase();
  await requestPasswordResetLink(deps.pool, { tokenHash, email: address, expiresAt: new Date(now.getTime() + PASSWORD_RESET_TTL_MS) }, resetForm(ip), passwordResetMail(deps.publicUrl, address, token));
}

/** The password reset link's mail (works once, within 30 minutes); the dashboard's previews show it too. */
export const passwordResetMail = (publicUrl: string, address: string, token: string) =>
  mail('password_reset', {
    programId: null,
    to: address,
    senderName: 'Affix',
    subject: 'Reset your Affix password',
    body: `Someone (we hope you) asked to reset the password of ${address} on Affix.\n\nChoose a new password: ${publicUrl}/dashboard/password/reset?token=${token}\n\nThe link works once, within 30 minutes. Using it signs you out everywhere (every browser and every CLI). If you did not ask, ignore this mail: your password stays as it is.\n`,
    dedupeKey: `password_reset:${sha256(token).toString('hex')}`,
  });

/** Whether a reset link can still be used (the page asks for the new password only then). */
export const resetLinkOpen = async (deps: PasswordDeps, token: string): Promise<boolean> => TOKEN.test(token) && (await passwords.openPasswordReset(deps.pool, sha256(token), deps.now())) !== null;

/**
 * A reset link used: the new password for every sign-in of its address, every session and CLI
 * token of each ended. The place it was used from counts as a sign-in place (src/core/sign-in-limits.ts).
 */
export async function resetPassword(deps: PasswordDeps, token: string, input: unknown, ip: string | null): Promise<{ email: string }> {
  const { password } = parseInput(newPasswordInput, input);
  const hash = await hashPassword(password);
  const now = deps.now();
  const email = await withTransaction(deps.pool, async (client) => {
    const address = TOKEN.test(token) ? await passwords.usePasswordReset(client, sha256(token), now) : null;
    if (!address) throw errors.badRequest('This link expired or was already used. Ask for a new one.');
    await passwords.closePasswordResets(client, address, now);
    for (const person of await passwords.peopleOfAddress(client, address)) {
      const had = (await passwords.passwordHashOf(client, person)) !== null;
      await passwords.setPasswordOf(client, person, hash);
      const ended = await endSignInsOf(client, person, now);
      await audit(client, { kind: 'account', accountId: person.accountId, actor: asPerson(person, person.email, ip) }, [{
        programId: null,
        action: 'password.reset',
        objectType: 'member',
        objectId: personId(person),
        changes: { password: had ? { from: 'set', to: 'changed' } : { from: null, to: 'set' }, sessions: { from: ended.sessions, to: 0 }, cli_tokens: { from: ended.cliTokens, to: 0 } },
      }]);
    }
    return address;
  });
  if (ip) await rememberPlace(deps.pool, email, ip, now);
  return { email };
}

/** Checks the signed-in person's current password (behind the sign-in limits, in HTTP). */
export async function checkOwnPassword(pool: Pool, person: Person, password: string): Promise<{ kind: 'right' | 'wrong' }> {
  return { kind: (await verifyPassword(password, await passwords.passwordHashOf(pool, person))) ? 'right' : 'wrong' };
}

/** The signed-in person's new password (the current one was checked): their other sessions and every CLI token end. */
export async function changePassword(deps: PasswordDeps, person: Person, actor: Actor, input: unknown, currentSessionToken: string | null) {
  const { password } = parseInput(newPasswordInput, input);
  const hash = await hashPassword(password);
  return withTransaction(deps.pool, async (client) => {
    await passwords.setPasswordOf(client, person, hash);
    const address = await passwords.addressOf(client, person);
    if (address) await passwords.closePasswordResets(client, address, deps.now());
    const ended = await endSignInsOf(client, person, deps.now(), currentSessionToken);
    await audit(client, { kind: 'account', accountId: person.accountId, actor }, [{
      programId: null,
      action: 'password.changed',
      objectType: 'member',
      objectId: personId(person),
      changes: { password: { from: 'set', to: 'changed' }, sessions: { from: ended.sessions, to: 0 }, cli_tokens: { from: ended.cliTokens, to: 0 } },
    }]);
    return ended;
  });
}
