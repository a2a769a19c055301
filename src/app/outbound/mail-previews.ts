// Every mail a program sends, with sample data (issue 44, item 4): the dashboard shows each as
// it would go out — the program's brand, hosts and texts — from the same templates and the same
// rendering as the sender (src/app/outbound/mail.ts), so a preview cannot drift from the mail.
import { shownLinkUrl } from '../../core/domains.js';
import { heldCommissionMail, type MailKind, MAIL_KINDS, type OutgoingMail } from '../../core/mail.js';
import { programHosts } from '../../db/programs/domains.js';
import { qrPng } from '../../platform/qr-image.js';
import {
  type MailLinks, type RenderedMail, applicationReceivedMail, commissionDigestMail, dailySummaryMail, decisionMail, invitationMail, mailBrand, newApplicationMail,
  payoutDetailsReminderMail, payoutFailedMail, payoutRunReadyMail, payoutSentMail, renderMail, signInMail, taxDetailsReminderMail,
} from './mail.js';
import type { ManagementDeps } from '../programs/management.js';
import { type Scope, programInScope } from '../accounts/scope.js';
import { passwordResetMail } from '../accounts/passwords.js';
import { memberInvitationMail } from '../accounts/team.js';
import { endpointDisabledMail } from './webhook-endpoints.js';
import { bountyAwardedMail, bountyRejectedMail } from './bounty-mail.js';

/** The sample partner every preview is written to. */
export const SAMPLE_PARTNER = { id: 1, name: 'Alex Rivera', email: 'alex.rivera@example.com', code: 'alex' } as const;
/** What a preview shows in place of a secret token (sign-in, invitation, unsubscribe). */
const SAMPLE_TOKEN = 'sample-token';

export interface MailPreview {
  /** The template's id on the page (a kind, or a kind and its variant). */
  id: string;
  kind: MailKind;
  title: string;
  audience: 'partner' | 'manager';
  fromName: string;
  subject: string;
  rendered: RenderedMail;
}

/** The mails of the program's partners and managers, each with sample data, as they are sent. */
export async function mailPreviews(deps: ManagementDeps & { publicUrl: string }, scope: Scope, programId: number): Promise<MailPreview[]> {
  const program = await programInScope(deps, scope, programId);
  const [brand, hosts] = [await mailBrand(deps.pool, programId), await programHosts(deps.pool, programId)];
  const links: MailLinks = { publicUrl: deps.publicUrl };
  const name = program.name;
  const base = { programId, programName: name, brand, email: SAMPLE_PARTNER.email, partnerId: SAMPLE_PARTNER.id };
  const day = new Date(deps.now().getTime() - 86_400_000).toISOString().slice(0, 10);
  const link = shownLinkUrl({ domain: program.domain, linksHost: hosts.links }, SAMPLE_PARTNER.code);
  const samples: [string, string, OutgoingMail | Omit<OutgoingMail, 'to'>][] = [
    ['partner_sign_in', 'Sign-in link', signInMail(links, SAMPLE_PARTNER.email, SAMPLE_TOKEN, 'You asked to sign in to your partner portal.', 15, null, 'preview')],
    ['partner_invitation', 'Invitation to the portal', invitationMail(links, { ...base, approved: false }, SAMPLE_TOKEN, brand)],
    ['application_received', 'Application received', applicationReceivedMail(links, { ...base, applicationId: 1 })],
    ['application_approved', 'Application approved (with the link and its QR code)', decisionMail(links, { ...base, decision: 'approved', reason: null, changeKey: 'preview', link })],
    ['application_rejected', 'Application rejected', decisionMail(links, { ...base, decision: 'rejected', reason: 'your audience is outside the markets we sell to', changeKey: 'preview' })],
    ['commission_digest', 'Daily summary of commissions', commissionDigestMail(links, { ...base, day, lines: [{ currency: 'USD', count: 3, cents: 4_500, held: 1, holdDays: 30 }, { currency: 'EUR', count: 1, cents: 1_200, held: 0, holdDays: 30 }] })],
    ['payout_details_reminder', 'Add your payout details', payoutDetailsReminderMail(links, { ...base, owed: [{ currency: 'USD', cents: 12_000 }], day })],
    ['tax_details_reminder', 'Add your tax details', taxDetailsReminderMail(links, { ...base, owed: [{ currency: 'USD', cents: 64_000 }], day })],
    ['payout_sent', 'Payout sent', payoutSentMail(links, { ...base, payoutId: 1, amountCents: 12_000, currency: 'USD', reference: 'PAYOUT-2026-11-001' })],
    ['payout_failed', 'Payout failed or returned', payoutFailedMail(links, { ...base, payoutId: 1, amountCents: 12_000, currency: 'USD', reason: 'PayPal returned it: the account is closed' })],
    ['bounty_awarded', 'Bounty awarded', bountyAwardedMail(links, { ...base, awardId: 1, bountyName: 'Ten new customers in March', words: "Bounty 'Ten new customers in March' — 100.00 USD", rewardCents: 10_000, currency: 'USD', period: '2026-03-01', submitted: false })],
    ['bounty_approved', 'Bounty submission approved', bountyAwardedMail(links, { ...base, awardId: 2, bountyName: 'Review video', words: "Bounty 'Review video' — 50.00 EUR", rewardCents: 5_000, currency: 'EUR', period: null, submitted: true })],
    ['bounty_rejected', 'Bounty submission rejected', bountyRejectedMail(links, { ...base, submissionId: 1, bountyName: 'Review video', reason: 'the video does not show the product' })],
    ['partner_banned', 'Removed from the program', decisionMail(links, { ...base, decision: 'banned', reason: 'ads bidding on the brand name', changeKey: 'preview' })],
    ['new_application', 'New application (to managers)', newApplicationMail(links, { programId, programName: name, applicationId: 1, name: SAMPLE_PARTNER.name, signals: ['signed up seconds after the click'] })],
    ['commission_held', 'Commission held for review (to managers)', heldCommissionMail(programId, 1, 'sale sale_2026_0001', ['same_ip_as_partner'])],
    ['payout_run_ready', 'Payout run ready to pay (to managers)', payoutRunReadyMail({ programId, batchId: 1, payouts: 12, waiting: { partners: 2, owed: '$120.00 and €40.00' } })],
    ['daily_summary', "Yesterday's numbers (to managers)", dailySummaryMail({ programId, name, clicks: 1_204, leads: 37, sales: 9, pendingApplications: 2 }, day)],
    ['endpoint_disabled', 'Webhook endpoint turned off (to managers)', endpointDisabledMail({ programId, endpointId: 1, deliveryId: 1, url: 'https://api.example.com/affix-webhooks' }, 'it failed every attempt for 3 days')],
    ['member_invitation', 'Invitation to your team', memberInvitationMail(deps.publicUrl, name, 'sam@example.com', 'finance', SAMPLE_TOKEN)],
    ['password_reset', 'Password reset (to your team)', passwordResetMail(deps.publicUrl, 'sam@example.com', SAMPLE_TOKEN)],
  ];
  const previews: MailPreview[] = [];
  for (const [id, title, m] of samples) {
    const unsubscribeUrl = m.canUnsubscribe ? `${deps.publicUrl}/mail/unsubscribe?token=${SAMPLE_TOKEN}` : null;
    const rendered = await renderMail(deps.pool, deps.publicUrl, m, unsubscribeUrl);
    previews.push({ id, kind: m.kind, title, audience: MAIL_KINDS[m.kind].to, fromName: m.senderName ?? 'Affix', subject: m.subject, rendered });
  }
  return previews;
}

/** The approval preview's QR code: the sample partner's link on the program's hosts. */
export async function previewQrPng(deps: ManagementDeps, scope: Scope, programId: number): Promise<Buffer> {
  const program = await programInScope(deps, scope, programId);
  const hosts = await programHosts(deps.pool, programId);
  return qrPng(shownLinkUrl({ domain: program.domain, linksHost: hosts.links }, SAMPLE_PARTNER.code));
}
