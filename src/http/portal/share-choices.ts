// The "Share with <program> (<brand>)" boxes of the portal's invoice and tax details forms: the
// person's enrollments, ticked for those that see their details (docs/payouts.md, "Who sees a
// partner's details"). Nothing is ticked until the person ticks it.
import type { ShareChoice } from '../../db/money/partner-detail-shares.js';
import { type Html, html, raw } from '../kit/html.js';

/** `typed`: the ids ticked in a refused post (kept as ticked); else what is shared now. */
export function shareFieldset(choices: ShareChoice[], typed: number[] | null): Html {
  const ticked = (c: ShareChoice) => (typed ? typed.includes(c.partnerId) : c.shared);
  return html`<fieldset id="share-with"><legend>Who sees these details</legend>
<p class="muted">They go to a program only when you tick it here (one choice for your invoice and tax details). A program added under your email later sees nothing until you tick it; untick to stop sharing.</p>
${choices.length
  ? choices.map((c) => html`<label class="check"><input type="checkbox" name="share" value="${String(c.partnerId)}" ${ticked(c) ? raw('checked') : ''}> Share with ${c.programName} (${c.brandName})</label>`)
  : html`<p>No program lists you under this email yet.</p>`}
</fieldset>`;
}
