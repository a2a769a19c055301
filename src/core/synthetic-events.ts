// CLI test events: click -> lead -> sale in test mode on the program's test link, through the
// same use cases as real traffic (no commission is ever created).
import { AffixError } from './errors.js';
import type { Store } from './ports.js';
import { trackClick } from './track-click.js';
import { trackLead } from './track-lead.js';
import { trackSale } from './track-sale.js';

export type SyntheticEventType = 'click' | 'lead' | 'sale';
type Verdict = 'pass' | 'fail' | 'skipped';

export interface SyntheticResult {
  customerKey: string;
  eventIds: Partial<Record<SyntheticEventType, string>>;
  verdict: Record<SyntheticEventType, Verdict>;
  attributed: boolean;
}

const ORDER: SyntheticEventType[] = ['click', 'lead', 'sale'];

/** What a test sale pays, in USD cents. */
export const TEST_SALE_CENTS = 100;

export async function runSyntheticEvents(
  store: Store,
  input: { programId: number; shortLink: string; upTo: SyntheticEventType; now: Date },
): Promise<SyntheticResult> {
  const testData = { test_mode: true, program_id: input.programId };
  const customerKey = `affix_test_${input.now.getTime()}_${Math.floor(Math.random() * 1e6)}`;
  const verdict: Record<SyntheticEventType, Verdict> = { click: 'skipped', lead: 'skipped', sale: 'skipped' };
  const eventIds: SyntheticResult['eventIds'] = {};
  const steps = ORDER.slice(0, ORDER.indexOf(input.upTo) + 1);
  let clickId = '';
  try {
    for (const step of steps) {
      if (step === 'click') {
        const tracked = await trackClick(store, {
          affiliateUrl: `https://affix.test/?aff=${encodeURIComponent(input.shortLink)}`,
          pageUrl: null, referrerUrl: null, existingClickId: null, additionalData: testData,
          keyProgramId: input.programId, origin: null, ip: null, userAgent: 'affix-cli', details: { synthetic: true }, now: input.now,
        });
        // No request count was given, so nothing can have been limited.
        if (tracked.limited) throw new Error('a click without a request count was limited');
        clickId = tracked.click.clickId;
        eventIds.click = clickId;
      } else if (step === 'lead') {
        await trackLead(store, {
          keyProgramId: input.programId, clickId, customerKey, email: null, bodyProgramId: null,
          eventName: 'affix_test_lead', additionalData: testData, origin: null, now: input.now,
        });
        eventIds.lead = customerKey;
      } else {
        const sale = await trackSale(store, {
          programId: input.programId, transactionId: `${customerKey}_sale`, customerKey, clickId, amountCents: TEST_SALE_CENTS, currency: 'USD',
          occurredAt: null, provider: 'manual', providerPaymentId: null, livemode: false, test: true, saleType: 'payment',
          isRecurring: false, subscriptionId: null, subscriptionInterval: null, eventName: 'affix_test_sale', taxCents: null,
          source: 'cli_test', details: { synthetic: true }, now: input.now,
        });
        if (!sale.attributed) {
          verdict.sale = 'fail';
          break;
        }
        eventIds.sale = String(sale.saleId);
      }
      verdict[step] = 'pass';
    }
  } catch (error) {
    // A refused step (link off, origin, status) is a failed verdict; anything else is our failure.
    if (!(error instanceof AffixError) || error.status >= 500) throw error;
    const failed = steps.find((step) => verdict[step] === 'skipped');
    if (failed) verdict[failed] = 'fail';
  }
  return { customerKey, eventIds, verdict, attributed: steps.every((step) => verdict[step] === 'pass') };
}
