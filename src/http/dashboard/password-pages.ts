// The pages of a forgotten password: asking for a link by address (the same answer for every
// address), and choosing a new password with the link.
import { type Html, field, html } from '../kit/html.js';

export function forgotPasswordPage(errs: Record<string, string>, sent: boolean, email = ''): Html {
  return html`<section><h2>Reset your password</h2>
${sent ? html`<p role="status">If an account or a team signs in with this address, a link to choose a new password is on its way. It works once, within 30 minutes.</p>` : ''}
<form method="post" action="/dashboard/password/forgot" novalidate>
${errs.form ? html`<p class="error" role="alert">${errs.form}</p>` : ''}
${field('email', 'Your email', email, errs, 'type="email" autocomplete="username" required')}
<div><button type="submit">Send me a link</button></div></form>
<p><a href="/dashboard/login">Back to sign-in</a></p></section>`;
}

export const resetGonePage = (): Html =>
  html`<section><p class="error" role="alert">This link expired or was already used.</p><p><a href="/dashboard/password/forgot">Ask for a new one</a></p></section>`;

export function resetPasswordPage(token: string, errs: Record<string, string>): Html {
  return html`<section><h2>Choose a new password</h2><form method="post" action="/dashboard/password/reset" novalidate><input type="hidden" name="token" value="${token}">
${field('password', 'New password (12 characters or more)', '', errs, 'type="password" autocomplete="new-password" required minlength="12"')}
<p class="muted">Every session and CLI token of this address ends: you sign in again with the new password.</p>
<div><button type="submit">Save the new password</button></div></form></section>`;
}
