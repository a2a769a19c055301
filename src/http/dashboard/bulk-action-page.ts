// The report page of a bulk action run by the job: its state and counts so far. While it runs
// the page reloads itself (the Refresh header: no script, so nothing for the CSP to allow), and
// says so, with a link that stops it (a reader may need more time than one interval).
import type { BulkActionView } from '../../app/partners/bulk-action-jobs.js';
import { PARTNER_CHUNK } from '../../app/partners/bulk-actions.js';
import { PARTNER_ACTION_WORDS, PARTNER_STATUS_WORDS, type PartnerAction, type PartnerStatus } from '../../core/partners.js';
import { type Html, html } from '../kit/html.js';

/** Seconds between reloads while the action runs. */
export const REPORT_REFRESH_SECONDS = 5;

const STATE_WORDS: Record<BulkActionView['state'], string> = {
  queued: 'Waiting to start',
  running: 'Running',
  done: 'Done',
  failed: 'Stopped: failed',
};

function skippedWords(reason: string): string {
  if (reason === 'not_found') return 'Not a partner of this program';
  if (reason === 'already_in_group') return 'Already in that group';
  const status = reason.replace(/^status_/, '') as PartnerStatus;
  return `${PARTNER_STATUS_WORDS[status] ?? status}: the action does not apply`;
}

export const bulkActionTitle = (b: BulkActionView) => `${PARTNER_ACTION_WORDS[b.action as PartnerAction] ?? b.action}: bulk action ${b.id}`;

export const isUnderWay = (b: BulkActionView) => b.state === 'queued' || b.state === 'running';

const number = (n: number) => n.toLocaleString('en-US');

/** `people`: the role may see who did what (a viewer, who reads no audit log, may not). */
export function bulkActionBody(b: BulkActionView, view: { partnersUrl: string; pageUrl: string; reloading: boolean; people: boolean }): Html {
  const skipped = Object.entries(b.skipped);
  const left = b.requested - b.changed;
  const underWay = isUnderWay(b);
  // Once done, what was handled is the whole selection (a filter's "about" was only the estimate).
  const of = !underWay ? '' : b.selection === 'ids' ? ` of ${number(b.expected)}` : ` of about ${number(b.expected)}`;
  return html`<section id="bulk-action" aria-labelledby="bulk-action-state"><h2 id="bulk-action-state">${STATE_WORDS[b.state]}</h2>
<p>${b.selection === 'ids' ? 'On the partners selected' : 'On every partner the search matched'}${view.people ? `, asked by ${b.askedBy}` : ''}.${underWay ? ` Partners are changed ${number(PARTNER_CHUNK)} at a time; each finished part stays done.` : ''}</p>
<label for="bulk-progress">Partners handled: ${number(b.requested)}${of}</label>
<progress id="bulk-progress" style="width:100%;max-width:28rem" max="${underWay ? Math.max(b.expected, b.requested, 1) : Math.max(b.requested, 1)}" value="${b.requested}">${number(b.requested)}${of}</progress>
<dl class="numbers"><div><dt>Changed</dt><dd>${number(b.changed)}</dd></div><div><dt>Left as they were</dt><dd>${number(left)}</dd></div>
${b.linksCreated ? html`<div><dt>Links made</dt><dd>${number(b.linksCreated)}</dd></div>` : ''}<div><dt>Parts done</dt><dd>${number(b.chunksDone)}</dd></div></dl>
${skipped.length ? html`<h3>Left as they were</h3><ul>${skipped.map(([reason, n]) => html`<li>${skippedWords(reason)}: ${number(n)}</li>`)}</ul>` : ''}
${b.state === 'failed' ? html`<p class="error" role="alert">${b.error ?? 'The action failed.'}</p>` : ''}
${underWay
    ? view.reloading
      ? html`<p>This page reloads every ${REPORT_REFRESH_SECONDS} seconds until the action is done. <a href="${view.pageUrl}?refresh=off">Stop reloading</a></p>`
      : html`<p>Reloading is off. <a href="${view.pageUrl}">See the progress now (and reload again)</a></p>`
    : ''}
<p><a href="${view.partnersUrl}">Back to the partners</a></p></section>`;
}
