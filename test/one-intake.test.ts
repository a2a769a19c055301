// One intake for every processor (issue 45, item 2): Stripe's signing secret and last signature
// failure live in processor_endpoints beside Paddle's and Lemon Squeezy's (migration 0061 moves
// them, sealed as they were), and a process writes its inbox through one InboxWriter, the
// dashboard's test event included.
import { copyFile, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { MIGRATIONS_DIR, migrate } from '../src/db/infra/migrate.js';
import { createPool } from '../src/db/infra/pool.js';
import { InboxWriter } from '../src/db/inbox/inbox-writer.js';
import { sha256 } from '../src/core/secrets.js';
import { type SeededProgram, type TestApi, type TestDatabase, adminHeaders, createTestDatabase, seedProgram, startTestApi } from './support/harness.js';
import { WEBHOOK_SECRET, deliver, fixture } from './support/stripe.js';
import { dashboardVisitor } from './support/dashboard-visitor.js';

describe('0061: Stripe endpoints on data that predates it', () => {
  const name = `affix_one_intake_${Date.now()}`;
  const adminUrl = inject('pgAdminUrl');
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;

  afterAll(async () => {
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  });

  it("moves each program's sealed secret and last failure to processor_endpoints, untouched, and drops them from programs", async () => {
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    const before = await mkdtemp(join(tmpdir(), 'affix-0061-'));
    const pool = createPool(url.toString(), { max: 2 });
    try {
      const all = (await readdir(MIGRATIONS_DIR)).filter((file) => file.endsWith('.sql')).sort();
      for (const file of all.filter((file) => file < '0061')) await copyFile(join(MIGRATIONS_DIR, file), join(before, file));
      await migrate(pool, before);
      const account = await pool.query("INSERT INTO accounts (email) VALUES ('m@example.com') RETURNING id");
      const programs = await pool.query(
        `INSERT INTO programs (account_id, name, domain, commission_type, commission_rate, stripe_webhook_secret, stripe_last_signature_error, stripe_last_signature_error_at)
         VALUES ($1, 'Sealed', 'a.example.com', 'percent', 10, 'v1.sealed-secret', 'No signature matched', '2026-01-02T03:04:05Z'),
                ($1, 'None', 'b.example.com', 'percent', 10, NULL, NULL, NULL)
         RETURNING id`,
        [account.rows[0].id],
      );
      const [sealed, none] = programs.rows.map((row) => Number(row.id));
      await pool.query("INSERT INTO processor_endpoints (program_id, processor, webhook_secret_sealed) VALUES ($1, 'paddle', 'v1.paddle')", [sealed]);

      expect(await migrate(pool)).toEqual(all.filter((file) => file >= '0061'));
      const endpoints = await pool.query('SELECT program_id, processor, webhook_secret_sealed, last_signature_error, last_signature_error_at FROM processor_endpoints ORDER BY program_id, processor');
      expect(endpoints.rows).toEqual([
        { program_id: sealed, processor: 'paddle', webhook_secret_sealed: 'v1.paddle', last_signature_error: null, last_signature_error_at: null },
        { program_id: sealed, processor: 'stripe', webhook_secret_sealed: 'v1.sealed-secret', last_signature_error: 'No signature matched', last_signature_error_at: new Date('2026-01-02T03:04:05Z') },
      ]);
      expect(endpoints.rows.some((row) => Number(row.program_id) === none)).toBe(false);
      const columns = await pool.query("SELECT column_name FROM information_schema.columns WHERE table_name = 'programs' AND column_name IN ('stripe_webhook_secret', 'stripe_last_signature_error', 'stripe_last_signature_error_at')");
      expect(columns.rows).toEqual([]);
    } finally {
      await pool.end();
      await rm(before, { recursive: true, force: true });
    }
  });
});

describe('one inbox writer per process', () => {
  let db: TestDatabase;
  let api: TestApi;
  let shop: SeededProgram;

  beforeAll(async () => {
    db = await createTestDatabase();
    api = await startTestApi(db.pool, { AFFIX_SECRET_KEY: 'test-secret-key-0123456789' }, { queueUrl: db.url });
    shop = await seedProgram(api);
    const saved = await api.request('PATCH', `/api/v1/admin/programs/${shop.programId}/stripe`, { body: { webhook_secret: WEBHOOK_SECRET }, headers: adminHeaders });
    expect(saved.status).toBe(200);
  });

  afterAll(async () => {
    await api?.close();
    await db?.drop();
  });

  it("a Stripe delivery and the dashboard's test event are stored by the same writer", async () => {
    const writers = new Set<InboxWriter>();
    // Every store call, by the writer that made it (the prototype's method, wrapped for this test).
    const original = InboxWriter.prototype.store;
    InboxWriter.prototype.store = function (this: InboxWriter, ...args: Parameters<InboxWriter['store']>) {
      writers.add(this);
      return original.apply(this, args);
    };
    try {
      const run = randomBytes(4).toString('hex');
      const event = await fixture('checkout.session.completed.payment', { run, click_id: '', customer_key: `c_${run}`, program_id: shop.programId, email: `c_${run}@example.com` });
      expect((await deliver(api, `/api/v1/webhooks/stripe/${shop.programId}`, event)).status).toBe(200);

      const token = randomBytes(24).toString('base64url');
      await db.pool.query("INSERT INTO dashboard_sessions (token_hash, account_id, expires_at) VALUES ($1, $2, now() + interval '1 hour')", [sha256(token), shop.accountId]);
      const visitor = dashboardVisitor(api.url, { sessionToken: token });
      expect((await visitor.get(`/dashboard/programs/${shop.programId}/setup`)).status).toBe(200);
      const sent = await visitor.post(`/dashboard/programs/${shop.programId}/setup/test`, { kind: 'webhook' });
      expect(sent.status).toBe(200);
      expect(sent.text).toContain('signed with your secret: stored as inbox event');
      expect(writers.size).toBe(1);
    } finally {
      InboxWriter.prototype.store = original;
    }
  });
});
