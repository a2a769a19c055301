// The order files start in. Without timings of an earlier run (a fresh clone: vitest keeps them
// under node_modules), vitest starts the largest files first, and the three files that take
// longest of all, small ones waiting on spawned services and clocks, started last and ran alone
// at the end. These start first; every other file keeps vitest's order.
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Files taking over 25 s on two cores, longest first (a run on two cores, the suite of issue 45). */
const LONGEST = [
  'test/chaos.test.ts',
  'test/failover.test.ts',
  'test/pooler.test.ts',
  'test/scope-plans.test.ts',
  'test/crash-recovery.test.ts',
  'test/service-start.test.ts',
  'test/start-waits.test.ts',
  'test/cli-client.test.ts',
  'test/browser/accessibility.test.ts',
  'test/bulk-actions.test.ts',
  'test/production-image.test.ts',
  'test/browser/dashboard.test.ts',
];

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
