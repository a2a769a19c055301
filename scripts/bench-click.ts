// npm run bench:click [requests per round] [concurrency]
// POST /api/v1/track/click through the service (its own process: routing, rate limit, lookups,
// the write) against a bare node:http server with a pool of the same size doing only the
// click's write, in the same run: three rounds each, interleaved, medians, the ratio. Then the
// statements one click runs (pg_stat_statements is not needed: PostgreSQL's own counters).
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { stablePort } from './lib/ports.js';
import { benchMain, fmt, httpClient, median, percentile, runConcurrent, startBench, statementsDuring } from './lib/bench-kit.js';

const perRound = Number(process.argv[2] ?? 5000);
const concurrency = Number(process.argv[3] ?? 32);

await benchMain(async (cleanup) => {
  const { database, client, sql, program } = await startBench(cleanup, { sockets: concurrency * 2, webhookSecret: 'whsec_bench_click' });
  const link = (await sql.query('SELECT id FROM referral_links WHERE short_link = $1', [program.shortLink])).rows[0].id;

  const barePort = await stablePort();
  const bare = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('./bench/bare-click-server.ts', import.meta.url)), database.url, String(barePort), String(program.programId), String(link), String(program.partnerId)], { stdio: ['ignore', 'pipe', 'inherit'] });
  cleanup(() => bare.kill('SIGKILL'));
  await new Promise<void>((resolve) => bare.stdout!.on('data', (chunk) => String(chunk).includes('up') && resolve()));
  const bareClient = httpClient(`http://127.0.0.1:${barePort}`, concurrency * 2);
  cleanup(() => bareClient.close());

  const body = { affiliate_url: `https://bench.example/?aff=${program.shortLink}` };
  const round = async (target: typeof client) => {
    const started = performance.now();
    const replies = await runConcurrent(perRound, concurrency, () => target.request('POST', '/api/v1/track/click', body));
    const failed = replies.filter((r) => r.status !== 200);
    if (failed.length) throw new Error(`${failed.length} clicks failed: ${JSON.stringify(failed[0])}`);
    return { perSecond: perRound / ((performance.now() - started) / 1000), ms: replies.map((r) => r.ms) };
  };
  await round(client); // warm-up: JIT, pools, caches
  await round(bareClient);
  const ours: number[] = [];
  const theirs: number[] = [];
  const latencies: number[] = [];
  for (let i = 1; i <= 3; i++) {
    const a = await round(client);
    const b = await round(bareClient);
    ours.push(a.perSecond);
    theirs.push(b.perSecond);
    latencies.push(...a.ms);
    console.log(`  round ${i}: Affix ${fmt(a.perSecond)} clicks/s · bare ${fmt(b.perSecond)} clicks/s`);
  }
  console.log(`click: Affix ${fmt(median(ours))} req/s (p50 ${fmt(percentile(latencies, 50), 1)} ms, p99 ${fmt(percentile(latencies, 99), 1)} ms) · bare node:http + pg, the click's write only: ${fmt(median(theirs))} req/s at ${concurrency} concurrent`);
  console.log(`RATIO click / bare = ${fmt(median(ours) / median(theirs), 2)} (target >= 0.5)`);

  // Statements per click, counted by PostgreSQL itself (pg_stat_statements, BEGIN/COMMIT included).
  const sample = 200;
  const counted = await statementsDuring(sql, sample, () => runConcurrent(sample, 4, () => client.request('POST', '/api/v1/track/click', body)));
  console.log(`statements per click: ${fmt(counted.perUnit, 2)} (target <= 3); the most expensive:`);
  for (const line of counted.top) console.log(`  ${line}`);
});
