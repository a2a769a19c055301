// The dashboard's Bounties page (Payouts → Bounties; docs/rewards.md "Bounties"): the program's
// bounties, and partners' submissions to approve (a commission that follows the normal hold and
// payout paths) or reject with a reason the partner reads. Bounties are created over the admin API.
import type { Request, RequestHandler, Response, Router } from 'express';
import type { ManagementDeps } from '../../app/programs/management.js';
import type { Scope } from '../../app/accounts/scope.js';
import * as bounties from '../../app/money/bounties.js';
import { performanceWords } from '../../core/bounties.js';
import { AffixError } from '../../core/errors.js';
import { formatMoney } from '../../core/money.js';
import type { BountyRow, SubmissionRow } from '../../db/money/bounties.js';
import { humanDate } from '../kit/components.js';
import { type Html, html } from '../kit/html.js';
import { dataTable } from '../kit/table.js';
import { sectionUrl, withProgramNav } from './program-page.js';

export interface BountiesKit {
  form: RequestHandler[];
  app: () => ManagementDeps;
  scope: (res: Response) => Scope;
  ownProgram: (req: Request, res: Response) => Promise<number>;
  send: (res: Response, status: number, title: string, body: Html, flash?: string | null) => void;
}

const DONE: Record<string, string> = {
  approved: 'Submission approved: its commission waits out the hold, then the next payout pays it.',
  rejected: 'Submission rejected: the partner is mailed your reason.',
};

const terms = (b: BountyRow) =>
  b.kind === 'performance' ? performanceWords({ metric: b.metric!, metricCurrency: b.metricCurrency, threshold: b.threshold!, refundRule: b.refundRule! }) : b.onceOnly ? 'A submission, once per partner' : 'Submissions, any number';

export function bountiesBody(programId: number, data: { bounties: BountyRow[]; submissions: SubmissionRow[] }, errors: Record<string, string> = {}): Html {
  const base = `/dashboard/programs/${programId}/payouts/bounties`;
  const pending = data.submissions.filter((s) => s.status === 'pending');
  const decided = data.submissions.filter((s) => s.status !== 'pending').slice(0, 50);
  const decide = (s: SubmissionRow) => {
    const name = `reason_${s.id}`;
    const error = errors[name];
    return html`<form method="post" action="${base}/submissions/${s.id}/approve" class="inline"><button type="submit">Approve submission ${s.id}</button></form>
<form method="post" action="${base}/submissions/${s.id}/reject" class="inline"><label for="${name}">Why not (the partner reads it)</label>
<input id="${name}" name="reason" maxlength="500" ${error ? html`aria-invalid="true" aria-describedby="${name}-error"` : ''}>${error ? html`<p class="error" id="${name}-error">${error}</p>` : ''}
<button type="submit">Reject submission ${s.id}</button></form>`;
  };
  return html`<section id="bounty-submissions"><h2>Submissions to review</h2>
${pending.length === 0 ? html`<p>No submissions waiting.</p>` : dataTable(['Submitted', 'Partner', 'Bounty', 'What they sent', 'Decide'], pending.map((s) => [humanDate(s.createdAt), s.partnerName, s.bountyName, s.content, decide(s)]), { id: 'pending-submissions', caption: 'Submissions waiting for a decision, newest first' })}</section>
<section id="bounty-list" class="compact"><h2>Bounties</h2>
<p class="muted">Create and archive bounties over the admin API (<code>POST /api/v1/admin/programs/${programId}/bounties</code>; docs/rewards.md, “Bounties”).</p>
${data.bounties.length === 0 ? html`<p>No bounties yet.</p>` : dataTable(['Bounty', 'Reward', 'Paid for', 'Since'], data.bounties.map((b) => [b.name, formatMoney(b.rewardCents, b.currency), terms(b), humanDate(b.createdAt)]), { id: 'bounties', caption: 'Live bounties, newest first' })}</section>
${decided.length ? html`<section id="decided-submissions" class="compact"><h2>Decided submissions</h2>
${dataTable(['Decided', 'Partner', 'Bounty', 'What they sent', 'Decision'], decided.map((s) => [humanDate(s.decidedAt ?? s.createdAt), s.partnerName, s.bountyName, s.content, s.status === 'approved' ? `Approved (commission ${s.commissionId})` : `Rejected: ${s.reason}`]), { id: 'decided', caption: 'Decided submissions, newest first' })}</section>` : ''}
<p><a href="${sectionUrl(programId, 'payouts')}">Back to Payouts</a></p>`;
}

export function registerBountyPageRoutes(router: Router, kit: BountiesKit): void {
  const { form, app, scope, ownProgram, send } = kit;
  const path = '/dashboard/programs/:id/payouts/bounties';
  const show = async (req: Request, res: Response, id: number, status: number, flash: string | null, errors: Record<string, string> = {}) => {
    const [list, submissions] = [await bounties.listBounties(app(), scope(res), id), await bounties.listSubmissions(app(), scope(res), id)];
    send(res, status, 'Bounties', withProgramNav(id, 'payouts', bountiesBody(id, { bounties: list, submissions }, errors), errors), flash);
  };
  router.get(path, async (req, res) => {
    const id = await ownProgram(req, res);
    await show(req, res, id, 200, DONE[String(req.query.done ?? '')] ?? null);
  });
  router.post(`${path}/submissions/:submissionId/approve`, ...form, async (req, res) => {
    const id = await ownProgram(req, res);
    await bounties.approveSubmission(app(), scope(res), id, Number(req.params.submissionId));
    res.redirect(303, `/dashboard/programs/${id}/payouts/bounties?done=approved`);
  });
  router.post(`${path}/submissions/:submissionId/reject`, ...form, async (req, res) => {
    const id = await ownProgram(req, res);
    const submissionId = Number(req.params.submissionId);
    try {
      await bounties.rejectSubmission(app(), scope(res), id, submissionId, { reason: String((req.body as Record<string, unknown>).reason ?? '') });
    } catch (error) {
      if (!(error instanceof AffixError) || error.status !== 400) throw error;
      return show(req, res, id, 400, null, { [`reason_${submissionId}`]: error.init.fields?.reason ?? error.message });
    }
    res.redirect(303, `/dashboard/programs/${id}/payouts/bounties?done=rejected`);
  });
}
