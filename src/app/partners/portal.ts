// The partner's side: invitations by the brand, sign-in by emailed one-time link, and what a
// partner may see and change. A partner is every partner row with their email that a brand
// invited; every use case here is scoped to those rows and nothing else.
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { errors } from '../../core/errors.js';
import { ownLinkCode } from '../../core/link-codes.js';
import { type DeepLinkInput, deepLink } from '../../core/programs.js';
import { shownLinkUrl } from '../../core/domains.js';
import { sha256 } from '../../core/secrets.js';
import * as portal from '../../db/partners/portal.js';
import type { Pool } from '../../db/infra/pool.js';
import { requestPartnerLink } from '../../db/outbound/mail-outbox.js';
import { withTransaction } from '../../db/infra/pool.js';
import { mayMailAddress } from '../accounts/access.js';
import { queueInvitations, signInMail } from '../outbound/mail.js';
import { type ManagementDeps, createLink, parseInput } from '../programs/management.js';
import { type Scope, programInScope } from '../accounts/scope.js';
import { setPayoutDetails } from '../money/payout-settings.js';

/** A sign-in link works once, for this long. */
export const SIGN_IN_LINK_TTL_MS = 15 * 60_000;
export const PARTNER_SESSION_TTL_MS = 12 * 3600_000;

/** The portal's reads: on a brand's own portal host only that brand's programs (its account), everywhere else null. */
export type PortalReadDeps = ManagementDeps & { brandAccountId: number | null };

export interface PortalDeps extends ManagementDeps {
  publicUrl: string;
}

const emailInput = z.object({ email: z.email('Give the email address the brand invited.').max(320) });

/** The brand invites a partner (who needs an email): the partner gets a sign-in link that lasts days. */
export async function invitePartner(deps: PortalDeps, scope: Scope, programId: number, partnerId: number) {
  await programInScope(deps, scope, programId);
  if (!Number.isSafeInteger(partnerId)) throw errors.notFound('Partner not found');
  return withTransaction(deps.pool, async (client) => {
    const invited = await portal.markInvited(client, programId, partnerId, deps.now());
    if (!invited) throw errors.notFound('Partner not found');
    if (!invited.email) throw errors.invalid('This partner has no email address to invite', { email: 'Add the partner’s email first.' });
    await queueInvitations(client, deps, [{ email: invited.email, programId, programName: invited.programName, partnerId, approved: false }], deps.now());
    return { partnerId, invited: true };
  });
}

/**
 * Someone asks for a sign-in link. The answer never says whether the address is a partner's
 * (no way to test addresses); only an invited one gets mail. Rate limits sit in front (HTTP).
 */
export async function requestSignInLink(deps: PortalDeps, input: unknown): Promise<void> {
  const { email } = parseInput(emailInput, input);
  // Every request counts against the address's mail cap, invited or not (the same work either
  // way); over it, no new link nor mail: the links already mailed still sign the partner in.
  const mayMail = await mayMailAddress(deps.pool, email, deps.now());
  // One statement whatever the address (the link and its mail only for an invited one); the
  // mail is the worker's to send, so the answer takes the same time either way.
  const token = randomBytes(32).toString('base64url');
  const tokenHash = sha256(token);
  const mail = signInMail(deps, email, token, 'You asked to sign in to your partner portal.', SIGN_IN_LINK_TTL_MS / 60_000, null, `sign_in:${tokenHash.toString('hex')}`);
  await requestPartnerLink(deps.pool, { tokenHash, email, expiresAt: new Date(deps.now().getTime() + SIGN_IN_LINK_TTL_MS), mayMail }, mail);
}

/** Uses a link once; returns a new session token (its digest is stored), or null. */
export async function signInWithLink(deps: ManagementDeps, token: string): Promise<{ token: string; ttlMs: number } | null> {
  if (!/^[\w-]{20,100}$/.test(token)) return null;
  const email = await portal.consumeSignInLink(deps.pool, sha256(token), deps.now());
  if (!email) return null;
  const session = randomBytes(32).toString('base64url');
  await portal.insertPartnerSession(deps.pool, sha256(session), email, new Date(deps.now().getTime() + PARTNER_SESSION_TTL_MS));
  // An invited partner who signs in has accepted the invitation.
  await portal.acceptInvitations(deps.pool, email, deps.now());
  return { token: session, ttlMs: PARTNER_SESSION_TTL_MS };
}

export const partnerOfSession = (pool: Pool, token: string, now: Date) => portal.partnerSessionEmail(pool, sha256(token), now);
export const endPartnerSession = (pool: Pool, token: string) => portal.endPartnerSession(pool, sha256(token));

/** Everything the signed-in partner sees: their partner rows across programs and their numbers. */
export async function portalOverview(deps: PortalReadDeps, email: string) {
  const partners = await portal.partnersOfEmail(deps.pool, email, deps.brandAccountId);
  const ids = partners.map((p) => p.partnerId);
  const [funnel, balances] = await Promise.all([portal.partnerFunnels(deps.pool, ids), portal.partnerBalances(deps.pool, ids)]);
  return { partners, funnel, balances };
}

/** The partner acting on their own row (the audit log names them by partner id). */
const asPartner = (partnerId: number): Scope => ({ kind: 'operator', actor: { type: 'partner', id: String(partnerId), label: null, ip: null } });

/** One of the signed-in partner's own rows, or the same 404 as one that does not exist. */
export async function ownPartner(deps: PortalReadDeps, email: string, partnerId: number) {
  const partner = (await portal.partnersOfEmail(deps.pool, email, deps.brandAccountId)).find((p) => p.partnerId === partnerId);
  if (!partner) throw errors.notFound('Partner not found');
  return partner;
}

/** An extra referral link, where the program lets partners make their own (the brand's rule for codes). */
export async function createOwnLink(deps: PortalReadDeps, email: string, partnerId: number, input: { short_link?: unknown }) {
  const partner = await ownPartner(deps, email, partnerId);
  if (!partner.canCreateLinks) throw errors.forbidden('This program does not let partners create links; ask the brand for one.');
  // A code the partner chooses follows the own-code rules (reserved words); empty: a random one.
  const code = ownLinkCode(input.short_link, 'short_link');
  return createLink(deps, asPartner(partner.partnerId), partner.programId, { partner_id: partner.partnerId, short_link: code }, partner.linkLimit);
}

/** The partner sets how they are paid (the same rules as when the brand sets it). */
export async function setOwnPayoutDetails(deps: PortalReadDeps, email: string, partnerId: number, input: unknown) {
  const partner = await ownPartner(deps, email, partnerId);
  return setPayoutDetails(deps, asPartner(partner.partnerId), partner.programId, partner.partnerId, input);
}

/** One program of the signed-in partner's: terms, resources, each link's numbers, earnings per month (12), payouts. */
export async function portalProgram(deps: PortalReadDeps, email: string, partnerId: number) {
  const partner = await ownPartner(deps, email, partnerId);
  const now = deps.now();
  const since = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 11, 1));
  const [links, months, payouts, program, balances, commissions] = await Promise.all([
    portal.linkNumbers(deps.pool, partner.partnerId),
    portal.monthlyEarnings(deps.pool, partner.partnerId, since),
    portal.payoutHistory(deps.pool, partner.partnerId),
    portal.programForPartners(deps.pool, partner.programId),
    portal.partnerBalances(deps.pool, [partner.partnerId]),
    portal.commissionsByState(deps.pool, [partner.partnerId]),
  ]);
  return { partner, links, months: { since, rows: months }, payouts, program, balances, commissions };
}

/** One of the signed-in partner's links and the program's domain: a QR code names no more. */
export async function portalLink(deps: PortalReadDeps, email: string, partnerId: number, linkId: number) {
  const partner = await ownPartner(deps, email, partnerId);
  const link = (await portal.partnerLinks(deps.pool, partner.partnerId)).find((l) => l.linkId === linkId);
  if (!link) throw errors.notFound('Link not found');
  return { ...link, url: shownLinkUrl(partner, link.shortLink) };
}

/** A link of the partner's to any page of the program's site, with a sub-ID and UTM tags. */
export async function portalDeepLink(deps: PortalReadDeps, email: string, partnerId: number, input: { link_id?: unknown } & DeepLinkInput) {
  const partner = await ownPartner(deps, email, partnerId);
  const links = await portal.partnerLinks(deps.pool, partner.partnerId);
  const link = links.find((l) => l.linkId === Number(input.link_id)) ?? links[0];
  if (!link) throw errors.invalid('You have no link yet', { link_id: 'You have no link yet: ask the brand for one.' });
  return { linkId: link.linkId, url: deepLink(partner.domain, link.shortLink, input) };
}
