// The set-up page's actions: test events through the real pipeline, in test mode (no commission
// unless the program pays test commissions), so a brand sees what Affix records before going live.
import Stripe from 'stripe';
import { AffixError } from '../../core/errors.js';
import { formatMoney } from '../../core/money.js';
import { type SyntheticEventType, TEST_SALE_CENTS } from '../../core/synthetic-events.js';
import { endpointForIntake } from '../../db/inbox/processor-endpoints.js';
import { loadFixture } from '../../platform/fixtures.js';
import { runTestEvents } from './cli-programs.js';
import { type ManagementDeps } from './management.js';
import { type Scope, programInScope } from '../accounts/scope.js';
import { type IntakeDeps, receiveProgramEvent } from '../inbox/webhook-intake.js';
import type { Store } from '../../core/ports.js';

export type SetupDeps = ManagementDeps & { store: Store };
export const TEST_EVENT_KINDS = ['click', 'lead', 'sale', 'webhook'] as const;
export type TestEventKind = (typeof TEST_EVENT_KINDS)[number];

export interface TestEventOutcome {
  kind: TestEventKind;
  /** What Affix recorded, in the words the page shows. */
  recorded: string[];
  /** Where to look at it. */
  section: 'activity' | 'inbox';
}

/** A test click, lead or sale on the program's test link (the chain up to it), as `affix test` sends. */
export async function sendTestEvent(deps: SetupDeps, scope: Scope, programId: number, kind: SyntheticEventType): Promise<TestEventOutcome> {
  const program = await programInScope(deps, scope, programId);
  const result = await runTestEvents(deps, program.id, kind, false);
  const recorded: string[] = [];
  if (result.eventIds.click) recorded.push(`Click ${result.eventIds.click} on the test link ?aff=${result.shortLink}: ${result.verdict.click}.`);
  if (kind !== 'click') recorded.push(`Lead for customer ${result.customerKey}: ${result.verdict.lead}.`);
  if (kind === 'sale') recorded.push(result.eventIds.sale ? `Sale ${result.eventIds.sale} of ${formatMoney(TEST_SALE_CENTS, 'USD')}, attributed to the test link: ${result.verdict.sale}.` : `Sale: ${result.verdict.sale}.`);
  return { kind, recorded, section: 'activity' };
}

/**
 * A Stripe checkout (test mode) for a test click and lead, signed with the program's own signing
 * secret and received by the same intake as Stripe's deliveries: stored, queued, attributed by
 * the workers. Without a saved secret nothing is sent, and the page says where to save it.
 */
export async function sendTestStripeEvent(deps: SetupDeps & { intake: IntakeDeps }, scope: Scope, programId: number): Promise<TestEventOutcome> {
  const program = await programInScope(deps, scope, programId);
  const stored = await endpointForIntake(deps.pool, program.id, 'stripe');
  const secret = stored?.endpoint && deps.secretBox ? deps.secretBox.open(stored.endpoint.secretSealed) : null;
  if (!secret) {
    const message = 'Save the signing secret on the Stripe page first: the test event is signed with it, as Stripe signs its deliveries.';
    throw new AffixError(409, message, { code: 'stripe_not_connected', fields: { test_webhook: message } });
  }
  const lead = await runTestEvents(deps, program.id, 'lead', false);
  const now = deps.now();
  const event = await loadFixture('checkout.session.completed.payment', {
    run: `affix_test_${now.getTime()}`,
    created: Math.floor(now.getTime() / 1000),
    click_id: lead.eventIds.click ?? '',
    customer_key: lead.customerKey,
    program_id: program.id,
    email: 'test-buyer@affix.test',
  });
  event.livemode = false;
  event.data.object.livemode = false;
  const body = JSON.stringify(event);
  const signature = Stripe.webhooks.generateTestHeaderString({ payload: body, secret, timestamp: Math.floor(now.getTime() / 1000) });
  const received = await receiveProgramEvent(deps.intake, 'stripe', String(program.id), { rawBody: Buffer.from(body), signature }, now);
  return {
    kind: 'webhook',
    recorded: [
      `Test click and lead for customer ${lead.customerKey}.`,
      `Stripe event ${received.eventKey} (${received.type}, test mode), signed with your secret: stored as inbox event ${received.id}, ${received.status}. The workers attribute it within seconds.`,
    ],
    section: 'inbox',
  };
}
