// npm run chaos: the full run (400+ events, 30+ worker kills, 2 API kills, 2 PostgreSQL restarts).
// Options: --events N --kills N --every MS --api-kills N --restarts N --in-flight N
//   --pooler: through PgBouncer in transaction mode (Debian's pgbouncer)
//   --failover: a primary and a synchronous standby (Debian's PostgreSQL 15); the first restart is a failover
//   --small: the run of `npm test` (60 events, 5 worker kills, 1 API kill, 1 restart)
import { parseArgs } from 'node:util';
import { chaosPassed, formatReport, runChaos } from './lib/chaos.js';

const { values } = parseArgs({
  options: {
    events: { type: 'string', default: '400' },
    kills: { type: 'string', default: '32' },
    every: { type: 'string', default: '5000' },
    'api-kills': { type: 'string', default: '2' },
    restarts: { type: 'string', default: '2' },
    'in-flight': { type: 'string', default: '16' },
    pooler: { type: 'boolean', default: false },
    failover: { type: 'boolean', default: false },
    small: { type: 'boolean', default: false },
  },
});
const small = values.small ? { events: '60', kills: '5', every: '3000', 'api-kills': '1', restarts: '1' } : {};
Object.assign(values, small);

const report = await runChaos({
  events: Number(values.events),
  workerKills: Number(values.kills),
  killEveryMs: Number(values.every),
  apiKills: Number(values['api-kills']),
  databaseRestarts: Number(values.restarts),
  inFlight: Number(values['in-flight']),
  pooler: values.pooler,
  failover: values.failover,
  log: (line) => console.log(line),
});
console.log(formatReport(report));
const passed = chaosPassed(report);
console.log(passed ? 'chaos: PASSED' : 'chaos: FAILED');
process.exit(passed ? 0 : 1);
