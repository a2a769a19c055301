// What a PostgreSQL or driver error means for the caller: the database is unavailable (retry
// later), or it refused a value (the input is bad, retrying cannot help).

// The server is out of reach, going away or full: a connection to it failed or was lost.
const CONNECTION_CODES = new Set([
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now (starting up, shutting down)
  '53300', // too_many_connections
]);

// The server is there but gave up on the statement.
const STATEMENT_CODES = new Set([
  '57014', // query_canceled (statement_timeout)
  '55P03', // lock_not_available (lock_timeout)
  '25P03', // idle_in_transaction_session_timeout
  '53400', // configuration_limit_exceeded
  '40001', // serialization_failure
  '40P01', // deadlock_detected
]);

const CONNECTION_NODE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH']);

const CONNECTION_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error',
  'the database system is',
];

const STATEMENT_MESSAGES = [
  'Query read timeout',
  'Client was closed and is not queryable',
  'Cannot use a pool after calling end on the pool',
];

function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** `error` or one of its causes (or an AggregateError's members) passes `test`. */
function anyCause(error: unknown, test: (code: string | undefined, message: string) => boolean): boolean {
  for (let current: unknown = error, depth = 0; current && depth < 5; current = (current as Error).cause, depth++) {
    const message = (current as Error).message;
    if (test(codeOf(current), typeof message === 'string' ? message : '')) return true;
    if (current instanceof AggregateError && current.errors.some((member) => anyCause(member, test))) return true;
  }
  return false;
}

const connectionFailed = (code: string | undefined, message: string): boolean =>
  (code !== undefined && (CONNECTION_CODES.has(code) || CONNECTION_NODE_CODES.has(code) || code.startsWith('08'))) ||
  CONNECTION_MESSAGES.some((text) => message.includes(text));

/** The server could not be reached, or the connection to it was lost: another server may answer at once. */
export const isConnectionFailure = (error: unknown): boolean => anyCause(error, connectionFailed);

/** The database could not be reached or gave up on the statement: a retry may succeed. */
export const isDatabaseUnavailable = (error: unknown): boolean =>
  anyCause(error, (code, message) => connectionFailed(code, message) || (code !== undefined && STATEMENT_CODES.has(code)) || STATEMENT_MESSAGES.some((text) => message.includes(text)));

/**
 * PostgreSQL refused a value (SQLSTATE class 22: out of range, NUL in text, invalid syntax;
 * 54001: nested too deep). The same input will fail the same way every time.
 */
export function isRejectedValue(error: unknown): boolean {
  const code = codeOf(error);
  return code !== undefined && (code.startsWith('22') || code === '54001');
}
