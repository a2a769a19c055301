// The real `affix` binary as a user runs it: temporary HOME and project folder, against the
// real service started as a subprocess.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHAIN_LIMIT } from '../src/app/programs/cli-programs.js';
import { requestCount } from '../src/core/limits.js';
import { type TestDatabase, createTestDatabase } from './support/harness.js';

const ADMIN = 'cli-client-admin-token-123456';
const BIN = resolve('bin/affix.mjs');
let db: TestDatabase;
let service: ChildProcess;
let baseUrl = '';
let home = '';
let project = '';

const freePort = () =>
  new Promise<number>((done) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => done(port));
    });
  });

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `affix ...` in the project folder with the temporary HOME. */
function affix(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((done) => {
    execFile(process.execPath, [BIN, ...args], { cwd: project, env: { ...process.env, HOME: home, AFFIX_API_KEY: '', AFFIX_API_URL: '', ...env } }, (error, stdout, stderr) => {
      done({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

const adminPost = (path: string, body: unknown) =>
  fetch(`${baseUrl}/api/v1/admin${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${ADMIN}` }, body: JSON.stringify(body) });

interface LoginRun {
  stateValue: string;
  exited: Promise<number>;
  output: { stdout: string; stderr: string };
}

/** Starts `affix login --no-browser` and waits for the sign-in URL it prints. */
async function startLogin(): Promise<LoginRun> {
  const child = spawn(process.execPath, [BIN, 'login', '--no-browser', '--api-url', baseUrl], { cwd: project, env: { ...process.env, HOME: home } });
  const output = { stdout: '', stderr: '' };
  child.stdout.on('data', (chunk) => (output.stdout += chunk));
  child.stderr.on('data', (chunk) => (output.stderr += chunk));
  const exited = new Promise<number>((done) => child.on('exit', (code) => done(code ?? 1)));
  while (!/state=(\S+)/.test(output.stdout)) await new Promise((r) => setTimeout(r, 50));
  return { stateValue: decodeURIComponent(/state=(\S+)/.exec(output.stdout)![1]!), exited, output };
}

/** Submits the sign-in page like a person would. */
const signInOnPage = (stateValue: string, email: string, password: string) =>
  fetch(`${baseUrl}/cli/login`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ state: stateValue, email, password }).toString(),
  });

async function login(email: string, password: string): Promise<Run> {
  const run = await startLogin();
  expect((await signInOnPage(run.stateValue, email, password)).status).toBe(200);
  return { code: await run.exited, stdout: run.output.stdout, stderr: run.output.stderr };
}

beforeAll(async () => {
  db = await createTestDatabase();
  home = await mkdtemp(join(tmpdir(), 'affix-home-'));
  project = await mkdtemp(join(tmpdir(), 'affix-project-'));
  const port = await freePort();
  baseUrl = `http://127.0.0.1:${port}`;
  service = spawn(process.execPath, [BIN, 'api'], {
    env: {
      ...process.env, DATABASE_URL: db.url, PORT: String(port), HOST: '127.0.0.1', AFFIX_PUBLIC_URL: baseUrl, AFFIX_ADMIN_TOKEN: ADMIN,
      AFFIX_SECRET_KEY: 'cli-client-secret-key-123', AFFIX_SEED_DEMO: 'false', LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  service.stdout!.on('data', (chunk) => (output += chunk));
  service.stderr!.on('data', (chunk) => (output += chunk));
  const started = Date.now();
  while (!output.includes('listening on')) {
    if (Date.now() - started > 40_000 || service.exitCode !== null) throw new Error(`service did not start:\n${output}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  expect((await adminPost('/accounts', { email: 'owner@brand.example', password: 'correct horse battery' })).status).toBe(201);
}, 60_000);

afterAll(async () => {
  if (service && service.exitCode === null) {
    const exited = new Promise((r) => service.once('exit', r));
    service.kill('SIGTERM');
    await exited;
  }
  await rm(home, { recursive: true, force: true });
  await rm(project, { recursive: true, force: true });
  await db.drop();
});

describe('affix login / programs / init / status / test / logout', () => {
  it('the terminal and the sign-in page show the same confirmation code, and the page says what is authorized', async () => {
    const run = await startLogin();
    while (!/Confirm that the page shows ([A-Z2-9]{4}-[A-Z2-9]{4})/.test(run.output.stdout)) await new Promise((r) => setTimeout(r, 50));
    const code = /Confirm that the page shows ([A-Z2-9]{4}-[A-Z2-9]{4})/.exec(run.output.stdout)![1]!;
    const page = await (await fetch(`${baseUrl}/cli/login?state=${encodeURIComponent(run.stateValue)}`)).text();
    expect(page).toContain(`Confirm that your terminal shows <strong class="code">${code}</strong>`);
    expect(page).toContain('manage your programs (create programs and API keys, read their status) for 30 days');
    // Another session's page shows another code: a crafted link is recognisable.
    const other = await (await fetch(`${baseUrl}/cli/login?state=someone-elses-state`)).text();
    expect(other).not.toContain(code);
    expect((await signInOnPage(run.stateValue, 'owner@brand.example', 'correct horse battery')).status).toBe(200);
    expect(await run.exited).toBe(0);
  }, 30_000);

  it('logs in through the sign-in page and stores the token with mode 0600', async () => {
    const run = await login('owner@brand.example', 'correct horse battery');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`${baseUrl}/cli/login?state=`);
    expect(run.stdout).toContain('Signed in as owner@brand.example');
    const file = join(home, '.affix', 'credentials.json');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const saved = JSON.parse(await readFile(file, 'utf8'));
    expect(saved).toMatchObject({ api_url: baseUrl, email: 'owner@brand.example', token: expect.stringMatching(/^affix_cli_/), advertiser_id: expect.any(Number) });
  }, 30_000);

  it('programs: none yet', async () => {
    const run = await affix(['programs', '--json']);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual([]);
  });

  it('init --no-interactive writes the four files and .gitignore once; init again refuses', async () => {
    await writeFile(join(project, '.gitignore'), 'node_modules');
    const run = await affix(['init', '--no-interactive', '--name', 'Brand Shop', '--domain', 'brand.example', '--commission-type', 'recurring_percent',
      '--commission-rate', '25', '--cookie-duration', '45', '--duration-months', '12', '--json']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const result = JSON.parse(run.stdout);
    expect(result).toEqual({ program_id: expect.any(Number), files: ['.affix/AGENTS.md', '.affix/skills.md', '.affix/.env', '.affix/.env.example'], gitignore_updated: true });
    const env = await readFile(join(project, '.affix/.env'), 'utf8');
    expect(env).toMatch(new RegExp(`^AFFIX_API_KEY=affix_sk_\\S+\\nAFFIX_PROGRAM_ID=${result.program_id}\\nPROCESSOR_CONNECTED_ACCOUNT_ID=\\n$`));
    expect((await stat(join(project, '.affix/.env'))).mode & 0o777).toBe(0o600);
    expect(await readFile(join(project, '.affix/.env.example'), 'utf8')).toBe('AFFIX_API_KEY=\nAFFIX_PROGRAM_ID=\nPROCESSOR_CONNECTED_ACCOUNT_ID=\n');
    const agents = await readFile(join(project, '.affix/AGENTS.md'), 'utf8');
    expect(await readFile(join(project, '.affix/skills.md'), 'utf8')).toBe(agents);
    const key = /AFFIX_API_KEY=(\S+)/.exec(env)![1]!;
    expect(agents).not.toContain(key);
    for (const part of [`| Program id | ${result.program_id} |`, '| Cookie duration (attribution window) | 45 days |',
      '| Commission | 25% of every sale for 12 months (recurring_percent) |',
      '| Allowed origins (browser clicks) | https://brand.example, https://www.brand.example |',
      'Clicks are accepted only from the program\'s allowed origins (https://brand.example, https://www.brand.example)',
      '### Unreferred users are normal', 'nothing needs a retry', `| API base URL | ${baseUrl} |`, 'AFFIX_API_KEY',
      'subscription_data: { metadata }', 'customerExternalId', '| `affix test click` / `lead` / `sale` / `chain` |', 'POST `/api/v1/track/sale`', 'window.affix.signup']) {
      expect(agents).toContain(part);
    }
    expect(await readFile(join(project, '.gitignore'), 'utf8')).toBe('node_modules\n.affix/.env\n.affix/.env.*\n');

    const again = await affix(['init', '--no-interactive', '--name', 'X', '--domain', 'x.example', '--commission-type', 'percent', '--commission-rate', '10']);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain(`already set up for program ${result.program_id}`);
    const programs = JSON.parse((await affix(['programs', '--json'])).stdout);
    // Existing CLIs pad `commission` as a string: a display string, the structure beside it.
    expect(programs).toEqual([expect.objectContaining({
      id: result.program_id, name: 'Brand Shop', commission: '25% of every sale for 12 months', commission_type: 'recurring_percent', commission_rate: 25,
    })]);
    const listed = await affix(['programs']);
    expect(listed.stdout).toContain('Brand Shop  brand.example  25% of every sale for 12 months  partners: 0');
    // The brand's own site works from the first page view: its origins are allowed by default.
    const origins = await db.pool.query('SELECT allowed_origins FROM programs WHERE id = $1', [result.program_id]);
    expect(origins.rows[0].allowed_origins).toEqual(['https://brand.example', 'https://www.brand.example']);

    expect(agents).toContain('## 3. Sale tracking (Stripe)');
    const second = await affix(['init', '--no-interactive', '--new-program', '--name', 'Second', '--domain', 'two.example', '--commission-type', 'fixed', '--commission-rate', '5', '--processor', 'paddle', '--json']);
    expect(second.code).toBe(0);
    // The agent files name the processor the brand chose: its endpoint, events and checkout custom data, not Stripe's.
    const paddleAgents = await readFile(join(project, '.affix/AGENTS.md'), 'utf8');
    const secondId = JSON.parse(second.stdout).program_id;
    for (const part of ['## 3. Sale tracking (Paddle Billing)', `\`${baseUrl}/api/v1/webhooks/paddle/${secondId}\``, '`transaction.completed`', 'customData: { affix_click_id:', '| Paddle checkout custom data | `affix_customer_key` |']) {
      expect(paddleAgents).toContain(part);
    }
    expect(paddleAgents).not.toContain('subscription_data: { metadata }');
    expect(JSON.parse(second.stdout).gitignore_updated).toBe(false);
    expect(await readFile(join(project, '.gitignore'), 'utf8')).toBe('node_modules\n.affix/.env\n.affix/.env.*\n');
  }, 30_000);

  it('init answers the API error in words and a usage exit code', async () => {
    const run = await affix(['init', '--no-interactive', '--new-program', '--name', 'Bad', '--domain', 'bad.example', '--commission-type', 'percent', '--commission-rate', '150']);
    expect(run.code).toBe(5);
    expect(run.stderr).toContain('commission_rate must be at most 100 for percent commissions');
  });

  it('status and test events use the key in .affix/.env', async () => {
    const status = await affix(['status', '--json']);
    expect(status.code).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({ name: 'Second', recent_events: { clicks_24h: 0 } });
    for (const event of ['click', 'lead', 'sale']) {
      const run = await affix(['test', event, '--json']);
      expect(run.code).toBe(0);
      expect(JSON.parse(run.stdout)).toMatchObject({ received: true, attributed: true });
    }
    const chain = await affix(['test', 'chain']);
    expect(chain.stdout).toContain('click pass, lead pass, sale pass');
    expect(chain.stdout).toContain('Attributed end to end.');
    const human = await affix(['status']);
    // Test events say what they proved above; the day's counts are real traffic only (issue 43, item 9).
    expect(human.stdout).toContain('Last 24 h: 0 clicks, 0 leads, 0 sales');
    expect(human.stdout).toContain('Browser clicks are accepted from: https://two.example, https://www.two.example');
  }, 30_000);

  it('the chain cap: the 11th chain in an hour exits 4 with the API message', async () => {
    const runs = await Promise.all(Array.from({ length: 9 }, () => affix(['test', 'chain', '--json'])));
    expect(runs.every((run) => run.code === 0)).toBe(true);
    // The service counts in windows of the clock hour: should an hour have begun while the chains
    // ran, its window holds fewer than 10. This hour's window and the next hold at least the cap,
    // whenever the test runs (the count itself is cli-api.test.ts's, on a clock the test sets).
    const { rows } = await db.pool.query(`SELECT DISTINCT split_part(bucket, ':', 2) AS program FROM rate_limit_counters WHERE bucket LIKE '${CHAIN_LIMIT.bucket}:%'`);
    expect(rows).toHaveLength(1);
    for (const at of [new Date(), new Date(Date.now() + CHAIN_LIMIT.windowSeconds * 1000)]) {
      const count = requestCount(CHAIN_LIMIT, rows[0].program, at);
      await db.pool.query(
        `INSERT INTO rate_limit_counters (bucket, window_start, hits, expires_at) VALUES ($1, $2, $3, $4)
         ON CONFLICT (bucket, window_start) DO UPDATE SET hits = greatest(rate_limit_counters.hits, EXCLUDED.hits)`,
        [count.counter, count.windowStart, CHAIN_LIMIT.limit, count.windowEnd],
      );
    }
    const capped = await affix(['test', 'chain']);
    expect(capped.code).toBe(4);
    expect(capped.stderr).toContain('Too many synthetic chains (max 10/program/hour). (rate_limited)');
  }, 180_000);

  it('a bad key exits 3 with the API guidance; logout forgets the login', async () => {
    const bad = await affix(['status'], { AFFIX_API_KEY: 'affix_sk_wrong' });
    expect(bad.code).toBe(3);
    expect(bad.stderr).toContain('Invalid API key. Ask a workspace owner to regenerate it');
    const { token } = JSON.parse(readFileSync(join(home, '.affix', 'credentials.json'), 'utf8'));
    expect((await affix(['logout'])).stdout).toBe('Logged out; the token is revoked.\n');
    expect(existsSync(join(home, '.affix', 'credentials.json'))).toBe(false);
    // The token no longer works on the server either (it used to stay valid for 30 days).
    const after = await fetch(`${baseUrl}/api/v1/cli/programs`, { headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` } });
    expect(after.status).toBe(401);
    const programs = await affix(['programs']);
    expect(programs.code).toBe(3);
    expect(programs.stderr).toContain('Not logged in. Run `affix login` first.');
  }, 30_000);

  it('an expired sign-in link ends `affix login` with exit 3; a suspended account is told so on the page', async () => {
    expect((await adminPost('/accounts', { email: 'blocked@brand.example', password: 'correct horse battery' })).status).toBe(201);
    const { rows } = await db.pool.query("SELECT id FROM accounts WHERE email = 'blocked@brand.example'");
    await fetch(`${baseUrl}/api/v1/admin/accounts/${rows[0].id}`, {
      method: 'PATCH', headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${ADMIN}` }, body: JSON.stringify({ suspended: true }),
    });
    const run = await startLogin();
    const page = await signInOnPage(run.stateValue, 'blocked@brand.example', 'correct horse battery');
    expect(page.status).toBe(403);
    expect(await page.text()).toContain('Your account has been suspended.');
    // Five minutes pass for the session (moved in the database rather than waited for).
    await db.pool.query("UPDATE cli_login_sessions SET expires_at = now() - interval '1 second' WHERE status = 'pending'");
    expect(await run.exited).toBe(3);
    expect(run.output.stderr).toContain('The sign-in link expired. Run `affix login` again.');
    expect(existsSync(join(home, '.affix', 'credentials.json'))).toBe(false);
  }, 30_000);
});
