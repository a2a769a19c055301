// npm run bench:payout-run [partners]
// A payout run of a big program while its tracking goes on (issue: a run held the program row
// and every click, sale and refund of the program answered 503 meanwhile). Seeds `partners`
// partners (default 3001) with one approved commission each through the API, then runs a payout
// through the admin API while clicks, sales and refunds of the same program are sent without
// pause; prints the run's time, the tracking requests answered during it, their p50/p99 and
// how many were not 2xx.
import { ADMIN_TOKEN, benchMain, fmt, percentile, runConcurrent, startBench } from './lib/bench-kit.js';

const partners = Number(process.argv[2] ?? 3001);

await benchMain(async (cleanup) => {
  const { client, program } = await startBench(cleanup, { sockets: 16, webhookSecret: 'whsec_bench_payout_run' });
  const admin = { Authorization: `Bearer ${ADMIN_TOKEN}` };
  const api = (path: string) => `/api/v1/admin/programs/${program.programId}${path}`;
  // Sales and refunds are limited per key (spec §8): a new key every 25 requests keeps the limiter out of the figures.
  const keys: string[] = [];
  const key = async () => (await client.request('POST', api('/keys'), undefined, admin)).body.data.api_key as string;
  let used = 0;
  const auth = async () => {
    if (used % 25 === 0) keys.push(await key());
    used += 1;
    return { Authorization: `Bearer ${keys.at(-1)}` };
  };
  await client.request('PATCH', api('/payout-settings'), { hold_days: 0 }, admin);

  const seeded = performance.now();
  const links = await runConcurrent(partners, 8, async (i) => {
    const partner = (await client.request('POST', api('/partners'), { name: `P${i}` }, admin)).body.data;
    await client.request('POST', api('/links'), { partner_id: partner.id, short_link: `run${program.programId}x${i}` }, admin);
    // A run pays only partners with payout details.
    await client.request('PATCH', api(`/partners/${partner.id}/payout-details`), { payout_method: 'bank_transfer', payout_reference: `DE00 BENCH ${i}` }, admin);
    return `run${program.programId}x${i}`;
  });
  const sales = await runConcurrent(partners, 8, async (i) => {
    const click = await client.request('POST', '/api/v1/track/click', { affiliate_url: `https://bench.example/?aff=${links[i]}` });
    const sale = await client.request('POST', '/api/v1/track/sale', { transaction_id: `run_${i}`, amount_cents: 4900, click_id: click.body.click_id, customer_key: `run_c${i}` }, await auth());
    if (sale.status !== 200) throw new Error(`sale: ${sale.status} ${JSON.stringify(sale.body)}`);
    return sale.body.commission_id as number;
  });
  await runConcurrent(sales.length, 8, async (i) => {
    const reply = await client.request('POST', api(`/commissions/${sales[i]}/approve`), { reason: 'bench' }, admin);
    if (reply.status !== 200) throw new Error(`approve: ${reply.status} ${JSON.stringify(reply.body)}`);
  });
  console.log(`seeded ${partners} partners with an approved commission each in ${fmt((performance.now() - seeded) / 1000, 1)} s`);

  // Tracking of the same program, without pause, for as long as the run takes.
  let running = true;
  const during: { status: number; ms: number }[] = [];
  let n = 0;
  const traffic = async () => {
    while (running) {
      const i = n++;
      const click = await client.request('POST', '/api/v1/track/click', { affiliate_url: `https://bench.example/?aff=${links[i % links.length]}` });
      const sale = await client.request('POST', '/api/v1/track/sale', { transaction_id: `during_${i}`, amount_cents: 2000, click_id: click.body.click_id, customer_key: `during_c${i}` }, await auth());
      const refund = await client.request('POST', '/api/v1/track/refund', { transaction_id: `run_${i % partners}`, refund_amount_cents: 10, refund_id: `re_${i}` }, await auth());
      if (running) during.push(click, sale, refund);
    }
  };
  const workers = Array.from({ length: 8 }, traffic);
  const started = performance.now();
  const run = await client.request('POST', api('/payouts/run'), undefined, admin);
  const runMs = performance.now() - started;
  running = false;
  await Promise.all(workers);
  if (run.status >= 300) throw new Error(`run: ${run.status} ${JSON.stringify(run.body).slice(0, 300)}`);
  const failed = during.filter((r) => r.status >= 300);
  const ms = during.map((r) => r.ms);
  console.log(`payout run: ${run.body.data.payouts.length} payouts in ${fmt(runMs)} ms`);
  console.log(`tracking of the same program during the run: ${during.length} requests, p50 ${fmt(percentile(ms, 50), 1)} ms, p99 ${fmt(percentile(ms, 99), 1)} ms, not 2xx: ${failed.length}`);
  console.log(`RATIO tracking answered 2xx during the run = ${fmt(during.length ? (during.length - failed.length) / during.length : 1, 3)}`);
});
