// Connection pools. bigint columns come back as JS numbers; anything past 2^53 is refused, not rounded.
import pg from 'pg';
import pRetry from 'p-retry';
import { isConnectionFailure } from './errors.js';

pg.types.setTypeParser(pg.types.builtins.INT8, (value: string) => {
  const parsed = Number(value);
  if (!Number.isSafeInteger(parsed)) throw new Error(`bigint ${value} is beyond the safe integer range`);
  return parsed;
});
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (value: string) => value);

export type Pool = pg.Pool;
export type PoolClient = pg.PoolClient;

/**
 * Timeouts, so that a slow or locked database answers "unavailable" instead of holding every
 * request (documented in the README, "Database timeouts"). Request paths get a short statement
 * timeout; workers a longer one, still well below the job expiry (src/platform/queue.ts).
 */
export const DATABASE_TIMEOUTS = {
  connectMs: 3_000,
  requestStatementMs: 5_000,
  workerStatementMs: 15_000,
  lockMs: 2_000,
  idleInTransactionMs: 10_000,
} as const;

/**
 * How Affix reaches PostgreSQL. `direct`: its own connections (or a pooler in session mode).
 * `transaction`: through a pooler in transaction mode (PgBouncer's `pool_mode = transaction`,
 * most managed PostgreSQL's pooled endpoint), where consecutive statements may run on different
 * server connections: no named statements (each is unnamed, planned per use), no settings at
 * connection start (they go with each transaction, `SET LOCAL`), no session locks or LISTEN
 * (docs/database-pooler.md).
 */
export type Pooling = 'direct' | 'transaction';

export interface PoolOptions {
  max?: number;
  statementTimeoutMs?: number;
  applicationName?: string;
  pooling?: Pooling;
  /** How long opening a connection may take (DATABASE_TIMEOUTS.connectMs unless set). */
  connectTimeoutMs?: number;
  /** A connection lost while idle or between statements (database restart, failover). */
  onError?: (error: Error) => void;
}

/**
 * A client whose statements are all unnamed: through a transaction pooler a statement prepared on
 * one server connection does not exist on the next (PgBouncer 1.18 keeps none). The text is
 * parsed and planned with each use instead; everything else is unchanged.
 */
class UnnamedStatementClient extends pg.Client {
  // node-pg's query has a dozen overloads; the arguments pass through unchanged.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  override query(config: any, ...rest: any[]): any {
    if (config && typeof config === 'object' && typeof config.name === 'string') {
      const { name: _unnamed, ...unnamed } = config;
      return (super.query as (...args: unknown[]) => unknown)(unnamed, ...rest);
    }
    return (super.query as (...args: unknown[]) => unknown)(config, ...rest);
  }
}

/** Connection settings shared by our pools and pg-boss's. */
export function connectionSettings(connectionString: string, options: PoolOptions = {}): pg.PoolConfig {
  const statementTimeout = options.statementTimeoutMs ?? DATABASE_TIMEOUTS.requestStatementMs;
  const common: pg.PoolConfig = {
    connectionString,
    max: options.max ?? 10,
    application_name: options.applicationName ?? 'affix',
    connectionTimeoutMillis: options.connectTimeoutMs ?? DATABASE_TIMEOUTS.connectMs,
    // Client side as well: a database that stopped answering (frozen, partitioned) never hangs us.
    query_timeout: statementTimeout + 2_000,
    keepAlive: true,
  };
  // A transaction pooler refuses these at connection start (they would outlive our use of the
  // server connection): each transaction sets them itself (transactionPrelude).
  if (options.pooling === 'transaction') return { ...common, Client: UnnamedStatementClient };
  return {
    ...common,
    statement_timeout: statementTimeout,
    lock_timeout: DATABASE_TIMEOUTS.lockMs,
    idle_in_transaction_session_timeout: DATABASE_TIMEOUTS.idleInTransactionMs,
  };
}

/** What a transaction sets for itself through a transaction pooler: the timeouts a direct connection gets at its start. */
export function transactionPrelude(options: PoolOptions): string {
  if (options.pooling !== 'transaction') return '';
  const statementTimeout = options.statementTimeoutMs ?? DATABASE_TIMEOUTS.requestStatementMs;
  return `; SET LOCAL statement_timeout = ${statementTimeout}; SET LOCAL lock_timeout = ${DATABASE_TIMEOUTS.lockMs}; SET LOCAL idle_in_transaction_session_timeout = ${DATABASE_TIMEOUTS.idleInTransactionMs}`;
}

/** Each pool's prelude, set where the pool is made (openTransaction has only the pool). */
const preludes = new WeakMap<pg.Pool, string>();

/**
 * A connection can drop at any time. pg emits 'error' on the pool for idle clients and on the
 * client itself when it is checked out between statements; either would end the process if
 * nobody listened. The pool discards a broken client and the next query opens a new one, so
 * both are only reported.
 */
export function createPool(connectionString: string, options: PoolOptions = {}): pg.Pool {
  const onError = options.onError ?? (() => undefined);
  const pool = new pg.Pool(connectionSettings(connectionString, options));
  preludes.set(pool, transactionPrelude(options));
  pool.on('error', onError);
  pool.on('connect', (client) => client.on('error', onError));
  return pool;
}

/**
 * A replica's pool that reads the primary instead whenever the replica cannot be reached (down,
 * restarting, refusing connections) or drops the connection: each statement, and each client
 * asked for, tries the replica first, so the replica is used again as soon as it answers.
 * `onUnreachable` hears of each fallback. Only for reads: a statement cut off on the replica
 * runs again, whole, on the primary.
 */
export function fallingBackToPrimary(replica: pg.Pool, primary: pg.Pool, onUnreachable: (error: unknown) => void): pg.Pool {
  const orPrimary = <T>(onReplica: () => Promise<T>, onPrimary: () => Promise<T>): Promise<T> =>
    onReplica().catch((error: unknown) => {
      if (!isConnectionFailure(error)) throw error;
      onUnreachable(error);
      return onPrimary();
    });
  // node-pg's query and connect have many overloads; only the promise forms (the ones Affix uses) fall back.
  /* eslint-disable @typescript-eslint/no-explicit-any */
  const query = (...args: any[]) =>
    typeof args.at(-1) === 'function' ? (replica.query as any)(...args) : orPrimary(() => (replica.query as any)(...args), () => (primary.query as any)(...args));
  const connect = (...args: any[]) => (args.length > 0 ? (replica.connect as any)(...args) : orPrimary(() => replica.connect(), () => primary.connect()));
  /* eslint-enable @typescript-eslint/no-explicit-any */
  const pool = new Proxy(replica, {
    get(target, property) {
      if (property === 'query') return query;
      if (property === 'connect') return connect;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  preludes.set(pool, preludes.get(replica) ?? '');
  return pool;
}

/** A deadlock, or a lock not granted within lock_timeout: the transaction was rolled back whole, and may simply run again. */
export const isLockConflict = (error: unknown): boolean => {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '40P01' || code === '55P03';
};

/**
 * `fn` in one transaction. A lock conflict (two money operations meeting on the same rows)
 * runs it again from the start, twice at most: concurrent operations wait or succeed instead of
 * answering 503. `fn` must do nothing outside the transaction that a second run would repeat.
 */
export async function withTransaction<T>(
  pool: pg.Pool,
  fn: (client: pg.PoolClient) => Promise<T>,
  options: { readOnly?: boolean } = {},
): Promise<T> {
  return pRetry(async () => runToCommit(await openTransaction(pool, options), fn), {
    retries: 2,
    minTimeout: 20,
    maxTimeout: 200,
    randomize: true,
    shouldRetry: ({ error }) => isLockConflict(error),
  });
}

/** `fn` in an open transaction, then its commit; a throw rolls it back and is passed on. */
export async function runToCommit<T>(transaction: OpenTransaction, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  let result: T;
  try {
    result = await fn(transaction.client);
  } catch (error) {
    await transaction.rollback();
    throw error;
  }
  await transaction.commit();
  return result;
}

/** A transaction begun on a client of its own; exactly one of commit or rollback gives the client back. */
export interface OpenTransaction {
  client: pg.PoolClient;
  commit(): Promise<void>;
  /** Never throws: a client whose ROLLBACK failed is discarded instead of reused. */
  rollback(): Promise<void>;
}

export async function openTransaction(pool: pg.Pool, options: { readOnly?: boolean } = {}): Promise<OpenTransaction> {
  const client = await pool.connect();
  let released = false;
  const release = (broken?: Error) => {
    if (released) return;
    released = true;
    // A client whose ROLLBACK failed may be mid-transaction or disconnected: never reuse it.
    client.release(broken);
  };
  const rollback = async () => {
    if (released) return;
    let broken: Error | undefined;
    await client.query('ROLLBACK').catch((rollbackError: Error) => {
      broken = rollbackError;
    });
    release(broken);
  };
  try {
    // One round trip: BEGIN and, through a transaction pooler, the transaction's timeouts.
    await client.query(`${options.readOnly ? 'BEGIN TRANSACTION READ ONLY' : 'BEGIN'}${preludes.get(pool) ?? ''}`);
  } catch (error) {
    release(error as Error);
    throw error;
  }
  return {
    client,
    async commit() {
      try {
        await client.query('COMMIT');
      } catch (error) {
        await rollback();
        throw error;
      }
      release();
    },
    rollback,
  };
}

export const isUniqueViolation = (error: unknown): boolean =>
  typeof error === 'object' && error !== null && (error as { code?: string }).code === '23505';
