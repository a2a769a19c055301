// Webhook endpoints can reach only global unicast addresses of other hosts: every form below is
// refused when an endpoint is registered (admin API) or when a delivery connects, and nothing of
// a refused target's answer is ever stored.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { lookup } from 'node:dns/promises';
import { hostname, networkInterfaces } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATOR } from '../src/app/accounts/scope.js';
import { createEndpoint } from '../src/app/outbound/webhook-endpoints.js';
import { AffixError } from '../src/core/errors.js';
import { addressProblem } from '../src/platform/destinations.js';
import { createSecretBox } from '../src/platform/secret-box.js';
import { type HostResolver, sendWebhook } from '../src/platform/webhook-sender.js';
import { type SeededProgram, type TestApi, type TestDatabase, adminHeaders, closeTestApi, openTestApi, seedProgram } from './support/harness.js';

let db: TestDatabase;
let api: TestApi;
let shop: SeededProgram;

beforeAll(async () => {
  // No AFFIX_WEBHOOK_ALLOW_PRIVATE: the rules a shared service runs with.
  ({ db, api } = await openTestApi({ AFFIX_SECRET_KEY: 'ssrf-test-secret-key-0123456789' }));
  shop = await seedProgram(api);
});
afterAll(() => closeTestApi({ db, api }));

/** Every form seen used to reach this host or its cloud's metadata service. */
const REFUSED_HOSTS: Array<[string, string]> = [
  ['127.0.0.1', 'loopback'],
  ['127.1', 'loopback, short form (the URL parser makes it 127.0.0.1)'],
  ['2130706433', 'loopback as one decimal number'],
  ['0x7f.0.0.1', 'loopback in hex'],
  ['0.0.0.0', 'unspecified'],
  ['10.1.2.3', 'private'],
  ['172.16.5.4', 'private'],
  ['192.168.1.1', 'private'],
  ['100.64.0.1', 'carrier-grade NAT'],
  ['169.254.169.254', 'link-local (cloud metadata)'],
  ['192.0.2.10', 'documentation (reserved)'],
  ['224.0.0.1', 'multicast'],
  ['255.255.255.255', 'broadcast'],
  ['[::1]', 'IPv6 loopback'],
  ['[::]', 'IPv6 unspecified'],
  ['[fe80::1]', 'IPv6 link-local'],
  ['[fd00::1]', 'IPv6 unique local'],
  ['[ff02::1]', 'IPv6 multicast'],
  ['[::ffff:127.0.0.1]', 'IPv4-mapped loopback'],
  ['[::ffff:a9fe:a9fe]', 'IPv4-mapped metadata address'],
  ['[::127.0.0.1]', 'IPv4-compatible loopback'],
  ['[64:ff9b::7f00:1]', 'NAT64 of loopback'],
  ['[64:ff9b::a9fe:a9fe]', 'NAT64 of the metadata address'],
  ['[64:ff9b:1::1]', 'NAT64 local-use prefix'],
  ['[2002:7f00:1::]', '6to4 of loopback'],
  ['[2002:a9fe:a9fe::1]', '6to4 of the metadata address'],
  ['[2001:0:4136:e378:8000:63bf:80ff:fffe]', 'Teredo whose client is 127.0.0.1'],
  ['[2001:db8::1]', 'IPv6 documentation (reserved)'],
  ['localhost', 'loopback name'],
  ['LOCALHOST.', 'loopback name, upper case with a trailing dot'],
  ['api.localhost', 'a name under localhost'],
];

/** This host's own interface addresses, found at run time (a public one reached the admin API). */
const ownHosts = () =>
  Object.values(networkInterfaces())
    .flat()
    .filter((entry) => entry !== undefined && !entry.address.startsWith('fe80'))
    .map((entry) => (entry!.family === 'IPv6' ? `[${entry!.address}]` : entry!.address));

const register = (url: string) =>
  api.request('POST', `/api/v1/admin/programs/${shop.programId}/webhook-endpoints`, { body: { url, event_types: ['sale.created'] }, headers: adminHeaders });

describe('webhook destinations (SSRF)', () => {
  it.each(REFUSED_HOSTS)('%s (%s) is refused at registration', async (host) => {
    const reply = await register(`https://${host}:8443/hook`);
    expect(reply.status).toBe(400);
    expect(reply.body.error.message).toBe('url: The URL must not point at a private or loopback address.');
  });

  it('the host\'s own addresses are refused, whatever their range', async () => {
    const own = ownHosts();
    expect(own.length).toBeGreaterThan(0);
    for (const host of own) {
      expect((await register(`http://${host}:3000/api/v1/admin/accounts`)).status, host).toBe(400);
      expect(addressProblem(host.replace(/^\[|\]$/g, '')), host).not.toBeNull();
    }
    // Judged by what they are, not by a list of private ranges: a public address of this host is refused too.
    expect(addressProblem('93.184.216.34', new Set(['93.184.216.34']))).toBe('is an address of this host');
    expect(addressProblem('93.184.216.34', new Set())).toBeNull();
  });

  it('IPv6 forms that carry a public IPv4 address, and public addresses, are accepted', async () => {
    for (const host of ['93.184.216.34', '[2606:4700::1111]', '[2002:5db8:d822::1]', '[64:ff9b::5db8:d822]', 'hooks.example.com']) {
      expect((await register(`https://${host}/hook`)).status, host).toBe(201);
    }
  });

  it('a name resolving to a refused address is refused at connect, and nothing of its answer is kept', async () => {
    const secretAnswer = 'ADMIN-API-ANSWER-that-must-never-be-stored';
    const server = createServer((_req, res) => res.end(secretAnswer));
    await new Promise<void>((resolve) => server.listen(0, '0.0.0.0', resolve));
    try {
      const port = (server.address() as AddressInfo).port;
      const message = { id: 'msg_ssrf', timestamp: new Date(), body: '{}', secrets: ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'] };
      // This host's name resolves to one of this host's addresses (the hosts file): registration refuses
      // it, and a name whose DNS answer changed after registration reaches the connect-time lookup, which refuses it too.
      const name = hostname();
      const { address } = await lookup(name);
      expect(addressProblem(address)).not.toBeNull();
      const registered = await register(`http://${name}:${port}/`);
      expect(registered.status).toBe(400);
      expect(registered.body.error.message).toBe('url: The URL must not point at a private or loopback address.');
      const attempt = await sendWebhook(`http://${name}:${port}/`, message, { allowPrivate: false, timeoutMs: 2000, clock: () => 0 });
      expect(attempt).toEqual({ status: null, excerpt: `${name} resolves only to private addresses`, durationMs: 0 });
      // Allowed by the operator, the same target answers: the refusal above was the check, not the network.
      const allowed = await sendWebhook(`http://${name}:${port}/`, message, { allowPrivate: true, timeoutMs: 2000, clock: () => 0 });
      expect(allowed.excerpt).toBe(secretAnswer);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe('names resolved at registration (the host\'s own resolver, hosts file included)', () => {
  // As a usual /etc/hosts and DNS would answer; a name absent here does not resolve.
  const HOSTS: Record<string, string[]> = {
    'localhost.localdomain': ['127.0.0.1'],
    'ip6-localhost': ['::1'],
    'ip6-loopback': ['::1'],
    'db.internal.example': ['10.0.0.7'],
    'metadata.cloud.example': ['169.254.169.254'],
    'split.example.com': ['93.184.216.34', '192.168.1.20'],
    'hooks.example.com': ['93.184.216.34', '2606:4700::1111'],
  };
  const resolveHost: HostResolver = async (name) => HOSTS[name] ?? [];
  const registerResolved = async (url: string) => {
    const deps = {
      pool: db.pool, secretBox: createSecretBox('ssrf-test-secret-key-0123456789'), now: () => new Date(), resolveHost,
      outbound: { allowPrivateAddresses: false, timeoutMs: 2000, concurrency: 1, retryScheduleSeconds: [60] },
    };
    try {
      await createEndpoint(deps, OPERATOR, shop.programId, { url, event_types: ['sale.created'] });
      return 'accepted';
    } catch (error) {
      if (error instanceof AffixError) return `${error.status} ${error.message} (field ${Object.keys(error.init.fields ?? {}).join()})`;
      throw error;
    }
  };
  const REFUSED = '400 url: The URL must not point at a private or loopback address. (field url)';

  it.each(['localhost.localdomain', 'ip6-localhost', 'IP6-LOOPBACK.', 'db.internal.example', 'metadata.cloud.example', 'split.example.com'])(
    '%s, resolving to a private or loopback address, is refused',
    async (name) => {
      expect(await registerResolved(`https://${name}/hook`)).toBe(REFUSED);
    },
  );

  it('a name resolving only to public addresses is accepted; one that does not resolve is accepted as before (delivery checks it at connect)', async () => {
    expect(await registerResolved('https://hooks.example.com/hook')).toBe('accepted');
    expect(await registerResolved('https://not-yet-in-dns.example.com/hook')).toBe('accepted');
  });
});
