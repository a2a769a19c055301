// A primary and a streaming standby (Debian's PostgreSQL 15: `scripts/install-test-servers.sh`
// installs it), behind an endpoint the failover switches. Synchronous by default
// (`synchronous_standby_names`): a commit returns once the standby has the WAL.
import { existsSync } from 'node:fs';
import { appendFile, chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { stablePort } from './ports.js';
import { logTail, run, runAs } from './restartable-postgres.js';
import { type TcpProxy, startTcpProxy } from './tcp-proxy.js';

const BIN = '/usr/lib/postgresql/15/bin';

export const hasReplicationServers = (): boolean => existsSync(join(BIN, 'pg_basebackup'));

export interface ReplicatedPostgres {
  /** The endpoint: the primary, and after `failover` the promoted standby. */
  url: string;
  /** The standby itself (read-only while the primary runs). */
  standbyUrl: string;
  /** Kills the primary (`-m immediate`), promotes the standby, switches the endpoint; the milliseconds it took. */
  failover(): Promise<number>;
  close(): Promise<void>;
}

export async function startReplicatedPostgres(options: { synchronous: boolean }): Promise<ReplicatedPostgres> {
  const user = runAs();
  const dir = await mkdtemp(join(tmpdir(), 'affix-replicated-pg-'));
  await chmod(dir, 0o777);
  const primary = { data: join(dir, 'primary'), log: join(dir, 'primary.log'), port: await stablePort() };
  const standby = { data: join(dir, 'standby'), log: join(dir, 'standby.log'), port: await stablePort() };
  const pgCtl = async (server: typeof primary, ...args: string[]) => {
    try {
      await run(join(BIN, 'pg_ctl'), ['-D', server.data, '-l', server.log, ...args], user);
    } catch (error) {
      throw new Error(`${(error as Error).message}\n${await logTail(server.log)}`, { cause: error });
    }
  };
  await run(join(BIN, 'initdb'), ['-D', primary.data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync'], user);
  await appendFile(
    join(primary.data, 'postgresql.conf'),
    [
      `port = ${primary.port}`,
      "listen_addresses = '127.0.0.1'",
      `unix_socket_directories = '${dir}'`,
      'max_connections = 200',
      'wal_level = replica',
      'max_wal_senders = 4',
      "wal_keep_size = '512MB'",
      `synchronous_standby_names = '${options.synchronous ? '*' : ''}'`,
      '',
    ].join('\n'),
  );
  await pgCtl(primary, '-w', '-t', '30', 'start');
  await run(join(BIN, 'pg_basebackup'), ['-h', '127.0.0.1', '-p', String(primary.port), '-U', 'postgres', '-D', standby.data, '-R', '-X', 'stream', '--no-sync'], user);
  // Its own port; and once promoted it waits for no standby of its own (it has none).
  await appendFile(join(standby.data, 'postgresql.conf'), `port = ${standby.port}\nsynchronous_standby_names = ''\n`);
  await pgCtl(standby, '-w', '-t', '30', 'start');
  const primaryUrl = `postgres://postgres@127.0.0.1:${primary.port}/postgres`;
  await waitForStandby(primaryUrl, options.synchronous);
  const proxy: TcpProxy = await startTcpProxy(primary.port);
  let primaryRunning = true;
  return {
    url: `postgres://postgres@127.0.0.1:${proxy.port}/postgres`,
    standbyUrl: `postgres://postgres@127.0.0.1:${standby.port}/postgres`,
    async failover() {
      const started = Date.now();
      await pgCtl(primary, '-m', 'immediate', 'stop');
      primaryRunning = false;
      await pgCtl(standby, '-w', '-t', '30', 'promote');
      proxy.switchTo(standby.port);
      return Date.now() - started;
    },
    async close() {
      await proxy.close();
      if (primaryRunning) await pgCtl(primary, '-m', 'immediate', 'stop').catch(() => undefined);
      await pgCtl(standby, '-m', 'immediate', 'stop').catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Until the primary sees its standby streaming (and, synchronous, counts it as `sync`). */
async function waitForStandby(primaryUrl: string, synchronous: boolean): Promise<void> {
  const client = new pg.Client({ connectionString: primaryUrl });
  await client.connect();
  try {
    for (let waited = 0; ; waited += 100) {
      const { rows } = await client.query("SELECT sync_state FROM pg_stat_replication WHERE state = 'streaming'");
      if (rows.some((row) => !synchronous || row.sync_state === 'sync')) return;
      if (waited > 30_000) throw new Error('the standby never started streaming');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } finally {
    await client.end();
  }
}
