// One explicit shutdown. Each part registers how it stops; a signal (or a caller) stops them in
// reverse order of start: the last thing started is the first stopped.
import { isDatabaseUnavailable } from '../db/infra/errors.js';
import type { Logger } from '../platform/logger.js';

export interface Lifecycle {
  onStop(name: string, stop: () => Promise<void>): void;
  /** Runs every stop step once (later calls return the same promise); resolves to the exit code. */
  stop(reason: string): Promise<number>;
}

export function createLifecycle(logger: Logger, now: () => number = Date.now): Lifecycle {
  const steps: { name: string; stop: () => Promise<void> }[] = [];
  let stopping: Promise<number> | null = null;
  return {
    onStop(name, stop) {
      steps.push({ name, stop });
    },
    stop(reason) {
      stopping ??= (async () => {
        const started = now();
        logger.info({ reason }, 'stopping');
        let exitCode = 0;
        for (const step of [...steps].reverse()) {
          try {
            await step.stop();
          } catch (error) {
            exitCode = 1;
            logger.error({ err: error, step: step.name }, 'stop step failed');
          }
        }
        logger.info({ reason, ms: now() - started }, `stopped in ${now() - started} ms`);
        return exitCode;
      })();
      return stopping;
    },
  };
}

/**
 * Starts the service owning SIGTERM and SIGINT from the first moment: a signal that arrives
 * while it starts (the API may already answer while the workers start) is held and stops the
 * service as soon as it is up, instead of killing it half-started.
 */
export async function startOwningSignals<T extends { lifecycle: Lifecycle }>(start: () => Promise<T>): Promise<T> {
  const held: NodeJS.Signals[] = [];
  const hold = (signal: NodeJS.Signals) => held.push(signal);
  process.on('SIGTERM', hold);
  process.on('SIGINT', hold);
  let running: T;
  try {
    running = await start();
  } finally {
    process.off('SIGTERM', hold);
    process.off('SIGINT', hold);
  }
  stopOnSignals(running.lifecycle);
  if (held[0]) process.kill(process.pid, held[0]);
  return running;
}

/**
 * The process owns SIGTERM and SIGINT: the first starts the shutdown and exits with its code;
 * a second one while stopping exits at once (an operator who insists).
 */
export function stopOnSignals(lifecycle: Lifecycle, exit: (code: number) => void = (code) => process.exit(code)): void {
  let received = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (received) return exit(signal === 'SIGINT' ? 130 : 143);
    received = true;
    void lifecycle.stop(signal).then(exit);
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}

/** A statement PostgreSQL refused (it carries a SQLSTATE), or the database unreachable: the database's to recover from. */
const isDatabaseError = (error: unknown): boolean => {
  const code = (error as { code?: unknown } | null)?.code;
  return isDatabaseUnavailable(error) || (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code));
};

/**
 * A promise nobody awaited that failed. Libraries do this (pg-boss completes and fails jobs
 * without awaiting the statement): a database error there, a lock timeout in a job's
 * bookkeeping, is logged and recovered (the job's lease runs out and it runs again; our handlers
 * are idempotent), never fatal. Anything else is a defect: the one explicit shutdown, exit 1.
 */
export function stopOnUnexpectedRejections(lifecycle: Lifecycle, logger: Logger, exit: (code: number) => void = (code) => process.exit(code)): void {
  process.on('unhandledRejection', (reason) => {
    if (isDatabaseError(reason)) {
      logger.warn({ err: reason }, 'a background database call failed; its job is retried when its lease runs out');
      return;
    }
    logger.error({ err: reason }, 'unexpected unhandled rejection: stopping');
    void lifecycle.stop('unhandled rejection').then(() => exit(1));
  });
}

/** An error as a line people can act on: its message and its causes, whatever was thrown. */
export function describeFailure(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current !== undefined && current !== null && depth < 5; depth++) {
    const message = current instanceof Error ? current.message || current.name : typeof current === 'string' ? current : JSON.stringify(current);
    if (message) parts.push(message);
    current = current instanceof Error ? current.cause : undefined;
  }
  return parts.length ? parts.join(': ') : 'failed without saying why (nothing was thrown)';
}
