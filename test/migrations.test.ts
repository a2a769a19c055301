import { readdir } from 'node:fs/promises';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { MIGRATIONS_DIR, migrate } from '../src/db/migrate.js';
import { createPool } from '../src/db/pool.js';

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
