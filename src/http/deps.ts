import type PgBoss from 'pg-boss';
import type { Config } from '../platform/config.js';
import type { Store } from '../core/ports.js';
import type { ReadReplica } from '../app/reads/read-side.js';
import type { Pool } from '../db/infra/pool.js';
import type { Logger } from '../platform/logger.js';
import type { Mailer } from '../platform/mailer.js';
import type { SecretBox } from '../platform/secret-box.js';
import type { BrandHostRouter } from '../app/programs/domains.js';

export interface HttpDeps {
  config: Readonly<Config>;
  pool: Pool;
  store: Store;
  /** A replica the dashboard's figures, the exports and the portal read (src/app/reads/read-side.ts); absent, they read `pool`. */
  reads?: ReadReplica;
  logger: Logger;
  /** The job queue; the webhook endpoints answer 503 without it. */
  queue?: PgBoss;
  /** Opens stored Stripe signing secrets; without it they cannot be set or used. */
  secretBox?: SecretBox;
  /** Partners' sign-in mail; made from the configuration when absent. */
  mailer?: Mailer;
  /** Injectable clock for tests of time rules; defaults to the real time. */
  now?: () => Date;
}

/** What createApp hands its routers: the mailer is made once, there. */
export type AppDeps = HttpDeps & { mailer: Mailer; /** The brand hosts' lookup (made by createApp); a settings change forgets its hosts there. */ hosts?: BrandHostRouter };

export const clock = (deps: HttpDeps): Date => (deps.now ? deps.now() : new Date());
