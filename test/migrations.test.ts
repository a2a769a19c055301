import { copyFile, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
