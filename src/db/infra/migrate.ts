// Applies migrations/NNNN_name.sql in order, each once, each in its own transaction, and records
// each one's checksum: a migration edited after it was applied is refused (its change would never
// reach a database that already ran it; it belongs in a new migration). Then the files of
// migrations/functions/ (functions and views re-created with CREATE OR REPLACE, one file per
// topic) are applied whenever their content changed, so a change to them is made in one place.
// A transaction-scoped advisory lock lets any number of processes start at the same time, on a
// direct connection or through a transaction pooler alike (a session lock would stay behind on
// a pooled server connection).
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sha256 } from '../../core/secrets.js';
import { type Pool, openTransaction } from './pool.js';

export const MIGRATIONS_DIR = fileURLToPath(new URL('../../../migrations/', import.meta.url));
const FUNCTIONS_DIR = 'functions';
const LOCK_ID = 744_217_001;

interface SqlFile {
  name: string;
  text: string;
  /** Of the text with its line endings made \n: a checkout with CRLF endings is the same file. */
  checksum: string;
}

/** A numbered migration whose file no longer matches what was applied. */
export class EditedMigrationError extends Error {
  constructor(readonly file: string) {
    super(`migration ${file} was edited after it was applied to this database; restore it and make the change in a new migration (or, for a function or view, in migrations/${FUNCTIONS_DIR}/)`);
    this.name = 'EditedMigrationError';
  }
}

async function sqlFiles(dir: string, pattern: RegExp): Promise<SqlFile[]> {
  const names = (await readdir(dir).catch((error) => (error.code === 'ENOENT' ? [] : Promise.reject(error)))).filter((name) => pattern.test(name)).sort();
  return Promise.all(names.map(async (name) => {
    const text = await readFile(join(dir, name), 'utf8');
    return { name, text, checksum: sha256(text.replace(/\r\n/g, '\n')).toString('hex') };
  }));
}

/** Applies what is due; returns the numbered migrations it applied (the function files re-applied are not listed). */
export async function migrate(pool: Pool, dir: string = MIGRATIONS_DIR): Promise<string[]> {
  const migrations = await sqlFiles(dir, /^\d{4}_[\w-]+\.sql$/);
  const functions = (await sqlFiles(join(dir, FUNCTIONS_DIR), /^[\w-]+\.sql$/)).map((file) => ({ ...file, name: `${FUNCTIONS_DIR}/${file.name}` }));
  const applied: string[] = [];
  for (;;) {
    const next = await applyNext(pool, migrations, functions);
    if (next === 'none left') return applied;
    if (next === 'locked') await new Promise((resolve) => setTimeout(resolve, 100));
    else if (!next.startsWith(`${FUNCTIONS_DIR}/`)) applied.push(next);
  }
}

/**
 * Under the lock, in one transaction: the first numbered migration not yet applied, or else the
 * first function file whose content changed, and its record.
 */
async function applyNext(pool: Pool, migrations: SqlFile[], functions: SqlFile[]): Promise<string | 'none left' | 'locked'> {
  const transaction = await openTransaction(pool);
  const { client } = transaction;
  try {
    // Polled, not waited on: the lock_timeout (2 s) would end a wait behind a long migration.
    if (!(await client.query('SELECT pg_try_advisory_xact_lock($1) AS got', [LOCK_ID])).rows[0].got) {
      await transaction.rollback();
      return 'locked';
    }
    await client.query('CREATE TABLE IF NOT EXISTS affix_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())');
    // Databases migrated before checksums were kept have none: the files as they are now are recorded.
    await client.query('ALTER TABLE affix_migrations ADD COLUMN IF NOT EXISTS checksum text');
    const recorded = new Map((await client.query<{ name: string; checksum: string | null }>('SELECT name, checksum FROM affix_migrations')).rows.map((row) => [row.name, row.checksum]));
    for (const file of migrations) {
      if (!recorded.has(file.name)) continue;
      const checksum = recorded.get(file.name);
      if (checksum === null) await client.query('UPDATE affix_migrations SET checksum = $2 WHERE name = $1', [file.name, file.checksum]);
      else if (checksum !== file.checksum) throw new EditedMigrationError(file.name);
    }
    const file = migrations.find((m) => !recorded.has(m.name)) ?? functions.find((f) => recorded.get(f.name) !== f.checksum);
    if (!file) {
      await transaction.commit();
      return 'none left';
    }
    try {
      await client.query(file.text);
    } catch (error) {
      throw new Error(`migration ${file.name} failed: ${(error as Error).message}`, { cause: error });
    }
    await client.query(
      'INSERT INTO affix_migrations (name, checksum) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET checksum = EXCLUDED.checksum, applied_at = now()',
      [file.name, file.checksum],
    );
    await transaction.commit();
    return file.name;
  } catch (error) {
    await transaction.rollback();
    throw error;
  }
}
