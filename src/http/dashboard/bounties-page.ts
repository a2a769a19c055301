// The dashboard's Bounties page (Payouts → Bounties; docs/rewards.md "Bounties"): the program's
// bounties, and partners' submissions to approve (a commission that follows the normal hold and
// payout paths) or reject with a reason the partner reads; create and archive bounties.
import type { Request, RequestHandler, Response, Router } from 'express';
import type { ManagementDeps } from '../../app/programs/management.js';
import type { Scope } from '../../app/accounts/scope.js';
import * as bounties from '../../app/money/bounties.js';
import { performanceWords } from '../../core/bounties.js';
import { AffixError } from '../../core/errors.js';
import { formatMoney, parseMajorUnits } from '../../core/money.js';
import { toCurrency } from '../../core/currency.js';
import type { BountyRow, SubmissionRow } from '../../db/money/bounties.js';
import { humanDate } from '../kit/components.js';
import { field, type Html, html, select } from '../kit/html.js';
import { fieldErrors } from '../kit/forms.js';
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
  created: 'Bounty created: partners see it on their portal.',
  archived: 'Bounty archived: no new awards or submissions; what it paid stays.',
};

/** The form's amounts are typed in major units ("100", "100.00"); the API's are in the smallest unit. */
function bountyBody(form: Record<string, unknown>): Record<string, unknown> {
  const text = (name: string) => String(form[name] ?? '').trim();
  const kind = text('kind');
  const cents = (value: string, currency: string) => {
    const c = toCurrency(currency);
    return c ? (parseMajorUnits(value, c) ?? value) : value;
  };
  const performance = kind === 'performance';
  const metric = performance ? text('metric') : null;
  return {
    kind, name: text('name'), description: text('description'), currency: text('currency'), reward_cents: cents(text('reward'), text('currency')),
    metric, metric_currency: metric === 'revenue' ? text('metric_currency') : null,
    threshold: !performance ? null : metric === 'revenue' ? cents(text('threshold'), text('metric_currency')) : text('threshold'),
    refund_rule: performance ? text('refund_rule') : null, once_only: form.once_only === 'true',
  };
}
const FORM_ALIASES = { reward_cents: 'reward', refund_rule: 'refund_rule', body: 'name', form: 'name' };

const terms = (b: BountyRow) =>
  b.kind === 'performance' ? performanceWords({ metric: b.metric!, metricCurrency: b.metricCurrency, threshold: b.threshold!, refundRule: b.refundRule! }) : b.onceOnly ? 'A submission, once per partner' : 'Submissions, any number';

export function bountiesBody(programId: number, data: { bounties: BountyRow[]; submissions: SubmissionRow[] }, errors: Record<string, string> = {}, typed: Record<string, string> = {}): Html {
  const v = (name: string, fallback = '') => typed[name] ?? fallback;
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
<p class="muted">Also over the admin API (<code>POST /api/v1/admin/programs/${programId}/bounties</code>; docs/rewards.md, “Bounties”).</p>
${data.bounties.length === 0 ? html`<p>No bounties yet.</p>` : dataTable(['Bounty', 'Reward', 'Paid for', 'Since', ''], data.bounties.map((b) => [b.name, formatMoney(b.rewardCents, b.currency), terms(b), humanDate(b.createdAt),
  html`<form method="post" action="${base}/${b.id}/archive" class="inline"><button type="submit">Archive “${b.name}”</button></form>`]), { id: 'bounties', caption: 'Live bounties, newest first' })}</section>
<section id="new-bounty"><h2>New bounty</h2>
<form method="post" action="${base}" novalidate>
${select('kind', 'Kind', v('kind', 'submission'), ['submission', 'performance'], errors, { submission: 'Submission: partners send a link or text, you approve it', performance: 'Performance: a threshold reached in a calendar month (UTC)' })}
${field('name', 'Name (partners see it)', v('name'), errors, 'maxlength="200"')}
${field('description', 'What to do (optional)', v('description'), errors, 'maxlength="2000"')}
${field('reward', 'Reward (e.g. 100.00)', v('reward'), errors, 'inputmode="decimal"')}
${field('currency', 'Currency of the reward', v('currency', 'USD'), errors, 'maxlength="3" autocapitalize="characters"')}
<fieldset><legend>Performance only</legend>
${select('metric', 'Counts', v('metric', 'new_customers'), ['new_customers', 'revenue'], errors, { new_customers: 'New customers', revenue: 'Sale revenue in one currency' })}
${field('threshold', 'Threshold (customers, or revenue e.g. 500.00)', v('threshold'), errors, 'inputmode="decimal"')}
${field('metric_currency', 'Revenue currency', v('metric_currency'), errors, 'maxlength="3" autocapitalize="characters"')}
${select('refund_rule', 'Refunds', v('refund_rule', 'as_recorded'), ['as_recorded', 'net_of_refunds'], errors, { as_recorded: 'Count sales as recorded (awarded as soon as reached)', net_of_refunds: "Count net of refunds at the month's end" })}</fieldset>
<label class="check"><input type="checkbox" name="once_only" value="true" ${v('once_only', 'true') === 'true' ? html`checked` : ''}> One submission per partner</label>
<div><button type="submit">Create bounty</button></div></form></section>
${decided.length ? html`<section id="decided-submissions" class="compact"><h2>Decided submissions</h2>
${dataTable(['Decided', 'Partner', 'Bounty', 'What they sent', 'Decision'], decided.map((s) => [humanDate(s.decidedAt ?? s.createdAt), s.partnerName, s.bountyName, s.content, s.status === 'approved' ? `Approved (commission ${s.commissionId})` : `Rejected: ${s.reason}`]), { id: 'decided', caption: 'Decided submissions, newest first' })}</section>` : ''}
<p><a href="${sectionUrl(programId, 'payouts')}">Back to Payouts</a></p>`;
}

export function registerBountyPageRoutes(router: Router, kit: BountiesKit): void {
  const { form, app, scope, ownProgram, send } = kit;
  const path = '/dashboard/programs/:id/payouts/bounties';
  const show = async (req: Request, res: Response, id: number, status: number, flash: string | null, errors: Record<string, string> = {}, typed: Record<string, string> = {}) => {
    const [list, submissions] = [await bounties.listBounties(app(), scope(res), id), await bounties.listSubmissions(app(), scope(res), id)];
    send(res, status, 'Bounties', withProgramNav(id, 'payouts', bountiesBody(id, { bounties: list, submissions }, errors, typed), errors), flash);
  };
  router.post(path, ...form, async (req, res) => {
    const id = await ownProgram(req, res);
    const typed = Object.fromEntries(Object.entries(req.body as Record<string, unknown>).map(([k, value]) => [k, String(value)]));
    try {
      await bounties.createBounty(app(), scope(res), id, bountyBody(req.body as Record<string, unknown>));
    } catch (error) {
      return show(req, res, id, (error as { status: number }).status, null, fieldErrors(error, FORM_ALIASES), { once_only: 'false', ...typed });
    }
    res.redirect(303, `/dashboard/programs/${id}/payouts/bounties?done=created`);
  });
  router.post(`${path}/:bountyId/archive`, ...form, async (req, res) => {
    const id = await ownProgram(req, res);
    await bounties.archiveBounty(app(), scope(res), id, Number(req.params.bountyId));
    res.redirect(303, `/dashboard/programs/${id}/payouts/bounties?done=archived`);
  });
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
