// The portal's Bounties page (docs/rewards.md "Bounties"): the program's live bounties for this
// partner, a form to submit a link or text to a submission bounty, and the partner's submissions
// with the brand's decision (and its reason when rejected).
import { performanceWords } from '../../core/bounties.js';
import { formatMoney } from '../../core/money.js';
import type { BountyRow, SubmissionRow } from '../../db/money/bounties.js';
import { dataTable } from '../kit/table.js';
import { errorSummary, type Html, html } from '../kit/html.js';
import { humanDate } from '../kit/components.js';

const STATUS_WORDS: Record<SubmissionRow['status'], string> = { pending: 'Waiting for the brand', approved: 'Approved', rejected: 'Not approved' };

export const bountiesLink = (partnerId: number): Html => html`<p><a href="/portal/programs/${partnerId}/bounties">Bounties: rewards for reaching a goal or for what you make</a></p>`;

export function bountiesPage(
  data: { partnerId: number; programName: string; bounties: BountyRow[]; submissions: SubmissionRow[] },
  errors: Record<string, string> = {},
  typed: Record<string, string> = {},
): Html {
  const base = `/portal/programs/${data.partnerId}`;
  const submitted = new Set(data.submissions.map((s) => s.bountyId));
  const card = (b: BountyRow) => {
    const name = `content_${b.id}`;
    const error = errors[name];
    const closed = b.onceOnly && submitted.has(b.id);
    return html`<article class="bounty" id="bounty-${b.id}"><h3>${b.name} <span class="muted">— ${formatMoney(b.rewardCents, b.currency)}</span></h3>
${b.description ? html`<p>${b.description}</p>` : ''}
${b.kind === 'performance'
    ? html`<p class="muted">Paid when you reach ${performanceWords({ metric: b.metric!, metricCurrency: b.metricCurrency, threshold: b.threshold!, refundRule: b.refundRule! })}; once a month at most.</p>`
    : closed
      ? html`<p class="muted">You submitted to this bounty.</p>`
      : html`<form method="post" action="${base}/bounties/${b.id}/submissions" novalidate>
<label for="${name}">Your link or a few words about what you did</label>
<textarea id="${name}" name="content" rows="3" maxlength="2000" ${error ? html`aria-invalid="true" aria-describedby="${name}-error"` : ''}>${typed[name] ?? ''}</textarea>
${error ? html`<p class="error" id="${name}-error">${error}</p>` : ''}
<div><button type="submit">Submit to “${b.name}”</button></div></form>`}</article>`;
  };
  return html`<p><a href="${base}">Back to ${data.programName}</a></p>${errorSummary(errors)}
<section id="bounties"><h2>Bounties</h2>
${data.bounties.length === 0 ? html`<p>No bounties right now.</p>` : data.bounties.map(card)}</section>
<section id="submissions" class="compact"><h2>Your submissions</h2>
${data.submissions.length === 0
    ? html`<p>You have not submitted anything yet.</p>`
    : dataTable(['Submitted', 'Bounty', 'What you sent', 'Decision'], data.submissions.map((s) => [
        humanDate(s.createdAt), s.bountyName, s.content,
        s.status === 'rejected' ? html`${STATUS_WORDS[s.status]}: ${s.reason}` : STATUS_WORDS[s.status],
      ]), { id: 'submission-table', caption: 'Your submissions, newest first' })}</section>`;
}
