import { copyFile, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { MIGRATIONS_DIR, migrate } from '../src/db/infra/migrate.js';
import { createPool } from '../src/db/infra/pool.js';

// An empty database (not the template) migrated from nothing, twice, by racing processes.
const name = `affix_m_${Date.now()}`;
const adminUrl = inject('pgAdminUrl');
const url = new URL(adminUrl);
url.pathname = `/${name}`;

beforeAll(async () => {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  await client.query(`CREATE DATABASE ${name}`);
  await client.end();
});
afterAll(async () => {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await client.end();
});

describe('migrations', () => {
  it('apply once on an empty database even when several processes start together', async () => {
    const pools = [createPool(url.toString(), { max: 2 }), createPool(url.toString(), { max: 2 }), createPool(url.toString(), { max: 2 })];
    try {
      const results = await Promise.all(pools.map((pool) => migrate(pool)));
      const all = (await readdir(MIGRATIONS_DIR)).filter((name) => name.endsWith('.sql')).sort();
      expect(all.length).toBeGreaterThanOrEqual(5);
      expect(results.flat().sort()).toEqual(all);
      expect(await migrate(pools[0]!)).toEqual([]);
      const { rows } = await pools[0]!.query("SELECT to_regclass('public.sales') IS NOT NULL AS ok");
      expect(rows[0].ok).toBe(true);
    } finally {
      await Promise.all(pools.map((pool) => pool.end()));
    }
  });
});

describe('0026: case-insensitive link codes and host-name domains, on data that predates them', () => {
  it('codes that differ only by case keep working as typed; URL-form domains keep their host', async () => {
    const twinsUrl = new URL(url);
    twinsUrl.pathname = `/${name}_twins`;
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}_twins`);
    const before = await mkdtemp(join(tmpdir(), 'affix-migrations-'));
    const pool = createPool(twinsUrl.toString(), { max: 2 });
    try {
      const all = (await readdir(MIGRATIONS_DIR)).filter((file) => file.endsWith('.sql')).sort();
      for (const file of all.filter((file) => file < '0026')) await copyFile(join(MIGRATIONS_DIR, file), join(before, file));
      await migrate(pool, before);
      const account = await pool.query("INSERT INTO accounts (email) VALUES ('m@example.com') RETURNING id");
      await pool.query(
        `INSERT INTO programs (account_id, name, domain, commission_type, commission_rate)
         VALUES ($1, 'Url', 'https://Brand.test/path', 'percent', 10), ($1, 'Host', 'shop.example.com', 'percent', 10)`,
        [account.rows[0].id],
      );
      await pool.query("INSERT INTO referral_links (short_link) VALUES ('ana'), ('Ana'), ('ANA'), ('bob')");

      expect(await migrate(pool)).toEqual(all.filter((file) => file >= '0026'));
      const links = await pool.query('SELECT short_link, case_twin FROM referral_links ORDER BY id');
      expect(links.rows).toEqual([
        { short_link: 'ana', case_twin: false },
        { short_link: 'Ana', case_twin: true },
        { short_link: 'ANA', case_twin: true },
        { short_link: 'bob', case_twin: false },
      ]);
      const domains = await pool.query('SELECT domain FROM programs ORDER BY id');
      expect(domains.rows.map((r) => r.domain)).toEqual(['brand.test', 'shop.example.com']);
      // A new code whose key is taken, by any spelling, is refused by the index.
      await expect(pool.query("INSERT INTO referral_links (short_link) VALUES ('BOB')")).rejects.toThrow(/referral_links_code_key/);
    } finally {
      await pool.end();
      await rm(before, { recursive: true, force: true });
      await admin.query(`DROP DATABASE IF EXISTS ${name}_twins WITH (FORCE)`);
      await admin.end();
    }
  });
});

describe('edited migrations and the re-applied function files', () => {
  /** A database of its own, migrated from `dir`. */
  async function scratch(suffix: string) {
    const scratchUrl = new URL(url);
    scratchUrl.pathname = `/${name}_${suffix}`;
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}_${suffix}`);
    await admin.end();
    const pool = createPool(scratchUrl.toString(), { max: 2 });
    return {
      pool,
      async drop() {
        await pool.end();
        const again = new pg.Client({ connectionString: adminUrl });
        await again.connect();
        await again.query(`DROP DATABASE IF EXISTS ${name}_${suffix} WITH (FORCE)`);
        await again.end();
      },
    };
  }

  it('a migration edited after it was applied is refused, naming it; line endings alone are no edit; a database migrated before checksums takes the files as they are', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'affix-edited-'));
    const db = await scratch('edited');
    try {
      await writeFile(join(dir, '0001_first.sql'), 'CREATE TABLE first (id int);\n');
      await writeFile(join(dir, '0002_second.sql'), 'CREATE TABLE second (id int);\n');
      expect(await migrate(db.pool, dir)).toEqual(['0001_first.sql', '0002_second.sql']);
      // The same text with CRLF endings (a Windows checkout): nothing to do.
      await writeFile(join(dir, '0001_first.sql'), 'CREATE TABLE first (id int);\r\n');
      expect(await migrate(db.pool, dir)).toEqual([]);
      await writeFile(join(dir, '0001_first.sql'), 'CREATE TABLE first (id int, name text);\n');
      await expect(migrate(db.pool, dir)).rejects.toThrow('migration 0001_first.sql was edited after it was applied to this database');
      // Applied before checksums were kept: the record has none, and the file as it is now is taken.
      await db.pool.query('UPDATE affix_migrations SET checksum = NULL');
      expect(await migrate(db.pool, dir)).toEqual([]);
      const { rows } = await db.pool.query('SELECT count(*)::int AS n FROM affix_migrations WHERE checksum IS NOT NULL');
      expect(rows[0].n).toBe(2);
      await expect(migrate(db.pool, dir)).resolves.toEqual([]);
    } finally {
      await db.drop();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('a function file runs after the numbered migrations, again only when it changed, and reaches a database whose migrations held an older body', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'affix-functions-'));
    const db = await scratch('functions');
    try {
      await writeFile(join(dir, '0001_first.sql'), "CREATE FUNCTION answer() RETURNS int LANGUAGE sql RETURN 1;\nCREATE TABLE calls (id int);\n");
      await mkdir(join(dir, 'functions'));
      const answer = async () => (await db.pool.query('SELECT answer() AS a')).rows[0].a;
      await writeFile(join(dir, 'functions', 'answers.sql'), "CREATE OR REPLACE FUNCTION answer() RETURNS int LANGUAGE sql RETURN 2;\nINSERT INTO calls VALUES (1);\n");
      expect(await migrate(db.pool, dir)).toEqual(['0001_first.sql']);
      expect(await answer()).toBe(2);
      await migrate(db.pool, dir);
      expect((await db.pool.query('SELECT count(*)::int AS n FROM calls')).rows[0].n).toBe(1);
      await writeFile(join(dir, 'functions', 'answers.sql'), "CREATE OR REPLACE FUNCTION answer() RETURNS int LANGUAGE sql RETURN 3;\nINSERT INTO calls VALUES (2);\n");
      expect(await migrate(db.pool, dir)).toEqual([]);
      expect(await answer()).toBe(3);
      expect((await db.pool.query('SELECT count(*)::int AS n FROM calls')).rows[0].n).toBe(2);
    } finally {
      await db.drop();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
