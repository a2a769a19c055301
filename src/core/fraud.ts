// Fraud signals: a commission with any of them is held for a manager instead of pending
// (docs/payouts.md#fraud-holds). Tracking itself is never blocked: clicks, leads and sales are
// recorded whatever these say.
import { hashEmail } from './secrets.js';

export const FRAUD_SIGNALS = ['self_referral', 'fast_signup_same_ip', 'many_leads_same_ip', 'referred_by_another_partner'] as const;
export type FraudSignal = (typeof FRAUD_SIGNALS)[number];

export interface FraudThresholds {
  /** A signup this many seconds or less after its click, from the same IP, is suspicious. */
  minSignupSeconds: number;
  /** More leads than this from one IP within the window. */
  maxLeadsPerIp: number;
  ipWindowMinutes: number;
}

export const DEFAULT_FRAUD_THRESHOLDS: FraudThresholds = { minSignupSeconds: 10, maxLeadsPerIp: 5, ipWindowMinutes: 60 };

/** What the database knows about the sale's customer and partner. */
export interface FraudFacts {
  partnerEmail: string | null;
  customerEmailHash: Buffer | null;
  clickIp: string | null;
  clickedAt: Date | null;
  leadIp: string | null;
  leadAt: Date | null;
  /** Leads of the program from the lead's IP within the window before (and including) this one. */
  leadsFromIpInWindow: number;
  /** The customer's email was first referred by another partner of the program. */
  emailReferredByAnotherPartner: boolean;
}

export function fraudSignals(facts: FraudFacts, thresholds: FraudThresholds): FraudSignal[] {
  const signals: FraudSignal[] = [];
  if (facts.partnerEmail && facts.customerEmailHash && hashEmail(facts.partnerEmail).equals(facts.customerEmailHash)) signals.push('self_referral');
  const sameIp = facts.clickIp !== null && facts.leadIp !== null && facts.clickIp === facts.leadIp;
  if (sameIp && facts.clickedAt && facts.leadAt && facts.leadAt.getTime() - facts.clickedAt.getTime() <= thresholds.minSignupSeconds * 1000) {
    signals.push('fast_signup_same_ip');
  }
  if (facts.leadIp !== null && facts.leadsFromIpInWindow > thresholds.maxLeadsPerIp) signals.push('many_leads_same_ip');
  if (facts.emailReferredByAnotherPartner) signals.push('referred_by_another_partner');
  return signals;
}
