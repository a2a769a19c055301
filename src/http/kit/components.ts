// The few pieces every page is built from, beside the table (../dashboard/table.ts) and the form
// field with its error (../dashboard/html.ts): dates, an empty state, an error page, the mail
// settings form the dashboard and the portal share.
import { type Html, html, raw } from './html.js';

/** A day as people read it: 31 Jan 2099 (UTC, like every time the service stores). */
export const humanDate = (date: Date) => new Date(date).toLocaleDateString('en-GB', { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' });

/** A day as a date field holds it: 2099-01-31 (empty for none). */
export const isoDay = (date: Date | string | null) => (date ? new Date(date).toISOString().slice(0, 10) : '');

/** A moment to the minute, UTC: 2099-01-31 14:05 (empty for none). */
export const minute = (date: Date | string | null) => (date ? new Date(date).toISOString().slice(0, 16).replace('T', ' ') : '');

/** The same, saying its time zone: 2099-01-31 14:05 UTC. */
export const minuteUtc = (date: Date) => `${minute(date)} UTC`;

/** What a list says when it has nothing yet, and what to do about it. */
/** "1 row", "2 rows": a count with its noun. */
export const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

export const emptyState = (words: string, next?: Html): Html => html`<p class="empty">${words}${next ? html` ${next}` : ''}</p>`;

/** A refusal or a missing page, as a page: the reason, and the way back. */
export const errorPage = (message: string, back: { href: string; words: string }): Html =>
  html`<section><p class="error" role="alert">${message}</p><p><a href="${back.href}">${back.words}</a></p></section>`;

/** Which mails a person gets: one checkbox per kind, saved to `action`. */
export function mailSettings(action: string, legend: string, mails: { kind: string; words: string; on: boolean }[], always: string): Html {
  return html`<section id="mail"><h2>Mail you get</h2><form method="post" action="${action}">
<fieldset><legend>${legend}</legend>${mails.map((m) => html`<label class="check"><input type="checkbox" name="on" value="${m.kind}" ${m.on ? raw('checked') : ''}> ${m.words}</label>`)}</fieldset>
<p class="muted">${always}</p>
<div><button type="submit">Save mail settings</button></div></form></section>`;
}
