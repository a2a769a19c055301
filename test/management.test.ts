// src/app/management: the rules the admin API and the dashboard share, called with both scopes.
import { beforeAll, describe, expect, it } from 'vitest';
import { type ManagementDeps, createLink, issueKey, markKeyForRotation, regenerateKey, setLinkEnabled, setStripeSettings } from '../src/app/programs/management.js';
import { OPERATOR, type Scope, programInScope } from '../src/app/accounts/scope.js';
import { addPartner } from '../src/app/partners/enrollments.js';
import { AffixError } from '../src/core/errors.js';
import { createSecretBox } from '../src/platform/secret-box.js';
import { type SeededProgram, type TestApi, type TestDatabase } from './support/harness.js';
import { useSeededApi } from './support/seeded-api.js';

let db: TestDatabase;
let api: TestApi;
let mine: SeededProgram;
let theirs: SeededProgram;
let deps: ManagementDeps;
let brand: Scope;

useSeededApi({ programs: [{}, {}] }, (t) => ({ db, api, programs: [mine, theirs] } = t));
beforeAll(async () => {
  deps = { pool: db.pool, secretBox: createSecretBox('management-test-secret'), now: () => new Date() };
  brand = { kind: 'account', accountId: mine.accountId, role: 'owner' };
});

const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => null,
    (error: unknown) => {
      if (!(error instanceof AffixError)) throw error;
      return { status: error.status, message: error.message, fields: error.init.fields ?? null };
    },
  );

describe('one rule for both doors', () => {
  it('link codes: the same refusal, with the field, for the operator and the brand; generated codes are 10 hex characters', async () => {
    for (const scope of [OPERATOR, brand]) {
      expect(await refusal(createLink(deps, scope, mine.programId, { partner_id: mine.partnerId, short_link: 'x' }))).toEqual({
        status: 400,
        message: 'short_link: Link code must be 3 to 64 letters, digits, - or _.',
        fields: { short_link: 'Link code must be 3 to 64 letters, digits, - or _.' },
      });
      const link = await createLink(deps, scope, mine.programId, { partner_id: mine.partnerId, short_link: '' });
      expect(link.short_link).toMatch(/^[0-9a-f]{10}$/);
      expect(await refusal(createLink(deps, scope, mine.programId, { partner_id: mine.partnerId, short_link: link.short_link }))).toMatchObject({
        status: 409,
        fields: { short_link: expect.stringContaining('is already taken') },
      });
    }
  });

  it('every field problem at once', async () => {
    expect(await refusal(addPartner(deps, brand, mine.programId, { name: '', email: 'not-an-email' }))).toMatchObject({
      status: 400,
      fields: { name: 'Partner name is required.', email: 'Partner email must be an email address.' },
    });
  });

  it("a brand reaches none of another brand's programs, links or keys: the same 404 as nothing", async () => {
    expect(await refusal(programInScope(deps, brand, theirs.programId))).toEqual({ status: 404, message: 'Program not found', fields: null });
    expect(await refusal(setLinkEnabled(deps, brand, theirs.linkId, false))).toMatchObject({ status: 404, message: 'Referral link not found' });
    const theirKey = await issueKey(deps, OPERATOR, theirs.programId);
    expect(await refusal(regenerateKey(deps, brand, theirKey.key.id))).toMatchObject({ status: 404, message: 'API key not found' });
    expect(await refusal(markKeyForRotation(deps, brand, theirKey.key.id, new Date(Date.now() + 86_400_000)))).toMatchObject({ status: 404 });
  });

  it('rotation: brands plan it in the future; the operator may also retire a key at once', async () => {
    const key = await issueKey(deps, brand, mine.programId);
    expect(await refusal(markKeyForRotation(deps, brand, key.key.id, new Date(Date.now() - 1000)))).toMatchObject({ status: 400, fields: { rotate_by: 'Choose a date in the future.' } });
    expect((await markKeyForRotation(deps, OPERATOR, key.key.id, new Date(Date.now() - 1000))).rotate_by).toBeInstanceOf(Date);
  });

  it('Stripe: a brand sets its signing secret, never a Connect account id; a taken account is a 409 on its field', async () => {
    expect(await setStripeSettings(deps, brand, mine.programId, { webhook_secret: 'whsec_mine' })).toMatchObject({ webhook_secret_set: true });
    expect(await refusal(setStripeSettings(deps, brand, mine.programId, { account_id: 'acct_claimed' }))).toMatchObject({ status: 403 });
    await setStripeSettings(deps, OPERATOR, theirs.programId, { account_id: `acct_taken_${mine.programId}` });
    expect(await refusal(setStripeSettings(deps, OPERATOR, mine.programId, { account_id: `acct_taken_${mine.programId}` }))).toMatchObject({
      status: 409,
      fields: { account_id: expect.any(String) },
    });
  });
});
