// The program's audit log page: who changed what, when and from where, filtered, paged, as CSV.
import type { SectionData } from '../../app/programs/dashboard-pages.js';
import { ACTOR_TYPES } from '../../core/audit.js';
import { type Html, html, raw } from '../kit/html.js';
import type { PartnerPagesView } from './partner-pages.js';
import { minute as when } from '../kit/components.js';

type Of<S extends SectionData['section']> = Extract<SectionData, { section: S }>;

const ACTOR_WORDS: Record<string, string> = { member: 'Team member', cli_token: 'CLI', operator: 'Operator (admin token)', system: 'Affix (scheduled)', applicant: 'Applicant', partner: 'Partner' };
const OBJECT_TYPES = ['program', 'partner', 'group', 'link', 'api_key', 'webhook_endpoint', 'commission', 'payout', 'payout_batch'];

const value = (v: unknown) => (v === null || v === undefined ? '—' : typeof v === 'object' ? JSON.stringify(v) : String(v));

export function auditSection(view: PartnerPagesView, data: Of<'audit'>): Html {
  const { base } = view;
  const f = data.auditFilter as Record<string, string | undefined>;
  const params = new URLSearchParams(Object.entries({ actor_type: f.actor_type, object_type: f.object_type, action: f.action }).filter(([, v]) => v) as [string, string][]);
  return html`<section id="audit"><h2>Audit log</h2>
<form method="get" action="${base}/audit" class="filter">
<div><label for="actor_type">Who</label><select id="actor_type" name="actor_type"><option value="">Anyone</option>${ACTOR_TYPES.map((a) => html`<option value="${a}" ${a === f.actor_type ? raw('selected') : ''}>${ACTOR_WORDS[a] ?? a}</option>`)}</select></div>
<div><label for="object_type">What</label><select id="object_type" name="object_type"><option value="">Anything</option>${OBJECT_TYPES.map((o) => html`<option value="${o}" ${o === f.object_type ? raw('selected') : ''}>${o.replaceAll('_', ' ')}</option>`)}</select></div>
<div><label for="action">Action (like partner.ban)</label><input id="action" name="action" value="${f.action ?? ''}"></div>
<div><button type="submit">Show</button></div></form>
<p><a href="${base}/audit.csv?${params.toString()}">Download these entries as CSV</a></p>
${data.log.entries.length === 0 ? html`<p>No change recorded${params.toString() ? ' for this filter' : ' yet'}.</p>` : html`<ul class="cards audit">${data.log.entries.map(
    (e) => html`<li class="card"><p><strong>${e.action}</strong> · ${e.object_type.replaceAll('_', ' ')}${e.object_id ? ` ${e.object_id}` : ''}</p>
<p class="muted">${when(e.created_at)} UTC · ${e.actor_label ?? ACTOR_WORDS[e.actor_type] ?? e.actor_type}${e.actor_label ? ` (${ACTOR_WORDS[e.actor_type] ?? e.actor_type})` : ''}${e.ip ? ` · from ${e.ip}` : ''}</p>
${Object.keys(e.changes).length ? html`<dl class="answers">${Object.entries(e.changes).map(([field, c]) => html`<div><dt>${field.replaceAll('_', ' ')}</dt><dd>${value(c.from)} → ${value(c.to)}</dd></div>`)}</dl>` : ''}</li>`,
  )}</ul>`}
${data.log.next_cursor ? html`<nav class="pager" aria-label="Audit pages"><a href="${base}/audit?${params.toString()}&before=${data.log.next_cursor}">Older entries</a></nav>` : ''}</section>`;
}
