// The HTTP API: listen, and on stop drain (stop accepting, let in-flight requests finish).
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type PgBoss from 'pg-boss';
import { type Config, withListeningPort } from '../platform/config.js';
import { type Pool, fallingBackToPrimary } from '../db/infra/pool.js';
import type { ReadReplica } from '../app/reads/read-side.js';
import { PgStore } from '../db/tracking/store.js';
import { requestListener } from '../http/app.js';
import type { Logger } from '../platform/logger.js';
import { createSecretBox } from '../platform/secret-box.js';

export interface RunningApi {
  url: string;
  /** The public URL in force (AFFIX_PUBLIC_URL, or this instance's own with PORT=0). */
  publicUrl: string;
  server: Server;
  /** Stops accepting connections and waits up to `drainMs` for in-flight requests, then cuts the rest. */
  close(drainMs?: number): Promise<void>;
}

/**
 * The replica's side of the reads (app/reads/read-side.ts). While the replica cannot be reached its reads go
 * to the primary: said once when that starts and once when the replica answers again, not per
 * page (the reason only: the URL, and its password, are never logged).
 */
export function readReplica(config: Readonly<Config>, primary: Pool, replica: Pool, logger: Logger): ReadReplica {
  let reachable = true;
  const pool = fallingBackToPrimary(replica, primary, (error) => {
    if (!reachable) return;
    reachable = false;
    logger.warn({ reason: (error as { code?: string }).code ?? (error as Error).message }, 'the read replica (DATABASE_READ_URL) cannot be reached: its reads go to the primary until it answers');
  });
  replica.on('connect', () => {
    if (reachable) return;
    reachable = true;
    logger.info('the read replica (DATABASE_READ_URL) answers again: reading it');
  });
  return { pool, replica, store: new PgStore(pool), noteAfterSeconds: config.readLagNoteSeconds };
}

export async function startApi(configured: Readonly<Config>, pool: Pool, logger: Logger, extras: { queue?: PgBoss; reads?: Pool | null } = {}): Promise<RunningApi> {
  // Listening first: with PORT=0 the public URL (links, the set-up page) names the real port.
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(configured.port, configured.host, () => resolve());
  });
  const config = withListeningPort(configured, (server.address() as AddressInfo).port);
  const secretBox = config.secretKey ? createSecretBox(config.secretKey) : undefined;
  const reads = extras.reads ? readReplica(config, pool, extras.reads, logger) : undefined;
  server.on('request', requestListener({ config, pool, store: new PgStore(pool, { linkCacheMs: config.linkCacheMs }), reads, logger, queue: extras.queue, secretBox }));
  let draining = false;
  // While draining, each answer asks the client to close its keep-alive connection.
  server.on('request', (_req, res) => {
    if (draining && !res.headersSent) res.setHeader('Connection', 'close');
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://localhost:${port}`,
    publicUrl: config.publicUrl,
    server,
    close: (drainMs = 8_000) =>
      new Promise<void>((resolve) => {
        draining = true;
        const idle = setInterval(() => server.closeIdleConnections(), 100);
        const deadline = setTimeout(() => {
          logger.warn('in-flight requests did not finish in time; closing their connections');
          server.closeAllConnections();
        }, drainMs);
        server.close(() => {
          clearInterval(idle);
          clearTimeout(deadline);
          resolve();
        });
        server.closeIdleConnections();
      }),
  };
}
