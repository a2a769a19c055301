// The Rewards page's routes (docs/rewards.md): the page of a scope (`?group=` a group's), a rule's
// form, the draft's edits, the backtest and publishing. Each form posts to a use case, then
// redirects back (or shows the form again with the refusal beside its field).
import type { Request, Response, Router } from 'express';
import { allows } from '../../core/permissions.js';
import { type DraftEdit, type RuleKey, backtestForPage, editDraft, rewardRulesPage } from '../../app/money/reward-rule-editor.js';
import { publishDraft } from '../../app/money/reward-rules.js';
import { backtestPeriod } from '../../app/money/backtest.js';
import { errors } from '../../core/errors.js';
import { fieldErrors } from '../kit/forms.js';
import { isoDay } from '../kit/components.js';
import { withProgramNav } from './program-page.js';
import type { ProgramKit } from './route-kit.js';
import { type FormValues, formField, limitsFromForm, ruleFromForm } from './rewards-form.js';
import { backtestPageBody, rewardsPageBody, rewardsUrl, ruleFormBody } from './rewards-page.js';

const DAY_MS = 86_400_000;
/** A day as the date fields send it (2026-01-31). */
const isIsoDay = (day: string) => /^\d{4}-\d{2}-\d{2}$/.test(day) && !Number.isNaN(Date.parse(day));
const DONE: Record<string, string> = {
  rule_saved: 'Rule saved to the draft.',
  rule_deleted: 'Rule deleted from the draft.',
  rule_moved: 'Rule moved: the order is the order that wins.',
  limits_saved: 'Tiers and budget saved to the draft.',
  published: 'Published: new sales are paid by this version.',
};

const groupOf = (value: unknown): number | null => {
  const n = Number(value);
  return value === undefined || value === '' || !Number.isSafeInteger(n) || n <= 0 ? null : n;
};
const keyOf = (value: unknown): RuleKey => {
  if (value === 'default') return 'default';
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 0) throw errors.notFound('There is no such rule in the draft');
  return n;
};

/** The id of the rule the page showed at that place (absent: a new rule, or a form from before ids were sent). */
const ruleIdOf = (body: FormValues): { ruleId?: string } => (typeof body.rule_id === 'string' && body.rule_id ? { ruleId: body.rule_id } : {});

/** A refusal's fields, named as the form's fields ("steps.0.amount.rate" is step1_rate). */
const formErrors = (error: unknown): Record<string, string> => {
  const named = fieldErrors(error);
  const out: Record<string, string> = {};
  for (const [path, message] of Object.entries(named)) out[formField(path)] ??= message;
  return out;
};

export function registerRewardsRoutes(router: Router, kit: ProgramKit): void {
  const { app, scope, ownProgram, send } = kit;
  const base = '/dashboard/programs/:id/rewards';
  const canEdit = (res: Response) => allows(res.locals.account.role, 'programs');
  const days = () => {
    const now = kit.now();
    return { today: isoDay(now), ninetyDaysAgo: isoDay(new Date(now.getTime() - 90 * DAY_MS)) };
  };
  const title = (data: Awaited<ReturnType<typeof rewardRulesPage>>, what = 'Rewards') => `${data.program.name}: ${what}${data.group ? ` of group ${data.group.name}` : ''}`;

  const showPage = async (req: Request, res: Response, groupId: number | null, status = 200, fe: Record<string, string> = {}, refused?: { form: 'limits' | 'publish'; values: FormValues }) => {
    const id = await ownProgram(req, res);
    const data = await rewardRulesPage(app(), scope(res), id, groupId);
    // Who published is a team member's email: shown to the roles that may read people (docs/team.md).
    if (data.published && !allows(res.locals.account.role, 'read_people')) data.published.by = null;
    const done = typeof req.query.done === 'string' ? (DONE[req.query.done] ?? null) : null;
    send(res, status, title(data), withProgramNav(id, 'groups', rewardsPageBody({ data, canEdit: canEdit(res), fieldErrors: fe, refused, ...days() })), status === 200 ? done : null);
  };
  const back = (res: Response, id: number, groupId: number | null, done: string) => {
    const url = rewardsUrl(id, groupId);
    res.redirect(303, `${url}${url.includes('?') ? '&' : '?'}done=${done}`);
  };

  router.get(base, (req, res) => showPage(req, res, groupOf(req.query.group)));

  const showRuleForm = async (req: Request, res: Response, groupId: number | null, key: RuleKey | 'new', status = 200, fe: Record<string, string> = {}, values: FormValues | null = null) => {
    const id = await ownProgram(req, res);
    const data = await rewardRulesPage(app(), scope(res), id, groupId);
    const document = data.draft?.document ?? data.published?.document ?? { rules: [], defaults: {} };
    const rule = key === 'new' ? null : key === 'default' ? (document.defaults.sale ?? null) : (document.rules[key] ?? null);
    if (key !== 'new' && key !== 'default' && !rule) throw errors.notFound('There is no such rule in the draft');
    const what = key === 'new' ? 'a new rule' : key === 'default' ? 'the default' : `rule ${rule!.name}`;
    send(res, status, `${title(data, 'Rewards')}: ${what}`, withProgramNav(id, 'groups', ruleFormBody({ data, key, values, rule, fieldErrors: fe })));
  };
  router.get(`${base}/rule`, (req, res) => showRuleForm(req, res, groupOf(req.query.group), req.query.key === 'new' || req.query.key === undefined ? 'new' : keyOf(req.query.key)));

  router.post(`${base}/rule`, ...kit.listForm('intervals'), async (req, res) => {
    const id = await ownProgram(req, res);
    const body = req.body as FormValues;
    const groupId = groupOf(body.group_id);
    const key = body.key === 'new' || body.key === undefined ? null : keyOf(body.key);
    try {
      const rule = ruleFromForm(body);
      await editDraft(app(), scope(res), id, groupId, { kind: 'save_rule', key, ...ruleIdOf(body), place: body.key === 'default' ? 'default' : 'rules', rule });
    } catch (error) {
      return showRuleForm(req, res, groupId, key ?? (body.key === 'default' ? 'default' : 'new'), 400, formErrors(error), body);
    }
    back(res, id, groupId, 'rule_saved');
  });

  const edit = (path: string, done: string, make: (body: FormValues) => DraftEdit) =>
    router.post(`${base}${path}`, ...kit.form, async (req, res) => {
      const id = await ownProgram(req, res);
      const body = req.body as FormValues;
      const groupId = groupOf(body.group_id);
      try {
        await editDraft(app(), scope(res), id, groupId, make(body));
      } catch (error) {
        return showPage(req, res, groupId, 400, formErrors(error), { form: 'limits', values: body });
      }
      back(res, id, groupId, done);
    });
  edit('/rule/delete', 'rule_deleted', (body) => ({ kind: 'delete_rule', key: keyOf(body.key), ...ruleIdOf(body) }));
  edit('/rule/move', 'rule_moved', (body) => ({ kind: 'move_rule', key: keyOf(body.key) as number, ...ruleIdOf(body), direction: body.direction === 'up' ? 'up' : 'down' }));
  edit('/limits', 'limits_saved', (body) => ({ kind: 'limits', limits: limitsFromForm(body) }));

  router.post(`${base}/publish`, ...kit.form, async (req, res) => {
    const id = await ownProgram(req, res);
    const body = req.body as FormValues;
    const groupId = groupOf(body.group_id);
    if (body.confirm !== 'yes') return showPage(req, res, groupId, 400, { confirm: 'Tick the box to confirm: publishing changes what new sales pay.' }, { form: 'publish', values: body });
    try {
      const seen = typeof body.draft_updated_at === 'string' && body.draft_updated_at ? { draft_updated_at: body.draft_updated_at } : {};
      await publishDraft(app(), scope(res), id, { ...(groupId === null ? {} : { group_id: groupId }), ...seen });
    } catch (error) {
      return showPage(req, res, groupId, 400, { confirm: fieldErrors(error).rule_set ?? Object.values(fieldErrors(error))[0] ?? 'It could not be published.' }, { form: 'publish', values: body });
    }
    back(res, id, groupId, 'published');
  });

  router.get(`${base}/backtest`, async (req, res) => {
    const id = await ownProgram(req, res);
    const groupId = groupOf(req.query.group);
    const data = await rewardRulesPage(app(), scope(res), id, groupId);
    const { today, ninetyDaysAgo } = days();
    const from = typeof req.query.from === 'string' && req.query.from ? req.query.from : ninetyDaysAgo;
    const to = typeof req.query.to === 'string' && req.query.to ? req.query.to : today;
    const view = { data, canEdit: canEdit(res), today, ninetyDaysAgo, from, to };
    const fe: Record<string, string> = {};
    for (const [field, day] of [['from', from], ['to', to]] as const) if (!isIsoDay(day)) fe[field] = 'Give a day, like 2026-01-31.';
    if (!data.draft) fe.from = 'There is no draft to backtest: add a rule first.';
    let result = null;
    if (!Object.keys(fe).length) {
      try {
        // The days as the brand reads them: from the first day's start through the last day's end (UTC).
        const period = backtestPeriod(app(), { from: `${from}T00:00:00.000Z`, to: `${to}T23:59:59.999Z`, group_id: groupId });
        result = await backtestForPage(app(), scope(res), id, period);
      } catch (error) {
        const named = fieldErrors(error);
        Object.assign(fe, named.rule_set ? { from: `The draft cannot be backtested: ${named.rule_set}` } : named.from ? { from: named.from } : { from: Object.values(named)[0] ?? 'The backtest could not run.' });
      }
    }
    send(res, Object.keys(fe).length ? 400 : 200, `${title(data, 'Backtest')}`, withProgramNav(id, 'groups', backtestPageBody({ ...view, fieldErrors: fe, result })));
  });
}
