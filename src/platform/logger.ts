// pino, with secrets redacted wherever they might appear.
import { pino, type Logger } from 'pino';

export type { Logger };

/** The error fields worth a log line. Drivers attach whole clients, queries and row data to errors. */
const ERROR_FIELDS = ['code', 'severity', 'routine', 'constraint', 'table', 'column', 'errno', 'syscall', 'type', 'status'] as const;

/**
 * pino's default error serializer copies every enumerable property: pg-pool's `err.client`
 * (connection parameters, backend keys) and PostgreSQL's `detail` ("Failing row contains (…)",
 * i.e. customer data). We keep the message, the stack, a few safe fields and the cause chain.
 */
export function serializeError(error: unknown, depth = 0): Record<string, unknown> | unknown {
  if (!(error instanceof Error)) return typeof error === 'object' && error !== null ? { type: 'NonError' } : error;
  const out: Record<string, unknown> = { type: error.constructor?.name ?? 'Error', message: error.message, stack: error.stack };
  for (const field of ERROR_FIELDS) {
    const value = (error as unknown as Record<string, unknown>)[field];
    if (typeof value === 'string' || typeof value === 'number') out[field] = value;
  }
  if (error.cause !== undefined && depth < 5) out.cause = serializeError(error.cause, depth + 1);
  return out;
}

/**
 * Standard output, written synchronously. pino's default (buffered) destination flushes at exit
 * and retries a write to a closed pipe forever: a service whose log reader went away then never
 * exits on SIGTERM. Here a line that cannot be written is dropped and the process goes on.
 */
let standard: pino.DestinationStream | undefined;

/** One for the process: every logger writing to standard output shares it (and its one exit flush). */
function standardOutput(): pino.DestinationStream {
  if (standard) return standard;
  const destination = pino.destination({ dest: 1, sync: true });
  destination.on('error', () => undefined);
  return (standard = gathered(destination));
}

const GATHER_BYTES = 16_384;
const GATHER_MS = 50;

/**
 * Lines gathered and written together: at 16 KB, 50 ms after the first line, or at exit. One
 * write per request line cost a system call and a wake-up of the log reader per request (the
 * click's share of its CPU: README, Benchmarks); a process killed outright loses at most the
 * last 50 ms of lines.
 */
export function gathered(out: pino.DestinationStream): pino.DestinationStream {
  let pending = '';
  let timer: NodeJS.Timeout | undefined;
  const flush = () => {
    clearTimeout(timer);
    timer = undefined;
    if (!pending) return;
    const text = pending;
    pending = '';
    out.write(text);
  };
  process.on('exit', flush);
  return {
    write(line: string) {
      pending += line;
      if (pending.length >= GATHER_BYTES) flush();
      else timer ??= setTimeout(flush, GATHER_MS).unref();
    },
  };
}

export function createLogger(level: string, destination: pino.DestinationStream = standardOutput()): Logger {
  return pino({
    level,
    base: { service: 'affix' },
    serializers: { err: (error: unknown) => serializeError(error), error: (error: unknown) => serializeError(error) },
    redact: {
      paths: [
        'req.headers.authorization',
        'headers.authorization',
        'authorization',
        'api_key',
        'apiKey',
        'token',
        '*.api_key',
        '*.token',
        'email',
        '*.email',
        'stripe_signature',
      ],
      censor: '[redacted]',
    },
  }, destination);
}
