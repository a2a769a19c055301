// The one-click unsubscribe pages a mail's link opens.
import { type Html, html } from '../kit/html.js';

export const unsubscribeQuestion = (token: string): Html => html`<section><form method="post" action="/mail/unsubscribe?token=${token}">
<input type="hidden" name="List-Unsubscribe" value="One-Click"><p>Stop receiving this kind of mail?</p><div><button type="submit">Unsubscribe</button></div></form></section>`;

export const unsubscribed = (words: string): Html => html`<section><p role="status">You will no longer get "${words}" mails at this address.</p></section>`;

export const unsubscribeRefused = (message: string): Html => html`<section><p class="error" role="alert">${message}.</p></section>`;
