// What Affix tells partners and managers by mail (docs/mail.md): each mail is written to the
// outbox in the transaction of the change it tells of, and sent by the mail worker. The texts
// are here; the worker adds the unsubscribe link to the mails that may carry one.
import { errors } from '../../core/errors.js';
import { MAIL_KINDS, type MailKind, type OutgoingMail, UNSUBSCRIBE_TTL_MS, isMailKind, isOptIn, mail, mailRetryDelayMs, readUnsubscribeToken, unsubscribeParts, unsubscribeToken } from '../../core/mail.js';
import { mailHtml } from '../../core/mail-html.js';
import { formatMoney } from '../../core/money.js';
import type { Currency } from '../../core/types.js';
import { type StoredMail, commissionsOfDay, lockNextDue, lockUnsent, markSent, markSkipped, noteFailure, preferencesOf, programDays, queueManagerMail, queueMails, setPreference, unsubscribe } from '../../db/outbound/mail-outbox.js';
import { type Pool, type PoolClient, withTransaction } from '../../db/infra/pool.js';
import type { Mailer } from '../../platform/mailer.js';
import { randomBytes } from 'node:crypto';
import { sha256 } from '../../core/secrets.js';
import { insertSignInLink } from '../../db/partners/portal.js';
import type { Brand } from '../../core/brand.js';
import { programBrand } from '../programs/brand.js';
import { programHosts } from '../../db/programs/domains.js';
import { portalBaseUrl, shownLinkUrl } from '../../core/domains.js';
import { holdEndsAt } from '../../core/commission-ledger.js';
import { referralLinkIn, referralLinkLine } from '../../core/referral-link-mail.js';
import { firstLinksOf } from '../../db/partners/approval-links.js';
import { qrPng } from '../../platform/qr-image.js';

type Db = Pool | PoolClient;

export interface MailLinks {
  publicUrl: string;
}

export const portal = (links: MailLinks) => `${links.publicUrl}/portal`;

/** What a partner's mail shows of the program's brand (src/app/programs/brand.ts): the sender's name, the first line; HTML mail adds the logo and colour. */
export type MailBrand = Brand;
/** The brand of a program, for its mails. */
export const mailBrand = async (db: Db, programId: number): Promise<MailBrand | undefined> => (await programBrand(db, programId)) ?? undefined;
/** A partner's mail from the brand: its name as the sender and as the first line. */
export const fromBrand = (brand: MailBrand | undefined, programName: string | null, body: string) => ({
  senderName: brand?.name ?? programName,
  body: brand ? `${brand.name}\n\n${body}` : body,
});

/** A sign-in link to the partner portal (`intro` says why). The link works once, within the given minutes. */
export const signInMail = (links: MailLinks, email: string, token: string, intro: string, minutes: number, programName: string | null, key: string, brand?: MailBrand): OutgoingMail =>
  mail('partner_sign_in', {
    programId: null,
    to: email,
    subject: programName ? `${brand?.name ?? programName}: your partner sign-in link` : 'Your Affix partner sign-in link',
    ...fromBrand(brand, programName, `${intro}\n\nSign in: ${links.publicUrl}/portal/auth?token=${token}\n\nThe link works once, within ${minutes >= 120 ? `${Math.round(minutes / 60 / 24) || 1} day(s)` : `${minutes} minutes`}. If you did not ask for it, ignore this mail.\n`),
    dedupeKey: key,
  });

/** An invitation link works this long (opened the next morning, or after a weekend, it still works). */
export const INVITATION_TTL_MS = 7 * 86_400_000;

/**
 * Portal invitations in the caller's transaction: a sign-in link (its digest stored) and its
 * mail for each partner. The mail goes out once the change commits, never for one that rolled back.
 */
export async function queueInvitations(client: Db, given: MailLinks, invitations: { email: string; programId: number; programName: string; partnerId: number; approved: boolean }[], now: Date): Promise<void> {
  const mails = [];
  const brands = new Map<number, MailBrand | undefined>();
  for (const invitation of invitations) {
    if (!brands.has(invitation.programId)) brands.set(invitation.programId, await mailBrand(client, invitation.programId));
    // The link leads to the program's own portal host when it has one (docs/domains.md).
    const hosts = await programHosts(client, invitation.programId);
    const links = { publicUrl: portalBaseUrl(given.publicUrl, hosts.portal) };
    const token = randomBytes(32).toString('base64url');
    await insertSignInLink(client, sha256(token), invitation.email, new Date(now.getTime() + INVITATION_TTL_MS));
    mails.push(invitationMail(links, invitation, token, brands.get(invitation.programId)));
  }
  await queueMails(client, mails);
}

/** A portal invitation: a sign-in link that lasts days, from the program's brand. */
export function invitationMail(links: MailLinks, invitation: { email: string; programId: number; programName: string; approved: boolean }, token: string, brand: MailBrand | undefined): OutgoingMail {
  const intro = invitation.approved ? `${invitation.programName} approved you as a partner.` : `${invitation.programName} invited you to its partner program.`;
  return { ...signInMail(links, invitation.email, token, intro, INVITATION_TTL_MS / 60_000, invitation.programName, `invitation:${sha256(token).toString('hex')}`, brand), programId: invitation.programId, kind: 'partner_invitation' };
}

export function applicationReceivedMail(links: MailLinks, p: { programId: number; programName: string; brand?: MailBrand; email: string; applicationId: number }): OutgoingMail {
  return mail('application_received', {
    programId: p.programId,
    to: p.email,
    subject: `${p.programName}: we received your application`,
    ...fromBrand(p.brand, p.programName, `Thank you for applying to the ${p.programName} partner program.\n\nThe team will review it and write to you. Nothing else is needed from you for now.\n`),
    dedupeKey: `application_received:${p.applicationId}`,
  });
}

export function newApplicationMail(links: MailLinks, p: { programId: number; programName: string; applicationId: number; name: string; signals: string[] }): Omit<OutgoingMail, 'to'> {
  const { to: _to, ...rest } = mail('new_application', {
    programId: p.programId,
    to: '',
    senderName: 'Affix',
    subject: `${p.programName}: new partner application from ${p.name}`,
    body: `${p.name} applied to ${p.programName}.${p.signals.length ? `\nRisk signals: ${p.signals.join(', ')}.` : ''}\n\nReview it: ${links.publicUrl}/dashboard/programs/${p.programId}/applications\n`,
    dedupeKey: `new_application:${p.applicationId}`,
  });
  return rest;
}

/**
 * The partner's decision mail. Approved: their referral link (`link`, as the portal shows it: on
 * the program's links host when it has one) and, in the HTML part, its QR code. Removed: what
 * stopped, what became of their commissions and payouts, and what they can do.
 */
export function decisionMail(links: MailLinks, p: { programId: number; programName: string; brand?: MailBrand; email: string; partnerId: number; decision: 'approved' | 'rejected' | 'banned'; reason: string | null; changeKey: string; link?: string | null }): OutgoingMail {
  const kind: MailKind = p.decision === 'approved' ? 'application_approved' : p.decision === 'rejected' ? 'application_rejected' : 'partner_banned';
  const body =
    p.decision === 'approved'
      ? `Welcome to the ${p.programName} partner program.\n\n${
          p.link ? `${referralLinkLine(p.link)}\nShare it on your site, in posts, videos or mail: the customers who come through it are credited to you, and you earn on what they buy.\n\n` : ''
        }Your links, sub-IDs, referrals and commissions are in your partner portal: ${portal(links)} (a sign-in link follows in a separate mail).\n`
      : p.decision === 'rejected'
        ? `Thank you for applying to ${p.programName}. The team decided not to approve the application${p.reason ? `: ${p.reason}` : ''}.\n`
        : `${p.programName} removed you from its partner program${p.reason ? `: ${p.reason}` : ''}.\n\n` +
          `What changed:\n- Your referral links no longer record clicks: visitors who follow them are not credited to you.\n- Commissions not yet approved are rejected, and payouts not yet sent are cancelled.\n- Commissions already approved stay yours but are not paid while you are removed.\n\n` +
          `What you can do:\n- Take your links and codes of ${p.programName} down from your pages, posts and videos.\n- If you think this is a mistake, write to the ${p.programName} team: they can lift the removal, which turns your links back on and restores the commissions it rejected.\n`;
  const subject = p.decision === 'approved' ? `${p.programName}: you are approved` : p.decision === 'rejected' ? `${p.programName}: your application` : `${p.programName}: you were removed from the partner program`;
  return mail(kind, { programId: p.programId, to: p.email, subject, ...fromBrand(p.brand, p.programName, body), dedupeKey: `${kind}:${p.partnerId}:${p.changeKey}` });
}

/** Each partner's link as their approval mail shows it (their first enabled one; none yet: no line). */
export async function approvalLinks(client: Db, programId: number, partnerIds: number[]): Promise<Map<number, string>> {
  const { domain, linksHost, codes } = await firstLinksOf(client, programId, partnerIds);
  return new Map([...codes].map(([partnerId, code]) => [partnerId, shownLinkUrl({ domain, linksHost }, code)]));
}

export function payoutSentMail(links: MailLinks, p: { programId: number; programName: string; brand?: MailBrand; email: string; payoutId: number; amountCents: number; currency: Currency; reference: string }): OutgoingMail {
  return mail('payout_sent', {
    programId: p.programId,
    to: p.email,
    subject: `${p.programName}: payout of ${formatMoney(p.amountCents, p.currency)} sent`,
    ...fromBrand(p.brand, p.programName, `${p.programName} paid you ${formatMoney(p.amountCents, p.currency)}.\nReference: ${p.reference}\n\nEvery payout and what it paid: ${portal(links)}\n`),
    dedupeKey: `payout_sent:${p.payoutId}`,
  });
}

/** A payout failed or came back: what failed, that the money is owed again, and what to fix (their payout details). */
export function payoutFailedMail(links: MailLinks, p: { programId: number; programName: string; brand?: MailBrand; email: string; partnerId: number; payoutId: number; amountCents: number; currency: Currency; reason: string }): OutgoingMail {
  const amount = formatMoney(p.amountCents, p.currency);
  return mail('payout_failed', {
    programId: p.programId,
    to: p.email,
    subject: `${p.programName}: your payout of ${amount} failed`,
    ...fromBrand(
      p.brand,
      p.programName,
      `${p.programName} sent you a payout of ${amount} (payout ${p.payoutId}) and it failed or was returned: ${p.reason}\n\nThe money is owed to you again and the next payout pays it. Check your payout details (method and where to pay) in your partner portal and correct them if needed: ${portal(links)}/programs/${p.partnerId}#payout-details\n`,
    ),
    dedupeKey: `payout_failed:${p.payoutId}`,
  });
}

/** The brand owes the partner money and cannot pay it: no payout details. One a partner a day at most (its key). */
export function payoutDetailsReminderMail(links: MailLinks, p: { programId: number; programName: string; brand?: MailBrand; email: string; partnerId: number; owed: { currency: Currency; cents: number }[]; day: string }): OutgoingMail {
  const owed = p.owed.map((o) => formatMoney(o.cents, o.currency)).join(' and ');
  return mail('payout_details_reminder', {
    programId: p.programId,
    to: p.email,
    subject: `${p.programName}: add your payout details to be paid ${owed}`,
    ...fromBrand(p.brand, p.programName, `${p.programName} owes you ${owed} and cannot pay it yet: you have not said how you are paid.\n\nAdd your payout details (PayPal, Wise, bank transfer or Stripe) in your partner portal: ${portal(links)}/programs/${p.partnerId}#payout-details\n\nThe next payout pays you once they are there.\n`),
    dedupeKey: `payout_details_reminder:${p.partnerId}:${p.day}`,
  });
}

/** A run holds back the partner's payout until they give tax details (docs/payouts.md, "Tax details"). One a partner a day at most. */
export function taxDetailsReminderMail(links: MailLinks, p: { programId: number; programName: string; brand?: MailBrand; email: string; partnerId: number; owed: { currency: Currency; cents: number }[]; day: string }): OutgoingMail {
  const owed = p.owed.map((o) => formatMoney(o.cents, o.currency)).join(' and ');
  return mail('tax_details_reminder', {
    programId: p.programId,
    to: p.email,
    subject: `${p.programName}: add your tax details to be paid ${owed}`,
    ...fromBrand(p.brand, p.programName, `${p.programName} owes you ${owed} and needs your tax details before paying you more this year.\n\nAdd them in your partner portal (legal name, address, and your TIN if you are a US person, or a certification that you are not) and tick "Share with ${p.programName}": ${portal(links)}/tax-details\n\nYour TIN is stored encrypted and shown to you masked. The next payout pays you once they are there.\n`),
    dedupeKey: `tax_details_reminder:${p.partnerId}:${p.day}`,
  });
}

/**
 * Yesterday's new commissions of one partner and program: how much, in which currencies, that they
 * wait out the hold (and when they can be paid at the latest), which are held for review, and
 * where to follow them and to make sure they can be paid.
 */
export function commissionDigestMail(links: MailLinks, p: { programId: number; programName: string; brand?: MailBrand; email: string; partnerId: number; day: string; lines: { currency: Currency; count: number; cents: number; held?: number; holdDays?: number }[] }): OutgoingMail {
  const total = p.lines.reduce((n, l) => n + l.count, 0);
  const held = p.lines.reduce((n, l) => n + (l.held ?? 0), 0);
  const holdDays = Math.max(0, ...p.lines.map((l) => l.holdDays ?? 0));
  // Earned during `day` (UTC): the hold of the last of them ends by the start of the day after (day + holdDays).
  const approvedBy = holdEndsAt(new Date(`${p.day}T00:00:00Z`), holdDays + 1).toISOString().slice(0, 10);
  const them = total === 1 ? 'it' : 'they';
  const next =
    holdDays > 0
      ? `What happens next: ${them} wait${total === 1 ? 's' : ''} out the program's hold of ${holdDays} day${holdDays === 1 ? '' : 's'} (time for refunds), which ends by ${approvedBy}; then, unless ${total === 1 ? 'the sale is' : 'a sale is'} refunded meanwhile, ${them} ${total === 1 ? 'is' : 'are'} approved and paid with the next payout.`
      : `What happens next: ${them} ${total === 1 ? 'is' : 'are'} approved and paid with the next payout, if the sale${total === 1 ? ' is' : 's are'} not refunded meanwhile.`;
  const review = held ? `\n${held === total ? (total === 1 ? 'It is' : 'They are') : `${held} of them ${held === 1 ? 'is' : 'are'}`} held for review by the team: paid only once the team releases ${held === 1 ? 'it' : 'them'}.` : '';
  return mail('commission_digest', {
    programId: p.programId,
    to: p.email,
    subject: `${p.programName}: ${total} commission${total === 1 ? '' : 's'} earned on ${p.day}`,
    ...fromBrand(
      p.brand,
      p.programName,
      `On ${p.day} your referrals to ${p.programName} earned:\n${p.lines.map((l) => `- ${l.count} commission${l.count === 1 ? '' : 's'}: ${formatMoney(l.cents, l.currency)}`).join('\n')}\n\n${next}${review}\n\n` +
        `What you can do:\n- See each sale, its commission and the day it can be paid: ${portal(links)}/programs/${p.partnerId}/referrals\n- Make sure your payout details are set, so the payout can pay you: ${portal(links)}/programs/${p.partnerId}#payout-details\n`,
    ),
    dedupeKey: `commission_digest:${p.partnerId}:${p.day}`,
  });
}

export const managerMail = (kind: MailKind, p: { programId: number; subject: string; body: string; key: string }): Omit<OutgoingMail, 'to'> => {
  const { to: _to, ...rest } = mail(kind, { programId: p.programId, to: '', senderName: 'Affix', subject: p.subject, body: p.body, dedupeKey: p.key });
  return rest;
};

/** A payout run made a batch: its managers are told to pay it, and who waits for payout details. */
export const payoutRunReadyMail = (p: { programId: number; batchId: number; payouts: number; waiting: { partners: number; owed: string } | null }): Omit<OutgoingMail, 'to'> =>
  managerMail('payout_run_ready', {
    programId: p.programId,
    subject: `Payout batch ${p.batchId} is ready to pay (${p.payouts} payout${p.payouts === 1 ? '' : 's'})`,
    body: `A payout run made batch ${p.batchId} with ${p.payouts} payout${p.payouts === 1 ? '' : 's'}. Export it, pay, then mark each payout paid: {{affix}}/dashboard/programs/${p.programId}/payouts\n${
      p.waiting ? ` ${p.waiting.partners} partner(s) without payout details wait (${p.waiting.owed}): {{affix}}/dashboard/programs/${p.programId}/payouts#missing-details\n` : ''
    }`,
    key: `payout_run_ready:${p.batchId}`,
  });

export const queue = (db: Db, mails: OutgoingMail[]) => queueMails(db, mails);
export const queueForManagers = (db: Db, programId: number, m: Omit<OutgoingMail, 'to'>) => queueManagerMail(db, programId, m);

export interface SendingDeps {
  pool: Pool;
  mailer: Mailer;
  /** Signs unsubscribe links; without it a mail goes out without one (logged by the caller). */
  secretKey: string | undefined;
  publicUrl: string;
  now: () => Date;
}

export type SendOutcome = 'sent' | 'unsubscribed' | 'failed' | 'given_up';

/** What one attempt at one mail did (for the sender's log line: never the address or the text). */
export interface SendReport {
  mailId: number;
  kind: string;
  outcome: SendOutcome;
  /** Attempts so far, this one included. */
  attempts: number;
  error?: string;
  retryAt?: Date;
}

/** The content id of the approval mail's QR code (the HTML's `cid:`). */
export const QR_CID = 'referral-link-qr@affix';

/** A mail as it goes out: its text (with the unsubscribe footer), its HTML part, the images the HTML shows, its headers. */
export interface RenderedMail {
  text: string;
  html: string;
  headers: Record<string, string> | undefined;
  images: { cid: string; filename: string; contentType: string; content: Buffer }[];
}

/**
 * What a stored mail becomes when sent (and what the dashboard's previews show): the service's
 * address for {{affix}}, a partner's portal links on the program's portal host, the footer and
 * headers of `unsubscribeUrl` (none: no footer), the HTML in the brand's name, and the approval
 * mail's QR code.
 */
export async function renderMail(db: Db, publicUrl: string, m: { programId: number | null; kind: string; subject: string; body: string }, unsubscribeUrl: string | null): Promise<RenderedMail> {
  const kind = m.kind as MailKind;
  const parts = unsubscribeUrl ? unsubscribeParts(unsubscribeUrl, kind) : null;
  // Texts written where the service's address is not known say {{affix}}: its public URL.
  const toPartner = isMailKind(kind) && MAIL_KINDS[kind].to === 'partner' && m.programId !== null;
  // A partner's links to the portal lead to the program's own portal host when it has one (docs/domains.md).
  const portalBase = toPartner ? portalBaseUrl(publicUrl, (await programHosts(db, m.programId!)).portal) : publicUrl;
  const body = m.body.replaceAll('{{affix}}', publicUrl).replaceAll(`${publicUrl}/portal`, `${portalBase}/portal`);
  const text = `${body}${parts?.footer ?? ''}`;
  // The same words as HTML too; a partner's mail in the brand's name, logo and colour (core/mail-html.ts).
  const brand = toPartner ? await mailBrand(db, m.programId!) : undefined;
  // The approval mail's link as a QR code too: an inline PNG part the HTML shows (mail programs drop SVG).
  const qrUrl = kind === 'application_approved' ? referralLinkIn(body) : null;
  const image = qrUrl ? { after: qrUrl, src: `cid:${QR_CID}`, alt: `QR code of your referral link ${qrUrl}`, size: 180 } : null;
  const html = mailHtml({ subject: m.subject, text, brand: brand ? { name: brand.name, accent: brand.accent, logoUrl: brand.logoPath ? `${publicUrl}${brand.logoPath}` : null } : null, image });
  const images = qrUrl ? [{ cid: QR_CID, filename: 'referral-link-qr.png', contentType: 'image/png', content: await qrPng(qrUrl) }] : [];
  return { text, html, headers: parts?.headers, images };
}

/** Sends the next mail due (urgent kinds first, then accounts in turn: docs/mail.md); null when none is due. */
export const sendNextMail = (deps: SendingDeps): Promise<SendReport | null> => sendLocked(deps, (client) => lockNextDue(client, deps.now()));

/** Sends this mail unless it was sent already (or another sender has it). */
export async function sendOutboxMail(deps: SendingDeps, mailId: number): Promise<SendOutcome | 'already_sent'> {
  return (await sendLocked(deps, (client) => lockUnsent(client, mailId)))?.outcome ?? 'already_sent';
}

/**
 * Sends one outbox mail, once: the row is locked while it is sent and marked sent in the same
 * transaction. A mail server's refusal is written to the row in that transaction (retried later,
 * or given up after MAIL_ATTEMPTS); it never ends the sender. An address that unsubscribed from
 * the kind gets nothing (the row says so).
 */
async function sendLocked(deps: SendingDeps, lock: (client: PoolClient) => Promise<StoredMail | null>): Promise<SendReport | null> {
  return withTransaction(deps.pool, async (client) => {
    const stored = await lock(client);
    if (!stored) return null;
    const report = { mailId: stored.id, kind: stored.kind, attempts: stored.attempts + 1 };
    if (stored.unsubscribed) {
      await markSkipped(client, stored.id, 'unsubscribed');
      return { ...report, outcome: 'unsubscribed' as const, attempts: stored.attempts };
    }
    const kind = stored.kind as MailKind;
    const unsubscribeUrl = stored.canUnsubscribe && deps.secretKey ? `${deps.publicUrl}/mail/unsubscribe?token=${unsubscribeToken(deps.secretKey, stored.to, kind, new Date(deps.now().getTime() + UNSUBSCRIBE_TTL_MS))}` : null;
    const { text, html, headers, images } = await renderMail(client, deps.publicUrl, stored, unsubscribeUrl);
    try {
      await deps.mailer.send({ to: stored.to, subject: stored.subject, text, html, fromName: stored.senderName, headers, images });
    } catch (error) {
      const message = (error as Error).message;
      const delay = mailRetryDelayMs(report.attempts);
      const retryAt = delay === null ? null : new Date(deps.now().getTime() + delay);
      await noteFailure(client, stored.id, message, retryAt);
      return retryAt ? { ...report, outcome: 'failed' as const, error: message, retryAt } : { ...report, outcome: 'given_up' as const, error: message };
    }
    await markSent(client, stored.id, deps.now());
    return { ...report, outcome: 'sent' as const };
  });
}

/** Yesterday's (UTC) commissions: one digest per partner and program; a second run the same day writes nothing new. */
export async function queueCommissionDigests(deps: { pool: Pool; now: () => Date; publicUrl: string }): Promise<number> {
  const today = new Date(Date.UTC(deps.now().getUTCFullYear(), deps.now().getUTCMonth(), deps.now().getUTCDate()));
  const from = new Date(today.getTime() - 86_400_000);
  const rows = await commissionsOfDay(deps.pool, from, today);
  const byPartner = new Map<number, typeof rows>();
  for (const row of rows) byPartner.set(row.partnerId, [...(byPartner.get(row.partnerId) ?? []), row]);
  const day = from.toISOString().slice(0, 10);
  const brands = new Map<number, MailBrand | undefined>();
  for (const programId of new Set(rows.map((r) => r.programId))) brands.set(programId, await mailBrand(deps.pool, programId));
  const mails = [...byPartner.values()].map((lines) =>
    commissionDigestMail(deps, { programId: lines[0]!.programId, programName: lines[0]!.programName, brand: brands.get(lines[0]!.programId), email: lines[0]!.email, partnerId: lines[0]!.partnerId, day, lines: lines.map((l) => ({ currency: l.currency as Currency, count: l.count, cents: l.cents, held: l.held, holdDays: l.holdDays })) }),
  );
  return queueMails(deps.pool, mails);
}

/** One-click unsubscribe (RFC 8058): the token names the address and the kind; an expired one is refused. */
export async function unsubscribeWithToken(deps: { pool: Pool; secretKey: string | undefined; now: () => Date }, token: string) {
  if (!deps.secretKey) throw errors.badRequest('This server cannot check unsubscribe links (no AFFIX_SECRET_KEY)');
  const verdict = readUnsubscribeToken(deps.secretKey, token, deps.now());
  if (!verdict.ok) {
    throw errors.badRequest(verdict.reason === 'expired' ? 'This unsubscribe link expired: sign in to your partner portal to change your mail settings' : 'This unsubscribe link is not valid');
  }
  await unsubscribe(deps.pool, verdict.email, verdict.kind);
  return { kind: verdict.kind, words: MAIL_KINDS[verdict.kind].words };
}

/** The mails a person may turn off (their audience's non-essential kinds), and whether each is on. */
export async function mailPreferences(pool: Pool, email: string, audience: 'partner' | 'manager') {
  const preferences = await preferencesOf(pool, email);
  return (Object.entries(MAIL_KINDS) as [MailKind, (typeof MAIL_KINDS)[MailKind]][])
    .filter(([, k]) => k.to === audience && !k.essential)
    .map(([kind, k]) => ({ kind, words: k.words, on: preferences.get(kind) ?? !isOptIn(kind) }));
}

/** Saves the person's choices: `on` names the kinds they keep; the others of their audience stop. */
export async function saveMailPreferences(pool: Pool, email: string, audience: 'partner' | 'manager', on: string[]): Promise<void> {
  for (const { kind } of await mailPreferences(pool, email, audience)) await setPreference(pool, email, kind, on.includes(kind));
}

/** One program's numbers of `day` for its managers. */
export const dailySummaryMail = (p: { programId: number; name: string; clicks: number; leads: number; sales: number; pendingApplications: number }, day: string) =>
  managerMail('daily_summary', {
    programId: p.programId,
    subject: `${p.name} on ${day}: ${p.clicks} clicks, ${p.leads} signups, ${p.sales} sales`,
    body: `${p.name} on ${day} (UTC):\n- ${p.clicks} clicks\n- ${p.leads} signups\n- ${p.sales} sales\n- ${p.pendingApplications} applications waiting for review\n\nThe overview: {{affix}}/dashboard/programs/${p.programId}\n`,
    key: `daily_summary:${p.programId}:${day}`,
  });

/** The managers' daily summary (opt-in): yesterday's numbers of each program that had any, to those who asked for it. */
export async function queueDailySummaries(deps: { pool: Pool; now: () => Date }): Promise<number> {
  const today = new Date(Date.UTC(deps.now().getUTCFullYear(), deps.now().getUTCMonth(), deps.now().getUTCDate()));
  const from = new Date(today.getTime() - 86_400_000);
  const day = from.toISOString().slice(0, 10);
  const programs = await programDays(deps.pool, from, today);
  for (const p of programs) {
    await queueManagerMail(deps.pool, p.programId, dailySummaryMail(p, day));
  }
  return programs.length;
}
