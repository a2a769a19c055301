import type { Config } from '../config.js';
import type { Store } from '../core/ports.js';
import type { Pool } from '../db/pool.js';
import type { Logger } from '../logger.js';

export interface HttpDeps {
  config: Readonly<Config>;
  pool: Pool;
  store: Store;
  logger: Logger;
  /** Injectable clock for tests of time rules; defaults to the real time. */
  now?: () => Date;
}

export const clock = (deps: HttpDeps): Date => (deps.now ? deps.now() : new Date());
