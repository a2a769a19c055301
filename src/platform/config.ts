// Environment parsed once, with zod, into a frozen object that is passed in (never read at import).
import { DEFAULT_RETRY_SCHEDULE_SECONDS } from '../core/outbound-events.js';
import { DEFAULT_ATTRIBUTION_WAIT_MINUTES } from '../core/inbox.js';
import { isIP } from 'node:net';
import { z } from 'zod';

const booleanText = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((value) => ['true', '1', 'yes'].includes(value));

const schema = z.object({
  DATABASE_URL: z.string().url().optional(),
  // DATABASE_URL is a pooler in transaction mode (docs/database-pooler.md); DATABASE_DIRECT_URL
  // reaches PostgreSQL itself, for what needs a connection of its own (LISTEN, migrations).
  AFFIX_DATABASE_POOLING: z.enum(['direct', 'transaction']).default('direct'),
  DATABASE_DIRECT_URL: z.string().url().optional(),
  // A replica (a streaming standby) the dashboard's figures, the exports and the portal read from.
  DATABASE_READ_URL: z.string().url().optional(),
  AFFIX_READ_LAG_NOTE_SECONDS: z.coerce.number().int().min(0).max(86_400).default(5),
  // Short: while the replica is out of reach, each page waits this long before reading the primary.
  AFFIX_READ_CONNECT_TIMEOUT_MS: z.coerce.number().int().min(50).max(30_000).default(1_000),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().default('0.0.0.0'),
  AFFIX_PUBLIC_URL: z.string().url().optional(),
  AFFIX_DOCS_URL: z.string().url().optional(),
  AFFIX_ADMIN_TOKEN: z.string().min(16, 'AFFIX_ADMIN_TOKEN must be at least 16 characters').optional(),
  AFFIX_DATA_DIR: z.string().default('.affix-data'),
  AFFIX_EMBEDDED_PG_PORT: z.coerce.number().int().min(1).max(65535).default(54329),
  AFFIX_TRUST_PROXY: z.string().default('false'),
  AFFIX_SEED_DEMO: booleanText.default(true),
  AFFIX_BODY_LIMIT: z.string().default('100kb'),
  // Processor webhooks: larger than any event Stripe sends (a refused delivery is retried for days, then lost).
  AFFIX_WEBHOOK_BODY_LIMIT: z.string().default('8mb'),
  AFFIX_SECRET_KEY: z.string().min(16, 'AFFIX_SECRET_KEY must be at least 16 characters').optional(),
  STRIPE_CONNECT_WEBHOOK_SECRET: z.string().optional(),
  STRIPE_CONNECT_CLIENT_ID: z.string().regex(/^ca_\w+$/, 'STRIPE_CONNECT_CLIENT_ID must be a Connect client id (ca_...)').optional(),
  STRIPE_SECRET_KEY: z.string().regex(/^(sk|rk)_\w+$/, 'STRIPE_SECRET_KEY must be a secret or restricted key (sk_..., rk_...)').optional(),
  AFFIX_WEBHOOK_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(30),
  // How old a Paddle signature may be (docs/paddle.md): 5 minutes, up to a day for a slow path in between.
  AFFIX_PADDLE_SIGNATURE_TOLERANCE_SECONDS: z.coerce.number().int().min(5).max(86_400).default(300),
  // A link and its program are believed for this long (a second at most: a link turned off answers 410 within it everywhere).
  AFFIX_LINK_CACHE_MS: z.coerce.number().int().min(0).max(1000).default(500),
  // A process started before its database waits this long for it (backoff, logged), then gives up.
  AFFIX_DATABASE_WAIT_SECONDS: z.coerce.number().int().min(0).max(86_400).default(300),
  AFFIX_DATABASE_POOL_SIZE: z.coerce.number().int().min(2).max(200).default(20),
  AFFIX_WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(32).default(4),
  AFFIX_WORKER_BATCH_SIZE: z.coerce.number().int().min(1).max(100).default(32),
  AFFIX_WORKER_RETRY_LIMIT: z.coerce.number().int().min(0).max(50).default(8),
  AFFIX_WORKER_RETRY_DELAY_SECONDS: z.coerce.number().int().min(1).max(3600).default(2),
  AFFIX_WORKER_POLL_SECONDS: z.coerce.number().min(0.5).max(60).default(2),
  AFFIX_WORKER_YIELD_ABOVE: z.coerce.number().int().min(0).max(1_000_000).default(300),
  AFFIX_ATTRIBUTION_WAIT_MINUTES: z.coerce.number().int().min(1).max(43_200).default(DEFAULT_ATTRIBUTION_WAIT_MINUTES),
  AFFIX_WEBHOOK_ALLOW_PRIVATE: booleanText.default(false),
  // Deliveries to brands: attempts at once per process, and the total time one attempt may take (connect, headers, body).
  AFFIX_WEBHOOK_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(16),
  AFFIX_WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(50_000).default(10_000),
  AFFIX_SMTP_URL: z.string().regex(/^smtps?:\/\//, 'AFFIX_SMTP_URL must be an smtp:// or smtps:// URL').optional(),
  AFFIX_MAIL_FROM: z.string().default('Affix <no-reply@localhost>'),
  AFFIX_WEBHOOK_RETRY_SCHEDULE: z
    .string()
    .regex(/^\d+(,\d+)*$/, 'AFFIX_WEBHOOK_RETRY_SCHEDULE must be seconds separated by commas (e.g. 30,120,600)')
    .optional(),
  AFFIX_OIDC_ISSUER: z.string().url().optional(),
  AFFIX_OIDC_CLIENT_ID: z.string().optional(),
  AFFIX_OIDC_JWKS_URL: z.string().url().optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

export interface Config {
  databaseUrl: string | undefined;
  /** `transaction`: DATABASE_URL is a transaction pooler (AFFIX_DATABASE_POOLING). */
  databasePooling: 'direct' | 'transaction';
  /** PostgreSQL itself, beside a transaction pooler: LISTEN and migrations (unset: polling, migrations through the pooler). */
  databaseDirectUrl: string | undefined;
  /** A replica for the dashboard's figures, the exports and the portal (unset: they read DATABASE_URL). */
  databaseReadUrl: string | undefined;
  /** Past this lag, pages read from the replica say how far behind their figures may be. */
  readLagNoteSeconds: number;
  /** How long opening a connection to the replica may take before the read goes to the primary. */
  readConnectTimeoutMs: number;
  /** Connections each process keeps open to PostgreSQL (API or workers). */
  databasePoolSize: number;
  /** How long a referral link and its program are reused by the click path (ms, at most 1000). */
  linkCacheMs: number;
  port: number;
  host: string;
  publicUrl: string;
  docsUrl: string;
  adminToken: string | undefined;
  dataDir: string;
  embeddedPgPort: number;
  trustProxy: false | number | string;
  seedDemo: boolean;
  bodyLimit: string;
  /** How long a start waits for an unreachable database (AFFIX_DATABASE_WAIT_SECONDS). */
  databaseWaitSeconds: number;
  /** Largest signed webhook body accepted (AFFIX_WEBHOOK_BODY_LIMIT). */
  webhookBodyLimit: string;
  logLevel: z.infer<typeof schema>['LOG_LEVEL'];
  /** Encrypts stored Stripe signing secrets; generated in the data folder for the embedded database. */
  secretKey: string | undefined;
  stripeConnectWebhookSecret: string | undefined;
  /** The platform's Stripe key: pays payouts as transfers to partners' connected accounts (docs/payouts.md). */
  stripeSecretKey: string | undefined;
  /** Stripe Connect OAuth onboarding (both set), for the dashboard's "Connect with Stripe". */
  stripeConnect: { clientId: string; secretKey: string } | undefined;
  /** CLI sign-in through an OpenID Connect issuer instead of local passwords. */
  oidc: { issuer: string; clientId: string; jwksUrl?: string } | undefined;
  /** Days a final Stripe event keeps its payload (customer emails, names) before it is purged. */
  webhookRetentionDays: number;
  /** How old a Paddle signature may be, in seconds (AFFIX_PADDLE_SIGNATURE_TOLERANCE_SECONDS). */
  paddleSignatureToleranceSeconds: number;
  worker: { concurrency: number; batchSize: number; retryLimit: number; retryDelaySeconds: number; pollSeconds: number; attributionWaitMinutes: number; yieldAbovePerSecond: number };
  /** Webhooks to the brand: may they reach private and loopback addresses (never in production), and the wait before each retry. */
  outbound: {
    allowPrivateAddresses: boolean;
    /** Delivery attempts at once in this process; one endpoint gets at most a quarter of them. */
    concurrency: number;
    /** The whole attempt, from connect to the last byte of the answer. */
    timeoutMs: number;
    retryScheduleSeconds: readonly number[];
  };
  /** Partners' sign-in mail: an SMTP URL (unset: written to the log) and the sender. */
  mail: { smtpUrl: string | undefined; from: string };
}

const TRUSTED_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/**
 * Which proxies may name the client in X-Forwarded-For: `false` (none, the default), a hop count
 * (`1`: the one proxy in front of us), or addresses, subnets and the names loopback, linklocal,
 * uniquelocal. `true` (trust every hop) is refused: any client could then pick its own address
 * and walk past every per-IP limit by rotating the header.
 */
export function parseTrustProxy(value: string): false | number | string {
  const text = value.trim();
  if (text === 'false' || text === '0') return false;
  if (text === 'true') {
    throw new Error(
      'Invalid configuration: AFFIX_TRUST_PROXY=true would let any client choose its address (X-Forwarded-For); give the number of proxies in front of Affix (e.g. 1) or their addresses',
    );
  }
  if (/^\d+$/.test(text)) return Number(text);
  const entries = text.split(',').map((entry) => entry.trim());
  for (const entry of entries) {
    const [address, bits, extra] = entry.split('/');
    const valid = TRUSTED_NAMES.has(entry) || (isIP(address ?? '') !== 0 && extra === undefined && (bits === undefined || /^\d{1,3}$/.test(bits)));
    if (!valid) throw new Error(`Invalid configuration: AFFIX_TRUST_PROXY entry "${entry}" is not an address, a subnet, loopback, linklocal or uniquelocal`);
  }
  return entries.join(',');
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Readonly<Config> {
  // An empty variable means "not set" (compose files and CI often export empty values).
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ''));
  const parsed = schema.safeParse(present);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ');
    throw new Error(`Invalid configuration: ${problems}`);
  }
  const e = parsed.data;
  const publicUrl = (e.AFFIX_PUBLIC_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, '');
  return Object.freeze({
    databaseUrl: e.DATABASE_URL,
    databasePooling: e.DATABASE_URL ? e.AFFIX_DATABASE_POOLING : 'direct',
    databaseDirectUrl: e.DATABASE_DIRECT_URL,
    databaseReadUrl: e.DATABASE_READ_URL,
    readLagNoteSeconds: e.AFFIX_READ_LAG_NOTE_SECONDS,
    readConnectTimeoutMs: e.AFFIX_READ_CONNECT_TIMEOUT_MS,
    databasePoolSize: e.AFFIX_DATABASE_POOL_SIZE,
    linkCacheMs: e.AFFIX_LINK_CACHE_MS,
    port: e.PORT,
    host: e.HOST,
    publicUrl,
    docsUrl: e.AFFIX_DOCS_URL ?? `${publicUrl}/docs/api.md#api-key-rotation`,
    adminToken: e.AFFIX_ADMIN_TOKEN,
    dataDir: e.AFFIX_DATA_DIR,
    embeddedPgPort: e.AFFIX_EMBEDDED_PG_PORT,
    trustProxy: parseTrustProxy(e.AFFIX_TRUST_PROXY),
    seedDemo: e.AFFIX_SEED_DEMO,
    bodyLimit: e.AFFIX_BODY_LIMIT,
    databaseWaitSeconds: e.AFFIX_DATABASE_WAIT_SECONDS,
    webhookBodyLimit: e.AFFIX_WEBHOOK_BODY_LIMIT,
    logLevel: e.LOG_LEVEL,
    secretKey: e.AFFIX_SECRET_KEY,
    stripeConnectWebhookSecret: e.STRIPE_CONNECT_WEBHOOK_SECRET,
    stripeSecretKey: e.STRIPE_SECRET_KEY,
    stripeConnect:
      e.STRIPE_CONNECT_CLIENT_ID && e.STRIPE_SECRET_KEY ? Object.freeze({ clientId: e.STRIPE_CONNECT_CLIENT_ID, secretKey: e.STRIPE_SECRET_KEY }) : undefined,
    oidc:
      e.AFFIX_OIDC_ISSUER && e.AFFIX_OIDC_CLIENT_ID
        ? Object.freeze({ issuer: e.AFFIX_OIDC_ISSUER, clientId: e.AFFIX_OIDC_CLIENT_ID, jwksUrl: e.AFFIX_OIDC_JWKS_URL })
        : undefined,
    webhookRetentionDays: e.AFFIX_WEBHOOK_RETENTION_DAYS,
    paddleSignatureToleranceSeconds: e.AFFIX_PADDLE_SIGNATURE_TOLERANCE_SECONDS,
    worker: Object.freeze({
      concurrency: e.AFFIX_WORKER_CONCURRENCY,
      batchSize: e.AFFIX_WORKER_BATCH_SIZE,
      retryLimit: e.AFFIX_WORKER_RETRY_LIMIT,
      retryDelaySeconds: e.AFFIX_WORKER_RETRY_DELAY_SECONDS,
      pollSeconds: e.AFFIX_WORKER_POLL_SECONDS,
      yieldAbovePerSecond: e.AFFIX_WORKER_YIELD_ABOVE,
      attributionWaitMinutes: e.AFFIX_ATTRIBUTION_WAIT_MINUTES,
    }),
    mail: Object.freeze({ smtpUrl: e.AFFIX_SMTP_URL, from: e.AFFIX_MAIL_FROM }),
    outbound: Object.freeze({
      allowPrivateAddresses: e.AFFIX_WEBHOOK_ALLOW_PRIVATE,
      concurrency: e.AFFIX_WEBHOOK_CONCURRENCY,
      timeoutMs: e.AFFIX_WEBHOOK_TIMEOUT_MS,
      retryScheduleSeconds: Object.freeze(e.AFFIX_WEBHOOK_RETRY_SCHEDULE ? e.AFFIX_WEBHOOK_RETRY_SCHEDULE.split(',').map(Number) : DEFAULT_RETRY_SCHEDULE_SECONDS),
    }),
  });
}

/**
 * With PORT=0 the port is known only once listening: the default public URL (and the docs URL
 * built on it) name the real one. A public URL that was set is kept as it is.
 */
export function withListeningPort(config: Readonly<Config>, port: number): Readonly<Config> {
  const unknown = 'http://localhost:0';
  if (config.port !== 0 || config.publicUrl !== unknown) return config;
  const publicUrl = `http://localhost:${port}`;
  return Object.freeze({ ...config, publicUrl, docsUrl: config.docsUrl.startsWith(unknown) ? `${publicUrl}${config.docsUrl.slice(unknown.length)}` : config.docsUrl });
}
