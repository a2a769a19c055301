// POST /track/click: record a referral visit with first-click attribution (spec §4.1).
import { clickStillAttributable } from './attribution.js';
import { attributedClick } from './customers.js';
import { MESSAGES, errors } from './errors.js';
import { type RateLimitHit, type RequestCount, overLimit } from './limits.js';
import { assertOriginAllowed } from './origins.js';
import type { Store } from './ports.js';
import { subIdOfUrl } from './programs.js';
import { newClickId } from './secrets.js';
import { type AdditionalData, assertTestProgramMatchesKey, isTestMode } from './test-mode.js';

export interface TrackClickInput {
  affiliateUrl: string | null | undefined;
  pageUrl: string | null;
  referrerUrl: string | null;
  existingClickId: string | null;
  additionalData: AdditionalData | null;
  /** Program of a valid Bearer key sent along (test-mode check only), else null. */
  keyProgramId: number | null;
  origin: string | null;
  ip: string | null;
  userAgent: string | null;
  details: Record<string, unknown>;
  now: Date;
  /** The request's rate-limit count, taken by the click's own write (one round trip less). */
  count?: RequestCount;
}

export interface TrackClickResult {
  programId: number;
  clickId: string;
  partnerCode: string;
  cookieWindowDays: number;
  /** True when an earlier click kept the attribution (first-click). */
  keptExistingClick: boolean;
}

/** Tracked, with the request's count when one was given; or not written, the count over its limit. */
export type TrackClickOutcome =
  | { limited: false; click: TrackClickResult; counted: RateLimitHit | null }
  | { limited: true; counted: RateLimitHit };

/** The link's code (?aff=) and the link builder's sub-ID (?sub_id=) of the visited address. */
export function readAffiliateUrl(affiliateUrl: string | null | undefined): { aff: string; subId: string | null } {
  if (affiliateUrl === undefined || affiliateUrl === null || affiliateUrl.trim() === '') {
    throw errors.badRequest(MESSAGES.affiliateUrlRequired);
  }
  let url: URL;
  try {
    url = new URL(affiliateUrl.trim());
  } catch {
    throw errors.badRequest(MESSAGES.invalidAffiliateUrl);
  }
  const aff = url.searchParams.get('aff')?.trim();
  if (!aff) throw errors.badRequest(MESSAGES.noAffParam);
  return { aff, subId: subIdOfUrl(url) };
}

export async function trackClick(store: Store, input: TrackClickInput): Promise<TrackClickOutcome> {
  assertTestProgramMatchesKey(input.additionalData, input.keyProgramId);
  const { aff, subId } = readAffiliateUrl(input.affiliateUrl);

  const path = store.clickPath();
  const found = await path.findLinkWithProgram(aff);
  if (!found) throw errors.badRequest(MESSAGES.linkNotFound);
  const { link, program } = found;
  if (link.programId === null || link.partnerId === null || !program) throw errors.badRequest(MESSAGES.invalidLinkConfig);
  assertOriginAllowed(program, input.origin);
  if (!link.enabled) throw errors.linkDisabled();

  // First-click: an existing, still-valid click of this program keeps the visitor.
  let attributedClickId: string | null = null;
  let partnerCode = link.shortLink;
  if (input.existingClickId) {
    const first = await attributedClick(path, input.existingClickId);
    if (first && first.programId === program.id && clickStillAttributable(first.createdAt, program.attributionWindowDays, input.now)) {
      attributedClickId = first.clickId;
      partnerCode = first.shortLink ?? partnerCode;
    }
  }

  const clickId = newClickId();
  const test = isTestMode(input.additionalData);
  // One statement: the click and its tracking event exist together or not at all.
  const counted = await path.insertClickWithEvent(
    {
      clickId,
      programId: program.id,
      linkId: link.id,
      partnerId: link.partnerId,
      attributedClickId: attributedClickId ?? clickId,
      affiliateUrl: input.affiliateUrl!.trim(),
      subId,
      pageUrl: input.pageUrl,
      referrerUrl: input.referrerUrl,
      ip: input.ip,
      userAgent: input.userAgent,
      test,
      details: input.details,
      createdAt: input.now,
    },
    {
      programId: program.id,
      kind: 'click',
      customerId: null,
      saleId: null,
      test,
      details: { short_link: link.shortLink, attributed_click_id: attributedClickId ?? clickId },
      createdAt: input.now,
    },
    input.count,
  );
  if (counted && input.count && overLimit(input.count.rule, counted)) return { limited: true, counted };
  return {
    limited: false,
    counted,
    click: {
      programId: program.id,
      clickId: attributedClickId ?? clickId,
      partnerCode,
      cookieWindowDays: program.attributionWindowDays,
      keptExistingClick: attributedClickId !== null,
    },
  };
}
