// Environment parsed once, with zod, into a frozen object that is passed in (never read at import).
import { z } from 'zod';

const booleanText = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((value) => ['true', '1', 'yes'].includes(value));

const schema = z.object({
  DATABASE_URL: z.string().url().optional(),
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
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

export interface Config {
  databaseUrl: string | undefined;
  port: number;
  host: string;
  publicUrl: string;
  docsUrl: string;
  adminToken: string | undefined;
  dataDir: string;
  embeddedPgPort: number;
  trustProxy: boolean | number | string;
  seedDemo: boolean;
  bodyLimit: string;
  logLevel: z.infer<typeof schema>['LOG_LEVEL'];
}

function parseTrustProxy(value: string): boolean | number | string {
  if (value === 'true' || value === 'false') return value === 'true';
  return /^\d+$/.test(value) ? Number(value) : value;
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
    logLevel: e.LOG_LEVEL,
  });
}
