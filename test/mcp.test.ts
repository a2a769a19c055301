// The assistant endpoint with the official MCP client: list the tools, call each, prove read-only.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readOnly } from '../src/db/reads/assistant-insights.js';
import { type SeededProgram, type TestApi, type TestDatabase, bearer, closeTestApi, openTestApi, seedProgram, trackClick } from './support/harness.js';

let db: TestDatabase;
let api: TestApi;
let shop: SeededProgram;
let other: SeededProgram;
let client: Client;
const TXN = `mcp_sale_${Date.now()}`;

async function connect(key: string): Promise<Client> {
  const mcp = new Client({ name: 'affix-test', version: '1.0.0' });
  await mcp.connect(new StreamableHTTPClientTransport(new URL(`${api.url}/mcp`), { requestInit: { headers: bearer(key) } }));
  return mcp;
}

beforeAll(async () => {
  ({ db, api } = await openTestApi());
  shop = await seedProgram(api);
  other = await seedProgram(api);
  const clickId = await trackClick(api, shop.affiliateUrl);
  await api.request('POST', '/api/v1/track/lead', { body: { click_id: clickId, customer_key: 'mcp_user' } });
  await api.request('POST', '/api/v1/track/sale', { body: { transaction_id: TXN, amount_cents: 5000, customer_key: 'mcp_user' }, headers: bearer(shop.apiKey) });
  await api.request('POST', '/api/v1/track/refund', { body: { transaction_id: TXN, refund_amount_cents: 1000 }, headers: bearer(shop.apiKey) });
  // Another customer of the same partner pays in EUR: money never adds across currencies.
  const euroClick = await trackClick(api, shop.affiliateUrl);
  await api.request('POST', '/api/v1/track/sale', { body: { transaction_id: `${TXN}_eur`, amount_cents: 3000, currency: 'EUR', click_id: euroClick }, headers: bearer(shop.apiKey) });
  client = await connect(shop.apiKey);
});
afterAll(async () => {
  await client?.close();
  await api.close();
  await db.drop();
});

const parse = (result: any) => JSON.parse(result.content[0].text);

/**
 * A hash of every row of every table: any write by a tool would change it. The request counters
 * of the rate limiter are left out: counting requests is the endpoint's, not a tool's, doing.
 */
async function databaseFingerprint(): Promise<string> {
  const tables = (
    await db.pool.query("SELECT tablename FROM pg_tables WHERE schemaname = 'public' AND tablename <> 'rate_limit_counters' ORDER BY tablename")
  ).rows.map((r) => r.tablename);
  const parts: string[] = [];
  for (const table of tables) {
    const { rows } = await db.pool.query(`SELECT md5(coalesce(string_agg(t::text, '|' ORDER BY t::text), '')) AS h FROM ${table} t`);
    parts.push(`${table}:${rows[0].h}`);
  }
  return parts.join(',');
}

describe('assistant (MCP) endpoint', () => {
  it('lists five read-only tools', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(['explain_sale', 'get_program', 'get_readiness', 'partner_stats', 'recent_events']);
    for (const tool of tools) expect(tool.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
  });

  it('each tool answers about the key\'s program only, and no call changes anything', async () => {
    const before = await databaseFingerprint();
    expect(parse(await client.callTool({ name: 'get_program', arguments: {} }))).toMatchObject({ id: shop.programId, commission_type: 'percent', commission_rate: 20 });
    expect(parse(await client.callTool({ name: 'get_readiness', arguments: {} }))).toMatchObject({ program_id: shop.programId, integration_verified: true });
    const events = parse(await client.callTool({ name: 'recent_events', arguments: { limit: 10 } }));
    expect(events.map((e: any) => e.kind)).toEqual(['sale', 'click', 'sale', 'lead', 'click']);
    expect(parse(await client.callTool({ name: 'recent_events', arguments: { kind: 'click' } }))).toHaveLength(2);
    expect(parse(await client.callTool({ name: 'partner_stats', arguments: { days: 7 } }))).toEqual([
      {
        partner_id: shop.partnerId, name: expect.any(String), clicks: 2, leads: 1, sales: 2,
        by_currency: [
          { currency: 'EUR', sales: 1, revenue_cents: '3000', commission_cents: '600' },
          { currency: 'USD', sales: 1, revenue_cents: '5000', commission_cents: '800' },
        ],
      },
    ]);
    const explained = parse(await client.callTool({ name: 'explain_sale', arguments: { transaction_id: TXN } }));
    expect(explained).toMatchObject({
      transaction_id: TXN, attribution_step: 'customer_key', customer_key: 'mcp_user', partner_code: shop.shortLink,
      commission_cents: 1000, commission_state: 'pending', commission_earned_cents: 800, refunded_total_cents: 1000, deducted_cents: 200, commission_reason: null,
      // Why the commission is what it is (docs/rewards.md).
      commission_why: '20 % — program terms, first paid sale', commission_rule_id: null,
      refunds: [expect.objectContaining({ amount_cents: 1000, deduction_cents: 200, reason: 'refund' })],
    });
    const missing = await client.callTool({ name: 'explain_sale', arguments: { transaction_id: 'nope' } });
    expect(missing.isError).toBe(true);
    expect(await databaseFingerprint()).toBe(before);
  });

  it('another program\'s key sees nothing of this program', async () => {
    const stranger = await connect(other.apiKey);
    try {
      const result = await stranger.callTool({ name: 'explain_sale', arguments: { transaction_id: TXN } });
      expect(result.isError).toBe(true);
      expect(parse(await stranger.callTool({ name: 'recent_events', arguments: {} }))).toEqual([]);
    } finally {
      await stranger.close();
    }
  });

  it('refuses a missing or unknown key with the typed envelope', async () => {
    const reply = await api.request('POST', '/mcp', { body: { jsonrpc: '2.0', id: 1, method: 'tools/list' }, headers: bearer('affix_sk_nope') });
    expect(reply.status).toBe(401);
    expect(reply.body).toEqual({ error: { code: 'invalid_key', message: 'Invalid API token.' } });
    expect((await api.request('GET', '/mcp', { headers: bearer(shop.apiKey) })).status).toBe(405);
  });

  it('tool queries run in READ ONLY transactions: PostgreSQL refuses a write there', async () => {
    await expect(readOnly(db.pool, (c) => c.query("INSERT INTO accounts (email) VALUES ('x@y.z')"))).rejects.toThrow(/read-only transaction/);
  });
});
