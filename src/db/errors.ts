// What a PostgreSQL or driver error means for the caller: the database is unavailable (retry
// later), or it refused a value (the input is bad, retrying cannot help).

const UNAVAILABLE_CODES = new Set([
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now (starting up, shutting down)
  '57014', // query_canceled (statement_timeout)
  '55P03', // lock_not_available (lock_timeout)
  '25P03', // idle_in_transaction_session_timeout
  '53300', // too_many_connections
  '53400', // configuration_limit_exceeded
  '40001', // serialization_failure
  '40P01', // deadlock_detected
]);

const UNAVAILABLE_NODE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH']);

const UNAVAILABLE_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Query read timeout',
  'Client has encountered a connection error',
  'Client was closed and is not queryable',
  'Cannot use a pool after calling end on the pool',
  'the database system is',
];

function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** The database could not be reached or gave up on the statement: a retry may succeed. */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (let current: unknown = error, depth = 0; current && depth < 5; current = (current as Error).cause, depth++) {
    const code = codeOf(current);
    if (code && (UNAVAILABLE_CODES.has(code) || UNAVAILABLE_NODE_CODES.has(code) || code.startsWith('08'))) return true;
    const message = (current as Error).message;
    if (typeof message === 'string' && UNAVAILABLE_MESSAGES.some((text) => message.includes(text))) return true;
    if (current instanceof AggregateError && current.errors.some(isDatabaseUnavailable)) return true;
  }
  return false;
}

/**
 * PostgreSQL refused a value (SQLSTATE class 22: out of range, NUL in text, invalid syntax;
 * 54001: nested too deep). The same input will fail the same way every time.
 */
export function isRejectedValue(error: unknown): boolean {
  const code = codeOf(error);
  return code !== undefined && (code.startsWith('22') || code === '54001');
}
