// The order files start in. Without timings of an earlier run (a fresh clone: vitest keeps them
// under node_modules), vitest starts the largest files first, and the three files that take
// longest of all, small ones waiting on spawned services and clocks, started last and ran alone
// at the end. These start first; every other file keeps vitest's order.
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Files taking over 20 s on two cores (a run of this stop), in two kinds: those keeping the cores
 * busy (browsers, big seeds) and those mostly waiting (services killed and restarted, leases
 * running out), each longest first. Started alternately, so that a waiting file runs beside a busy
 * one: two waiting files side by side left the cores half idle. The waiting files left over when
 * the busy ones run out start last of the list, before every other file.
 */
const BUSY = [
  'test/scope-plans.test.ts',
  'test/browser/accessibility.test.ts',
  'test/bulk-actions.test.ts',
  'test/browser/dashboard.test.ts',
];
const WAITING = [
  'test/chaos.test.ts',
  'test/pooler.test.ts',
  'test/crash-recovery.test.ts',
  'test/failover.test.ts',
  'test/cli-client.test.ts',
  'test/service-start.test.ts',
];
const LONGEST = Array.from({ length: Math.max(BUSY.length, WAITING.length) }, (_, i) => [BUSY[i], WAITING[i]]).flat().filter((file): file is string => file !== undefined);

export class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (file: TestSpecification) => {
      const at = LONGEST.indexOf(relative(file.project.config.root, file.moduleId).replaceAll('\\', '/'));
      return at === -1 ? LONGEST.length : at;
    };
    const timed = sorted.every((file) => this.ctx.cache.getFileTestResults(`${file.project.name}:${relative(this.ctx.config.root, file.moduleId)}`));
    return timed ? sorted : [...sorted].sort((a, b) => rank(a) - rank(b));
  }
}
