// The program's Partners, Applications and Groups pages, one partner's page and the import
// page, rendered from what src/app gathered. Lists are cards (readable at 390 px without
// sideways scrolling); every action is a native form, so the keyboard reaches all of it.
import type { SectionData } from '../../app/programs/dashboard-pages.js';
import type { ImportReport } from '../../app/partners/import.js';
import type { SourceGroup } from '../../core/partners.js';
import type { partnerPage } from '../../app/partners/enrollments.js';
import { COMMISSION_STATE_WORDS, type CommissionState, noSaleWords } from '../../core/commission-ledger.js';
import { formatMoney } from '../../core/money.js';
import {
  ACTION_APPLIES_TO,
  PARTNER_ACTIONS,
  PARTNER_ACTION_WORDS,
  PARTNER_STATUSES,
  PARTNER_STATUS_WORDS,
  type PartnerAction,
  type PartnerStatus,
  REAPPLY_RULES,
  REAPPLY_WORDS,
  RISK_SIGNAL_WORDS,
  type RiskSignal,
  answersInFormOrder,
} from '../../core/partners.js';
import { COMMISSION_TYPE_WORDS, describeCommission } from '../../core/programs.js';
import { COMMISSION_TYPES, type Currency } from '../../core/types.js';
import type { GroupView } from '../../db/partners/groups.js';
import { type Html, field, html, raw, select } from '../kit/html.js';
import { minimumFields } from '../kit/forms.js';
import { dataTable } from '../kit/table.js';
import { isoDay as day, plural } from '../kit/components.js';

type Of<S extends SectionData['section']> = Extract<SectionData, { section: S }>;

export interface PartnerPagesView {
  base: string;
  publicUrl: string;
  fieldErrors: Record<string, string>;
  values?: Record<string, string>;
  /** The signed-in role may see partners' emails, IPs and payout details (a viewer may not). */
  people: boolean;
  /** The published reward rule set that pays this partner, when one does (docs/rewards.md). */
  rules?: { version: number; groupName: string | null } | null;
}

/** A person's address, or what a role that may not see it reads instead. */
const personal = (view: PartnerPagesView, value: string | null | undefined, none = '') => (view.people ? (value ?? none) : value ? 'email hidden for your role' : none);

const money = (cents: number, currency: string) => formatMoney(cents, currency as Currency);
const groupOptions = (groups: GroupView[], none = 'No group (program terms)') => [
  html`<option value="">${none}</option>`,
  ...groups.map((g) => html`<option value="${g.id}">${g.name}</option>`),
];
const statusBadge = (status: PartnerStatus) => html`<span class="badge ${status}">${PARTNER_STATUS_WORDS[status]}</span>`;

/** The bulk bar: one action, one reason for the batch, the group or the reapply rule where the action takes one. */
function bulkControls(prefix: string, actions: readonly PartnerAction[], groups: GroupView[], fe: Record<string, string>, reasonLabel: string, groupLabel: string): Html {
  return html`<fieldset class="bulk"><legend>With the selected ${prefix ? 'applications' : 'partners'}</legend>
<div>${select(`${prefix}action`, 'Action', actions[0]!, [...actions], fe, PARTNER_ACTION_WORDS)}</div>
<div><label for="${prefix}group_id">${groupLabel}</label><select id="${prefix}group_id" name="group_id">${groupOptions(groups, prefix ? 'The group they applied to' : 'No group (program terms)')}</select></div>
<div>${field(`${prefix}reason`, reasonLabel, '', fe)}</div>
<div><label for="${prefix}reapply">After a rejection</label><select id="${prefix}reapply" name="reapply">${REAPPLY_RULES.map((r) => html`<option value="${r}" ${r === 'after_30_days' ? raw('selected') : ''}>${REAPPLY_WORDS[r]}</option>`)}</select></div>
<div><button type="submit">Apply to the selected ${prefix ? 'applications' : 'partners'}</button></div></fieldset>`;
}

/** A sortable column: the sort it asks for, and the direction it starts with. */
const SORTABLE: Record<string, { sort: string; first: 'asc' | 'desc' }> = {
  Partner: { sort: 'name', first: 'asc' },
  Clicks: { sort: 'clicks', first: 'desc' },
  Leads: { sort: 'leads', first: 'desc' },
  Sales: { sort: 'sales', first: 'desc' },
  Revenue: { sort: 'revenue', first: 'desc' },
  Earned: { sort: 'commission', first: 'desc' },
  Joined: { sort: 'created', first: 'desc' },
};

/** Each currency on its own line (never converted, never added across currencies). */
const amounts = (lines: { currency: string; cents: number }[]): Html =>
  lines.length ? html`${lines.map((l, i) => html`${i ? raw('<br>\n') : ''}<span class="amount">${money(l.cents, l.currency)}</span>`)}` : html`<span class="muted">—</span>`;

export function partnersSection(view: PartnerPagesView, data: Of<'partners'>): Html {
  const { base } = view;
  const fe = view.fieldErrors;
  const { list, groups, query } = data;
  const q = (name: string) => query[name] ?? '';
  const filters = { q: q('q'), status: q('status'), group_id: q('group_id'), tag: q('tag') };
  const sort = list.filter.sort;
  const direction = q('direction') === 'asc' || q('direction') === 'desc' ? q('direction') : sort === 'name' ? 'asc' : 'desc';
  const currency = list.filter.currency;
  const params = (extra: Record<string, string>) => new URLSearchParams(Object.entries({ ...filters, sort, direction, currency, ...extra }).filter(([, v]) => v)).toString();
  const filterParams = new URLSearchParams(Object.entries(filters).filter(([, v]) => v));
  const refused = 'refused' in list ? (list as { refused: string }).refused : null;
  const moneyOf = (id: number) => data.money.get(id) ?? [];
  // The sort's currency first: the column reads in the order it sorts.
  const ordered = <T extends { currency: string }>(lines: T[]) => [...lines].sort((a, b) => Number(b.currency === currency) - Number(a.currency === currency) || a.currency.localeCompare(b.currency));
  const header = (column: string) => {
    const s = SORTABLE[column];
    const numeric = !['Partner', 'Status', 'Joined'].includes(column);
    if (!s) return html`<th scope="col">${column}</th>`;
    const current = s.sort === sort;
    const next = current ? (direction === 'asc' ? 'desc' : 'asc') : s.first;
    const money = s.sort === 'revenue' || s.sort === 'commission';
    return html`<th scope="col" ${numeric ? raw('class="num"') : ''} ${current ? raw(`aria-sort="${direction === 'asc' ? 'ascending' : 'descending'}"`) : ''}><a href="${base}/partners?${params({ sort: s.sort, direction: next })}">${column}${money && data.currencies.length > 1 ? html` <span class="muted">(${currency})</span>` : ''}</a>${current ? html`<span aria-hidden="true"> ${direction === 'asc' ? '▲' : '▼'}</span>` : ''}</th>`;
  };
  const columns = ['Partner', 'Status', 'Clicks', 'Leads', 'Sales', 'Revenue', 'Earned', 'Joined'];
  return html`<section id="partners"><h2>Partners</h2>
<form method="get" action="${base}/partners" class="filter" role="search">
<div><label for="q">${view.people ? 'Search name, email or payout reference' : 'Search name'}</label><input id="q" name="q" value="${q('q')}" type="search"></div>
<div><label for="status">Status</label><select id="status" name="status"><option value="">Any</option>${PARTNER_STATUSES.map((s) => html`<option value="${s}" ${s === q('status') ? raw('selected') : ''}>${PARTNER_STATUS_WORDS[s]}</option>`)}</select></div>
<div><label for="group_id">Group</label><select id="group_id" name="group_id"><option value="">Any</option>${groups.map((g) => html`<option value="${g.id}" ${String(g.id) === q('group_id') ? raw('selected') : ''}>${g.name}</option>`)}</select></div>
<div><label for="tag">Tag</label><input id="tag" name="tag" value="${q('tag')}"></div>
<input type="hidden" name="sort" value="${sort}"><input type="hidden" name="direction" value="${direction}"><input type="hidden" name="currency" value="${currency}">
<div><button type="submit">Filter</button></div></form>
${refused ? html`<p class="error" role="alert">${refused}</p>` : ''}
<p><a href="${base}/partners.csv?${filterParams.toString()}">Download these partners as CSV</a> · <a href="${base}/partners/import">Import partners from a CSV</a></p>
${data.currencies.length > 1 ? html`<nav class="presets" aria-label="Currency the money columns sort by"><span>Money sorts by:</span>${data.currencies.map((c) => html`<a href="${base}/partners?${params({ currency: c })}" ${c === currency ? raw('aria-current="true"') : ''}>${c}</a>`)}</nav>` : ''}
${list.partners.length === 0 ? html`<p>${filterParams.toString() ? 'No partner matches this search.' : 'No partners yet: add the first one below, or open your application page.'}</p>` : html`
<div class="bulk-scope">
<form method="post" action="${base}/partners/bulk" id="partners-bulk">
${Object.entries({ q: q('q'), status: q('status'), group_id_filter: q('group_id'), tag: q('tag') }).map(([k, v]) => html`<input type="hidden" name="filter_${k}" value="${v}">`)}
<label class="check"><input type="checkbox" name="all_matching" value="on"> Apply to every partner this search matches (not only the selected)</label>
<table class="cards partners-table"><caption class="visually-hidden">Partners; column headers sort</caption>
<thead><tr><th scope="col"><span class="visually-hidden">Tick</span></th>${columns.map(header)}</tr></thead><tbody>
${list.partners.map((p) => {
    const m = ordered(moneyOf(p.id));
    return html`<tr><td data-label=""><label class="check pick"><input type="checkbox" name="partner_ids" value="${p.id}"><span class="visually-hidden">Select ${p.name}</span></label></td>
<td data-label="Partner"><a href="${base}/partners/${p.id}"><strong>${p.name}</strong></a><br>
<span class="muted">${personal(view, p.email, 'no email')}${p.group_name ? ` · ${p.group_name}` : ''}${p.tags.length ? ` · ${p.tags.join(', ')}` : ''}</span></td>
<td data-label="Status">${statusBadge(p.status)}</td>
<td data-label="Clicks" class="num">${p.clicks}</td>
<td data-label="Leads" class="num">${p.leads}</td>
<td data-label="Sales" class="num">${p.sales}</td>
<td data-label="Revenue" class="num">${amounts(m.filter((x) => x.revenue_cents).map((x) => ({ currency: x.currency, cents: x.revenue_cents })))}</td>
<td data-label="Earned" class="num">${amounts(m.filter((x) => x.earned_cents).map((x) => ({ currency: x.currency, cents: x.earned_cents })))}</td>
<td data-label="Joined">${day(p.created_at)}</td></tr>`;
  })}</tbody></table>
<div class="bulk-bar${fe.bulk || fe.reason || fe.group_id || fe.action ? ' has-error' : ''}">
${fe.bulk ? html`<p class="error" role="alert" id="bulk">${fe.bulk}</p>` : ''}
${bulkControls('', PARTNER_ACTIONS, groups, fe, 'Reason (needed to reject and ban; one for the batch)', 'Group (to approve into or move to)')}</div>
<p class="muted bulk-hint">Tick partners to act on them together.</p></form></div>`}
${list.next_cursor ? html`<nav class="pager" aria-label="Partner pages"><a href="${base}/partners?${params({ after: list.next_cursor })}">Next partners</a></nav>` : ''}
</section>
<section id="add-partner"><h2>Add a partner</h2><form method="post" action="${base}/partners" novalidate>
${field('partner_name', 'New partner name', view.values?.partner_name ?? '', fe, 'required autocomplete="off"')}
${field('partner_email', 'Their email (to invite them to the partner portal; one partner per email)', view.values?.partner_email ?? '', fe, 'type="email" autocomplete="off"')}
<label for="partner_group">Group</label><select id="partner_group" name="partner_group">${groupOptions(groups)}</select>
${field('partner_tags', 'Tags (comma separated)', view.values?.partner_tags ?? '', fe)}
<div><button type="submit">Add partner</button></div></form></section>`;
}

export function applicationsSection(view: PartnerPagesView, data: Of<'applications'>): Html {
  const { base } = view;
  const fe = view.fieldErrors;
  const { settings, groups } = data;
  const pageUrl = settings.slug ? `${view.publicUrl}/apply/${settings.slug}` : null;
  return html`<section id="applications"><h2>Applications</h2>
<nav class="tabs" aria-label="Application states">${['pending', 'approved', 'rejected', 'all'].map((s) => html`<a href="${base}/applications?status=${s}" ${s === data.status ? raw('aria-current="page"') : ''}>${s.charAt(0).toUpperCase() + s.slice(1)}</a>`)}</nav>
<p><a href="${base}/applications.csv">Download every application as CSV</a></p>
${data.list.applications.length === 0 ? html`<p>No ${data.status === 'all' ? '' : data.status} application.</p>` : html`
<div class="bulk-scope">
<ul class="cards applications">${data.list.applications.map((a) => {
    const decide = `${base}/partners/${a.partner_id}/action`;
    const rejectId = `reject_reason_${a.partner_id}`;
    const answers = answersInFormOrder(settings.fields, a.answers);
    return html`<li class="card" id="application-${a.partner_id}">${a.partner_status === 'applied' ? html`<label class="check pick"><input type="checkbox" name="partner_ids" value="${a.partner_id}" form="applications-bulk"> Select <span class="visually-hidden">${a.name}</span></label>` : ''}
<h3><a href="${base}/partners/${a.partner_id}">${a.name}</a> ${statusBadge(a.partner_status as PartnerStatus)}</h3>
<p class="muted">${personal(view, a.email)} · applied ${day(a.created_at)}${a.group_name ? ` to ${a.group_name}` : ''} · accepted terms v${a.terms_version}${a.terms_ip && view.people ? ` from ${a.terms_ip}` : ''}</p>
${a.risk_signals.length ? html`<ul class="signals">${a.risk_signals.map((s: RiskSignal) => html`<li>${RISK_SIGNAL_WORDS[s]}</li>`)}</ul>` : html`<p class="ok">No risk signal.</p>`}
${answers.length ? html`<dl class="answers">${answers.map((x) => html`<div><dt>${x.label}</dt><dd>${x.value}</dd></div>`)}</dl>` : ''}
${a.status === 'rejected' ? html`<p>Rejected${a.reason ? `: ${a.reason}` : ''} (${REAPPLY_WORDS[a.reapply ?? 'never'].toLowerCase()}).</p>` : ''}${a.status === 'approved' && a.auto_decided ? html`<p class="muted">Approved automatically (the group's auto-approve).</p>` : ''}
${a.partner_status === 'applied' ? html`<div class="decide"><form method="post" action="${decide}" class="inline"><input type="hidden" name="action" value="approve"><input type="hidden" name="back" value="applications">
<button type="submit" class="approve">Approve <span class="visually-hidden">${a.name}</span></button></form>
<details class="reject" ${fe[rejectId] ? raw('open') : ''}><summary>Reject<span class="visually-hidden"> ${a.name}</span>…</summary>
<form method="post" action="${decide}" novalidate><input type="hidden" name="action" value="reject"><input type="hidden" name="back" value="applications">
<label for="${rejectId}">Reason (the applicant reads it)</label><input id="${rejectId}" name="reason" required autocomplete="off" ${fe[rejectId] ? raw(`aria-invalid="true" aria-describedby="${rejectId}-error"`) : ''}>
${fe[rejectId] ? html`<p class="error" id="${rejectId}-error">${fe[rejectId]}</p>` : ''}
<label for="reapply_${a.partner_id}">May apply again</label><select id="reapply_${a.partner_id}" name="reapply">${REAPPLY_RULES.map((r) => html`<option value="${r}" ${r === 'after_30_days' ? raw('selected') : ''}>${REAPPLY_WORDS[r]}</option>`)}</select>
<div><button type="submit" class="danger">Reject ${a.name}</button></div></form></details></div>` : ''}</li>`;
  })}</ul>
${data.list.applications.some((a) => a.partner_status === 'applied') ? html`<form method="post" action="${base}/partners/bulk" id="applications-bulk"><input type="hidden" name="back" value="applications">
<div class="bulk-bar${fe.bulk || fe.app_reason || fe.app_action ? ' has-error' : ''}">${fe.bulk ? html`<p class="error" role="alert" id="bulk">${fe.bulk}</p>` : ''}
${bulkControls('app_', ['approve', 'reject'], groups, fe, 'Reason (needed to reject; the applicants read it)', 'Group to approve into')}</div>
<p class="muted bulk-hint">Tick applications to decide several at once.</p></form>` : ''}</div>`}
${data.list.next_cursor ? html`<nav class="pager" aria-label="Application pages"><a href="${base}/applications?status=${data.status}&after=${data.list.next_cursor}">Next applications</a></nav>` : ''}</section>
<section id="application-page"><h2>Your application page</h2>
${pageUrl ? html`<p>${settings.applicationsOpen ? 'Open' : 'Closed'}: <a href="${pageUrl}">${pageUrl}</a>${groups.filter((g) => g.applications_open).map((g) => html` · <a href="${pageUrl}/${g.slug}">${g.name}</a>`)}</p>` : html`<p class="muted">Give the page an address to publish it.</p>`}
<form method="post" action="${base}/applications/settings" novalidate>
<label class="check"><input type="checkbox" name="applications_open" value="on" ${settings.applicationsOpen ? raw('checked') : ''}> Take applications on the program's page</label>
${field('slug', 'Page address (letters, digits and -)', view.values?.slug ?? settings.slug ?? '', fe, 'autocomplete="off"')}
<label for="terms_text">Program terms (version ${settings.termsVersion}; a change makes a new version)</label>
<textarea id="terms_text" name="terms_text" rows="6" ${fe.terms_text ? raw('aria-invalid="true" aria-describedby="terms_text-error"') : ''}>${view.values?.terms_text ?? settings.termsText}</textarea>
${fe.terms_text ? html`<p class="error" id="terms_text-error">${fe.terms_text}</p>` : ''}
<label for="partner_resources">Resources for your partners (logos, copy, guidelines), one per line; addresses become links in their portal</label>
<textarea id="partner_resources" name="partner_resources" rows="3" ${fe.partner_resources ? raw('aria-invalid="true" aria-describedby="partner_resources-error"') : ''}>${view.values?.partner_resources ?? settings.partnerResources}</textarea>
${fe.partner_resources ? html`<p class="error" id="partner_resources-error">${fe.partner_resources}</p>` : ''}
<p>${settings.fields.length ? `Questions asked: ${settings.fields.map((f) => f.label).join(', ')}.` : 'No question beyond name and email.'} <a href="${base}/brand#questions">Edit the questions</a> (and the brand partners see).</p>
<div><button type="submit">Save the application page</button></div></form></section>`;
}

function groupForm(action: string, prefix: string, g: Partial<GroupView>, fe: Record<string, string>, submit: string): Html {
  const check = (name: string, on: boolean | undefined, label: string) =>
    html`<label class="check"><input type="checkbox" name="${name}" value="on" ${on ? raw('checked') : ''}> ${label}</label>`;
  return html`<form method="post" action="${action}" novalidate>
${field(`${prefix}name`, 'Name', g.name ?? '', fe)}
${field(`${prefix}slug`, 'Address name (its application page: /apply/…/this)', g.slug ?? '', fe, 'autocomplete="off"')}
${select(`${prefix}commission_type`, 'Reward', g.commission_type ?? 'percent', [...COMMISSION_TYPES], fe, COMMISSION_TYPE_WORDS)}
${field(`${prefix}commission_rate`, 'Rate (percent, or amount for fixed rewards)', g.commission_rate === undefined ? '' : String(g.commission_rate), fe, 'inputmode="decimal"')}
${field(`${prefix}duration_months`, 'Recurring for (months; empty = forever)', g.duration_months ? String(g.duration_months) : '', fe, 'inputmode="numeric"')}
${field(`${prefix}hold_days`, 'Hold period (days before a commission is approved)', g.hold_days === undefined ? '30' : String(g.hold_days), fe, 'inputmode="numeric"')}
${minimumFields(`${prefix}minimum_`, (g.payout_minimums_cents ?? {}) as Partial<Record<Currency, number>>, fe)}
${check('partners_can_create_links', g.partners_can_create_links, 'Partners may create their own links')}
${check('applications_open', g.applications_open, 'Its application page takes applications')}
${check('auto_approve', g.auto_approve, 'Approve applicants at once unless a risk signal is seen')}
<div><button type="submit">${submit}</button></div></form>`;
}

export function groupsSection(view: PartnerPagesView, data: Of<'groups'>): Html {
  const { base } = view;
  const fe = view.fieldErrors;
  return html`<section id="groups"><h2>Groups</h2>
<p class="muted">A group carries complete terms: its partners are paid on them (a partner's own override comes first). A change applies to commissions made from then on.</p>
<p><a href="${base}/rewards">Reward rules</a>: pay by ordered rules (conditions, staggered amounts, tiers, caps) instead of one commission type — the program's, or a group's.</p>
${data.groups.length === 0 ? html`<p>No group yet: every partner is paid on the program's terms.</p>` : html`<ul class="cards">${data.groups.map(
    (g) => html`<li class="card"><h3>${g.name} <span class="muted">(${g.partners} partner${g.partners === 1 ? '' : 's'})</span></h3>
<p>${describeCommission(g.commission_type, String(g.commission_rate), g.duration_months)}; approved after ${g.hold_days} days${g.applications_open ? ' · takes applications' : ''}${g.auto_approve ? ' · auto-approves' : ''}</p>
<p><a href="${base}/partners?group_id=${g.id}">Its partners</a> · <a href="${base}/rewards?group=${g.id}">Reward rules of ${g.name}</a></p>
<details><summary>Edit ${g.name}</summary>${groupForm(`${base}/groups/${g.id}`, `g${g.id}_`, g, fe, `Save ${g.name}`)}</details></li>`,
  )}</ul>`}</section>
<section id="new-group"><h2>New group</h2>${groupForm(`${base}/groups`, 'new_', {}, fe, 'Create group')}</section>`;
}

type PartnerPage = Awaited<ReturnType<typeof partnerPage>>;

/** What a destructive action does, said before the button (never a default choice). */
const CONSEQUENCES: Partial<Record<PartnerAction, string>> = {
  reject: 'The applicant is told, with your reason.',
  archive: 'Their links are turned off; their history and commissions stay as they are. Restoring turns the links back on.',
  ban: 'Their links are turned off, their commissions awaiting approval are rejected, their open payouts are canceled, and their approved balance waits until the ban is lifted (lifting restores exactly this). They are told, with your reason.',
};
const DESTRUCTIVE: readonly PartnerAction[] = ['reject', 'archive', 'ban'];
/** Each button says what it does to whom. */
const ACTION_BUTTON: Record<PartnerAction, (name: string) => string> = {
  approve: (name) => `Approve ${name}`,
  reject: (name) => `Reject ${name}`,
  move_group: (name) => `Move ${name}`,
  archive: (name) => `Archive ${name}`,
  unarchive: (name) => `Restore ${name} from the archive`,
  ban: (name) => `Ban ${name}`,
  unban: (name) => `Lift the ban on ${name}`,
};
const METHOD_WORDS: Record<string, string> = { paypal: 'PayPal', wise: 'Wise', bank_transfer: 'Bank transfer', stripe: 'Stripe' };

export function partnerPageBody(view: PartnerPagesView, data: PartnerPage): Html {
  const { base } = view;
  const fe = view.fieldErrors;
  const p = data.partner;
  const url = `${base}/partners/${p.id}`;
  const actions = PARTNER_ACTIONS.filter((a) => a !== 'move_group' && ACTION_APPLIES_TO[a].includes(p.status));
  const terms = p.terms;
  const cell = (cents: number, currency: string) => (cents ? money(cents, currency) : html`<span class="muted">${money(0, currency)}</span>`);
  const actionForm = (a: PartnerAction) => {
    const reasonId = `${a}_reason`;
    const needsReason = a === 'reject' || a === 'ban';
    const form = html`<form method="post" action="${url}/action" novalidate><input type="hidden" name="action" value="${a}">
${CONSEQUENCES[a] ? html`<p>${CONSEQUENCES[a]}</p>` : ''}
${DESTRUCTIVE.includes(a) ? html`<label for="${reasonId}">Reason${needsReason ? ' (required)' : ' (kept in the history)'}</label><input id="${reasonId}" name="reason" autocomplete="off" ${needsReason ? raw('required') : ''} ${fe[reasonId] ? raw(`aria-invalid="true" aria-describedby="${reasonId}-error"`) : ''}>
${fe[reasonId] ? html`<p class="error" id="${reasonId}-error">${fe[reasonId]}</p>` : ''}` : ''}
${a === 'reject' ? html`<label for="reject_reapply">May apply again</label><select id="reject_reapply" name="reapply">${REAPPLY_RULES.map((r) => html`<option value="${r}" ${r === 'after_30_days' ? raw('selected') : ''}>${REAPPLY_WORDS[r]}</option>`)}</select>` : ''}
<div><button type="submit" ${DESTRUCTIVE.includes(a) ? raw('class="danger"') : ''}>${ACTION_BUTTON[a](p.name)}</button></div></form>`;
    return DESTRUCTIVE.includes(a) ? html`<details class="destructive" ${fe[reasonId] ? raw('open') : ''}><summary>${PARTNER_ACTION_WORDS[a]} this partner…</summary>${form}</details>` : form;
  };
  return html`<p><a href="${base}/partners">← All partners</a></p>
<section id="profile"><h2>${p.name} ${statusBadge(p.status)}</h2>
<p class="muted">${personal(view, p.email, 'No email yet')} · partner ${p.id} · since ${day(p.created_at)}${p.group_name ? ` · ${p.group_name}` : ''}${p.invited_at ? ` · invited ${day(p.invited_at)}` : ''}</p>
${p.sanction ? html`<p class="error">${p.sanction.kind === 'ban' ? 'Banned' : 'Archived'} on ${day(p.sanction.created_at)}: ${p.sanction.reason}</p>` : ''}
<p>Paid on: ${view.rules ? html`<strong>reward rules</strong> (the rule set of ${view.rules.groupName ? `group ${view.rules.groupName}` : 'the program'}, version ${view.rules.version}; each commission says which rule)` : html`<strong>${describeCommission(terms.commission_type, String(terms.commission_rate), terms.duration_months)}</strong> (${terms.source === 'override' ? `own terms: ${terms.override_source}` : terms.source === 'group' ? `group ${p.group_name}` : 'program terms'})`}, approved after ${terms.hold_days} days.</p>
<p id="payout-method">Payout method: ${p.payout_method ? html`<strong>${METHOD_WORDS[p.payout_method] ?? p.payout_method}</strong>${view.people && p.payout_reference ? ` to ${p.payout_reference}` : ''}${p.payout_currency ? ` · paid in ${p.payout_currency}` : ''}` : html`<strong>none yet</strong> <span class="muted">(the partner sets it in their portal; nothing can be paid until then)</span>`}</p>
${data.elsewhere.length ? html`<p>Also in: ${data.elsewhere.map((e, i) => html`${i ? ', ' : ''}${e.program_name} (${PARTNER_STATUS_WORDS[e.status]})`)}</p>` : ''}</section>
<section id="partner-money"><h2>Money</h2>
<dl class="numbers"><div><dt>Clicks</dt><dd>${data.funnel.clicks}</dd></div><div><dt>Leads</dt><dd>${data.funnel.leads}</dd></div><div><dt>Customers</dt><dd>${data.funnel.buyers}</dd></div></dl>
${data.money.length ? dataTable(
    ['Currency', 'Sales', 'Revenue', 'Earned', 'Awaiting approval', 'Owed', 'Paid', 'Refunded'],
    data.money.map((m) => [m.currency, m.sales, cell(m.revenue_cents, m.currency), cell(m.earned_cents, m.currency), cell(m.pending_cents, m.currency), cell(m.owed_cents, m.currency), cell(m.paid_cents, m.currency), m.reversed ? `${m.reversed} commission${m.reversed === 1 ? '' : 's'} taken back` : 'none taken back']),
    { id: 'money-table', caption: `${p.name}'s money per currency, all time` },
  ) : html`<p>No sale yet.</p>`}
<p class="muted">Earned is net of refunds; owed is approved and not yet paid; each currency is paid on its own, never converted.</p></section>
<section id="links"><h2>Links</h2>${data.links.length ? dataTable(
    ['Link', 'State', 'Clicks', 'Leads', 'Sales'],
    data.links.map((l) => [html`<code>${l.short_link}</code>`, l.enabled ? 'On' : l.disabled_by_sanction_id ? `Off (turned off by the ${p.sanction?.kind === 'archive' ? 'archive' : 'ban'})` : 'Off', l.clicks, l.leads, l.sales]),
    { id: 'links-table', caption: `${p.name}'s links, all time` },
  ) : html`<p>No link yet: <a href="${base}/links">create one</a>.</p>`}</section>
<section id="partner-commissions"><h2>Commissions</h2>${data.commissions.length ? dataTable(
    ['Date', 'Sale', 'Earned', 'State', 'Why'],
    data.commissions.map((c: any) => [day(c.created_at), c.transaction_id ? html`<code>${c.transaction_id}</code>` : noSaleWords({ leadCustomerId: c.lead_customer_id, clickRewardDayId: c.click_reward_day_id, bountyAwardId: c.bounty_award_id }), html`<strong>${money(c.earned_cents, c.currency)}</strong>${c.earned_cents !== c.amount_cents ? html` <span class="muted">of ${money(c.amount_cents, c.currency)}</span>` : ''}`, html`<span class="badge state-${c.state}">${COMMISSION_STATE_WORDS[c.state as CommissionState]}</span>`, c.reward_words ?? (c.terms ? `${c.terms.source} terms (${describeCommission(c.terms.commission_type, String(c.terms.commission_rate), c.terms.duration_months)})` : '')]),
    { id: 'commissions-table', caption: `${p.name}'s latest commissions` },
  ) : html`<p>None yet.</p>`}</section>
<section id="partner-payouts"><h2>Payouts</h2>${data.payouts.length ? dataTable(
    ['Date', 'Amount', 'Status', 'Reference'],
    data.payouts.map((o: any) => [day(o.created_at), money(o.amount_cents, o.currency), `${String(o.status).charAt(0).toUpperCase()}${String(o.status).slice(1)}`, o.reference ?? '']),
    { id: 'payouts-table', caption: `${p.name}'s payouts` },
  ) : html`<p>None yet.</p>`}</section>
<section id="actions"><h2>Actions</h2>
${actions.filter((a) => !DESTRUCTIVE.includes(a)).map(actionForm)}
<form method="post" action="${url}/action" novalidate><input type="hidden" name="action" value="move_group">
<label for="move_group_id">Group</label><select id="move_group_id" name="group_id">${data.groups.map((g) => html`<option value="${g.id}" ${g.id === p.group_id ? raw('selected') : ''}>${g.name}</option>`)}<option value="" ${p.group_id === null ? raw('selected') : ''}>No group (program terms)</option></select>
${fe.group_id ? html`<p class="error">${fe.group_id}</p>` : ''}
<div><button type="submit">Move to this group</button></div></form>
${p.email ? html`<form method="post" action="${base}/partners/${p.id}/invite" class="inline"><button type="submit">${p.invited_at ? 'Send a new sign-in link' : 'Invite to the partner portal'}</button></form>` : ''}
${actions.some((a) => DESTRUCTIVE.includes(a)) ? html`<h3>Stop working with ${p.name}</h3>${actions.filter((a) => DESTRUCTIVE.includes(a)).map(actionForm)}` : ''}</section>
<section id="edit"><h2>Profile and notes</h2><form method="post" action="${url}" novalidate>
${field('name', 'Name', view.values?.name ?? p.name, fe)}
${view.people ? field('email', 'Email (one partner per email)', view.values?.email ?? p.email ?? '', fe, 'type="email"') : ''}
${field('tags', 'Tags (comma separated)', view.values?.tags ?? p.tags.join(', '), fe)}
<label for="notes">Private notes (only your team sees them)</label><textarea id="notes" name="notes" rows="3">${view.values?.notes ?? p.notes ?? ''}</textarea>
<div><button type="submit">Save profile</button></div></form></section>
<section id="override"><h2>Own terms</h2>
<p class="muted">An override wins over the group and the program for commissions made from now on.</p>
<form method="post" action="${url}/override" novalidate>
${select('commission_type', 'Reward', terms.source === 'override' ? terms.commission_type : 'percent', [...COMMISSION_TYPES], fe, COMMISSION_TYPE_WORDS)}
${field('commission_rate', 'Rate', terms.source === 'override' ? String(terms.commission_rate) : '', fe, 'inputmode="decimal"')}
${field('duration_months', 'Recurring for (months; empty = forever)', '', fe, 'inputmode="numeric"')}
${field('source', 'Where the deal comes from (a contract, an email)', terms.override_source ?? '', fe)}
<div><button type="submit">Save own terms</button></div></form>
${terms.source === 'override' ? html`<form method="post" action="${url}/override/remove"><button type="submit">Remove own terms</button></form>` : ''}</section>
<section id="history"><h2>History</h2><ul>
${data.applications.map((a: any) => html`<li>${day(a.created_at)}: applied (terms v${a.terms_version}${a.terms_ip && view.people ? ` from ${a.terms_ip}` : ''}) — ${a.status}${a.reason ? `: ${a.reason}` : ''}</li>`)}
${data.sanctions.map((s: any) => html`<li>${day(s.created_at)}: ${s.kind === 'ban' ? 'banned' : 'archived'} (${s.reason})${s.lifted_at ? ` — lifted ${day(s.lifted_at)}` : ''}</li>`)}
<li>${day(p.created_at)}: joined the program</li></ul></section>`;
}

/** The import's state after an upload: the kept file, its columns, and the brand's choices so far. */
export interface ImportFlow {
  /** The kept file's address (its confirm and its mapping post here). */
  action: string;
  fileColumns: string[];
  /** Column indexes left out. */
  ignored: Set<number>;
  /** The header of the group/campaign column read, if any. */
  groupColumn: string | null;
  /** Each distinct value of that column (the file's order) with its rows and where it goes without the brand's choice. */
  sources: SourceGroup[];
  /** By the source's index: '' (unmapped), 'none', 'new' or 'group:<id>'. */
  choices: Record<number, string>;
  newNames: Record<number, string>;
  groups: { id: number; name: string }[];
  /** By column index: the field it is read as (an ignored or unknown column is not read). */
  readAs: Record<number, string>;
}

const MAPS_TO_WORDS = (s: SourceGroup): string =>
  s.maps_to === 'existing' ? `the group “${s.group_name}”` : s.maps_to === 'new' ? `a new group “${s.group_name}” (made by the import)` : s.maps_to === 'none' ? 'no group' : 'not mapped: its rows are refused';

/** The choices as hidden fields (the next step carries them). */
const flowFields = (flow: ImportFlow): Html =>
  html`${[...flow.ignored].map((i) => html`<input type="hidden" name="ignore_${i}" value="on">`)}${flow.sources.map((_, i) => html`<input type="hidden" name="map_${i}" value="${flow.choices[i] ?? ''}"><input type="hidden" name="new_name_${i}" value="${flow.newNames[i] ?? ''}">`)}`;

/** The mapping step: where each value of the file's group/campaign column goes, and the columns left out. */
function mappingStep(view: PartnerPagesView, flow: ImportFlow): Html {
  const fe = view.fieldErrors;
  // Each field's id is its name: the error summary at the top links to it.
  const invalid = (name: string) => (fe[name] ? raw(`aria-invalid="true" aria-describedby="${name}-error"`) : '');
  const error = (name: string) => (fe[name] ? html`<p class="error" id="${name}-error">${fe[name]}</p>` : '');
  return html`<section id="import-mapping"><h2>Map the file to this program</h2>
<form method="post" action="${flow.action}" novalidate><input type="hidden" name="step" value="check">
${flow.groupColumn && flow.sources.length
    ? html`<fieldset><legend>Groups for the values of the column “${flow.groupColumn}”</legend>
<p>Choose where the partners of each value go. A value left unmapped is refused on every row, as without a mapping.</p>
${flow.sources.map((s, i) => {
        const choice = flow.choices[i] ?? '';
        return html`<div class="mapping-row"><label for="map_${i}">“${s.source}” (${s.rows} row${s.rows === 1 ? '' : 's'})</label>
<select id="map_${i}" name="map_${i}" ${invalid(`map_${i}`)}><option value="" ${choice === '' ? raw('selected') : ''}>Not mapped (rows refused)</option>
${flow.groups.length ? html`<optgroup label="Existing groups">${flow.groups.map((g) => html`<option value="group:${g.id}" ${choice === `group:${g.id}` ? raw('selected') : ''}>${g.name}</option>`)}</optgroup>` : ''}
<option value="new" ${choice === 'new' ? raw('selected') : ''}>New group named …</option>
<option value="none" ${choice === 'none' ? raw('selected') : ''}>No group</option></select>${error(`map_${i}`)}
<label for="new_name_${i}">Name of the new group for “${s.source}”, if one is made</label><input id="new_name_${i}" name="new_name_${i}" maxlength="100" value="${flow.newNames[i] ?? s.source}" ${invalid(`new_name_${i}`)}>${error(`new_name_${i}`)}</div>`;
      })}</fieldset>`
    : ''}
<fieldset><legend>Columns to ignore</legend><p>An ignored column is not read (its payout emails, its codes, its campaigns are left out).</p>
${flow.fileColumns.map((c, i) => html`<label class="check"><input type="checkbox" name="ignore_${i}" value="on" ${flow.ignored.has(i) ? raw('checked') : ''}> ${c || `(column ${i + 1}, no header)`}${flow.readAs[i] ? html` <span class="muted">(read as ${flow.readAs[i]})</span>` : flow.ignored.has(i) ? '' : html` <span class="muted">(not read)</span>`}</label>`)}</fieldset>
<div><button type="submit">Check the file with this mapping (dry run)</button></div></form></section>`;
}

const OUTCOME_WORDS: Record<ImportReport['sample'][number]['outcome'], string> = { create: 'new partner', add_link: 'new link', unchanged: 'already here' };

export function importPageBody(view: PartnerPagesView, report: ImportReport | null, flow: ImportFlow | null = null, step: 'map' | 'report' = 'report'): Html {
  const { base } = view;
  const fe = view.fieldErrors;
  const shown = report?.problems.slice(0, 500) ?? [];
  if (flow && step === 'map') return html`<p><a href="${base}/partners">← All partners</a></p>${mappingStep(view, flow)}`;
  return html`<p><a href="${base}/partners">← All partners</a></p>
${report ? html`<section id="import-report" aria-live="polite"><h2>${report.dry_run ? 'Dry run: nothing was written' : 'Imported'}</h2>
<p>${plural(report.rows, 'row')}: ${report.create} new partner${report.create === 1 ? '' : 's'}, ${report.add_link} new link${report.add_link === 1 ? '' : 's'} for partners already here, ${report.unchanged} already here unchanged, ${report.problems.length} with problems (left out).</p>
${report.written ? html`<p class="ok">Written: ${plural(report.written.partners, 'partner')}, ${plural(report.written.links, 'link')}${report.written.groups ? `, ${report.written.groups} new group${report.written.groups === 1 ? '' : 's'}` : ''}.</p>` : ''}
<p class="muted">Columns read: ${Object.entries(report.columns).map(([f, c]) => `${f} ← "${c}"`).join(', ')}${report.ignored_columns.length ? `; ignored: ${report.ignored_columns.map((c) => `"${c}"`).join(', ')}` : ''}</p>
${report.groups.length ? html`<h3>Groups</h3>${dataTable(['In the file', 'Rows', 'Goes to'], report.groups.map((g) => [g.source, g.rows, MAPS_TO_WORDS(g)]), { id: 'import-groups', caption: 'Groups in the file' })}` : ''}
${report.dry_run && report.sample.length && view.people ? html`<h3>First rows</h3>${dataTable(['Line', 'Name', 'Email', 'Code', 'Group', 'Outcome'], report.sample.map((r) => [r.line, r.name, r.email ?? '', r.code ?? '', r.group ?? '', OUTCOME_WORDS[r.outcome]]), { id: 'import-sample', caption: 'First rows of the file' })}` : ''}
${shown.length ? html`<h3>Rows with problems</h3><ul class="problems">${shown.map((p) => html`<li>Line ${p.line}: ${p.problems.join('; ')}</li>`)}</ul>${report.problems.length > shown.length ? html`<p>… and ${report.problems.length - shown.length} more (fix these first).</p>` : ''}` : ''}
${report.dry_run && flow && report.create + report.add_link > 0 ? html`<form method="post" action="${flow.action}"><input type="hidden" name="step" value="confirm">${flowFields(flow)}
<div><button type="submit">Import the ${plural(report.create + report.add_link, 'good row')}</button></div></form>` : ''}
${report.dry_run && flow ? html`<form method="post" action="${flow.action}"><input type="hidden" name="step" value="map">${flowFields(flow)}<div><button type="submit" class="secondary">Change the mapping</button></div></form>` : ''}</section>` : ''}
<section id="import"><h2>Import partners from a CSV</h2>
<p>Columns are found by their names: Affix's own export, and the affiliate exports of Rewardful (first_name, last_name, email, token, paypal_email, campaign), FirstPromoter (Email, First Name, Last Name, Ref ID) and Tolt (first_name, last_name, email, referral code). Their referral codes are kept. A partner already here (same email) is left as it is. When the file's campaigns or groups are not groups of this program, you map each to a group, a new group or none before the dry run.</p>
<form method="post" action="${base}/partners/import" enctype="multipart/form-data" novalidate>
<label for="file">CSV file (at most 20 MB)</label><input id="file" name="file" type="file" accept=".csv,text/csv" ${fe.file ? raw('aria-invalid="true" aria-describedby="file-error"') : ''}>
${fe.file ? html`<p class="error" id="file-error">${fe.file}</p>` : ''}
<input type="hidden" name="dry_run" value="true">
<div><button type="submit">Check the file (dry run)</button></div></form></section>`;
}
