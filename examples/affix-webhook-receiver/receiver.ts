// A brand's receiver for Affix webhooks: verifies each request (Standard Webhooks: webhook-id,
// webhook-timestamp, webhook-signature over the raw body), ignores a webhook-id it has already
// handled (retries and replays reuse it), and answers 2xx only once the event is handled.
//
//   AFFIX_WEBHOOK_SECRET=whsec_… PORT=4000 npx tsx examples/affix-webhook-receiver/receiver.ts
import { type IncomingMessage, type Server, createServer } from 'node:http';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';

export interface AffixEvent {
  type: string;
  timestamp: string;
  test: boolean;
  data: Record<string, unknown>;
}

export interface ReceiverOptions {
  /** One or more whsec_… secrets (during a rotation, the old and the new). */
  secrets: string[];
  /** Your handling; throw to make Affix retry. */
  handle: (event: AffixEvent, id: string) => Promise<void>;
  /** webhook-ids already handled. Keep them in your database in production (a unique column). */
  seen?: Set<string>;
}

const readBody = (req: IncomingMessage) =>
  new Promise<string>((resolve, reject) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => resolve(body));
    req.on('error', reject);
  });

export function createReceiver(options: ReceiverOptions): Server {
  const verifiers = options.secrets.map((secret) => new Webhook(secret));
  const seen = options.seen ?? new Set<string>();
  return createServer(async (req, res) => {
    const body = await readBody(req);
    const headers = req.headers as Record<string, string>;
    // Any of our secrets may have signed it; the timestamp must be within 5 minutes.
    const event = verifiers
      .map((verifier) => {
        try {
          return verifier.verify(body, headers) as AffixEvent;
        } catch (error) {
          if (error instanceof WebhookVerificationError) return null;
          throw error;
        }
      })
      .find(Boolean);
    if (!event) {
      res.writeHead(400).end('bad signature');
      return;
    }
    const id = headers['webhook-id']!;
    if (seen.has(id)) {
      res.writeHead(200).end('already handled');
      return;
    }
    try {
      await options.handle(event, id);
      seen.add(id);
      res.writeHead(204).end();
    } catch {
      res.writeHead(500).end('try again');
    }
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const secrets = (process.env.AFFIX_WEBHOOK_SECRET ?? '').split(',').filter(Boolean);
  if (secrets.length === 0) throw new Error('Set AFFIX_WEBHOOK_SECRET to the endpoint’s signing secret (whsec_…)');
  createReceiver({
    secrets,
    handle: async (event, id) => {
      console.log(id, event.type, event.test ? '(test)' : '', JSON.stringify(event.data));
    },
  }).listen(Number(process.env.PORT ?? 4000), () => console.log(`listening on :${process.env.PORT ?? 4000}`));
}
