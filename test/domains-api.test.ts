// Issue 44, item 2: a program's own hosts through the admin API, with the dashboard's checks and
// audit: GET and PATCH /api/v1/admin/programs/{id}/domains (docs/domains.md). A field left out
// stays; "" or null removes; a host another program holds is "taken"; the new host serves at once.
import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { type TestApi, type TestDatabase, adminHeaders, seedProgram } from './support/harness.js';
import { useSeededApi } from './support/seeded-api.js';

let db: TestDatabase;
let api: TestApi;
useSeededApi({}, (t) => ({ db, api } = t));

const admin = (method: string, path: string, body?: unknown) => api.request(method, `/api/v1/admin${path}`, { body, headers: adminHeaders });

/** The status of GET `path` with this Host header (fetch may not set it). */
function statusOn(host: string, path: string): Promise<number> {
  const { port } = new URL(api.url);
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers: { host } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode!));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the program domains through the admin API', () => {
  it('reads, sets one host leaving the other, removes, refuses bad and taken hosts, and audits each change like the dashboard', async () => {
    const shop = await seedProgram(api, { name: 'Domain Shop' });
    const other = await seedProgram(api, { name: 'Other Shop' });
    const path = `/programs/${shop.programId}/domains`;
    expect((await admin('GET', path)).body).toEqual({ data: { portal_host: null, links_host: null } });

    const portal = await admin('PATCH', path, { portal_host: ' Partners.Domain-Shop.TEST ' });
    expect(portal.status).toBe(200);
    expect(portal.body.data).toEqual({ portal_host: 'partners.domain-shop.test', links_host: null });
    // The new host serves the portal at once (this instance forgot its cached answer).
    expect(await statusOn('partners.domain-shop.test', '/portal/login')).toBe(200);
    // Only the links host given: the portal host stays.
    const both = await admin('PATCH', path, { links_host: 'go.domain-shop.test' });
    expect(both.body.data).toEqual({ portal_host: 'partners.domain-shop.test', links_host: 'go.domain-shop.test' });
    expect((await admin('GET', path)).body.data).toEqual(both.body.data);

    // The dashboard's checks, each under its field.
    const refused = async (body: unknown) => {
      const reply = await admin('PATCH', path, body);
      return [reply.status, reply.body.error.message];
    };
    expect(await refused({ portal_host: 'https://partners.domain-shop.test/portal' })).toEqual([400, 'Give the host name alone: no https://, path or port (like partners.example.com).']);
    expect(await refused({ links_host: 'partners.domain-shop.test' })).toEqual([400, 'The links host must differ from the portal host.']);
    expect(await refused({ links_host: '203.0.113.7' })).toEqual([400, 'Give a host name, not an IP address.']);
    // Another program's host: "taken", all its brand learns.
    const taken = await admin('PATCH', `/programs/${other.programId}/domains`, { portal_host: 'partners.domain-shop.test' });
    expect([taken.status, taken.body.error.message]).toEqual([400, 'This host is already in use: choose another.']);
    expect((await admin('PATCH', path, { portal_host: 'partners.domain-shop.test', colour: 'red' })).status).toBe(400);
    expect((await admin('GET', '/programs/999999999/domains')).status).toBe(404);
    expect((await admin('GET', path)).body.data).toEqual({ portal_host: 'partners.domain-shop.test', links_host: 'go.domain-shop.test' });

    // Removed with null (or ""): the other stays; the host no longer serves.
    expect((await admin('PATCH', path, { portal_host: null })).body.data).toEqual({ portal_host: null, links_host: 'go.domain-shop.test' });
    expect(await statusOn('partners.domain-shop.test', '/portal/login')).toBe(404);
    expect((await admin('PATCH', path, { links_host: '' })).body.data).toEqual({ portal_host: null, links_host: null });

    const audit = (await db.pool.query("SELECT actor_type, changes FROM audit_log WHERE program_id = $1 AND action = 'program_domains.updated' ORDER BY id", [shop.programId])).rows;
    expect(audit.map((r) => r.changes)).toEqual([
      { portal: { from: null, to: 'partners.domain-shop.test' } },
      { links: { from: null, to: 'go.domain-shop.test' } },
      { portal: { from: 'partners.domain-shop.test', to: null } },
      { links: { from: 'go.domain-shop.test', to: null } },
    ]);
    expect(new Set(audit.map((r) => r.actor_type))).toEqual(new Set(['operator']));
  });
});
