// Large bulk actions on partners (docs/partners.md "Bulk actions"): the documented limits hold
// (100,000 ids through the admin API, refused above with words), and a large selection is a
// bulk action the job runs a chunk per transaction while the request answers at once. The tests
// drive the job chunk by chunk (no worker, no clock).
import { beforeAll, describe, expect, it } from 'vitest';
import { type TestApi, type TestDatabase, adminHeaders, seedProgram } from './support/harness.js';
import { useSeededApi } from './support/seeded-api.js';
import { BULK_ACTIONS_QUEUE } from '../src/core/queue-names.js';
import { type BulkJobDeps, failBulkActionJob, runBulkActionJob } from '../src/jobs/bulk-action-jobs.js';
import { createLogger } from '../src/platform/logger.js';
import { signedInVisitor } from './support/dashboard-visitor.js';

let db: TestDatabase;
let api: TestApi;
let jobDeps: BulkJobDeps;

useSeededApi({ env: { AFFIX_SECRET_KEY: 'bulk-actions-test-secret-key-01' }, options: { queueUrl: 'own' } }, (t) => ({ db, api } = t));
beforeAll(async () => {
  jobDeps = { pool: db.pool, secretBox: null, now: () => new Date(api.clock.now), logger: createLogger('silent'), mailLinks: { publicUrl: api.url } };
});

const admin = (method: string, path: string, body?: unknown) => api.request(method, `/api/v1/admin${path}`, { body, headers: adminHeaders });
const must = async (method: string, path: string, body?: unknown) => {
  const reply = await admin(method, path, body);
  if (reply.status >= 300) throw new Error(`${method} ${path}: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.data;
};

/** `n` approved partners of the program in one statement (emails when asked, tags), their ids in order. */
async function manyPartners(programId: number, n: number, options: { tag: string; emails?: boolean }): Promise<number[]> {
  const ids: number[] = [];
  // 10,000 a statement: each well within the pool's statement timeout.
  for (let from = 1; from <= n; from += 10_000) {
    const { rows } = await db.pool.query(
      `INSERT INTO partners (program_id, name, email, status, tags)
       SELECT $1, $2 || ' ' || g, CASE WHEN $5 THEN $2 || g || '@creators.test' END, 'approved', ARRAY[$2] FROM generate_series($3::int, $4::int) AS g RETURNING id`,
      [programId, options.tag, from, Math.min(n, from + 9_999), options.emails ?? false],
    );
    ids.push(...rows.map((r) => Number(r.id)));
  }
  return ids.sort((a, b) => a - b);
}

/** The worker's part, by hand: take the next bulk-action job, run it, complete it. null: no job waiting. */
async function nextChunk(): Promise<string | null> {
  const [job] = await api.queue!.fetch<unknown>(BULK_ACTIONS_QUEUE);
  if (!job) return null;
  const outcome = await runBulkActionJob(jobDeps, job.data);
  await api.queue!.complete(BULK_ACTIONS_QUEUE, job.id);
  return outcome;
}

const waitingJobs = async () =>
  (await db.pool.query(`SELECT data FROM pgboss.job WHERE name = $1 AND state < 'active' ORDER BY created_on, id`, [BULK_ACTIONS_QUEUE])).rows.map((r) => r.data);

const countWhere = async (sql: string, params: unknown[]) => (await db.pool.query(`SELECT count(*)::int AS n FROM ${sql}`, params)).rows[0].n as number;

const signedIn = (email: string, password: string) => signedInVisitor(api.url, email, password);

describe('the documented limits', () => {
  it('100,000 ids through the admin API (a body over 100 kB) are accepted at once (202) and the job moves every one of them', async () => {
    const shop = await seedProgram(api);
    const ids = await manyPartners(shop.programId, 100_000, { tag: 'hundred' });
    const group = await must('POST', `/programs/${shop.programId}/groups`, { name: 'Everyone', slug: 'everyone', commission_type: 'percent', commission_rate: 12, hold_days: 30 });
    const body = { action: 'move_group', partner_ids: ids, group_id: group.id };
    expect(JSON.stringify(body).length).toBeGreaterThan(100 * 1024);

    const reply = await admin('POST', `/programs/${shop.programId}/partners/bulk`, body);
    expect(reply.status, JSON.stringify(reply.body).slice(0, 300)).toBe(202);
    const asked = reply.body.data;
    expect(asked).toMatchObject({ action: 'move_group', state: 'queued', selection: 'ids', expected: 100_000, requested: 0, changed: 0 });
    expect(asked.status_url).toBe(`/api/v1/admin/programs/${shop.programId}/bulk-actions/${asked.id}`);
    expect(reply.headers.get('location')).toBe(asked.status_url);
    // Answered before any partner moved.
    expect(await countWhere('partners WHERE group_id = $1', [group.id])).toBe(0);

    let chunks = 0;
    while ((await nextChunk()) !== null) chunks += 1;
    // 200 chunks of 500, then the one that finds nothing left and ends it.
    expect(chunks).toBe(201);
    const done = (await api.request('GET', asked.status_url, { headers: adminHeaders })).body.data;
    expect(done).toMatchObject({ state: 'done', expected: 100_000, requested: 100_000, changed: 100_000, skipped: {}, chunks_done: 200 });
    expect(await countWhere('partners WHERE program_id = $1 AND group_id = $2', [shop.programId, group.id])).toBe(100_000);
    expect(await countWhere("audit_log WHERE program_id = $1 AND action = 'partner.move_group'", [shop.programId])).toBe(100_000);
  }, 300_000);

  it('100,001 ids are refused with words that name the limit and the way round it', async () => {
    const shop = await seedProgram(api);
    const ids = Array.from({ length: 100_001 }, (_, i) => i + 1);
    const reply = await admin('POST', `/programs/${shop.programId}/partners/bulk`, { action: 'archive', partner_ids: ids });
    expect(reply.status).toBe(400);
    expect(reply.body.error.message).toBe('partner_ids: At most 100,000 partner ids in one bulk action; for more, use a filter.');
    expect(await waitingJobs()).toEqual([]);
  });

  it('another program of the API cannot read a bulk action; a small selection still answers with its report', async () => {
    const shop = await seedProgram(api);
    const other = await seedProgram(api);
    await manyPartners(shop.programId, 1_001, { tag: 'wave' });
    const asked = (await must('POST', `/programs/${shop.programId}/partners/bulk`, { action: 'archive', filter: { tag: 'wave' } })) as { id: number; state: string };
    expect(asked.state).toBe('queued');
    expect((await admin('GET', `/programs/${other.programId}/bulk-actions/${asked.id}`)).status).toBe(404);
    while ((await nextChunk()) !== null);
    // At the inline limit (1,000) the report comes in the answer, as before.
    await manyPartners(shop.programId, 1_000, { tag: 'small' });
    const report = await must('POST', `/programs/${shop.programId}/partners/bulk`, { action: 'archive', filter: { tag: 'small' } });
    expect(report).toMatchObject({ action: 'archive', requested: 1_000, changed: 1_000 });
  }, 60_000);
});

describe('a large bulk action runs as a job', () => {
  it('by filter from the dashboard: the request answers at once (303 to the report page), which fills in after each chunk; ban notices are queued per chunk', async () => {
    const shop = await seedProgram(api);
    await must('PATCH', `/accounts/${shop.accountId}`, { password: 'bulk owner password 1' });
    const email = (await db.pool.query('SELECT email FROM accounts WHERE id = $1', [shop.accountId])).rows[0].email;
    await manyPartners(shop.programId, 1_600, { tag: 'spam', emails: true });

    const { get, post } = await signedIn(email, 'bulk owner password 1');
    await get(`/dashboard/programs/${shop.programId}/partners?tag=spam`);
    const asked = await post(
      `/dashboard/programs/${shop.programId}/partners/bulk`,
      { all_matching: 'on', filter_tag: 'spam', action: 'ban', reason: 'fake traffic', group_id: '', reapply: 'after_30_days' },
    );
    expect(asked.status).toBe(303);
    const reportPath = asked.headers.get('location')!;
    expect(reportPath).toMatch(new RegExp(`^/dashboard/programs/${shop.programId}/partners/bulk/\\d+$`));
    // The request did none of the work.
    const banned = () => countWhere("partners WHERE program_id = $1 AND status = 'banned'", [shop.programId]);
    const notices = () => countWhere("mail_outbox WHERE program_id = $1 AND kind = 'partner_banned'", [shop.programId]);
    expect(await banned()).toBe(0);

    const report = async () => {
      const reply = await get(reportPath);
      expect(reply.status).toBe(200);
      return { text: reply.text, refresh: reply.headers.get('refresh') };
    };
    const first = await report();
    expect(first.text).toContain('Waiting to start');
    expect(first.text).toContain('Partners handled: 0 of about 1,600');
    expect(first.text).toContain(`asked by ${email}`);
    expect(first.refresh).toBe('5');

    for (const [handled, state] of [[500, 'Running'], [1_000, 'Running'], [1_500, 'Running'], [1_600, 'Done']] as const) {
      expect(await nextChunk()).toBe(handled === 1_600 ? 'done' : 'chunk');
      const page = await report();
      expect(page.text).toContain(`<h2 id="bulk-action-state">${state}</h2>`);
      expect(page.text).toContain(`Partners handled: ${handled.toLocaleString('en-US')}${state === 'Done' ? '<' : ' of about 1,600<'}`);
      expect(page.text).toContain(`<dt>Changed</dt><dd>${handled.toLocaleString('en-US')}</dd>`);
      expect(page.refresh).toBe(state === 'Done' ? null : '5');
      // Each chunk's partners banned, their notices queued, their audit entries written, with the chunk.
      expect(await banned()).toBe(handled);
      expect(await notices()).toBe(handled);
      expect(await countWhere("audit_log WHERE program_id = $1 AND action = 'partner.ban' AND actor_type = 'member'", [shop.programId])).toBe(handled);
    }
    expect(await nextChunk()).toBeNull();
    // Reloading can be switched off while it runs (here it is done: no reload either way).
    expect((await get(`${reportPath}?refresh=off`)).headers.get('refresh')).toBeNull();
  }, 120_000);

  it('by filter through the API: 202 at once; a chunk interrupted is redone whole, a chunk done is never redone', async () => {
    const shop = await seedProgram(api);
    const ids = await manyPartners(shop.programId, 1_200, { tag: 'resume' });
    const group = await must('POST', `/programs/${shop.programId}/groups`, { name: 'Resumed', slug: 'resumed', commission_type: 'percent', commission_rate: 5, hold_days: 30 });
    const reply = await admin('POST', `/programs/${shop.programId}/partners/bulk`, { action: 'move_group', filter: { tag: 'resume' }, group_id: group.id });
    expect(reply.status).toBe(202);
    const statusUrl: string = reply.body.data.status_url;
    const status = async () => (await api.request('GET', statusUrl, { headers: adminHeaders })).body.data;
    const moved = () => countWhere('partners WHERE program_id = $1 AND group_id = $2', [shop.programId, group.id]);
    const entries = () => countWhere("audit_log WHERE program_id = $1 AND action = 'partner.move_group'", [shop.programId]);
    expect(await moved()).toBe(0);

    expect(await nextChunk()).toBe('chunk');
    expect(await status()).toMatchObject({ state: 'running', requested: 500, changed: 500, chunks_done: 1 });

    // The second chunk dies half way (its 700th partner's update fails): nothing of it stays.
    const breaking = ids[699]!;
    await db.pool.query(`CREATE FUNCTION bulk_test_break() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF NEW.id = ${breaking} THEN RAISE EXCEPTION 'worker lost'; END IF; RETURN NEW; END $$`);
    await db.pool.query('CREATE TRIGGER bulk_test_break BEFORE UPDATE ON partners FOR EACH ROW EXECUTE FUNCTION bulk_test_break()');
    const [interrupted] = await api.queue!.fetch<unknown>(BULK_ACTIONS_QUEUE);
    expect(interrupted!.data).toMatchObject({ chunk: 1 });
    await expect(runBulkActionJob(jobDeps, interrupted!.data)).rejects.toThrow('worker lost');
    expect(await status()).toMatchObject({ state: 'running', requested: 500, changed: 500, chunks_done: 1 });
    expect(await moved()).toBe(500);
    expect(await entries()).toBe(500);
    await db.pool.query('DROP TRIGGER bulk_test_break ON partners; DROP FUNCTION bulk_test_break()');

    // The retry (the same job again) does the whole chunk; the worker is lost again after its commit...
    expect(await runBulkActionJob(jobDeps, interrupted!.data)).toBe('chunk');
    expect(await status()).toMatchObject({ requested: 1_000, changed: 1_000, chunks_done: 2 });
    // ...and the job runs once more: the chunk it names is done, nothing is redone.
    expect(await runBulkActionJob(jobDeps, interrupted!.data)).toBe('stale');
    expect(await status()).toMatchObject({ requested: 1_000, changed: 1_000, chunks_done: 2 });
    expect(await entries()).toBe(1_000);
    await api.queue!.complete(BULK_ACTIONS_QUEUE, interrupted!.id);
    // One job waits: the third chunk's.
    expect((await waitingJobs()).map((d) => d.chunk)).toEqual([2]);
    expect(await nextChunk()).toBe('done');
    expect(await status()).toMatchObject({ state: 'done', requested: 1_200, changed: 1_200, chunks_done: 3 });
    expect(await moved()).toBe(1_200);
    expect(await entries()).toBe(1_200);
  }, 60_000);

  it("one brand's bulk actions run one at a time and take turns with another brand's, chunk by chunk", async () => {
    const a = await seedProgram(api);
    const b = await seedProgram(api);
    await manyPartners(a.programId, 1_001, { tag: 'first' });
    await manyPartners(a.programId, 1_001, { tag: 'second' });
    await manyPartners(b.programId, 1_001, { tag: 'other' });
    const a1 = await must('POST', `/programs/${a.programId}/partners/bulk`, { action: 'archive', filter: { tag: 'first' } });
    const a2 = await must('POST', `/programs/${a.programId}/partners/bulk`, { action: 'archive', filter: { tag: 'second' } });
    const b1 = await must('POST', `/programs/${b.programId}/partners/bulk`, { action: 'archive', filter: { tag: 'other' } });
    // The account's second waits its turn: no job of its own yet.
    expect((await waitingJobs()).map((d) => d.bulkActionId)).toEqual([a1.id, b1.id]);
    const order: number[] = [];
    for (;;) {
      const [next] = await waitingJobs();
      if (!next) break;
      order.push(next.bulkActionId);
      await nextChunk();
    }
    // Chunks of 500, 500 and the last 1: the brands alternate; a2 starts once a1 is done.
    expect(order).toEqual([a1.id, b1.id, a1.id, b1.id, a1.id, b1.id, a2.id, a2.id, a2.id]);
    for (const [program, id] of [[a.programId, a1.id], [a.programId, a2.id], [b.programId, b1.id]]) {
      expect((await must('GET', `/programs/${program}/bulk-actions/${id}`)).state).toBe('done');
    }
  }, 60_000);

  it('a chunk out of retries ends its bulk action as failed, says why, keeps what finished chunks did, and lets the account\'s next one start', async () => {
    const shop = await seedProgram(api);
    await manyPartners(shop.programId, 1_200, { tag: 'doomed' });
    await manyPartners(shop.programId, 1_001, { tag: 'next' });
    const doomed = await must('POST', `/programs/${shop.programId}/partners/bulk`, { action: 'archive', filter: { tag: 'doomed' } });
    const next = await must('POST', `/programs/${shop.programId}/partners/bulk`, { action: 'archive', filter: { tag: 'next' } });
    expect(await nextChunk()).toBe('chunk');
    const [job] = await waitingJobs();
    expect(job).toEqual({ bulkActionId: doomed.id, chunk: 1 });
    // What the dead-letter queue's worker does with the job pg-boss gave up on.
    await failBulkActionJob(jobDeps, job);
    const failed = await must('GET', `/programs/${shop.programId}/bulk-actions/${doomed.id}`);
    expect(failed).toMatchObject({ state: 'failed', requested: 500, changed: 500, error: 'A chunk failed after every retry; the partners of the chunks done stay changed.' });
    expect(failed.finished_at).not.toBeNull();
    // The chunk's own job (still queued here) finds its bulk action ended and does nothing.
    const waiting = await waitingJobs();
    expect(waiting).toEqual([{ bulkActionId: doomed.id, chunk: 1 }, { bulkActionId: next.id, chunk: 0 }]);
    expect(await nextChunk()).toBe('stale');
    while ((await nextChunk()) !== null);
    expect(await must('GET', `/programs/${shop.programId}/bulk-actions/${next.id}`)).toMatchObject({ state: 'done', changed: 1_001 });
    expect(await countWhere("partners WHERE program_id = $1 AND status = 'archived' AND 'doomed' = ANY (tags)", [shop.programId])).toBe(500);
  }, 60_000);
});

describe('in the name of the asker', () => {
  it('a chunk after the asker lost the right (here: the account suspended) stops the action, says why, and keeps what was done', async () => {
    const shop = await seedProgram(api);
    await must('PATCH', `/accounts/${shop.accountId}`, { password: 'bulk owner password 2' });
    const email = (await db.pool.query('SELECT email FROM accounts WHERE id = $1', [shop.accountId])).rows[0].email;
    await manyPartners(shop.programId, 1_200, { tag: 'gone' });
    const { get, post } = await signedIn(email, 'bulk owner password 2');
    await get(`/dashboard/programs/${shop.programId}/partners?tag=gone`);
    const asked = await post(`/dashboard/programs/${shop.programId}/partners/bulk`, { all_matching: 'on', filter_tag: 'gone', action: 'archive', reason: '', group_id: '', reapply: 'after_30_days' });
    expect(asked.status).toBe(303);
    const archived = () => countWhere("partners WHERE program_id = $1 AND status = 'archived'", [shop.programId]);
    expect(await nextChunk()).toBe('chunk');
    expect(await archived()).toBe(500);
    await must('PATCH', `/accounts/${shop.accountId}`, { suspended: true });
    expect(await nextChunk()).toBe('done');
    expect(await archived()).toBe(500);
    const { rows } = await db.pool.query('SELECT state, error FROM bulk_actions WHERE program_id = $1', [shop.programId]);
    expect(rows).toEqual([{ state: 'failed', error: expect.stringContaining('may no longer change partners') }]);
    expect(await nextChunk()).toBeNull();
    await must('PATCH', `/accounts/${shop.accountId}`, { suspended: false });
  }, 120_000);
});
