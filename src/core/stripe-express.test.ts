import { describe, expect, it } from 'vitest';
import { type ExpressAccountState, disabledInWords, expressAccountKey, expressStage, requirementsInWords } from './stripe-express.js';

const state = (over: Partial<ExpressAccountState> = {}): ExpressAccountState => ({
  chargesEnabled: false, payoutsEnabled: false, detailsSubmitted: false, currentlyDue: [], pastDue: [], disabledReason: null, ...over,
});

describe('a partner’s Stripe Express account', () => {
  it('stands where payouts_enabled and the requirements put it', () => {
    expect(expressStage(null)).toBe('not_connected');
    expect(expressStage(state())).toBe('needs_info');
    expect(expressStage(state({ detailsSubmitted: true, currentlyDue: ['external_account'] }))).toBe('needs_info');
    expect(expressStage(state({ detailsSubmitted: true }))).toBe('in_review');
    expect(expressStage(state({ detailsSubmitted: true, payoutsEnabled: true }))).toBe('connected');
    // Charges alone never pay a partner: only payouts_enabled does.
    expect(expressStage(state({ detailsSubmitted: true, chargesEnabled: true }))).toBe('in_review');
    expect(expressStage(state({ detailsSubmitted: true, payoutsEnabled: true, disabledReason: 'rejected.fraud' }))).toBe('rejected');
  });

  it('says what Stripe needs in words, each thing once, the unknown last', () => {
    expect(requirementsInWords(['mystery.field', 'individual.dob.day', 'individual.dob.month', 'external_account', 'individual.verification.document', 'tos_acceptance.ip'])).toEqual([
      'your date of birth', 'a bank account or debit card to receive your payouts', 'a photo of your identity document', 'your acceptance of Stripe’s terms of service', 'other details Stripe asks for',
    ]);
    expect(requirementsInWords(['individual.verification.additional_document', 'representative.first_name', 'company.tax_id', 'business_profile.url'])).toEqual([
      'a document that proves your address', 'your legal name', 'your company’s tax id', 'your website, or a few words on what you do',
    ]);
    expect(disabledInWords('requirements.past_due')).toBe('Stripe paused payouts: some details are past due.');
    expect(disabledInWords('rejected.terms_of_service')).toBe('Stripe declined this account. Choose another way to be paid.');
    expect(disabledInWords(null)).toBeNull();
  });

  it('one key per enrollment, country and email (never the email itself)', () => {
    const key = expressAccountKey(12, 'DE', 'Ana@Example.com');
    expect(key).toBe(expressAccountKey(12, 'DE', 'ana@example.com '));
    expect(key).not.toContain('example');
    expect(expressAccountKey(12, 'FR', 'ana@example.com')).not.toBe(key);
    expect(expressAccountKey(13, 'DE', 'ana@example.com')).not.toBe(key);
  });
});
