// Every queue's name is written once, in src/core/queue-names.ts (issue 45, item 4): the queue's
// set-up (src/platform/), the SQL that writes jobs beside its rows (src/db/) and the handlers
// (src/jobs/) import it from there, so no layer reaches sideways for a name.
import { readFile, readdir } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = join(import.meta.dirname, '..', 'src');

async function sourceFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const nested = await Promise.all(entries.map((entry) => (entry.isDirectory() ? sourceFiles(join(dir, entry.name)) : Promise.resolve(entry.name.endsWith('.ts') ? [join(dir, entry.name)] : []))));
  return nested.flat();
}

describe('queue names', () => {
  it('are defined only in src/core/queue-names.ts', async () => {
    const definitions: string[] = [];
    for (const file of await sourceFiles(SRC)) {
      const text = await readFile(file, 'utf8');
      for (const match of text.matchAll(/export const (\w+_QUEUE)\s*(?::[^=]+)?=\s*'/g)) definitions.push(`${relative(SRC, file)}: ${match[1]}`);
    }
    expect(definitions.filter((line) => !line.startsWith('core/queue-names.ts:'))).toEqual([]);
    expect(definitions.length).toBeGreaterThanOrEqual(9);
  });

  it('reach the queue set-up from the core, not from src/db', async () => {
    const text = await readFile(join(SRC, 'platform', 'queue.ts'), 'utf8');
    expect(text).toContain("from '../core/queue-names.js'");
    expect(text).not.toMatch(/from '\.\.\/db\/(outbound|bulk-actions|mail)\.js'/);
  });
});
