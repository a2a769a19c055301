// POST /track/lead: bind a customer key to a click (spec §3 customer and provisional-lead rows, §4.2).
import { MESSAGES, errors } from './errors.js';
import { assertOriginAllowed } from './origins.js';
import { attributedClick } from './customers.js';
import { rewardLead } from './lead-rewards.js';
import type { Store } from './ports.js';
import { hashEmail } from './secrets.js';
import { type AdditionalData, assertTestProgramMatchesKey, isTestMode } from './test-mode.js';
import type { Customer, Program } from './types.js';

export interface TrackLeadInput {
  /** Program of the Bearer key (server mode), or null in browser mode. */
  keyProgramId: number | null;
  clickId: string | null;
  customerKey: string | null;
  email: string | null;
  /** The brand's name or label for its customer (`customer_name`), shown to the partner if the brand chose so. */
  customerName?: string | null;
  /** Program named in the body (browser mode, when only customer_key is sent). */
  bodyProgramId: number | null;
  eventName: string | null;
  additionalData: AdditionalData | null;
  origin: string | null;
  /** The customer's IP (the browser's, or `customer_ip` from the brand's backend), for fraud signals. */
  ip?: string | null;
  now: Date;
}

export interface TrackLeadResult {
  programId: number;
  customerId: number;
  provisional: boolean;
  /** A server lead confirmed an earlier browser-mode (provisional) lead. */
  settled: boolean;
  /** The lead's reward failed (its writes rolled back, the lead kept): the cause, for the caller to log. */
  rewardFailed?: unknown;
}

const statusError = (customer: Customer) =>
  errors.badRequest(`Customer status cannot be updated to lead. Current status: ${customer.status}`);

export async function trackLead(store: Store, input: TrackLeadInput): Promise<TrackLeadResult> {
  if (!input.clickId && !input.customerKey) throw errors.badRequest(MESSAGES.leadIdentifierRequired);
  assertTestProgramMatchesKey(input.additionalData, input.keyProgramId);
  const serverMode = input.keyProgramId !== null;

  return store.transaction(async (tx) => {
    const click = input.clickId ? await attributedClick(tx, input.clickId) : null;
    const programId = input.keyProgramId ?? click?.programId ?? input.bodyProgramId;
    const program: Program | null = programId === null ? null : await tx.getProgram(programId);
    if (!program) throw errors.badRequest(MESSAGES.leadCustomerNotFound);
    if (!serverMode) assertOriginAllowed(program, input.origin);

    let customer = input.customerKey ? await tx.findCustomerByKey(program.id, input.customerKey) : null;
    if (!customer && click) {
      if (click.programId !== program.id) throw errors.badRequest(MESSAGES.customerOtherProgram);
      customer = await tx.findCustomerByClickId(click.clickId);
    }
    if (!customer && !click) {
      if (serverMode && input.customerKey && (await tx.customerKeyExistsInOtherProgram(program.id, input.customerKey))) {
        throw errors.badRequest(MESSAGES.customerOtherProgram);
      }
      throw errors.badRequest(MESSAGES.leadCustomerNotFound);
    }

    const emailHash = input.email ? hashEmail(input.email) : undefined;
    const test = isTestMode(input.additionalData);
    const provisional = !serverMode && program.leadAuth === 'server_required';
    let settled = false;
    // The partner a rebound lead now belongs to (the customer row read before the update still names the old one).
    let rebound: { partnerId: number | null; clickId: string } | null = null;

    if (customer) {
      const settlesProvisional = serverMode && customer.provisionalLead && customer.status === 'lead';
      if (!settlesProvisional && customer.status !== 'click') throw statusError(customer);
      // A server lead is the trusted word: it settles the provisional lead and, if it names
      // another click of this program, moves the binding there.
      const rebind = settlesProvisional && click && click.programId === program.id && click.clickId !== customer.clickId;
      await tx.updateCustomer(customer.id, {
        status: 'lead',
        provisionalLead: provisional,
        leadAt: customer.leadAt ?? input.now,
        ...(input.ip ? { leadIp: input.ip } : {}),
        ...(input.customerKey && !customer.customerKey ? { customerKey: input.customerKey } : {}),
        ...(emailHash ? { emailHash } : {}),
        ...(input.customerName ? { name: input.customerName } : {}),
        ...(rebind ? { click: { clickId: click.clickId, clickedAt: click.createdAt, linkId: click.linkId, partnerId: click.partnerId } } : {}),
      });
      settled = settlesProvisional;
      if (rebind) rebound = { partnerId: click.partnerId, clickId: click.clickId };
    } else {
      customer = await tx.insertCustomer({
        programId: program.id,
        customerKey: input.customerKey,
        status: 'lead',
        clickId: click!.clickId,
        clickedAt: click!.createdAt,
        linkId: click!.linkId,
        partnerId: click!.partnerId,
        emailHash: emailHash ?? null,
        provisionalLead: provisional,
        leadAt: input.now,
        convertedAt: null,
        leadIp: input.ip ?? null,
        name: input.customerName ?? null,
      });
    }

    await tx.insertTrackingEvent({
      programId: program.id,
      kind: 'lead',
      customerId: customer.id,
      clickId: customer.clickId ?? click?.clickId ?? null,
      saleId: null,
      test,
      details: { mode: serverMode ? 'server' : 'browser', provisional, settled, event_name: input.eventName },
      createdAt: input.now,
    });
    // A settled provisional lead was told of when it was first recorded.
    if (!settled) {
      await tx.emit({
        programId: program.id,
        type: 'lead.created',
        test,
        data: {
          program_id: program.id, customer_key: input.customerKey ?? customer.customerKey, click_id: customer.clickId ?? click?.clickId ?? null,
          partner_id: customer.partnerId ?? click?.partnerId ?? null, provisional, event_name: input.eventName ?? null,
        },
      });
    }
    // Only a lead the brand's server recorded (or settled) may pay: a browser lead's only check
    // is its Origin header, which anyone can send, so it pays nothing (a provisional one pays
    // once the server settles it). A test lead never pays.
    const partnerId = rebound ? rebound.partnerId : customer.partnerId;
    let rewardFailed: unknown;
    if (serverMode && !test && partnerId !== null) {
      const clickId = rebound ? rebound.clickId : (customer.clickId ?? click?.clickId ?? null);
      const toReward = { customerId: customer.id, customerKey: input.customerKey ?? customer.customerKey, clickId, partnerId, at: input.now };
      // As a sale whose commission fails (commission_failed): the reward's writes roll back to the
      // savepoint, the lead stays recorded, and the caller logs the cause. A retry could not pay
      // it anyway (the same lead again is refused).
      try {
        await tx.withSavepoint(() => rewardLead(tx, program, toReward));
      } catch (error) {
        rewardFailed = error;
      }
    }
    return { programId: program.id, customerId: customer.id, provisional, settled, ...(rewardFailed === undefined ? {} : { rewardFailed }) };
  });
}
