// PgBouncer in transaction mode in front of a PostgreSQL (pooler tests and benchmarks), run with
// Debian's `pgbouncer` package: `scripts/install-test-servers.sh` installs it.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stablePort } from './ports.js';
import { runAs } from './restartable-postgres.js';

export const PGBOUNCER_BIN = '/usr/sbin/pgbouncer';

export const hasPgBouncer = (): boolean => existsSync(PGBOUNCER_BIN);

export interface PgBouncer {
  port: number;
  /** The same database through the pooler: user and database of `serverUrl`, no password (the pooler trusts loopback). */
  urlFor(serverUrl: string): string;
  stop(): Promise<void>;
}

/**
 * Transaction pooling, as managed services offer it: few server connections shared by many
 * clients, so that consecutive statements of one client meet different server connections.
 */
export async function startPgBouncer(serverUrl: string, options: { poolSize?: number } = {}): Promise<PgBouncer> {
  const server = new URL(serverUrl);
  const user = decodeURIComponent(server.username || 'postgres');
  const dir = await mkdtemp(join(tmpdir(), 'affix-pgbouncer-'));
  await chmod(dir, 0o777);
  const port = await stablePort();
  const serverPassword = server.password ? ` password=${decodeURIComponent(server.password)}` : '';
  const ini = `[databases]
* = host=${server.hostname} port=${server.port || 5432} user=${user}${serverPassword}

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = ${port}
unix_socket_dir =
auth_type = trust
auth_file = ${join(dir, 'users.txt')}
pool_mode = transaction
default_pool_size = ${options.poolSize ?? 8}
max_client_conn = 1000
max_db_connections = 0
server_reset_query =
logfile = ${join(dir, 'pgbouncer.log')}
pidfile = ${join(dir, 'pgbouncer.pid')}
`;
  await writeFile(join(dir, 'pgbouncer.ini'), ini, { mode: 0o644 });
  await writeFile(join(dir, 'users.txt'), `"${user}" ""\n`, { mode: 0o644 });
  const child = spawn(PGBOUNCER_BIN, [join(dir, 'pgbouncer.ini')], { ...runAs(), stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));
  for (let waited = 0; !(await accepts(port)); waited += 50) {
    if (child.exitCode !== null || waited > 10_000) {
      child.kill('SIGKILL');
      const log = await readFile(join(dir, 'pgbouncer.log'), 'utf8').catch(() => '');
      throw new Error(`pgbouncer did not start: ${stderr.trim()} ${log.trim().split('\n').slice(-5).join('\n')}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    port,
    urlFor(url: string) {
      const database = new URL(url).pathname;
      return `postgres://${encodeURIComponent(user)}@127.0.0.1:${port}${database}`;
    },
    async stop() {
      child.kill('SIGTERM');
      await exited;
      await rm(dir, { recursive: true, force: true });
    },
  };
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ port, host: '127.0.0.1' });
    socket.once('connect', () => socket.end(() => resolve(true)));
    socket.once('error', () => resolve(false));
  });
}
