// The Rewards page (docs/rewards.md): a scope's reward rule set — the program's or a group's — as
// published (version, when, by whom) and as drafted, each rule in words in the order that wins;
// the draft edited with plain forms (a rule, its order, the tiers and budget), backtested, published.
import type { RewardRule } from '../../core/rewards.js';
import { BILLING_INTERVALS } from '../../core/rewards.js';
import { ruleWords } from '../../core/reward-rule-words.js';
import { formatMoney } from '../../core/money.js';
import type { Currency } from '../../core/types.js';
import { type RuleSetDocument, paysEvent } from '../../core/commission-rewards.js';
import type { backtestForPage, rewardRulesPage } from '../../app/money/reward-rule-editor.js';
import { minuteUtc, plural } from '../kit/components.js';
import { type Html, errorSummary, html, raw, select } from '../kit/html.js';
import { type FormValues, STEP_ROWS, TIER_ROWS, limitsValues, rowCount, ruleValues } from './rewards-form.js';

export type RewardsData = Awaited<ReturnType<typeof rewardRulesPage>>;
export type BacktestData = Awaited<ReturnType<typeof backtestForPage>>;

export const rewardsUrl = (programId: number, groupId: number | null, path = '') => `/dashboard/programs/${programId}/rewards${path}${groupId === null ? '' : `?group=${groupId}`}`;

const money = (cents: number, currency: string) => formatMoney(cents, currency as Currency);
const groupField = (groupId: number | null) => (groupId === null ? '' : html`<input type="hidden" name="group_id" value="${groupId}">`);

/** A labelled input; its error beside it (the same markup as the kit's field, with a hint). */
function input(name: string, label: string, values: FormValues, fe: Record<string, string>, attrs = '', hint = ''): Html {
  const value = values[name];
  const error = fe[name];
  const described = [hint ? `${name}-hint` : '', error ? `${name}-error` : ''].filter(Boolean).join(' ');
  return html`<div><label for="${name}">${label}</label>${hint ? html`<p class="muted" id="${name}-hint">${hint}</p>` : ''}
<input id="${name}" name="${name}" value="${Array.isArray(value) ? value.join(', ') : (value ?? '')}" ${raw(attrs)} ${error ? raw('aria-invalid="true"') : ''} ${described ? raw(`aria-describedby="${described}"`) : ''}>
${error ? html`<p class="error" id="${name}-error">${error}</p>` : ''}</div>`;
}

/** The scope's heading words: "the program" or "group Creators". */
export const scopeWords = (data: RewardsData) => (data.group ? `group ${data.group.name}` : 'the program');

function ruleCard(rule: RewardRule, position: string, actions: Html): Html {
  const w = ruleWords(rule);
  return html`<li class="card"><h3>${position} ${rule.name}</h3>
<p><strong>When:</strong> ${w.when}</p><p><strong>Pays:</strong> ${w.pays}, ${w.duration}</p>${w.caps ? html`<p><strong>Limited to:</strong> ${w.caps}</p>` : ''}${actions}</li>`;
}

function setSummary(document: RuleSetDocument): Html {
  const tiers = document.tiers ?? [];
  return html`${document.monthlyBudget && Object.keys(document.monthlyBudget).length ? html`<p><strong>Monthly budget:</strong> ${Object.entries(document.monthlyBudget).map(([c, cents]) => money(cents as number, c)).join(', ')} for the whole program per calendar month</p>` : ''}
${tiers.length ? html`<p><strong>Tiers</strong> (over the last ${document.tierWindowDays ?? 90} days, lowest first): ${tiers.map((t) => [t.name, [t.minCustomers !== undefined ? `${plural(t.minCustomers, 'customer')}` : '', t.minRevenue && Object.keys(t.minRevenue).length ? `${Object.entries(t.minRevenue).map(([c, cents]) => money(cents as number, c)).join(' or ')} revenue` : ''].filter(Boolean).join(' and ')].filter(Boolean).join(': from ')).join(' · ')}</p>` : ''}`;
}

/** The rules in the order that wins, then the default; `actions` adds the editing buttons. */
function ruleList(document: RuleSetDocument, actions: (key: number | 'default', rule: RewardRule) => Html): Html {
  const fallback = document.defaults.sale;
  if (document.rules.length === 0 && !fallback) return html`<p class="empty">No rules yet: a sale pays nothing under this set until it has a rule or a default.</p>`;
  return html`${document.rules.length ? html`<ol class="cards" aria-label="Rules, first match wins">${document.rules.map((rule, i) => ruleCard(rule, `${i + 1}.`, actions(i, rule)))}</ol>` : ''}
${fallback ? html`<ul class="cards" aria-label="Default"><li class="card"><h3>Otherwise (default): ${fallback.name}</h3><p><strong>Pays:</strong> ${ruleWords(fallback).pays}, ${ruleWords(fallback).duration}</p>${ruleWords(fallback).caps ? html`<p><strong>Limited to:</strong> ${ruleWords(fallback).caps}</p>` : ''}${actions('default', fallback)}</li></ul>` : html`<p class="muted">No default: a sale no rule matches pays nothing.</p>`}`;
}

export interface RewardsView {
  data: RewardsData;
  /** The caller may change the draft and publish it (owner, admin). */
  canEdit: boolean;
  fieldErrors: Record<string, string>;
  /** The form a refusal was about, and its values as typed. */
  refused?: { form: 'limits' | 'publish'; values: FormValues };
  today: string;
  ninetyDaysAgo: string;
}

function scopeNav(data: RewardsData): Html {
  const here = data.group?.id ?? null;
  const link = (groupId: number | null, words: string) => html`<a href="${rewardsUrl(data.program.id, groupId)}" ${groupId === here ? raw('aria-current="page"') : ''}>${words}</a>`;
  return html`<nav class="tabs" aria-label="Whose rule set">${link(null, 'Program')}${data.groups.map((g) => link(g.id, `Group ${g.name}`))}</nav>`;
}

export function rewardsPageBody(view: RewardsView): Html {
  const { data, canEdit } = view;
  const fe = view.fieldErrors;
  const pid = data.program.id;
  const gid = data.group?.id ?? null;
  const published = data.published;
  const draft = data.draft;
  const post = (path: string, fields: Html, button: string, cls = '') =>
    html`<form method="post" action="${rewardsUrl(pid, null, path)}" class="inline">${groupField(gid)}${fields}<button type="submit" ${cls ? raw(`class="${cls}"`) : ''}>${button}</button></form>`;
  // The rule's place and its id: an edit from a page opened before another manager's change is refused.
  const ruleFields = (key: number | 'default', rule: RewardRule) => html`<input type="hidden" name="key" value="${key}"><input type="hidden" name="rule_id" value="${rule.id}">`;
  const editing = (key: number | 'default', rule: RewardRule) =>
    canEdit && draft
      ? html`<div class="row"><a class="button" href="${rewardsUrl(pid, gid, '/rule')}${gid === null ? '?' : '&'}key=${key}">Edit<span class="visually-hidden"> ${rule.name}</span></a>
${typeof key === 'number' && key > 0 ? post('/rule/move', html`${ruleFields(key, rule)}<input type="hidden" name="direction" value="up">`, `Move up`) : ''}
${typeof key === 'number' && key < draft.document.rules.length - 1 ? post('/rule/move', html`${ruleFields(key, rule)}<input type="hidden" name="direction" value="down">`, `Move down`) : ''}
${post('/rule/delete', ruleFields(key, rule), `Delete`, 'danger')}</div>`
      : html``;
  const limits = view.refused?.form === 'limits' ? view.refused.values : limitsValues(draft?.document ?? { rules: [], defaults: {} });
  const confirmError = fe.confirm;
  const limitsSet = Object.values(limits).some((v) => v !== undefined && v !== '');
  const limitsOpen = view.refused?.form === 'limits';
  return html`${errorSummary(fe)}${scopeNav(data)}
<p class="muted">Rules decide what each new sale pays ${data.group ? html`the partners of group ${data.group.name}` : 'partners in no group (and groups without a rule set of their own)'}: the <strong>first rule</strong> whose conditions a sale meets decides it, else the default. A partner on their own terms is paid by those. See the <a href="/docs/rewards.md">rewards guide</a>.</p>
<section id="published" aria-labelledby="published-title"><h2 id="published-title">Published${published ? `: version ${published.version}` : ''}</h2>
${published ? html`<p>Published ${published.publishedAt ? minuteUtc(published.publishedAt) : ''}${published.by ? html` by ${published.by}` : ''}. Every new sale of ${scopeWords(data)}${paysEvent(published.document, 'lead') ? ', each new lead' : ''}${paysEvent(published.document, 'click') ? ", each day's clicks from the day after it was published" : ''} is paid by it; a commission keeps the version and rule that paid it.</p>
${ruleList(published.document, () => html``)}${setSummary(published.document)}` : html`<p class="empty">Nothing published yet: ${data.group && data.programVersion !== null ? `the partners of group ${data.group.name} are paid by the program's published version ${data.programVersion}` : `${scopeWords(data)} pays by its commission type (the ${data.group ? 'group' : 'program'}'s terms)`}.</p>`}</section>
<section id="draft" aria-labelledby="draft-title"><h2 id="draft-title">Draft</h2>
${draft ? html`<p class="muted">${draft.sameAsPublished ? `The same as the published version ${published!.version}: a change here starts the next version.` : `Changed ${minuteUtc(draft.updatedAt)}. Nothing changes for partners until it is published.`}</p>
${draft.problems.length ? html`<div class="ask" role="status"><p><strong>To fix before publishing:</strong></p><ul>${draft.problems.map((p) => html`<li>${p}</li>`)}</ul></div>` : ''}
${ruleList(draft.document, editing)}${setSummary(draft.document)}` : html`<p class="empty">No draft. ${canEdit ? (published ? 'Your first change starts one from the published version.' : 'Add a rule to start one.') : ''}</p>`}
${canEdit ? html`<p><a class="button" href="${rewardsUrl(pid, gid, '/rule')}${gid === null ? '?' : '&'}key=new">Add a rule</a>${draft?.document.defaults.sale ? '' : html` <a class="button" href="${rewardsUrl(pid, gid, '/rule')}${gid === null ? '?' : '&'}key=default">Set the default</a>`}</p>` : ''}</section>
<section id="backtest" aria-labelledby="backtest-title"><h2 id="backtest-title">Backtest the draft</h2>
<p class="muted">What the draft would have paid for the period's sales of ${scopeWords(data)}, beside what was paid. Nothing is written.</p>
${backtestForm(view, gid)}</section>
${canEdit && draft && !draft.sameAsPublished ? html`<section id="publish" aria-labelledby="publish-title"><h2 id="publish-title">Publish</h2>
<form method="post" action="${rewardsUrl(pid, null, '/publish')}" novalidate>${groupField(gid)}<input type="hidden" name="draft_updated_at" value="${draft.updatedAt.toISOString()}">
<p>Publishing makes the draft version ${(published?.version ?? 0) + 1}: every new sale of ${scopeWords(data)} is paid by it from then on. Commissions already made keep the rules that made them.</p>
<label class="check"><input type="checkbox" id="confirm" name="confirm" value="yes" ${confirmError ? raw('aria-invalid="true" aria-describedby="confirm-error"') : ''}> I have checked the draft and its backtest</label>
${confirmError ? html`<p class="error" id="confirm-error">${confirmError}</p>` : ''}
<div><button type="submit" ${draft.problems.length ? raw('disabled') : ''}>Publish version ${(published?.version ?? 0) + 1}</button></div></form></section>` : ''}
${canEdit ? html`<section id="limits" aria-labelledby="limits-title"><h2 id="limits-title">Tiers and monthly budget</h2>
<details ${limitsOpen ? raw('open') : ''}><summary>${limitsSet ? 'Edit the tiers and the monthly budget' : 'None set: add tiers or a monthly budget'}</summary><form method="post" action="${rewardsUrl(pid, null, '/limits')}" novalidate>${groupField(gid)}
${input('monthly_budget', 'Monthly budget for the whole program (empty: none)', limits, fe, 'autocomplete="off" class="medium"', 'Per calendar month (UTC), per currency, like 5000.00 USD, 4000 EUR. A commission cut by it says so.')}
<fieldset class="question"><legend>Tiers, lowest first</legend><p class="muted">A partner is in the highest tier whose figures they reach over the window; a rule can be limited to tiers. Revenue: any currency named that reaches its figure counts.</p>
${input('tier_window_days', 'Window (days; empty: 90)', limits, fe, 'inputmode="numeric"')}
${Array.from({ length: rowCount(limits, 'tier', TIER_ROWS) }, (_, i) => i + 1).map((n) => html`<div class="row">${input(`tier${n}_name`, `Tier ${n} name`, limits, fe, 'autocomplete="off"')}${input(`tier${n}_customers`, 'From customers', limits, fe, 'inputmode="numeric"')}${input(`tier${n}_revenue`, 'Or from revenue', limits, fe, 'autocomplete="off"')}</div>`)}
</fieldset><div><button type="submit">Save tiers and budget</button></div></form></details></section>` : ''}`;
}

function backtestForm(view: Pick<RewardsView, 'fieldErrors' | 'today' | 'ninetyDaysAgo' | 'data'> & { from?: string; to?: string }, gid: number | null): Html {
  const values = { from: view.from ?? view.ninetyDaysAgo, to: view.to ?? view.today };
  const fe = view.fieldErrors;
  return html`<form method="get" action="${rewardsUrl(view.data.program.id, null, '/backtest')}" class="filter">${gid === null ? '' : html`<input type="hidden" name="group" value="${gid}">`}
${input('from', 'From', values, fe, 'type="date"')}${input('to', 'Through', values, fe, 'type="date"')}
<div><button type="submit">Run the backtest</button></div></form>`;
}

const difference = (cents: number, currency: string) => (cents === 0 ? html`<span class="muted">no change</span>` : html`${cents > 0 ? '+' : '−'}${money(Math.abs(cents), currency)}`);

export function backtestPageBody(view: RewardsView & { from: string; to: string; result: BacktestData | null }): Html {
  const { data, result } = view;
  const gid = data.group?.id ?? null;
  const ruleName = (id: string | null) => (id === null ? 'No rule (pays nothing)' : (result?.ruleNames[id] ?? id));
  const partnerName = (id: number) => result?.partnerNames[id] ?? `partner ${id}`;
  const rows = <T extends { currency: string; sales: number; actual_cents: number; draft_cents: number; difference_cents: number }>(list: T[], head: string, name: (row: T) => Html | string, label: string) =>
    html`<table class="cards backtest" aria-label="${label}"><thead><tr><th scope="col">${head}</th><th scope="col" class="num">Sales</th><th scope="col" class="num">Paid</th><th scope="col" class="num">Draft</th><th scope="col" class="num">Difference</th></tr></thead>
<tbody>${list.map((r) => html`<tr><td data-label="${head}">${name(r)}</td><td data-label="Sales" class="num">${r.sales}</td><td data-label="Paid" class="num">${money(r.actual_cents, r.currency)}</td><td data-label="Draft" class="num">${money(r.draft_cents, r.currency)}</td><td data-label="Difference" class="num">${difference(r.difference_cents, r.currency)}</td></tr>`)}</tbody></table>`;
  return html`${errorSummary(view.fieldErrors)}${scopeNav(data)}<p><a href="${rewardsUrl(data.program.id, gid)}">← Rewards of ${scopeWords(data)}</a></p>
<section id="backtest" aria-labelledby="backtest-title"><h2 id="backtest-title">Backtest the draft</h2>
<p class="muted">What the draft would have paid for the period's sales of ${scopeWords(data)}, beside what their commissions earned (before refunds). Caps and the budget count from the period's start. Nothing is written.</p>
${backtestForm(view, gid)}</section>
${result ? html`<section id="backtest-totals" aria-labelledby="totals-title"><h2 id="totals-title">${plural(result.sales, 'sale')} from ${view.from} through ${view.to}</h2>
${result.sales === 0 ? html`<p class="empty">No sales of ${scopeWords(data)} were paid in the period.</p>` : html`${rows(result.totals, 'Currency', (r) => r.currency, 'Totals per currency')}
<h3>Per partner</h3>${rows(result.partners, 'Partner', (r) => html`<a href="/dashboard/programs/${data.program.id}/partners/${r.partner_id}">${partnerName(r.partner_id)}</a> <span class="muted">${r.currency}</span>`, 'Per partner')}
<h3>Per rule of the draft</h3>${rows(result.rules, 'Rule', (r) => html`${ruleName(r.rule_id)} <span class="muted">${r.currency}</span>`, 'Per rule')}`}</section>
<section id="backtest-changes" aria-labelledby="changes-title"><h2 id="changes-title">Sales that change: ${result.changes.count}</h2>
${result.changes.count === 0 ? html`<p class="empty">No sale's amount or paying rule changes.</p>` : html`${result.changes.count > result.changes.first.length ? html`<p class="muted">The first ${result.changes.first.length}, in paid order.</p>` : ''}
<table class="cards backtest" aria-label="Sales that change"><thead><tr><th scope="col">Paid</th><th scope="col">Partner</th><th scope="col" class="num">Sale</th><th scope="col" class="num">Paid then</th><th scope="col" class="num">Draft</th><th scope="col">Rule then → draft</th></tr></thead>
<tbody>${result.changes.first.map((c) => html`<tr><td data-label="Paid"><time datetime="${c.paid_at}">${c.paid_at.slice(0, 10)}</time></td><td data-label="Partner">${partnerName(c.partner_id)}</td><td data-label="Sale" class="num">${money(c.amount_cents, c.currency)}</td><td data-label="Paid then" class="num">${money(c.actual_cents, c.currency)}</td><td data-label="Draft" class="num">${money(c.draft_cents, c.currency)}</td><td data-label="Rule then → draft">${c.actual_rule_id ?? (c.actual_cents ? 'commission type' : 'none')} → ${ruleName(c.draft_cents ? c.draft_rule_id : null)}</td></tr>`)}</tbody></table>`}</section>` : ''}`;
}

/** The form of one rule: new, one of the draft's, or the default. */
export function ruleFormBody(view: { data: RewardsData; key: number | 'default' | 'new'; values: FormValues | null; rule: RewardRule | null; fieldErrors: Record<string, string> }): Html {
  const { data, key } = view;
  const fe = view.fieldErrors;
  const gid = data.group?.id ?? null;
  const values: FormValues = view.values ?? (view.rule ? ruleValues(view.rule) : { event: 'sale', duration: 'lifetime', step1_type: 'percent' });
  const v = (name: string) => String(values[name] ?? '');
  const isDefault = key === 'default';
  const ticked = new Set(Array.isArray(values.intervals) ? values.intervals : values.intervals ? [values.intervals] : []);
  const stepsError = fe.steps;
  const INTERVAL_WORDS: Record<string, string> = { day: 'Daily', week: 'Weekly', month: 'Monthly', year: 'Yearly', one_time: 'One-time' };
  return html`${errorSummary(fe)}<p><a href="${rewardsUrl(data.program.id, gid)}">← Rewards of ${scopeWords(data)}</a></p>
<form method="post" action="${rewardsUrl(data.program.id, null, '/rule')}" novalidate>${groupField(gid)}<input type="hidden" name="key" value="${key}">${view.rule ? html`<input type="hidden" name="rule_id" value="${view.rule.id}">` : ''}
<section aria-labelledby="rule-basics"><h2 id="rule-basics">${isDefault ? 'What a sale no rule matches pays' : 'The rule'}</h2>
${input('name', 'Name (partners see it in each commission)', values, fe, 'autocomplete="off" class="medium" maxlength="100"')}
${isDefault ? '' : select('event', 'Pays for', v('event') || 'sale', ['sale', 'lead', 'click'], fe, { sale: 'Sales', lead: "Leads (when the brand's server records the lead)", click: "Clicks (paid once a day for the day's clicks)" })}
${isDefault ? '' : html`<p class="muted" id="event-hint">A lead or a click pays one flat amount in the currency given below: a lead once, when the brand's server records it with the secret key (a lead recorded only from the browser pays nothing until the server settles it); clicks once a day, for each partner's clicks of the day just ended. Its only condition is the partner's tier; cap it per partner per month or by the monthly budget. Duration and months apply to sales only.</p>
${input('currency', 'Currency a lead or click is paid in (like EUR; a sale pays in its own)', values, fe, 'autocomplete="off" spellcheck="false" maxlength="3" class="short"')}`}</section>
<section aria-labelledby="rule-amount"><h2 id="rule-amount">How much</h2>
<p class="muted" id="steps-hint">A percentage of the sale (like 30 or 12.5) or a flat amount: for a sale in the sale's currency (10 is 10.00 USD, 10 EUR), for a lead or a click in the currency given above. Staggered: the first step through a month of the customer's tenure, the next after it; leave "through month" empty on the last.</p>
${stepsError ? html`<p class="error" id="steps">${stepsError}</p>` : ''}
${Array.from({ length: rowCount(values, 'step', STEP_ROWS) }, (_, i) => i + 1).map((n) => html`<fieldset class="question"><legend>Step ${n}${n > 1 ? ' (optional)' : ''}</legend><div class="row">
<div>${select(`step${n}_type`, 'Kind', v(`step${n}_type`) || 'percent', ['percent', 'flat'], fe, { percent: 'Percentage of the sale', flat: 'Flat amount' })}</div>
${input(`step${n}_rate`, 'Amount', values, fe, 'inputmode="decimal" autocomplete="off"')}
${input(`step${n}_through`, 'Through month (empty: to the end)', values, fe, 'inputmode="numeric" autocomplete="off"')}</div></fieldset>`)}
${select('duration', 'For how long', v('duration') || 'lifetime', ['first_sale', 'months', 'payments', 'lifetime'], fe, { first_sale: "The customer's first paid sale only", months: 'A number of months from the first paid sale', payments: 'A number of paid sales', lifetime: "The customer's lifetime" })}
${input('duration_n', 'How many months or paid sales', values, fe, 'inputmode="numeric" autocomplete="off"')}</section>
${isDefault ? html`<p class="muted">A default takes no conditions: it pays what no rule matched.</p>` : html`<section aria-labelledby="rule-when"><h2 id="rule-when">When it applies</h2>
<p class="muted">Every condition given must hold; an empty one always holds. Lists take commas.</p>
${input('products', 'Products (processor product ids)', values, fe, 'autocomplete="off" class="long" spellcheck="false"')}
${input('prices', 'Prices (price or variant ids)', values, fe, 'autocomplete="off" class="long" spellcheck="false"')}
<fieldset id="intervals"><legend>Billing intervals (none ticked: any)</legend>${BILLING_INTERVALS.map((i) => html`<label class="check"><input type="checkbox" name="intervals" value="${i}" ${ticked.has(i) ? raw('checked') : ''}> ${INTERVAL_WORDS[i]}</label>`)}
${fe.intervals ? html`<p class="error">${fe.intervals}</p>` : ''}</fieldset>
${input('countries', "Buyer's countries (like DE, AT, CH)", values, fe, 'autocomplete="off" spellcheck="false"')}
${input('min_amount', 'Sale at least (per currency, like 100.00 USD, 80 EUR)', values, fe, 'autocomplete="off"')}
${input('max_amount', 'Sale at most (per currency)', values, fe, 'autocomplete="off"')}
${select('customer', 'Customer', v('customer'), ['', 'new', 'existing'], fe, { '': 'Any customer', new: 'New (their first paid sale)', existing: 'Existing (a later sale)' })}
${input('tiers', "Partner's tiers (names, as on the Rewards page)", values, fe, 'autocomplete="off"')}</section>`}
<section aria-labelledby="rule-caps"><h2 id="rule-caps">Caps</h2>
${input('cap_customer', 'At most per customer, all time (per currency; empty: none)', values, fe, 'autocomplete="off"')}
${input('cap_partner_month', 'At most per partner per month (per currency; empty: none)', values, fe, 'autocomplete="off"')}
${fe.place ? html`<p class="error" id="place">${fe.place}</p>` : ''}
<div><button type="submit">${key === 'new' ? 'Add the rule to the draft' : 'Save to the draft'}</button></div></section></form>`;
}
