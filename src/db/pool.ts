// Connection pool. bigint columns come back as JS numbers; anything past 2^53 is refused, not rounded.
import pg from 'pg';

pg.types.setTypeParser(pg.types.builtins.INT8, (value: string) => {
  const parsed = Number(value);
  if (!Number.isSafeInteger(parsed)) throw new Error(`bigint ${value} is beyond the safe integer range`);
  return parsed;
});
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (value: string) => value);

export type Pool = pg.Pool;
export type PoolClient = pg.PoolClient;

/**
 * An idle client can lose its connection (database restart, failover). pg then emits 'error' on
 * the pool, which would end the process if nobody listened; the pool drops that client and
 * the next query opens a new one, so we only report it.
 */
export function createPool(connectionString: string, max = 10, onIdleError: (error: Error) => void = () => undefined): pg.Pool {
  const pool = new pg.Pool({ connectionString, max, application_name: 'affix' });
  pool.on('error', onIdleError);
  return pool;
}

export async function withTransaction<T>(
  pool: pg.Pool,
  fn: (client: pg.PoolClient) => Promise<T>,
  options: { readOnly?: boolean } = {},
): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query(options.readOnly ? 'BEGIN TRANSACTION READ ONLY' : 'BEGIN');
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

export const isUniqueViolation = (error: unknown): boolean =>
  typeof error === 'object' && error !== null && (error as { code?: string }).code === '23505';
