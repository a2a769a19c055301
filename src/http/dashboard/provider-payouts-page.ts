// The Payouts page's parts for paying through PayPal or Wise (docs/payouts.md): the "Pay through"
// buttons of a batch, each payout's outcome with the provider, and the credentials' forms
// (write-only: a saved secret shows only as "set, ends with …").
import type { ProviderAccountView, ProviderItem } from '../../app/money/payout-providers.js';
import { type Html, field, html, raw } from '../kit/html.js';

export interface ProviderPanel {
  accounts: ProviderAccountView[];
  items: ProviderItem[];
}

const NAMES = { paypal: 'PayPal', wise: 'Wise', stripe: 'Stripe' } as const;

/**
 * "Pay batch N through PayPal/Wise/Stripe" where the batch has pending payouts of that method and
 * the provider is set up (PayPal, Wise: the brand's credentials; Stripe: STRIPE_SECRET_KEY).
 */
export function payThroughButtons(base: string, batchId: number, payouts: { batchId: number; status: string; payoutMethod: string | null }[], panel: ProviderPanel, fe: Record<string, string>, stripeTransfers = false): Html {
  const refused = fe[`pay_batch_${batchId}`];
  const buttons = (['paypal', 'wise', 'stripe'] as const).filter((provider) =>
    (provider === 'stripe' ? stripeTransfers : panel.accounts.some((a) => a.provider === provider)) && payouts.some((p) => p.batchId === batchId && p.status === 'pending' && p.payoutMethod === provider));
  if (buttons.length === 0) return refused ? html`<p class="error" role="alert">${refused}</p>` : html``;
  return html`${refused ? html`<p class="error" role="alert">${refused}</p>` : ''} ${buttons.map((provider) => html`<form method="post" action="${base}/payouts/batches/${batchId}/pay" class="inline"><input type="hidden" name="provider" value="${provider}"><button type="submit">Pay batch ${batchId} through ${NAMES[provider]}</button></form> `)}`;
}

/** A payout's outcome with its provider, in words: on its way, paid, failed with the reason, or not sent and why. */
export function providerOutcome(payoutId: number, panel: ProviderPanel, payoutStatus?: string): Html {
  const item = panel.items.find((i) => i.payoutId === payoutId);
  // Not sent, then paid another way (by hand, the payout's own Stripe button): the payout's reference says how.
  if (!item || (item.outcome === 'not_sent' && payoutStatus === 'paid')) return html``;
  const name = NAMES[item.provider];
  const ref = item.providerItemId ? ` (${item.providerItemId})` : '';
  switch (item.outcome) {
    case 'sending': return html`<p class="muted">Sending through ${name}…</p>`;
    case 'open': return html`<p>On its way through ${name}${ref}${item.providerStatus ? `: ${item.providerStatus}` : ''}${item.reason ? html` <span class="muted">${item.reason}</span>` : ''}</p>`;
    case 'paid': return item.reason ? html`<p class="fail">Paid through ${name}${ref}. ${item.reason}</p>` : html`<p class="ok">Paid through ${name}${ref}</p>`;
    case 'failed': return html`<p class="fail">Failed through ${name}${ref}: ${item.reason ?? ''}</p>`;
    case 'not_sent': return html`<p class="fail">Not sent through ${name}: ${item.reason ?? ''}</p>`;
  }
}

/** The credentials' forms (owner, admin, finance): a secret is never shown back, only its last four characters. */
export function providerSettingsSection(base: string, panel: ProviderPanel, fe: Record<string, string>): Html {
  const paypal = panel.accounts.find((a) => a.provider === 'paypal');
  const wise = panel.accounts.find((a) => a.provider === 'wise');
  const open = Object.keys(fe).some((k) => /^(paypal|wise)_/.test(k));
  const state = (a: ProviderAccountView | undefined) => (a ? `${a.sandbox ? 'sandbox; ' : ''}secret ${a.secret}` : 'not set up');
  // Inside the Payout and fraud settings (money-pages.ts): set once, and the Payouts page stays short.
  return html`<div id="payout-providers"><details ${open ? raw('open') : ''}><summary><h3 class="inline">Pay through PayPal or Wise</h3> <span class="muted">PayPal: ${state(paypal)}; Wise: ${state(wise)}</span></summary>
<p class="muted">With these, a batch's PayPal or Wise payouts are paid from this page ("Pay batch N through …"), then followed until each is paid or fails. The secret is stored encrypted and never shown again; leave it empty to keep the saved one.</p>
<form method="post" action="${base}/payouts/providers/paypal" novalidate><h4>PayPal (Payouts API)</h4>
${field('paypal_client_id', 'Client id of your PayPal REST app', paypal?.clientId ?? '', fe, 'autocomplete="off"')}
${field('paypal_client_secret', paypal ? `Client secret (${paypal.secret})` : 'Client secret', '', fe, 'type="password" autocomplete="new-password"')}
<label class="check"><input type="checkbox" name="paypal_sandbox" value="on" ${paypal?.sandbox ? raw('checked') : ''}> PayPal's sandbox (test money)</label>
<div><button type="submit">Save PayPal</button></div></form>
<form method="post" action="${base}/payouts/providers/wise" novalidate><h4>Wise</h4>
${field('wise_profile_id', 'Profile id (the Wise profile that pays)', wise?.profileId ? String(wise.profileId) : '', fe, 'inputmode="numeric" autocomplete="off"')}
${field('wise_api_token', wise ? `API token (${wise.secret})` : 'API token', '', fe, 'type="password" autocomplete="new-password"')}
<label class="check"><input type="checkbox" name="wise_sandbox" value="on" ${wise?.sandbox ? raw('checked') : ''}> Wise's sandbox (test money)</label>
<div><button type="submit">Save Wise</button></div></form></details></div>`;
}
