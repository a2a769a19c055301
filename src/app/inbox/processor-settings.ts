// Setting up Paddle and Lemon Squeezy for a program: the endpoint's signing secret (sealed) and
// whether it is the processor's sandbox. The endpoint URL and the events to select come with it.
import { z } from 'zod';
import { errors } from '../../core/errors.js';
import { PROCESSOR_NAMES } from '../../core/processor-port.js';
import { changedFields } from '../../core/audit.js';
import { withTransaction } from '../../db/infra/pool.js';
import { type ConnectedProcessor, processorEndpointStatus, saveProcessorEndpoint } from '../../db/inbox/processor-endpoints.js';
import { ADAPTERS } from '../../core/adapters.js';
import { type ManagementDeps, audit, parseInput } from '../programs/management.js';
import { type Scope, programInScope } from '../accounts/scope.js';

export const CONNECTED_PROCESSORS: readonly ConnectedProcessor[] = ['paddle', 'lemonsqueezy'];
export const isConnectedProcessor = (value: string): value is ConnectedProcessor => (CONNECTED_PROCESSORS as readonly string[]).includes(value);

export const processorInput = z.object({
  webhook_secret: z.string().trim().min(8, 'Paste the whole signing secret (at least 8 characters).').max(500).nullish(),
  sandbox: z.boolean().optional(),
});

export const processorWebhookUrl = (publicUrl: string, processor: ConnectedProcessor, programId: number) => `${publicUrl}/api/v1/webhooks/${processor}/${programId}`;

/** What the admin API shows for a processor, for a program in the scope. */
export async function processorSetup(deps: ManagementDeps & { publicUrl: string }, scope: Scope, programId: number, processor: ConnectedProcessor) {
  const program = await programInScope(deps, scope, programId);
  return processorStatus(deps, program.id, processor);
}

/** The endpoint URL, the events to select, and how the endpoint is doing (the dashboard's page reads this for its own program). */
export async function processorStatus(deps: Pick<ManagementDeps, 'pool'> & { publicUrl: string }, programId: number, processor: ConnectedProcessor) {
  const status = await processorEndpointStatus(deps.pool, programId, processor);
  return {
    processor,
    program_id: programId,
    webhook_url: processorWebhookUrl(deps.publicUrl, processor, programId),
    events: [...ADAPTERS[processor].eventsToSelect],
    secret_set: status.secretSet,
    sandbox: status.sandbox,
    last_event_at: status.lastEventAt,
    last_signature_error: status.lastSignatureError,
    last_signature_error_at: status.lastSignatureErrorAt,
  };
}

export async function setProcessorSettings(deps: ManagementDeps & { publicUrl: string }, scope: Scope, programId: number, processor: ConnectedProcessor, input: unknown) {
  const program = await programInScope(deps, scope, programId);
  const body = parseInput(processorInput, input);
  const name = PROCESSOR_NAMES[processor];
  if (body.webhook_secret && !deps.secretBox) {
    throw errors.invalid(`Set AFFIX_SECRET_KEY to store ${name} signing secrets`, { webhook_secret: `Set AFFIX_SECRET_KEY to store ${name} signing secrets.` });
  }
  await withTransaction(deps.pool, async (client) => {
    const saved = await saveProcessorEndpoint(client, program.id, processor, { secretSealed: body.webhook_secret ? deps.secretBox!.seal(body.webhook_secret) : undefined, sandbox: body.sandbox });
    if (!saved) throw errors.invalid(`Paste the ${name} signing secret: nothing was saved.`, { webhook_secret: `Paste the signing secret of this endpoint in ${name}.` });
    await audit(client, scope, [{ programId: program.id, action: `${processor}.updated`, objectType: 'program', objectId: program.id, changes: changedFields({}, { webhook_secret: body.webhook_secret ? 'set' : undefined, sandbox: body.sandbox }) }]);
  });
  return processorSetup(deps, scope, programId, processor);
}
