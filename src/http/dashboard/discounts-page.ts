// The program's Discounts page (docs/discounts.md): each group's discount for referred buyers,
// its live codes and the processor's last refusal, the form that gives a group one, and the
// Paddle and Lemon Squeezy API keys Affix makes codes with.
import type { SectionData } from '../../app/programs/dashboard-pages.js';
import { PROCESSORS, PROCESSOR_NAMES } from '../../core/processor-names.js';
import { type Html, field, html, select } from '../kit/html.js';
import { minute as when } from '../kit/components.js';

type Of<S extends SectionData['section']> = Extract<SectionData, { section: S }>;

export interface DiscountsView {
  base: string;
  fieldErrors: Record<string, string>;
  values?: Record<string, string>;
}

const DURATION_WORDS = { once: 'The first payment', repeating: 'A number of months', forever: 'Every payment' };

export function discountsSection(view: DiscountsView, data: Of<'discounts'>): Html {
  const { base } = view;
  const fe = view.fieldErrors;
  const v = (name: string, fallback = '') => view.values?.[name] ?? fallback;
  const keyOf = (processor: string) => data.apiKeys.find((k) => k.processor === processor);
  const ready = { stripe: data.stripeConnected, paddle: !!keyOf('paddle'), lemonsqueezy: !!keyOf('lemonsqueezy')?.storeId };
  return html`<section id="discounts" aria-labelledby="discounts-title"><h2 id="discounts-title">Discounts for referred buyers</h2>
<p class="muted">A group may give its partners' buyers a discount. Affix makes a code for each approved partner in your processor (from their link code, like <code>JANE</code>), deactivates it when the partner is banned, archived or moves group, and attributes sales made with it to the partner. Your site shows it with <code>affix.getDiscount()</code>.</p>
${data.discounts.length === 0 ? html`<p>No group gives a discount yet.</p>` : html`<ul class="cards">${data.discounts.map(
    (d) => html`<li class="card"><h3>${d.group_name}: ${d.description}</h3>
<p>${PROCESSOR_NAMES[d.processor]} · ${d.live_codes} live code${d.live_codes === 1 ? '' : 's'} · since ${when(d.created_at)} UTC</p>
${d.last_error ? html`<p class="fail" role="status">${PROCESSOR_NAMES[d.processor]} last refused (${d.last_error_at ? `${when(d.last_error_at)} UTC` : ''}): ${d.last_error}</p>` : ''}
<div class="actions"><form method="post" action="${base}/groups/${d.group_id}/discount/codes" class="inline"><button type="submit">Make missing codes for ${d.group_name}</button></form>
<form method="post" action="${base}/groups/${d.group_id}/discount/remove" class="inline"><button type="submit" class="danger">End the discount of ${d.group_name}</button></form></div>
<p class="muted">Ending it deactivates its codes; sales already made keep their partner.</p></li>`,
  )}</ul>`}</section>
<section id="new-discount" aria-labelledby="new-discount-title"><h2 id="new-discount-title">Give a group a discount</h2>
${data.groups.length === 0 ? html`<p>Create a group first (Groups page): a discount is given by a group.</p>` : html`<form method="post" action="${base}/discount" novalidate>
${select('group_id', 'Group', v('group_id'), data.groups.map((g) => String(g.id)), fe, Object.fromEntries(data.groups.map((g) => [String(g.id), g.name])))}
${select('processor', 'Processor', v('processor', 'stripe'), [...PROCESSORS], fe, Object.fromEntries(PROCESSORS.map((p) => [p, `${PROCESSOR_NAMES[p]}${ready[p] ? '' : ' (not set up yet)'}`])))}
${select('type', 'Kind', v('type', 'percent'), ['percent', 'amount'], fe, { percent: 'A percentage off', amount: 'An amount off' })}
${field('percent', 'Percentage off (for a percentage)', v('percent'), fe, 'inputmode="decimal" class="short"')}
${field('amount', 'Amount off (for an amount)', v('amount'), fe, 'inputmode="decimal" class="short"')}
${field('currency', 'Currency of the amount (like USD)', v('currency'), fe, 'class="short" maxlength="3" autocapitalize="characters"')}
${select('duration', 'Applies to', v('duration', 'once'), ['once', 'repeating', 'forever'], fe, DURATION_WORDS)}
${field('duration_months', 'Months (for a number of months)', v('duration_months'), fe, 'inputmode="numeric" class="short"')}
<p class="muted">Paddle repeats a discount per billing period, so it takes the first payment or every payment; Lemon Squeezy takes whole percentages, and amounts in the store's currency. A group's new discount replaces the one it gave.</p>
<div><button type="submit">Give the discount</button></div></form>`}</section>
<section id="discount-keys" aria-labelledby="discount-keys-title"><h2 id="discount-keys-title">Processor API keys</h2>
<p>Stripe: ${data.stripeConnected ? html`<span class="ok">codes are made on the connected Stripe account</span>` : html`<span class="muted">connect the program's Stripe account on the Stripe page first</span>`}.</p>
${(['paddle', 'lemonsqueezy'] as const).map((processor) => {
    const saved = keyOf(processor);
    const name = PROCESSOR_NAMES[processor];
    return html`<form method="post" action="${base}/processor-api-keys/${processor}" novalidate><h3>${name}</h3>
<p class="muted">${saved ? `An API key is saved${processor === 'lemonsqueezy' && saved.storeId ? ` for store ${saved.storeId}` : ''}${saved.sandbox ? ' (sandbox)' : ''}. It is stored encrypted and never shown.` : `No API key saved. ${processor === 'paddle' ? 'Paddle → Developer tools → Authentication: a key with discount.write.' : 'Lemon Squeezy → Settings → API.'}`}</p>
${field(`${processor}_api_key`, `${name} API key${saved ? ' (enter a new one to replace it)' : ''}`, '', fe, 'autocomplete="off" class="long"')}
${processor === 'lemonsqueezy' ? field('lemonsqueezy_store_id', 'Store id', saved?.storeId ?? '', fe, 'inputmode="numeric" class="short"') : html`<div><label><input type="checkbox" name="sandbox" value="true" ${saved?.sandbox ? 'checked' : ''}> A Paddle sandbox account</label></div>`}
<div><button type="submit">Save the ${name} key</button></div></form>`;
  })}</section>`;
}
