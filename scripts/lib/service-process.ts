// Runs `affix start|api|worker` as a real process (the bin, as an operator would) and waits
// until it is up: the API answers /healthz, a worker has printed that it runs (`start`: both).
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const AFFIX_BIN = fileURLToPath(new URL('../../bin/affix.mjs', import.meta.url));

export interface ServiceProcess {
  child: ChildProcess;
  output(): string;
  /** Resolves with the exit code (or the signal's name) once the process has ended. */
  exited: Promise<number | string>;
}

export async function startServiceProcess(
  role: 'start' | 'api' | 'worker',
  env: Record<string, string>,
  options: { port?: number; timeoutMs?: number; entry?: string; cwd?: string; nodeArgs?: string[]; onOutput?: (output: string) => void } = {},
): Promise<ServiceProcess> {
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), options.entry ?? AFFIX_BIN, role], {
    cwd: options.cwd,
    env: { ...process.env, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const read = (chunk: Buffer) => {
    output += chunk;
    options.onOutput?.(output);
  };
  child.stdout!.on('data', read);
  child.stderr!.on('data', read);
  // 'close', not 'exit': the process has ended and its output has been read to the end.
  const exited = new Promise<number | string>((resolve) => child.on('close', (code, signal) => resolve(code ?? signal ?? 'unknown')));
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  let ended: number | string | null = null;
  void exited.then((code) => (ended = code));
  for (;;) {
    if (ended !== null) throw new Error(`affix ${role} exited (${ended}) before it was up:\n${output}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`affix ${role} did not come up in time:\n${output}`);
    }
    // `start` is up when both are: its API answers before its workers have started, and a
    // signal that arrives meanwhile is held until they have (a test would time its stop wrongly).
    const workersUp = role === 'api' || output.includes('Affix workers running');
    if (workersUp && (role === 'worker' || (await answers(`http://127.0.0.1:${options.port}/healthz`)))) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { child, output: () => output, exited };
}

async function answers(url: string): Promise<boolean> {
  try {
    return (await fetch(url, { signal: AbortSignal.timeout(1_000) })).ok;
  } catch {
    return false;
  }
}
