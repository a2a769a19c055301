// POST /mcp: the assistant endpoint over streamable HTTP (stateless), authenticated with a program key.
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { Router } from 'express';
import { AffixError } from '../../core/errors.js';
import { createAssistantServer } from '../../mcp/server.js';
import { programKeyAuth } from '../auth.js';
import { state } from '../context.js';
import { type HttpDeps, clock } from '../deps.js';

export function mcpRoutes(deps: HttpDeps): Router {
  const router = Router();
  router.post('/mcp', programKeyAuth(deps.store, 'readiness', deps.config.docsUrl), async (req, res) => {
    const server = createAssistantServer({ pool: deps.pool, store: deps.store, now: () => clock(deps) }, state(res).apiKey!.programId);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  });
  // Stateless: no server-sent event stream and no sessions to end.
  router.all('/mcp', () => {
    throw new AffixError(405, 'Method not allowed: this MCP endpoint is stateless; POST JSON-RPC requests');
  });
  return router;
}
