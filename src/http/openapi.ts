// The API reference (OpenAPI 3.1) at /api/v1/openapi.json, made from the zod schemas the routes
// validate with (z.toJSONSchema: the request as it is sent, before any transform). Routes whose
// input is checked by hand for wire compatibility (the CLI's, a program's fields in the core)
// say so and name the docs page. test/openapi.test.ts checks the document with a validator and
// that every /api route the app registers is in it.
import { z } from 'zod';
import { settingsInput as applicationSettingsInput } from '../app/partners/applications.js';
import { brandInput } from '../app/programs/brand.js';
import { domainsPatchInput } from '../app/programs/domains.js';
import { query as auditQuery } from '../app/accounts/audit-log.js';
import { linkInput, stripeInput } from '../app/programs/management.js';
import { processorInput } from '../app/inbox/processor-settings.js';
import { importInput } from '../app/partners/import.js';
import { bulkInput } from '../app/partners/bulk-actions.js';
import { editPartnerInput, newPartnerInput } from '../app/partners/enrollments.js';
import { groupInput, overrideInput } from '../app/partners/groups.js';
import { listQuery as partnersQuery } from '../app/partners/list.js';
import { approvalReasonInput, commissionBulkInput, reasonInput } from '../app/money/commission-lifecycle.js';
import { detailsInput, settingsInput as payoutSettingsInput } from '../app/money/payout-settings.js';
import { markPaidInput, remindInput } from '../app/money/payout-runs.js';
import { remindTaxInput, taxSettingsInput, yearInput as taxYearQuery } from '../app/money/tax-details.js';
import { payBatchInput, providerAccountInput } from '../app/money/payout-providers.js';
import { promoInput } from '../app/partners/promo-codes.js';
import { apiKeyInput, discountInput } from '../app/partners/discounts.js';
import { backtestInput as rewardRuleBacktestInput } from '../app/money/backtest.js';
import { bountyInput, rejectionInput as bountyRejectionInput } from '../app/money/bounties.js';
import { draftInput as rewardRuleDraftInput, publishInput as rewardRulePublishInput } from '../app/money/reward-rules.js';
import { endpointInput, updateInput as endpointUpdateInput } from '../app/outbound/webhook-endpoints.js';
import { accountSchema, accountUpdateSchema, enabledSchema, eventsQuery, rotationSchema } from './routes/admin.js';
import { clickSchema, leadSchema, refundSchema, saleSchema } from './schemas.js';

/**
 * The envelope of a Stripe event, for the reference only: Stripe's adapter checks it on every
 * delivery (src/core/stripe/adapter.ts, `envelope`).
 */
const stripeToken = z.string().regex(/^[\x21-\x7e]{1,255}$/);
const signedEventSchema = z.object({
  id: stripeToken,
  type: stripeToken,
  livemode: z.boolean().optional(),
  api_version: stripeToken.nullish(),
  account: stripeToken.nullish(),
  data: z.object({ object: z.custom<Record<string, unknown>>((value) => typeof value === 'object' && value !== null && !Array.isArray(value)) }),
});

type Method = 'get' | 'post' | 'patch' | 'put' | 'delete';
type Auth = 'none' | 'programKey' | 'adminToken' | 'cliToken' | 'stripeSignature' | 'paddleSignature' | 'lemonSqueezySignature';
type Tag = 'Tracking' | 'Stripe webhooks' | 'Processor webhooks' | 'CLI' | 'Admin: programs' | 'Admin: partners' | 'Admin: money' | 'Admin: webhooks';

interface Operation {
  method: Method;
  path: string;
  tag: Tag;
  summary: string;
  auth: Auth;
  body?: z.ZodType;
  /** A body checked by hand, not by a zod schema (or fields beside the schema's): where it is described. */
  bodyDocs?: string;
  query?: z.ZodObject;
  /** The 2xx answer is CSV, not JSON. */
  csv?: boolean;
}

const P = '/api/v1/admin/programs/{id}';
/** Terms are read by the core's commission rules (src/core/programs.ts), beside the schema's fields. */
const TERMS_NOTE = 'Also commission_type, commission_rate and duration_months, checked by the commission rules (docs/partners.md "Groups").';
const ops: Operation[] = [
  { method: 'post', path: '/api/v1/track/click', tag: 'Tracking', summary: 'Record a click of a referral link (?aff=CODE)', auth: 'none', body: clickSchema },
  { method: 'post', path: '/api/v1/track/lead', tag: 'Tracking', summary: 'Bind a signup to its click', auth: 'programKey', body: leadSchema },
  { method: 'post', path: '/api/v1/track/sale', tag: 'Tracking', summary: 'Record a payment and its commission', auth: 'programKey', body: saleSchema(false) },
  { method: 'post', path: '/api/v1/track/refund', tag: 'Tracking', summary: 'Reverse a commission, in part or whole', auth: 'programKey', body: refundSchema },
  { method: 'get', path: '/api/v1/discount', tag: 'Tracking', summary: "The discount a referral link's visitors get (?program_id=&code=): its code and words, or null (the tracker's getDiscount())", auth: 'none' },
  { method: 'get', path: '/api/v1/programs/me/readiness', tag: 'Tracking', summary: 'Which integration steps are done, and what to do next', auth: 'programKey' },
  { method: 'post', path: '/api/v1/webhooks/stripe/{programId}', tag: 'Stripe webhooks', summary: "A program's own Stripe endpoint (raw body, Stripe-Signature)", auth: 'stripeSignature', body: signedEventSchema },
  { method: 'post', path: '/api/v1/webhooks/stripe', tag: 'Stripe webhooks', summary: 'The Stripe Connect endpoint, routed by event.account', auth: 'stripeSignature', body: signedEventSchema },
  { method: 'post', path: '/api/v1/webhooks/paddle/{programId}', tag: 'Processor webhooks', summary: "A program's Paddle Billing endpoint (raw body, Paddle-Signature)", auth: 'paddleSignature', bodyDocs: 'A Paddle notification (docs/paddle.md)' },
  { method: 'post', path: '/api/v1/webhooks/lemonsqueezy/{programId}', tag: 'Processor webhooks', summary: "A program's Lemon Squeezy endpoint (raw body, X-Signature)", auth: 'lemonSqueezySignature', bodyDocs: 'A Lemon Squeezy webhook (docs/lemonsqueezy.md)' },
  { method: 'post', path: '/api/v1/cli/auth/start', tag: 'CLI', summary: 'Start a CLI sign-in: a state and the URL to open', auth: 'none' },
  { method: 'post', path: '/api/v1/cli/auth/callback', tag: 'CLI', summary: 'Finish a sign-in with an OpenID Connect id_token', auth: 'none', bodyDocs: '{ state, id_token } (README "CLI")' },
  { method: 'get', path: '/api/v1/cli/auth/poll', tag: 'CLI', summary: 'Poll a sign-in until it is done (?state=)', auth: 'none' },
  { method: 'post', path: '/api/v1/cli/auth/logout', tag: 'CLI', summary: 'End the CLI login token', auth: 'cliToken' },
  { method: 'post', path: '/api/v1/cli/init', tag: 'CLI', summary: 'Create a program and its first API key', auth: 'cliToken', bodyDocs: '{ name, domain, commission_type, commission_rate, cookie_duration?, duration_months? } (README "CLI")' },
  { method: 'get', path: '/api/v1/cli/programs', tag: 'CLI', summary: "The signed-in account's programs", auth: 'cliToken' },
  { method: 'get', path: '/api/v1/cli/status', tag: 'CLI', summary: "A program's health and last day's counts", auth: 'programKey' },
  { method: 'post', path: '/api/v1/cli/test-event', tag: 'CLI', summary: 'A test click, lead, sale or chain in test mode', auth: 'programKey', bodyDocs: '{ type: click | lead | sale | chain } (README "CLI")' },
  { method: 'post', path: '/api/v1/cli/stripe-connect', tag: 'CLI', summary: 'The Stripe Connect onboarding URL', auth: 'programKey' },
  { method: 'post', path: '/api/v1/admin/accounts', tag: 'Admin: programs', summary: 'Create an account (its owner may sign in with the password)', auth: 'adminToken', body: accountSchema },
  { method: 'patch', path: '/api/v1/admin/accounts/{id}', tag: 'Admin: programs', summary: 'Suspend, unsuspend or set a password', auth: 'adminToken', body: accountUpdateSchema },
  { method: 'post', path: '/api/v1/admin/programs', tag: 'Admin: programs', summary: 'Create a program', auth: 'adminToken', bodyDocs: 'account_id, name, domain (a host name), commission_type, commission_rate, … (docs/api.md "Programs")' },
  { method: 'get', path: P, tag: 'Admin: programs', summary: 'A program', auth: 'adminToken' },
  { method: 'patch', path: P, tag: 'Admin: programs', summary: "Change a program's settings", auth: 'adminToken', bodyDocs: 'Any field of a new program (docs/api.md "Programs")' },
  { method: 'post', path: `${P}/links`, tag: 'Admin: programs', summary: 'Create a referral link', auth: 'adminToken', body: linkInput },
  { method: 'patch', path: '/api/v1/admin/links/{id}', tag: 'Admin: programs', summary: 'Turn a link on or off', auth: 'adminToken', body: enabledSchema },
  { method: 'post', path: `${P}/keys`, tag: 'Admin: programs', summary: 'Create an API key (shown once)', auth: 'adminToken' },
  { method: 'get', path: `${P}/keys`, tag: 'Admin: programs', summary: "A program's keys, masked", auth: 'adminToken' },
  { method: 'post', path: '/api/v1/admin/keys/{id}/regenerate', tag: 'Admin: programs', summary: 'Replace a key at once', auth: 'adminToken' },
  { method: 'post', path: '/api/v1/admin/keys/{id}/rotation', tag: 'Admin: programs', summary: 'Mark a key for rotation by a deadline', auth: 'adminToken', body: rotationSchema },
  { method: 'patch', path: `${P}/stripe`, tag: 'Admin: programs', summary: "Connect Stripe: the endpoint's signing secret, the Connect account", auth: 'adminToken', body: stripeInput },
  { method: 'get', path: `${P}/processors/{processor}`, tag: 'Admin: programs', summary: 'Paddle or Lemon Squeezy set-up: endpoint URL, events to select, secret saved', auth: 'adminToken' },
  { method: 'patch', path: `${P}/processors/{processor}`, tag: 'Admin: programs', summary: "Connect Paddle or Lemon Squeezy: the endpoint's signing secret, sandbox", auth: 'adminToken', body: processorInput },
  { method: 'get', path: '/api/v1/admin/webhook-events', tag: 'Admin: programs', summary: 'The webhook inbox (every processor)', auth: 'adminToken', query: eventsQuery },
  { method: 'get', path: '/api/v1/admin/webhook-events/{id}', tag: 'Admin: programs', summary: 'One processor event and what it did', auth: 'adminToken' },
  { method: 'post', path: '/api/v1/admin/webhook-events/{id}/replay', tag: 'Admin: programs', summary: 'Queue a processor event again', auth: 'adminToken' },
  { method: 'get', path: '/api/v1/admin/audit-log', tag: 'Admin: programs', summary: 'The audit log', auth: 'adminToken', query: auditQuery },
  { method: 'get', path: '/api/v1/admin/audit-log.csv', tag: 'Admin: programs', summary: 'The audit log as CSV', auth: 'adminToken', query: auditQuery, csv: true },
  { method: 'get', path: `${P}/partners`, tag: 'Admin: partners', summary: 'Search, filter and sort partners', auth: 'adminToken', query: partnersQuery },
  { method: 'post', path: `${P}/partners`, tag: 'Admin: partners', summary: 'Add a partner (one per email)', auth: 'adminToken', body: newPartnerInput },
  { method: 'get', path: `${P}/partners.csv`, tag: 'Admin: partners', summary: 'Partners as CSV', auth: 'adminToken', query: partnersQuery, csv: true },
  {
    method: 'post', path: `${P}/partners/bulk`, tag: 'Admin: partners', summary: 'Approve, reject, move, archive, ban or lift a ban in bulk (over 1,000 partners: 202, a bulk action to poll)', auth: 'adminToken', body: bulkInput,
  },
  { method: 'get', path: `${P}/bulk-actions/{bulkId}`, tag: 'Admin: partners', summary: "A large bulk action's state and counts so far", auth: 'adminToken' },
  { method: 'post', path: `${P}/partners/import`, tag: 'Admin: partners', summary: 'Import partners from CSV (dry run first)', auth: 'adminToken', body: importInput },
  { method: 'get', path: `${P}/partners/{partnerId}`, tag: 'Admin: partners', summary: 'A partner: terms, numbers, links, history', auth: 'adminToken' },
  { method: 'patch', path: `${P}/partners/{partnerId}`, tag: 'Admin: partners', summary: "Edit a partner's profile, notes, tags, group", auth: 'adminToken', body: editPartnerInput },
  { method: 'put', path: `${P}/partners/{partnerId}/override`, tag: 'Admin: partners', summary: "Set a partner's own terms", auth: 'adminToken', body: overrideInput, bodyDocs: TERMS_NOTE },
  { method: 'delete', path: `${P}/partners/{partnerId}/override`, tag: 'Admin: partners', summary: "Remove a partner's own terms", auth: 'adminToken' },
  { method: 'post', path: `${P}/partners/{partnerId}/{verb}`, tag: 'Admin: partners', summary: 'One action on one partner (approve, reject, archive, ban, unban, …)', auth: 'adminToken', body: reasonInput },
  { method: 'get', path: `${P}/groups`, tag: 'Admin: partners', summary: 'Partner groups', auth: 'adminToken' },
  { method: 'post', path: `${P}/groups`, tag: 'Admin: partners', summary: 'Create a group with its terms', auth: 'adminToken', body: groupInput, bodyDocs: TERMS_NOTE },
  { method: 'put', path: `${P}/groups/{groupId}`, tag: 'Admin: partners', summary: "Change a group's terms (future commissions)", auth: 'adminToken', body: groupInput, bodyDocs: TERMS_NOTE },
  { method: 'get', path: `${P}/applications`, tag: 'Admin: partners', summary: 'Applications to review', auth: 'adminToken' },
  { method: 'get', path: `${P}/applications.csv`, tag: 'Admin: partners', summary: 'Applications as CSV', auth: 'adminToken', csv: true },
  { method: 'get', path: `${P}/application-settings`, tag: 'Admin: partners', summary: 'The application page, terms and resources', auth: 'adminToken' },
  { method: 'patch', path: `${P}/application-settings`, tag: 'Admin: partners', summary: 'Open the application page; terms, resources, questions', auth: 'adminToken', body: applicationSettingsInput },
  { method: 'get', path: `${P}/brand`, tag: 'Admin: partners', summary: 'The brand partners see: name, pitch, reward summary, accent colour, logo address', auth: 'adminToken' },
  { method: 'patch', path: `${P}/brand`, tag: 'Admin: partners', summary: 'Set the brand partners see (the accent colour is contrast-checked; empty values go back to the defaults)', auth: 'adminToken', body: brandInput },
  { method: 'get', path: `${P}/domains`, tag: 'Admin: partners', summary: "The program's own hosts: the partner portal's (`portal_host`) and the short links' (`links_host`); null where none", auth: 'adminToken' },
  { method: 'patch', path: `${P}/domains`, tag: 'Admin: partners', summary: 'Set or remove (`""` or null) the portal or links host; one left out stays. A host another program holds is refused as taken', auth: 'adminToken', body: domainsPatchInput, bodyDocs: 'Host names alone, like partners.example.com (docs/domains.md)' },
  { method: 'post', path: `${P}/commissions/bulk`, tag: 'Admin: money', summary: 'Approve, release or reject commissions in bulk', auth: 'adminToken', body: commissionBulkInput },
  { method: 'get', path: `${P}/balances`, tag: 'Admin: money', summary: "Each partner's balance per currency", auth: 'adminToken' },
  { method: 'get', path: `${P}/commissions`, tag: 'Admin: money', summary: 'Commissions by state', auth: 'adminToken' },
  { method: 'get', path: `${P}/reward-rules`, tag: 'Admin: money', summary: "Reward rule sets of the program and its groups: each scope's draft and published versions (docs/rewards.md)", auth: 'adminToken' },
  { method: 'put', path: `${P}/reward-rules/draft`, tag: 'Admin: money', summary: "Write the draft rule set of the program (or of a group: group_id)", auth: 'adminToken', body: rewardRuleDraftInput },
  { method: 'post', path: `${P}/reward-rules/publish`, tag: 'Admin: money', summary: 'Publish the draft as the next version (audited); new sales are paid by it', auth: 'adminToken', body: rewardRulePublishInput },
  { method: 'post', path: `${P}/reward-rules/backtest`, tag: 'Admin: money', summary: "What the draft (group_id: the group's) would have paid for the period's stored sales beside what was paid, per currency, partner and rule, and the sales that change (from/to default to the last 90 days; writes nothing)", auth: 'adminToken', body: rewardRuleBacktestInput },
  { method: 'get', path: `${P}/bounties`, tag: 'Admin: money', summary: 'Bounties of the program (archived=true: archived ones too; docs/rewards.md "Bounties")', auth: 'adminToken' },
  { method: 'post', path: `${P}/bounties`, tag: 'Admin: money', summary: 'Create a performance bounty (a reward when a partner reaches a threshold in a calendar month) or a submission bounty (audited)', auth: 'adminToken', body: bountyInput },
  { method: 'post', path: `${P}/bounties/{bountyId}/archive`, tag: 'Admin: money', summary: 'Archive a bounty: no new awards or submissions; its commissions stay (audited)', auth: 'adminToken' },
  { method: 'get', path: `${P}/bounty-submissions`, tag: 'Admin: money', summary: "Partners' submissions to submission bounties (status, bounty_id filter)", auth: 'adminToken' },
  { method: 'post', path: `${P}/bounty-submissions/{submissionId}/approve`, tag: 'Admin: money', summary: "Approve a submission: its commission follows the normal hold, payout and clawback paths (audited; the partner is mailed)", auth: 'adminToken' },
  { method: 'post', path: `${P}/bounty-submissions/{submissionId}/reject`, tag: 'Admin: money', summary: 'Reject a submission with a reason the partner reads (audited; mailed)', auth: 'adminToken', body: bountyRejectionInput },
  ...(['approve', 'unapprove', 'release', 'reject'] as const).map((verb): Operation => ({
    method: 'post', path: `${P}/commissions/{commissionId}/${verb}`, tag: 'Admin: money', summary: verb === 'approve' ? 'Approve a commission (a reason is optional, kept when given)' : `${verb.charAt(0).toUpperCase()}${verb.slice(1)} a commission, with a reason`, auth: 'adminToken', body: verb === 'approve' ? approvalReasonInput : reasonInput,
  })),
  { method: 'get', path: `${P}/payout-settings`, tag: 'Admin: money', summary: 'Hold period, minimums, fraud rules', auth: 'adminToken' },
  { method: 'patch', path: `${P}/payout-settings`, tag: 'Admin: money', summary: 'Change the hold period, minimums, fraud rules', auth: 'adminToken', body: payoutSettingsInput },
  { method: 'patch', path: `${P}/partners/{partnerId}/payout-details`, tag: 'Admin: money', summary: 'How a partner is paid', auth: 'adminToken', body: detailsInput },
  { method: 'post', path: `${P}/payouts/run`, tag: 'Admin: money', summary: 'Run a payout batch (partners without payout details stay owed: missing_payout_details; without tax details past the threshold: missing_tax_details)', auth: 'adminToken' },
  { method: 'post', path: `${P}/payouts/remind`, tag: 'Admin: money', summary: 'Mail partners owed money without payout details a reminder (one a day at most)', auth: 'adminToken', body: remindInput },
  { method: 'get', path: `${P}/payouts`, tag: 'Admin: money', summary: 'Payouts', auth: 'adminToken' },
  { method: 'post', path: `${P}/payouts/{payoutId}/paid`, tag: 'Admin: money', summary: 'Mark a payout paid, with its reference', auth: 'adminToken', body: markPaidInput },
  { method: 'post', path: `${P}/payouts/{payoutId}/stripe-transfer`, tag: 'Admin: money', summary: 'Pay a payout as a Stripe transfer', auth: 'adminToken' },
  { method: 'post', path: `${P}/payouts/{payoutId}/cancel`, tag: 'Admin: money', summary: 'Cancel a payout (its commissions are owed again)', auth: 'adminToken' },
  { method: 'post', path: `${P}/payouts/{payoutId}/fail`, tag: 'Admin: money', summary: 'Mark a paid or processing payout failed or returned (its commissions are owed again; the partner is mailed)', auth: 'adminToken' },
  { method: 'post', path: `${P}/payout-batches/{batchId}/pay`, tag: 'Admin: money', summary: "Pay a batch's pending PayPal, Wise or Stripe payouts through the provider's API (claimed as processing, sent by a job; PayPal and Wise followed until each settles, Stripe paid or refused per transfer)", auth: 'adminToken', body: payBatchInput },
  { method: 'get', path: `${P}/payout-providers`, tag: 'Admin: money', summary: "The program's PayPal and Wise credentials (never the secret: only its last four characters)", auth: 'adminToken' },
  { method: 'put', path: `${P}/payout-providers/{provider}`, tag: 'Admin: money', summary: "Save PayPal's client id and secret or Wise's API token and profile id (sealed; a secret left out keeps the saved one)", auth: 'adminToken', body: providerAccountInput },
  { method: 'get', path: `${P}/payout-batches/{batchId}/export`, tag: 'Admin: money', summary: 'A batch for PayPal, Wise or as CSV (?format=)', auth: 'adminToken', csv: true },
  { method: 'get', path: `${P}/tax-settings`, tag: 'Admin: money', summary: 'Whether runs need tax details, and the threshold per currency', auth: 'adminToken' },
  { method: 'patch', path: `${P}/tax-settings`, tag: 'Admin: money', summary: 'Require tax details above a threshold per calendar year and currency', auth: 'adminToken', body: taxSettingsInput },
  { method: 'get', path: `${P}/tax-details/missing`, tag: 'Admin: money', summary: 'Partners a run would hold back for tax details (missing_tax_details)', auth: 'adminToken' },
  { method: 'post', path: `${P}/tax-details/remind`, tag: 'Admin: money', summary: 'Mail partners held back for tax details a reminder (one a day at most)', auth: 'adminToken', body: remindTaxInput },
  { method: 'get', path: `${P}/tax-export`, tag: 'Admin: money', summary: 'Year-end export: paid per partner and currency with tax details, TIN unmasked (?year=; audited)', auth: 'adminToken', query: taxYearQuery, csv: true },
  { method: 'post', path: `${P}/partners/{partnerId}/invite`, tag: 'Admin: partners', summary: 'Invite a partner to the portal', auth: 'adminToken' },
  { method: 'post', path: `${P}/promo-codes`, tag: 'Admin: money', summary: "Map a promo code to a partner", auth: 'adminToken', body: promoInput },
  { method: 'get', path: `${P}/promo-codes`, tag: 'Admin: money', summary: 'Promo codes', auth: 'adminToken' },
  { method: 'patch', path: `${P}/promo-codes/{promoCodeId}`, tag: 'Admin: money', summary: 'Activate or deactivate a promo code', auth: 'adminToken', bodyDocs: '{ active: boolean }' },
  { method: 'get', path: `${P}/discounts`, tag: 'Admin: partners', summary: "Groups' discounts for referred buyers, with their live codes and the processor's last refusal", auth: 'adminToken' },
  { method: 'put', path: `${P}/groups/{groupId}/discount`, tag: 'Admin: partners', summary: "Give a group's partners' buyers a discount (replaces the one it gave); codes are made by a job", auth: 'adminToken', body: discountInput },
  { method: 'delete', path: `${P}/groups/{groupId}/discount`, tag: 'Admin: partners', summary: "End a group's discount; its codes are deactivated by a job", auth: 'adminToken' },
  { method: 'post', path: `${P}/groups/{groupId}/discount/codes`, tag: 'Admin: partners', summary: "Make the missing codes of the group's approved partners (a job)", auth: 'adminToken' },
  { method: 'put', path: `${P}/processor-api-keys/{processor}`, tag: 'Admin: programs', summary: 'Save the Paddle or Lemon Squeezy API key Affix makes discount codes with (sealed)', auth: 'adminToken', body: apiKeyInput },
  { method: 'post', path: `${P}/webhook-endpoints`, tag: 'Admin: webhooks', summary: 'Add an endpoint of your systems (its secret shown once)', auth: 'adminToken', body: endpointInput(false) },
  { method: 'get', path: `${P}/webhook-endpoints`, tag: 'Admin: webhooks', summary: 'Your endpoints', auth: 'adminToken' },
  { method: 'patch', path: `${P}/webhook-endpoints/{endpointId}`, tag: 'Admin: webhooks', summary: 'Turn an endpoint on or off, change its events', auth: 'adminToken', body: endpointUpdateInput },
  { method: 'delete', path: `${P}/webhook-endpoints/{endpointId}`, tag: 'Admin: webhooks', summary: 'Remove an endpoint', auth: 'adminToken' },
  { method: 'post', path: `${P}/webhook-endpoints/{endpointId}/rotate-secret`, tag: 'Admin: webhooks', summary: "Rotate an endpoint's signing secret", auth: 'adminToken' },
  { method: 'get', path: `${P}/webhook-endpoints/{endpointId}/deliveries`, tag: 'Admin: webhooks', summary: "An endpoint's deliveries", auth: 'adminToken' },
  { method: 'post', path: `${P}/webhook-deliveries/{deliveryId}/replay`, tag: 'Admin: webhooks', summary: 'Send a delivery again', auth: 'adminToken' },
];

const SECURITY: Record<Exclude<Auth, 'none'>, object> = {
  programKey: { type: 'http', scheme: 'bearer', description: "A program's API key (affix_sk_…)" },
  adminToken: { type: 'http', scheme: 'bearer', description: 'The operator token (AFFIX_ADMIN_TOKEN)' },
  cliToken: { type: 'http', scheme: 'bearer', description: 'A CLI login token (affix login)' },
  stripeSignature: { type: 'apiKey', in: 'header', name: 'Stripe-Signature', description: "Stripe's signature of the raw body" },
  paddleSignature: { type: 'apiKey', in: 'header', name: 'Paddle-Signature', description: "Paddle's signature of the raw body (ts=…;h1=…)" },
  lemonSqueezySignature: { type: 'apiKey', in: 'header', name: 'X-Signature', description: "Lemon Squeezy's signature of the raw body (hex HMAC-SHA256)" },
};

/** A request as it is sent: the schema's input side, anything zod cannot say left open. */
const jsonSchema = (schema: z.ZodType) => {
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  return rest;
};

const ERROR = {
  description: 'Refused or failed: `{ "error": { "code"?, "message", "fields"? } }` (the tracking routes answer with the contract\'s own bodies, docs/api.md)',
  content: { 'application/json': { schema: { type: 'object' } } },
};

function operationObject(op: Operation) {
  const params = [...op.path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({ name, in: 'path', required: true, schema: name === 'verb' ? { type: 'string' } : { type: 'integer', minimum: 1 } }));
  const query = op.query
    ? Object.entries((jsonSchema(op.query).properties ?? {}) as Record<string, object>).map(([name, schema]) => ({ name, in: 'query', required: false, schema }))
    : [];
  const body = op.body
    ? { required: true, ...(op.bodyDocs ? { description: op.bodyDocs } : {}), content: { 'application/json': { schema: jsonSchema(op.body) } } }
    : op.bodyDocs
      ? { required: true, description: op.bodyDocs, content: { 'application/json': { schema: { type: 'object' } } } }
      : undefined;
  return {
    tags: [op.tag],
    summary: op.summary,
    operationId: `${op.method}${op.path.replace(/\{(\w+)\}/g, 'By_$1').replace(/[^A-Za-z0-9]+/g, '_')}`,
    ...(params.length + query.length ? { parameters: [...params, ...query] } : {}),
    ...(body ? { requestBody: body } : {}),
    ...(op.auth === 'none' ? { security: [] } : { security: [{ [op.auth]: [] }] }),
    responses: {
      '2XX': op.csv
        ? { description: 'CSV', content: { 'text/csv': { schema: { type: 'string' } } } }
        : { description: 'Done: `{ "data": … }` (tracking routes: the contract\'s bodies)', content: { 'application/json': { schema: { type: 'object' } } } },
      default: ERROR,
    },
  };
}

/** The document; `serverUrl` is the public URL it is served from. */
export function openApiDocument(serverUrl: string) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of ops) (paths[op.path] ??= {})[op.method] = operationObject(op);
  return {
    openapi: '3.1.0',
    info: { title: 'Affix API', version: '1', description: 'Affiliate and partner attribution: tracking, the CLI and the admin API. Prose and examples: docs/api.md.' },
    servers: [{ url: serverUrl }],
    tags: [...new Set(ops.map((op) => op.tag))].map((name) => ({ name })),
    paths,
    components: { securitySchemes: SECURITY },
  };
}

/** Every documented operation, as `METHOD /express/:path` (what the test compares with the app's routes). */
export const documentedRoutes = (): string[] => ops.map((op) => `${op.method.toUpperCase()} ${op.path.replace(/\{(\w+)\}/g, ':$1')}`);
