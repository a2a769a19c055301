// Sends one signed webhook (Standard Webhooks) to a brand's endpoint, only to a global unicast
// address of another host (src/platform/destinations.ts) unless the operator allows private
// ones: the address checked is the address connected to (the lookup is ours), so a DNS answer
// cannot change between check and use; redirects are never followed.
import { lookup as dnsLookup } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { addressProblem, ownAddresses } from './destinations.js';

/** True for addresses a webhook must not reach from a shared service (see addressProblem). */
export const isRefusedAddress = (address: string): boolean => addressProblem(address) !== null;

/** The host as it is compared: brackets, case and trailing dots ("localhost.") taken off. */
const bareHost = (hostname: string) => hostname.replace(/^\[|\]$/g, '').toLowerCase().replace(/\.+$/, '');

/** Why this URL cannot be a webhook endpoint, or null (scheme, credentials, a literal address or name that cannot be public). */
export function endpointUrlProblem(url: string, allowPrivate: boolean): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'must be an absolute http or https URL';
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return 'must be an absolute http or https URL';
  if (parsed.username || parsed.password) return 'must not carry a user name or password';
  if (allowPrivate) return null;
  const host = bareHost(parsed.hostname);
  if (host === 'localhost' || host.endsWith('.localhost') || host === '') return 'must not point at a private or loopback address';
  if (isIP(host) !== 0 && addressProblem(host) !== null) return 'must not point at a private or loopback address';
  return null;
}

/** Every address a host name resolves to (empty when it does not resolve). */
export type HostResolver = (hostname: string) => Promise<string[]>;

/** How long registration waits for the resolver before judging the name as one that does not resolve. */
const REGISTRATION_LOOKUP_MS = 3_000;

/**
 * The host's own resolver, as the connect-time lookup uses it (getaddrinfo: the hosts file, then
 * DNS), every address. A name that does not resolve, or not in time, answers no address.
 */
export const hostResolver: HostResolver = (hostname) =>
  new Promise((resolve) => {
    const late = setTimeout(() => resolve([]), REGISTRATION_LOOKUP_MS);
    late.unref();
    dnsLookup(hostname, { all: true }, (error, addresses) => {
      clearTimeout(late);
      resolve(error ? [] : addresses.map((a) => a.address));
    });
  });

/**
 * At registration: why the URL's host name cannot be an endpoint by what it resolves to now
 * (any private, loopback or own address: localhost.localdomain, ip6-localhost and other names of
 * the hosts file), or null. A name that does not resolve is left to the connect-time check.
 */
export async function endpointNameProblem(url: string, allowPrivate: boolean, resolve: HostResolver = hostResolver): Promise<string | null> {
  if (allowPrivate) return null;
  const host = bareHost(new URL(url).hostname);
  if (isIP(host) !== 0) return null; // a literal address is judged by endpointUrlProblem
  const addresses = await resolve(host);
  const own = ownAddresses();
  return addresses.some((address) => addressProblem(address, own) !== null) ? 'must not point at a private or loopback address' : null;
}

export const checkedLookup =
  (allowPrivate: boolean): LookupFunction =>
  (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, '', 0);
      const own = allowPrivate ? new Set<string>() : ownAddresses();
      const usable = addresses.filter((a) => allowPrivate || addressProblem(a.address, own) === null);
      if (usable.length === 0) return callback(Object.assign(new Error(`${hostname} resolves only to private addresses`), { code: 'EPRIVATE' }), '', 0);
      if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: typeof usable) => void)(null, usable);
      callback(null, usable[0]!.address, usable[0]!.family);
    });
  };

export interface SignedMessage {
  id: string;
  timestamp: Date;
  body: string;
  /** whsec_… secrets; each signs (rotation overlap: the receiver accepts any). */
  secrets: string[];
}

export interface AttemptResult {
  status: number | null;
  /** The receiver's first 500 characters, or why nothing was received. */
  excerpt: string;
  durationMs: number;
}

/** The three Standard Webhooks headers for a message. */
export function signatureHeaders(message: SignedMessage): Record<string, string> {
  const signatures = message.secrets.map((secret) => new Webhook(secret).sign(message.id, message.timestamp, message.body));
  return {
    'webhook-id': message.id,
    'webhook-timestamp': String(Math.floor(message.timestamp.getTime() / 1000)),
    'webhook-signature': signatures.join(' '),
  };
}

export async function sendWebhook(
  url: string,
  message: SignedMessage,
  options: { allowPrivate: boolean; timeoutMs: number; clock: () => number },
): Promise<AttemptResult> {
  const started = options.clock();
  const problem = endpointUrlProblem(url, options.allowPrivate);
  if (problem) return { status: null, excerpt: `URL ${problem}`, durationMs: 0 };
  const target = new URL(url);
  const client = target.protocol === 'https:' ? https : http;
  return new Promise((resolve) => {
    // One deadline for the whole attempt: a receiver that trickles its answer a byte at a time
    // keeps the socket busy, so an idle timeout alone never fires.
    const deadline = setTimeout(() => request.destroy(new Error(`no complete answer within ${options.timeoutMs} ms`)), options.timeoutMs);
    const finish = (status: number | null, excerpt: string) => {
      clearTimeout(deadline);
      resolve({ status, excerpt: excerpt.slice(0, 500), durationMs: Math.max(0, options.clock() - started) });
    };
    const request = client.request(
      target,
      {
        method: 'POST',
        lookup: checkedLookup(options.allowPrivate),
        timeout: options.timeoutMs,
        headers: { 'content-type': 'application/json', 'user-agent': 'Affix-Webhooks/1', ...signatureHeaders(message) },
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          if (text.length < 500) text += chunk;
        });
        response.on('end', () => finish(response.statusCode ?? null, text));
        response.on('error', (error) => finish(null, `response broke off: ${error.message}`));
        // Cut off mid-body (the deadline): not an answer, whatever its status line said.
        response.on('aborted', () => finish(null, `no complete answer within ${options.timeoutMs} ms`));
      },
    );
    request.on('timeout', () => request.destroy(new Error(`no answer within ${options.timeoutMs} ms`)));
    request.on('error', (error) => finish(null, error.message));
    request.end(message.body);
  });
}
