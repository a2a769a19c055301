// The referral a checkout carries, in any processor's metadata / custom data: our `affix_*` keys
// (brands moving from the peer service keep its `affitor_*` keys, wire-notes) and the program.
import type { ProcessorPayment } from './processor.js';

type Obj = Record<string, unknown>;

export const metadataText = (value: unknown): string | null => (typeof value === 'string' && value.trim() !== '' ? value.trim() : null);

/** `reference` (Stripe's client_reference_id) is only a hint: many brands set it on every checkout. */
export function readReferralMetadata(metadata: Obj | null | undefined, reference: string | null = null): ProcessorPayment['metadata'] {
  const m = metadata && typeof metadata === 'object' ? metadata : {};
  const customerKey = metadataText(m.affix_customer_key) ?? metadataText(m.affitor_customer_key);
  return {
    clickId: metadataText(m.affix_click_id) ?? metadataText(m.affitor_click_id),
    customerKey: customerKey ?? reference,
    customerKeyIsReference: customerKey === null && reference !== null,
    programId: metadataText(m.program_id),
  };
}
