// The read-only assistant endpoint (spec §4.7): an MCP server with tools that only read the
// program the key belongs to. Stateless: one server per request, nothing kept in memory.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { type ReadDeps, explainSale, latestEvents, partnerTotals, programReadiness, programSettings } from '../app/reads/assistant-reads.js';

const READ_ONLY = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const;

const asText = (value: unknown) => ({ content: [{ type: 'text' as const, text: JSON.stringify(value, null, 2) }] });

export function createAssistantServer(deps: ReadDeps, programId: number): McpServer {
  const server = new McpServer({ name: 'affix', version: '0.1.0' });

  server.registerTool(
    'get_program',
    { title: 'Program settings', description: 'The program this key belongs to: commission, attribution window, lead mode, origins, Stripe.', annotations: READ_ONLY },
    async () => asText(await programSettings(deps, programId)),
  );

  server.registerTool(
    'get_readiness',
    { title: 'Integration readiness', description: 'Which integration gates pass, the blocker, next actions, counts of the last 24 hours.', annotations: READ_ONLY },
    async () => asText(await programReadiness(deps, programId)),
  );

  server.registerTool(
    'recent_events',
    {
      title: 'Recent tracking events',
      description: 'The latest clicks, leads and sales of the program, newest first.',
      inputSchema: { kind: z.enum(['click', 'lead', 'sale']).optional(), limit: z.number().int().min(1).max(100).default(20) },
      annotations: READ_ONLY,
    },
    async ({ kind, limit }) => asText(await latestEvents(deps, programId, kind ?? null, limit ?? 20)),
  );

  server.registerTool(
    'partner_stats',
    {
      title: 'Partner statistics',
      description: 'Per partner: clicks, leads, sales, and per currency the sales, revenue and commission (after refunds; bounty, lead and click commissions included) over the last N days. Cent sums are decimal strings (exact at any size); currencies are never added together.',
      inputSchema: { days: z.number().int().min(1).max(365).default(30) },
      annotations: READ_ONLY,
    },
    async ({ days }) => asText(await partnerTotals(deps, programId, days ?? 30)),
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
      const explanation = await explainSale(deps, programId, transaction_id);
      return explanation
        ? asText(explanation)
        : { isError: true, content: [{ type: 'text' as const, text: `No sale with transaction_id ${transaction_id} in this program.` }] };
    },
  );
  return server;
}
