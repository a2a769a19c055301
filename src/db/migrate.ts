// Applies migrations/NNNN_name.sql in order, each once, each in its own transaction.
// A transaction-scoped advisory lock lets any number of processes start at the same time, on a
// direct connection or through a transaction pooler alike (a session lock would stay behind on
// a pooled server connection).
import { readFile, readdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { type Pool, openTransaction } from './pool.js';

export const MIGRATIONS_DIR = fileURLToPath(new URL('../../migrations/', import.meta.url));
const LOCK_ID = 744_217_001;

export async function migrate(pool: Pool, dir: string = MIGRATIONS_DIR): Promise<string[]> {
  const files = (await readdir(dir)).filter((name) => /^\d{4}_[\w-]+\.sql$/.test(name)).sort();
  const applied: string[] = [];
  for (;;) {
    const next = await applyNext(pool, dir, files);
    if (next === 'none left') return applied;
    if (next === 'locked') await new Promise((resolve) => setTimeout(resolve, 100));
    else applied.push(next);
  }
}

/** Under the lock, in one transaction: the first migration not yet applied, and its record. */
async function applyNext(pool: Pool, dir: string, files: string[]): Promise<string | 'none left' | 'locked'> {
  const transaction = await openTransaction(pool);
  const { client } = transaction;
  try {
    // Polled, not waited on: the lock_timeout (2 s) would end a wait behind a long migration.
    if (!(await client.query('SELECT pg_try_advisory_xact_lock($1) AS got', [LOCK_ID])).rows[0].got) {
      await transaction.rollback();
      return 'locked';
    }
    await client.query('CREATE TABLE IF NOT EXISTS affix_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())');
    const done = new Set((await client.query<{ name: string }>('SELECT name FROM affix_migrations')).rows.map((row) => row.name));
    const file = files.find((name) => !done.has(name));
    if (!file) {
      await transaction.commit();
      return 'none left';
    }
    try {
      await client.query(await readFile(`${dir}/${file}`, 'utf8'));
    } catch (error) {
      throw new Error(`migration ${file} failed: ${(error as Error).message}`, { cause: error });
    }
    await client.query('INSERT INTO affix_migrations (name) VALUES ($1)', [file]);
    await transaction.commit();
    return file;
  } catch (error) {
    await transaction.rollback();
    throw error;
  }
}
