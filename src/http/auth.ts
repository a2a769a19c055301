// Program-key authentication for each route's flavour of spec §5 / §7.
import type { NextFunction, Request, Response } from 'express';
import { authenticateApiKey } from '../core/api-keys.js';
import { CLI_MESSAGES } from '../core/cli-login.js';
import { MESSAGES, errors } from '../core/errors.js';
import type { Store } from '../core/ports.js';
import { state } from './context.js';

export type BearerHeader = { kind: 'absent' } | { kind: 'malformed' } | { kind: 'empty' } | { kind: 'token'; token: string };

/** Node trims header values, so "Bearer " arrives as "Bearer": that is an empty token, not a malformed header. */
export function readBearer(req: Pick<Request, 'headers'>): BearerHeader {
  const header = req.headers.authorization;
  if (header === undefined) return { kind: 'absent' };
  if (header !== 'Bearer' && !header.startsWith('Bearer ')) return { kind: 'malformed' };
  const token = header.slice('Bearer'.length).trim();
  return token ? { kind: 'token', token } : { kind: 'empty' };
}

/** Flavours: which messages and envelope a route answers with. */
export type AuthFlavour = 'sale' | 'refund' | 'readiness' | 'lead' | 'click' | 'cli';

const typedMessages = {
  malformed: 'Missing or malformed Authorization header. Expected: Bearer <api_token>.',
  empty: 'Missing API token.',
  invalid: 'Invalid API token.',
};

export function programKeyAuth(store: Store, flavour: AuthFlavour, docsUrl: string) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    await acceptProgramKey(store, flavour, req, res, docsUrl);
    next();
  };
}

/** The program key a request presents, by the route's flavour: kept on the request's state, or refused. */
export async function acceptProgramKey(store: Store, flavour: AuthFlavour, req: Pick<Request, 'headers'>, res: Response, docsUrl: string): Promise<void> {
  const bearer = readBearer(req);
  const optional = flavour === 'lead' || flavour === 'click';
  if (bearer.kind !== 'token') {
    if (optional) return;
    if (flavour === 'readiness') {
      throw errors.typedInvalidKey(bearer.kind === 'empty' ? typedMessages.empty : typedMessages.malformed);
    }
    if (flavour === 'cli') {
      throw errors.unauthorized(bearer.kind === 'empty' ? CLI_MESSAGES.keyMissing : CLI_MESSAGES.keyMalformed);
    }
    if (bearer.kind === 'empty') throw errors.unauthorized(flavour === 'sale' ? MESSAGES.missingToken : MESSAGES.invalidToken);
    throw errors.unauthorized(MESSAGES.malformedAuth);
  }
  const key = await authenticateApiKey(store, bearer.token, new Date(), docsUrl);
  if (!key) {
    // Click has no authentication: an unknown key there only means no test-mode check.
    if (flavour === 'click') return;
    if (flavour === 'readiness') throw errors.typedInvalidKey(typedMessages.invalid);
    throw errors.unauthorized(flavour === 'cli' ? CLI_MESSAGES.keyInvalid : MESSAGES.invalidToken);
  }
  // A suspended brand: its customers' clicks, leads, sales and refunds are still recorded
  // (nothing is lost while the suspension is reviewed); everything else (readiness, the CLI
  // API, the assistant) is refused.
  if (key.accountSuspended && (flavour === 'readiness' || flavour === 'cli')) {
    throw flavour === 'readiness' ? errors.typedAccountBlocked() : errors.accountBlocked();
  }
  state(res).apiKey = key;
}
