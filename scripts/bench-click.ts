// npm run bench:click [requests per round] [concurrency]
// POST /api/v1/track/click through the service (its own process: routing, rate limit, lookups,
// the write) against a bare node:http server with a pool of the same size doing only the
// click's write, in the same run: three rounds each, interleaved, medians, the ratio. Then the
// statements one click runs (pg_stat_statements is not needed: PostgreSQL's own counters).
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { stablePort } from './lib/ports.js';
import { benchMain, databaseCpuMs, processCpuMs, fmt, httpClient, median, percentile, runConcurrent, startBench, statementsDuring } from './lib/bench-kit.js';

const perRound = Number(process.argv[2] ?? 5000);
const concurrency = Number(process.argv[3] ?? 32);

await benchMain(async (cleanup) => {
  const { database, api, client, sql, program } = await startBench(cleanup, { sockets: concurrency * 2, webhookSecret: 'whsec_bench_click' });
  const link = (await sql.query('SELECT id FROM referral_links WHERE short_link = $1', [program.shortLink])).rows[0].id;

  const barePort = await stablePort();
  const bare = spawn(process.execPath, [...(process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? []), '--import', 'tsx', fileURLToPath(new URL('./bench/bare-click-server.ts', import.meta.url)), database.url, String(barePort), String(program.programId), String(link), String(program.partnerId)], { stdio: ['ignore', 'pipe', 'inherit'] });
  cleanup(() => bare.kill('SIGTERM'));
  await new Promise<void>((resolve) => bare.stdout!.on('data', (chunk) => String(chunk).includes('up') && resolve()));
  const bareClient = httpClient(`http://127.0.0.1:${barePort}`, concurrency * 2);
  cleanup(() => bareClient.close());

  const body = { affiliate_url: `https://bench.example/?aff=${program.shortLink}` };
  // CPU per click of the serving process and of PostgreSQL: what the ratio is made of, and a
  // figure a busy machine moves far less than a rate.
  const round = async (target: typeof client, pid: number) => {
    const [cpuBefore, dbBefore] = [await processCpuMs(pid), await databaseCpuMs()];
    const started = performance.now();
    const replies = await runConcurrent(perRound, concurrency, () => target.request('POST', '/api/v1/track/click', body));
    const failed = replies.filter((r) => r.status !== 200);
    if (failed.length) throw new Error(`${failed.length} clicks failed: ${JSON.stringify(failed[0])}`);
    const seconds = (performance.now() - started) / 1000;
    return {
      perSecond: perRound / seconds,
      ms: replies.map((r) => r.ms),
      cpuMs: ((await processCpuMs(pid)) - cpuBefore) / perRound,
      dbMs: ((await databaseCpuMs()) - dbBefore) / perRound,
    };
  };
  const apiPid = api.process.child.pid!;
  const barePid = bare.pid!;
  await round(client, apiPid); // warm-up: JIT, pools, caches
  await round(bareClient, barePid);
  const ours: number[] = [];
  const theirs: number[] = [];
  const latencies: number[] = [];
  const cpu = { ours: [] as number[], theirs: [] as number[], db: [] as number[], bareDb: [] as number[] };
  for (let i = 1; i <= 3; i++) {
    const a = await round(client, apiPid);
    const b = await round(bareClient, barePid);
    ours.push(a.perSecond);
    theirs.push(b.perSecond);
    latencies.push(...a.ms);
    cpu.ours.push(a.cpuMs); cpu.theirs.push(b.cpuMs); cpu.db.push(a.dbMs); cpu.bareDb.push(b.dbMs);
    console.log(`  round ${i}: Affix ${fmt(a.perSecond)} clicks/s · bare ${fmt(b.perSecond)} clicks/s`);
  }
  console.log(`CPU per click: Affix process ${fmt(median(cpu.ours), 3)} ms · bare process ${fmt(median(cpu.theirs), 3)} ms · PostgreSQL ${fmt(median(cpu.db), 3)} ms (Affix) / ${fmt(median(cpu.bareDb), 3)} ms (bare)`);
  console.log(`click: Affix ${fmt(median(ours))} req/s (p50 ${fmt(percentile(latencies, 50), 1)} ms, p99 ${fmt(percentile(latencies, 99), 1)} ms) · bare node:http + pg, the click's write only: ${fmt(median(theirs))} req/s at ${concurrency} concurrent`);
  console.log(`RATIO click / bare = ${fmt(median(ours) / median(theirs), 2)} (target >= 0.9)`);

  // Statements per click, counted by PostgreSQL itself (pg_stat_statements, BEGIN/COMMIT included).
  const sample = 200;
  const counted = await statementsDuring(sql, sample, () => runConcurrent(sample, 4, () => client.request('POST', '/api/v1/track/click', body)));
  console.log(`statements per click: ${fmt(counted.perUnit, 2)} (target <= 3); the most expensive:`);
  for (const line of counted.top) console.log(`  ${line}`);
});
