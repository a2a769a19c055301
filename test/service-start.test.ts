// The README's start command as a user runs it, on the embedded PostgreSQL (DATABASE_URL unset):
// a subprocess that migrates, seeds the demo, prints the walk-through; then the walk-through
// itself, and `affix admin` against it.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from './support/ports.js';

const run = promisify(execFile);
const ADMIN = 'service-start-admin-token-123';
let child: ChildProcess;
let output = '';
let baseUrl = '';
let dataDir = '';

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'affix-start-'));
  const { DATABASE_URL: _external, ...environment } = process.env;
  child = spawn(process.execPath, ['bin/affix.mjs', 'start'], {
    env: {
      ...environment,
      AFFIX_EMBEDDED_PG_PORT: String(await freePort()),
      PORT: '0',
      HOST: '127.0.0.1',
      AFFIX_ADMIN_TOKEN: ADMIN,
      AFFIX_SECRET_KEY: 'service-start-secret-key-123',
      AFFIX_DATA_DIR: dataDir,
      AFFIX_WORKER_POLL_SECONDS: '0.5',
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const started = Date.now();
  while (!/listening on (http:\/\/\S+)/.test(output) || !output.includes('track/refund')) {
    if (Date.now() - started > 40_000) throw new Error(`service did not start:\n${output}`);
    if (child.exitCode !== null) throw new Error(`service exited:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  baseUrl = /listening on (http:\/\/\S+)/.exec(output)![1]!;
}, 60_000);

afterAll(async () => {
  if (child && child.exitCode === null) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
  await rm(dataDir, { recursive: true, force: true });
});

describe('npm start (affix start)', () => {
  it('prints a walk-through that works pasted as one block: click -> lead -> sale -> refund -> readiness', async () => {
    // The dashboard's address is printed too, and answers (its sign-in page).
    const dashboard = /^Dashboard: (\S+)$/m.exec(output)![1]!;
    expect((await fetch(dashboard)).url).toMatch(/\/dashboard\/login$/);
    const block = /paste this block[^\n]*\n\n([\s\S]+?)\n\n/.exec(output)![1]!;
    const answers = (await run('bash', ['-c', block])).stdout.trim().split('\n');
    expect(answers[0]).toMatch(/^click: \S+$/);
    expect(JSON.parse(answers[1]!)).toEqual({ success: true, message: 'Lead tracked successfully' });
    expect(JSON.parse(answers[2]!)).toMatchObject({ success: true, commission_amount_cents: 980 });
    expect(JSON.parse(answers[3]!)).toMatchObject({ success: true, status: 'refunded', deduction_amount_cents: 200 });
    expect(JSON.parse(answers[4]!)).toMatchObject({ state: 'ready', integration_verified: true });
  });

  it('`affix admin` manages links against the running service', async () => {
    const env = { ...process.env, AFFIX_ADMIN_TOKEN: ADMIN, AFFIX_API_URL: baseUrl };
    const { stdout } = await run(process.execPath, ['bin/affix.mjs', 'admin', 'link', 'disable', '1'], { env });
    expect(JSON.parse(stdout)).toMatchObject({ id: 1, short_link: 'demo', enabled: false });
    const click = await fetch(`${baseUrl}/api/v1/track/click`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ affiliate_url: 'http://localhost/?aff=demo' }),
    });
    expect(click.status).toBe(410);
    // A refusal exits 5 (the code the README's table gives a rejected request), with the API's message.
    const failed = await run(process.execPath, ['bin/affix.mjs', 'admin', 'link', 'enable', '999'], { env }).catch((error) => error);
    expect(failed.code).toBe(5);
    expect(failed.stderr).toBe('affix: Referral link not found\n');
    const invalid = await run(process.execPath, ['bin/affix.mjs', 'admin', 'program', 'update', '1', '--domain', 'https://shop.example/x'], { env }).catch((error) => error);
    expect(invalid.code).toBe(5);
    expect(invalid.stderr).toContain('Type the host name only, without https:// or a path: shop.example');
  }, 30_000);

  it('`affix admin` finds the service on PORT without --api-url, and names the address it could not reach', async () => {
    const { AFFIX_API_URL: _unset, ...base } = process.env;
    const env = { ...base, AFFIX_ADMIN_TOKEN: ADMIN, PORT: new URL(baseUrl).port };
    const shown = await run(process.execPath, ['bin/affix.mjs', 'admin', 'program', 'show', '1'], { env });
    expect(JSON.parse(shown.stdout)).toMatchObject({ id: 1, name: 'Demo Shop' });
    const nowhere = String(await freePort());
    const failed = await run(process.execPath, ['bin/affix.mjs', 'admin', 'program', 'show', '1'], { env: { ...env, PORT: nowhere } }).catch((error) => error);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toBe(`affix: Cannot reach http://localhost:${nowhere} (ECONNREFUSED): is Affix running at http://localhost:${nowhere}? Pass --api-url or set AFFIX_API_URL.\n`);
  }, 30_000);

  it('`affix replay` signs a fixture, the worker attributes it, `affix events` shows the step, `--event` requeues', async () => {
    const env = { ...process.env, AFFIX_ADMIN_TOKEN: ADMIN, AFFIX_API_URL: baseUrl };
    const affix = (...args: string[]) => run(process.execPath, ['bin/affix.mjs', ...args], { env });
    await affix('admin', 'link', 'enable', '1');
    const connected = JSON.parse((await affix('admin', 'program', 'stripe', '1', '--webhook-secret', 'whsec_cli_test')).stdout);
    expect(connected).toMatchObject({ program_id: 1, webhook_secret_set: true, webhook_url: expect.stringContaining('/api/v1/webhooks/stripe/1') });

    const post = (path: string, body: unknown) =>
      fetch(`${baseUrl}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) }).then((r) => r.json() as Promise<any>);
    const click = await post('/api/v1/track/click', { affiliate_url: 'http://localhost/?aff=demo' });
    await post('/api/v1/track/lead', { click_id: click.click_id, customer_key: 'cli_user', email: 'cli@example.com' });

    const sent = await affix('replay', 'fixtures/stripe/checkout.session.completed.payment.json', '--program', '1', '--secret', 'whsec_cli_test',
      '--set', `click_id=${click.click_id}`, '--set', 'customer_key=cli_user', '--set', 'email=cli@example.com');
    expect(sent.stdout).toMatch(/^\[1\/1\] checkout\.session\.completed\.payment -> queued\nWhat each event did:\n  checkout\.session\.completed\.payment: processed sale \d+ by click_id, commission \d+\.\d{2} USD \((pending|held)\)\n$/);

    let events: any[] = [];
    for (let i = 0; i < 100 && events[0]?.status !== 'processed'; i++) {
      events = JSON.parse((await affix('events', '--json')).stdout);
      if (events[0]?.status !== 'processed') await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(events[0]).toMatchObject({ status: 'processed', attribution_step: 'click_id', type: 'checkout.session.completed' });
    const shown = await affix('events', 'show', String(events[0].id));
    expect(shown.stdout).toContain('attribution step: click_id');
    // A click and its lead seconds apart from one IP: the fast-signup signal holds it (the state every surface shows).
    expect(shown.stdout).toMatch(/commission: +\d+\.\d{2} USD \((pending|held)\)/);
    // Support knows the Stripe ids, not our numbers: evt_ for show and replay, any object id for the list.
    const byStripeId = await affix('events', 'show', events[0].stripe_event_id);
    expect(byStripeId.stdout).toContain(`event ${events[0].id} (${events[0].stripe_event_id})`);
    const session = events[0].object_ids.find((id: string) => id.startsWith('cs_'));
    const listed = JSON.parse((await affix('events', '--stripe-id', session, '--json')).stdout);
    expect(listed.map((e: any) => e.id)).toEqual([events[0].id]);
    expect(JSON.parse((await affix('events', '--stripe-id', 'pi_nobody_knows', '--json')).stdout)).toEqual([]);
    // The list says which program each event is for.
    const table = (await affix('events', '--status', 'processed')).stdout.split('\n');
    expect(table[0]).toMatch(/^ +event +program +processor +status +type$/);
    expect(table[1]).toMatch(new RegExp(`^ +${events[0].id} +1 +stripe +processed +checkout\\.session\\.completed`));
    expect((await affix('replay', '--event', events[0].stripe_event_id)).stdout).toBe(`Requeued event ${events[0].id} (checkout.session.completed).\n`);
  }, 60_000);

  it.each([
    ['paddle', 'pdl_ntfset_cli_test_secret', 'first payment by click_id; renewal through the customer; half of it refunded; a chargeback, then reversed'],
    ['lemonsqueezy', 'lemon-cli-test-secret', 'order by click_id; the initial invoice is the order; renewal; half of it refunded; the order refunded'],
  ])('`affix replay fixtures/%s` ends with the sales and commissions the fixtures make', async (processor, secret) => {
    const env = { ...process.env, AFFIX_ADMIN_TOKEN: ADMIN, AFFIX_API_URL: baseUrl };
    const affix = (...args: string[]) => run(process.execPath, ['bin/affix.mjs', ...args], { env });
    await affix('admin', 'link', 'enable', '1');
    const connected = JSON.parse((await affix('admin', 'program', 'processor', '1', processor, '--webhook-secret', secret)).stdout);
    expect(connected).toMatchObject({ processor, secret_set: true, webhook_url: expect.stringContaining(`/api/v1/webhooks/${processor}/1`) });
    const post = (path: string, body: unknown) =>
      fetch(`${baseUrl}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) }).then((r) => r.json() as Promise<any>);
    const click = await post('/api/v1/track/click', { affiliate_url: 'http://localhost/?aff=demo' });
    const key = `cli_${processor}`;
    await post('/api/v1/track/lead', { click_id: click.click_id, customer_key: key, email: `${key}@example.com` });
    const sent = await affix('replay', `fixtures/${processor}`, '--program', '1', '--secret', secret, '--set', `click_id=${click.click_id}`, '--set', `customer_key=${key}`, '--set', `email=${key}@example.com`);
    const lines = sent.stdout.trim().split('\n');
    const outcomes = lines.slice(lines.indexOf('What each event did:') + 1);
    const fixtureCount = (await readdir(`fixtures/${processor}`)).filter((name) => name.endsWith('.json')).length;
    expect(outcomes).toHaveLength(fixtureCount);
    expect(outcomes.every((line) => / (processed|ignored)\b/.test(line))).toBe(true);
    expect(outcomes[0]).toMatch(/processed sale \d+ by click_id, commission \d+(\.\d+)? [A-Z]{3} \((pending|held|reversed)\)/);
    const events = JSON.parse((await affix('events', '--processor', processor, '--json')).stdout);
    expect(events).toHaveLength(fixtureCount);
    expect(events.every((e: any) => e.processor === processor && e.program_id === 1)).toBe(true);
  }, 60_000);

  it("the README's `affix admin` example runs as written, line by line", async () => {
    const readme = await readFile('README.md', 'utf8');
    const block = /Example:\n\n```sh\n([\s\S]*?)```/.exec(readme)![1]!;
    const commands = block.replace(/\\\n\s*/g, ' ').split('\n').map((line) => line.replace(/\s+#.*$/, '').trim()).filter(Boolean);
    expect(commands.length).toBeGreaterThanOrEqual(7);
    const env = { ...process.env, AFFIX_ADMIN_TOKEN: ADMIN, AFFIX_API_URL: baseUrl };
    const said: any[] = [];
    for (const command of commands) {
      expect(command.startsWith('npm run affix -- admin ')).toBe(true);
      const args = [...command.slice('npm run affix -- '.length).matchAll(/'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2]!);
      said.push(JSON.parse((await run(process.execPath, ['bin/affix.mjs', ...args], { env })).stdout));
    }
    // The owner it makes can sign in to the dashboard with the README's password.
    expect(said[0]).toMatchObject({ id: 2, email: 'owner@shop.example' });
    const form = await fetch(`${baseUrl}/dashboard/login`);
    const cookie = form.headers.getSetCookie().map((c) => c.split(';')[0]!).join('; ');
    const csrf = /name="_csrf" value="([^"]+)"/.exec(await form.text())![1]!;
    const signedIn = await fetch(`${baseUrl}/dashboard/login`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Cookie: cookie },
      body: new URLSearchParams({ _csrf: csrf, email: 'owner@shop.example', password: /--password '([^']+)'/.exec(block)![1]! }).toString(),
    });
    expect(signedIn.status).toBe(303);
    expect(signedIn.headers.get('location')).toBe('/dashboard');
    expect(said[1]).toMatchObject({ id: 2, domain: 'shop.example' });
    expect(said[4].api_key).toMatch(/^affix_sk_/);
    expect(said[5]).toMatchObject({ id: 2, enabled: false });
  }, 60_000);

  it('a second start on the same data prints no demo key or password, and names the file that has them', async () => {
    const key = /^API key, .*: (\S+)$/m.exec(output)![1]!;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
    const first = output;
    output = '';
    const { DATABASE_URL: _external, ...environment } = process.env;
    child = spawn(process.execPath, ['bin/affix.mjs', 'start'], {
      env: { ...environment, AFFIX_EMBEDDED_PG_PORT: String(await freePort()), PORT: '0', HOST: '127.0.0.1', AFFIX_ADMIN_TOKEN: ADMIN, AFFIX_SECRET_KEY: 'service-start-secret-key-123', AFFIX_DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (chunk) => (output += chunk));
    child.stderr!.on('data', (chunk) => (output += chunk));
    for (let waited = 0; !output.includes('walk-through are in') && child.exitCode === null && waited < 40_000; waited += 100) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(output).toContain(`Demo program 1: its API key, sign-in and curl walk-through are in ${dataDir}/demo.txt (printed on the first start only)`);
    expect(output).not.toContain(key);
    expect(output).not.toMatch(/as demo@affix\.local \//);
    const saved = await readFile(join(dataDir, 'demo.txt'), 'utf8');
    expect(saved).toContain(key);
    expect(first).toContain(saved.trim().split('\n')[0]!);
  }, 60_000);
});
