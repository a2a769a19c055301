// The read-only assistant endpoint (spec §4.7): an MCP server with tools that only read the
// program the key belongs to. Stateless: one server per request, nothing kept in memory.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { computeReadiness } from '../core/readiness.js';
import type { Store } from '../core/ports.js';
import type { Pool } from '../db/pool.js';
import { partnerStats, programOverview, readOnly, recentEvents, saleExplanation } from '../db/program-insights.js';

const READ_ONLY = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const;

const asText = (value: unknown) => ({ content: [{ type: 'text' as const, text: JSON.stringify(value, null, 2) }] });

export function createAssistantServer(deps: { pool: Pool; store: Store; now: () => Date }, programId: number): McpServer {
  const server = new McpServer({ name: 'affix', version: '0.1.0' });

  server.registerTool(
    'get_program',
    { title: 'Program settings', description: 'The program this key belongs to: commission, attribution window, lead mode, origins, Stripe.', annotations: READ_ONLY },
    async () => asText(await readOnly(deps.pool, (client) => programOverview(client, programId))),
  );

  server.registerTool(
    'get_readiness',
    { title: 'Integration readiness', description: 'Which integration gates pass, the blocker, next actions, counts of the last 24 hours.', annotations: READ_ONLY },
    async () => asText(computeReadiness(programId, await deps.store.readinessFacts(programId, deps.now()))),
  );

  server.registerTool(
    'recent_events',
    {
      title: 'Recent tracking events',
      description: 'The latest clicks, leads and sales of the program, newest first.',
      inputSchema: { kind: z.enum(['click', 'lead', 'sale']).optional(), limit: z.number().int().min(1).max(100).default(20) },
      annotations: READ_ONLY,
    },
    async ({ kind, limit }) => asText(await readOnly(deps.pool, (client) => recentEvents(client, programId, kind ?? null, limit ?? 20))),
  );

  server.registerTool(
    'partner_stats',
    {
      title: 'Partner statistics',
      description: 'Per partner: clicks, leads, sales, and per currency the sales, revenue and commission (after refunds) over the last N days. Cent sums are decimal strings (exact at any size); currencies are never added together.',
      inputSchema: { days: z.number().int().min(1).max(365).default(30) },
      annotations: READ_ONLY,
    },
    async ({ days }) => {
      const since = new Date(deps.now().getTime() - (days ?? 30) * 86_400_000);
      return asText(await readOnly(deps.pool, (client) => partnerStats(client, programId, since)));
    },
  );

  server.registerTool(
    'explain_sale',
    {
      title: 'Explain a sale',
      description: 'How a sale was attributed: the step that matched, the click and partner, the commission and its refunds, or why it has no commission (commission_reason).',
      inputSchema: { transaction_id: z.string().min(1).max(255) },
      annotations: READ_ONLY,
    },
    async ({ transaction_id }) => {
      const explanation = await readOnly(deps.pool, (client) => saleExplanation(client, programId, transaction_id));
      return explanation
        ? asText(explanation)
        : { isError: true, content: [{ type: 'text' as const, text: `No sale with transaction_id ${transaction_id} in this program.` }] };
    },
  );
  return server;
}
